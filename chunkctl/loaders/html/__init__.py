"""The HTML loader, stage by stage: element classes (`elements`), charset prescan (`charset`), nesting guard (`nesting`),
content selection (`select`), rendering to raw blocks (`render`), document assembly and the registered loader (`loader`);
the text helpers they use (`text`)."""
