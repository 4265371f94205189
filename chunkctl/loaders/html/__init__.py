"""The HTML loader: charset prescan, content selection, rendering to typed blocks (`loader`), and the text helpers it uses (`text`)."""
