"""HTML element classes: tag names and attribute patterns that say what an element is; no DOM, no text."""

from __future__ import annotations

import re

HEADING_LEVELS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# Never text, whatever the options: code, styling, inert or embedded content, furigana.
ALWAYS_DROPPED = frozenset(
    "script style noscript template head title meta link base svg canvas iframe frame frameset object embed "
    "video audio source track img picture map area input param rt rp noembed noframes".split())
# Page furniture, dropped unless keep_boilerplate (`header` only outside article/section/main: see is_furniture).
FURNITURE_TAGS = frozenset("nav footer aside form button select textarea dialog search".split())
FURNITURE_ROLES = frozenset("navigation banner contentinfo search complementary dialog alertdialog".split())
# Elements inside which a <header> is the section's own heading block, not the page banner (HTML-AAM).
SECTIONING = frozenset("article aside main nav section".split())
BLOCK_TAGS = frozenset(
    "address article aside blockquote body center dd details dialog dir div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend li listing main menu nav ol p plaintext pre "
    "search section summary table caption thead tbody tfoot tr td th ul xmp optgroup option".split())
PRE_TAGS = frozenset("pre listing xmp plaintext".split())
LIST_TAGS = frozenset("ul ol menu dir dl".split())
CELL_BLOCKS = "p, div, ul, ol, dl, pre, blockquote, h1, h2, h3, h4, h5, h6, table table"

CONSENT = re.compile(r"(?:^|[\s_-])(?:cookie|cookies|consent|gdpr|cmp)(?:$|[\s_-])|cookiebot|onetrust|"
                      r"cookie-?(?:banner|notice|bar|law)", re.I)
DISPLAY_NONE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]{1,40})")
# Decoration dropped whatever the options (`select.is_decoration`): code line numbers (Pygments'
# `linenos`/`lineno`/`linenodiv`, Rouge's `rouge-gutter`, Prism's `line-numbers-rows`, highlight.js's
# `hljs-ln-numbers`, GitHub's `blob-num`; Hexo's `td.gutter`) holding digits only, and the in-page
# permalinks of headings whose text is a sign only (Sphinx's and MkDocs' "¶", "#", "§", a link emoji,
# Docusaurus' zero-width space).
LINE_NUMBER_CLASSES = frozenset("linenos lineno linenodiv rouge-gutter line-numbers-rows hljs-ln-numbers "
                                "blob-num".split())
PERMALINK_TEXT = re.compile(r"[\s\u200b-\u200d\u2060\ufeff¶§#🔗⚓]*")
PERMALINK_CLASS = re.compile(r"headerlink|anchor|hash-link|permalink|heading-link", re.I)
LINE_NUMBERS_TEXT = re.compile(r"[\d\s]*")
# MediaWiki's section edit links, "[edit]" after every heading of Wikipedia and other wikis (its
# skins' `mw-editsection`, older ones' `editsection`): "History[edit]" was the heading and the
# breadcrumb of every chunk of a Wikipedia page.
EDIT_SECTION_CLASSES = frozenset(("mw-editsection", "editsection"))
# Wiki chrome left out with the furniture (MediaWiki's names): "From Wikipedia, the free encyclopedia"
# (`siteSub`), navigation boxes (`navbox`: a table of links at the foot of an article), "Jump to
# navigation" links, category links (helper-91). Not `noprint`, which other sites put on content too
# (helper-92: an article's title and standfirst).
WIKI_FURNITURE_CLASSES = frozenset("navbox vertical-navbox navbox-styles mw-jump mw-jump-link catlinks".split())
WIKI_FURNITURE_IDS = frozenset("siteSub jump-to-nav catlinks".split())  # (skins before the classes)
