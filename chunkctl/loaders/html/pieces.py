"""HTML pieces: where a large page's markup can be cut so each piece is parsed alone, found by one
regex scan with an approximate stack of open elements; no tree, no text.

lexbor's tree costs some 140 bytes a node (18-36x the markup of a page of small elements), so a
page is parsed whole only below `PIECES_FROM` characters. Above that, the markup is cut into
pieces of about `PIECE_CHARS` characters, each cut just before the start tag of a block (a
paragraph, a list item, a table row...) or, inside a `<pre>`, just after a line break (one
every piece's worth of its text, never before another line break, which the parser would drop
right after the `<pre>` start tag of the next piece's prefix), where
every element still open is a plain container (a `div`, a list, a table and its row group, a
quote, a `pre`...). Each piece is parsed after the start tags of the elements open at its cut
(`Piece.prefix`), so it builds the same elements the whole page would; the renderer carries
their state (an open table, list or code block) from one piece to the next
(`render.Renderer.render`: `resume`, `suspend`).

The stack follows the HTML parsing rules that matter at such cuts (void elements, an open
`p`, `li`, `dt`/`dd`, table row or cell closed by the next one, a row group lexbor adds
around rows); where it still disagrees with the parser, the loader checks the open elements
by name on each piece's tree and carries only the agreeing ones (a mismatch costs structure,
never text: the pieces partition the markup and a prefix holds no text).
"""

from __future__ import annotations

import bisect
import codecs
import html as html_entities
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from chunkctl.loaders.headings import TITLE_CHARS
from chunkctl.loaders.html import select
from chunkctl.loaders.html.elements import ALWAYS_DROPPED, LINE_NUMBER_CLASSES, PERMALINK_TEXT
from chunkctl.loaders.html.nesting import MAX_DEPTH

PIECES_FROM = 4_000_000  # characters of markup from which a page is read in pieces
PIECES_FROM_TAGS = 64_000
"""`<` characters (about one a tag) from which a shorter page is read in pieces too: lexbor's tree,
the main-content scores and the renderer's state take 350-750 bytes a tag (3.96 M characters of
one-word paragraphs, 660,000 tags: 234 MB over the start-up read whole; 3.45 MB of a rustdoc
source page, 100,000 tags: 76 MB), so a page is held whole only up to some 50 MB; real pages
have some 26-35 characters a tag (a 1.9 MB print page of a book: 49,500), and keep the
main-content selection up to about 1.7-2.2 MB."""
PIECE_CHARS = 256_000  # characters of markup a piece reaches before it is cut at the next safe point
FORGET_FROM = 4096  # facts kept by element offset (tables' rows...) from which closed elements' are forgotten

_OTHER_TOKENS = (
    r"<!--(?:-?>|.*?(?:--!?>|\Z))|<!\[CDATA\[.*?(?:\]\]>|\Z)|<[!?][^>]*>?|</>|</[^A-Za-z>][^>]*>?"  # (</!--> is a comment, </> nothing)
    r"|</([A-Za-z][^\s/>]*)[^>]*>?")
_START_TAG = r"<([A-Za-z][^\s/>]*)((?:[^>=]|=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>\"'][^\s>]*|(?=[\s>])))*)>"
# a start tag whose quoted attribute value never ends: the rest of the page is in it
_OPEN_VALUE = r"(<[A-Za-z][^\s/>]*(?:[^>=]|=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>\"'][^\s>]*|(?=[\s>])))*=\s*[\"'])"
_TOKEN_PATTERN = _OTHER_TOKENS + "|" + _START_TAG + "|" + _OPEN_VALUE
_TOKEN = re.compile(_TOKEN_PATTERN, re.S)
_TOKEN_BYTES = re.compile(_TOKEN_PATTERN.encode(), re.S)
# After the page's last ">" no start tag can end: the same tokens without them (`(?!)` keeps the
# groups), so a `<y` there is not tried to the end of the page, once a `<` (helper-54: 80 KB of
# "x<y " took 314 s).
_TAIL_PATTERN = _OTHER_TOKENS + "|(?!)" + _START_TAG + "|(?!)" + _OPEN_VALUE
_TAIL = re.compile(_TAIL_PATTERN, re.S)
_TAIL_BYTES = re.compile(_TAIL_PATTERN.encode(), re.S)
_ENDS = ("-->", "--!>", "]]>")  # (a comment's or CDATA's end: one cut short at the last ">" has none)
_ENDS_BYTES = tuple(e.encode() for e in _ENDS)
# Elements whose content is text up to their end tag (never cut inside, never scanned for tags).
_RAW = frozenset("script style textarea title xmp iframe noembed noframes".split())
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr keygen basefont "
                  "bgsound frame image".split())
_IGNORED = frozenset("html head body".split())
_FOREIGN = frozenset("svg math".split())
# Start tags that take the parser out of foreign content (svg, math) to the HTML element around it,
# unless an integration point is open in it (the HTML standard's rules for tokens in foreign
# content; `font` too with a color, face or size attribute, and the end tags `</p>` and `</br>`).
# (`sup` aside: lexbor keeps it in the svg or math, helper-62)
_BREAKOUT = frozenset("b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img "
                      "li listing menu meta nobr ol p pre ruby s small span strong strike sub table tt u ul "
                      "var".split())
_FONT_BREAKOUT = re.compile(r"(?:^|[\s/\"'])(?i:color|face|size)(?=[\s/=>]|$)")
_FONT_BREAKOUT_BYTES = re.compile(_FONT_BREAKOUT.pattern.encode())
_INTEGRATION = frozenset("foreignobject desc title mi mo mn ms mtext annotation-xml".split())
# Inside an `<svg>` (left out whole by the renderer, `elements.ALWAYS_DROPPED`) a piece may be cut before
# a start tag, the next piece reopening only the `<svg>` (the parser ignores the end tags of the SVG
# elements it lacks), until the svg holds an integration point (whose HTML the reopened svg would
# not have around it), another svg or math (whose end tag would end the reopened one), `font`,
# or an end tag of no element open in it (`</div>` may close it).
# Elements that may be open at a cut: containers whose children are blocks (or a pre's lines).
_SAFE = frozenset("div section article main aside header footer nav center blockquote ul ol menu dir dl li dd "
                  "dt table tbody thead tfoot figure details form fieldset pre listing code search hgroup "
                  "address noscript".split())
_PRE = frozenset("pre listing".split())
_PLAIN_SAFE = _SAFE | {"plaintext"}  # (a plaintext, its text to the end of the page, open at a cut in it)
# Elements that may be open at a cut inside text too: a paragraph, a span, and formatting elements
# the parser keeps no more than once (not `a`, `nobr`, whose start tag closes an open one).
_INLINE = frozenset("span b big em font i s small strike strong tt u".split())
_SAFE_TEXT = _SAFE | _INLINE | {"p"}
# Elements not cut inside before they are half a piece long: those whose tests read the whole element
# (a data table or layout, a form content or furniture) see enough of it in the piece they start in.
_SETTLE = frozenset({"table", "form"})
# Start tags a piece may begin with where no block starts and no text can be cut for a quarter piece
# more (a page of images, line breaks or empty links: helper-70's page of comments took 12x its size
# in one tree, one of `<br>` 81x): elements the parser inserts where it stands, with no rule of their
# own but reopening formatting elements (the cut waits while one is pending), and, where they nest,
# none that may stay open at a cut; raw text ones too (helper-74's page of iframes took 22x its size).
_CUT_BEFORE_INLINE = _INLINE | frozenset("a abbr bdi bdo br cite data dfn img kbd label mark q samp sub sup "
                                         "time var wbr iframe script style".split())
# Elements that may be open at a cut before a block: the containers, and inline elements that hold
# no block there (`<font face=Arial><p>..</p><p>..</font>`, common on old pages, was read whole), a
# link too (an `<a>` closes an open one as the parser does: `close_a`; `<h2><a name=x>TODO</h2>`, the
# rest of the page in the link the parser opens again, was read whole until 0.1.26).
_SAFE_BLOCK = _SAFE | _INLINE | {"a"}
_CELL_PARTS = frozenset("tr td th".split())
# role="presentation" or "none" on a table: layout (`select.is_data_table`), whatever its rows
_LAYOUT_ROLE = re.compile(r"""(?:^|[\s"'/])(?i:role)\s*=\s*(?i:"\s*(?:presentation|none)\s*"|'\s*(?:presentation|none)\s*'"""
                          r"""|(?:presentation|none)(?=[\s/>]|$))""")
_LAYOUT_ROLE_BYTES = re.compile(_LAYOUT_ROLE.pattern.encode())
# Start tags whose element makes a form around it content, not furniture (`select.is_furniture`):
# a form is cut inside only after one, which its first piece then holds (an ASP.NET page is one form),
# or after `select.FORM_TEXT` characters of its text, counted as `form_chars` in `_scan` counts them.
_FORM_CONTENT = frozenset("h1 h2 article main".split())
# Start tags a piece may begin with.
_CUT_BEFORE = frozenset("p div li tr tbody thead tfoot h1 h2 h3 h4 h5 h6 ul ol dl dt dd table pre blockquote "
                        "section article aside header footer nav main figure details hr address center form "
                        "fieldset hgroup menu dir search listing".split())
# Start tags that close an open `p` (in button scope), and the elements that bound that scope.
_CLOSES_P = _CUT_BEFORE - {"tbody", "thead", "tfoot", "tr", "li", "dt", "dd"} | {
    "li", "dt", "dd", "plaintext", "xmp", "dialog", "figcaption", "summary"}  # (helper-53: the last four)
_SCOPE = frozenset("table td th caption button object marquee applet template html".split())
# Elements that stop the search for an open `li` (or `dt`/`dd`) to close: "special" ones but address, div, p.
_DEFAULT_SCOPE = _SCOPE - {"button"}
_P_SCOPE = _SCOPE
_LI_SCOPE = _DEFAULT_SCOPE | {"ul", "ol"}
_MARKERS = frozenset("td th caption applet marquee object template".split())
_IMPLIED_END = frozenset("p li dt dd option optgroup rb rp rt rtc".split())
_RUBY_PARTS = frozenset("rb rp rt rtc".split())
# Start tags before which the parser does not open again the formatting elements on its list (the
# HTML standard's "in body" rules: blocks, table parts, the head's elements, and a few of their own);
# before any other it does, as it does before text (`_scan`'s `reconstruct`).
_NO_REOPEN = frozenset(
    "base basefont bgsound link meta noframes script style template title frameset address article aside "
    "blockquote center details dialog dir div dl fieldset figcaption figure footer header hgroup main menu nav "
    "ol p search section summary ul h1 h2 h3 h4 h5 h6 pre listing form li dd dt plaintext table hr textarea "
    "iframe noembed caption col colgroup frame tbody td tfoot th thead tr param source track rb rtc rp rt".split())
# Formatting elements the scan follows on the parser's list at most (beyond, it stops following it)
_LIST_MAX = 64
_FORMATTING = frozenset("a b big code em font i nobr s small strike strong tt u".split())
# The HTML standard's "special" elements (of those the scan keeps; foreign ones aside)
_SPECIAL = frozenset("address applet area article aside base basefont bgsound blockquote body br button caption "
                     "center col colgroup dd details dir div dl dt embed fieldset figcaption figure footer form "
                     "frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li link "
                     "listing main marquee menu meta nav noembed noframes noscript object ol p param plaintext pre "
                     "script search section select source style summary table tbody td template textarea tfoot th "
                     "thead title tr track ul wbr xmp".split())
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
# Elements that stop the search for an open `li` (or `dt`/`dd`) to close: special ones but address, div, p
# (helper-53: `<li><center>a<li>` nests the new item in the center).
_ITEM_STOP = _SPECIAL - {"address", "div", "p"}
# End tags the tree builder closes by scope (with what is open inside); any other walks down from
# the current element and stops at a special one.
_SCOPED_END = frozenset("address article aside blockquote button center details dialog dir div dl fieldset "
                        "figcaption figure footer header hgroup listing main menu nav ol pre search section "
                        "summary ul form p li dd dt applet marquee object table tbody thead tfoot tr td th "
                        "caption template html".split())
_ROW_GROUPS = frozenset("tbody thead tfoot".split())
_TABLE_SCOPE = frozenset("html table template".split())
_IN_HEAD = frozenset(("noscript", "template"))  # elements kept open at a cut that may stand in the head
_TEMPLATE = frozenset(("template",))  # (a template's content is a fragment of its own: no table outside it is its)
_TABLE_PARTS = _ROW_GROUPS | {"tr", "td", "th"}
_TABLE_HEAD = frozenset(("caption", "colgroup"))  # (ignored outside a table; in one, opened in the table itself)
# Open elements whose children the parser moves before the table ("foster parenting") unless they
# are one of `_IN_TABLE`; text other than white space moves too.
_TABLE_CONTEXT = frozenset("table tbody thead tfoot tr".split())
_IN_TABLE = frozenset("caption colgroup col tbody thead tfoot tr td th table style script template".split())
_TEXT = re.compile(r"[^ \t\n\r\f]")
_TEXT_BYTES = re.compile(_TEXT.pattern.encode())
# A cut in text: after white space, before a character that is neither white space nor a reference's
# `&` (white space at a piece's start is dropped where the parser has not opened the body yet).
_WORD_START = re.compile(r"[ \t\n\r\f][^ \t\n\r\f&<]")
_WORD_START_BYTES = re.compile(_WORD_START.pattern.encode())
_CHAR = re.compile(r"[^ \t\n\r\f&<]")
_CHAR_BYTES = re.compile(_CHAR.pattern.encode())
# The most a character reference can take from its `&` (a numeric one has any number of digits).
_REF_PATTERN = r"&[#0-9A-Za-z]*;?"
_REF = re.compile(_REF_PATTERN)
_REF_BYTES = re.compile(_REF_PATTERN.encode())
# Else the first character but those (in UTF-8 bytes: not a continuation byte) after any references
# (each taken whole, as far as it could reach: atomic, so a match never ends inside one).
_OUTSIDE = re.compile(rf"(?>{_REF_PATTERN}|[ \t\n\r\f<])*+([^ \t\n\r\f&<])")
_OUTSIDE_UTF8 = re.compile(rf"(?>{_REF_PATTERN}|[ \t\n\r\f<\x80-\xbf])*+([^ \t\n\r\f&<\x80-\xbf])".encode())
# References (a numeric one may stand for a space: `&#8201;`) and white space, skipped before a character
# that may be visible (a text node of only characters Python calls white space is a space to the
# renderer: a piece's part of a text run must hold a character of another kind).
_INVISIBLE = re.compile(rf"(?>{_REF_PATTERN}|[\s\xad\x00])*+")
_INVISIBLE_BYTES = re.compile(rf"(?>{_REF_PATTERN}|[ \t\n\r\f\x0b\x1c-\x1f])*+".encode())
# Classes of elements whose decoration test reads their whole text (`select.is_decoration`): never cut inside.
_DECORATION = re.compile("|".join(sorted(LINE_NUMBER_CLASSES)) + "|gutter", re.I)
_DECORATION_BYTES = re.compile(_DECORATION.pattern.encode(), re.I)
# An attribute of a start tag (after its name): its name, and its value if any (`_has_attribute`).
_ATTRIBUTE = re.compile(r"""[\s/]*([^\s/>][^\s/>=]*)(?:\s*=\s*(?:"[^"]*"?|'[^']*'?|[^\s>]*))?""")
_ATTRIBUTE_BYTES = re.compile(_ATTRIBUTE.pattern.encode())


def _left_on_list(tail: list[_Open], k: int) -> bool:
    """Whether an end tag in foreign content that closed the elements of `tail` (the foreign
    elements open before it, outermost first) from index `k` on (-1: all of them and more) left
    an HTML formatting element on the parser's list: one in an integration point, above the
    element the end tag names (closed with it, not by its own end tag)."""
    point = False
    for i, o in enumerate(tail):
        if i > k and point and o[0] in _FORMATTING:
            return True
        point = point or o[0] in _INTEGRATION
    return False


def _has_attribute(attrs: Any, name: str) -> bool:
    """Whether the attributes of a start tag as written (`attrs`, str or bytes: what follows the
    tag's name) hold one named `name` (lower case), read one after another as the tokenizer reads
    them (a value that holds the name is not it: `class="a reversed"`, helper-98)."""
    pattern = _ATTRIBUTE_BYTES if isinstance(attrs, bytes) else _ATTRIBUTE
    want: Any = name.encode() if isinstance(attrs, bytes) else name
    pos, n = 0, len(attrs)
    while pos < n:
        m = pattern.match(attrs, pos)
        if m is None or m.end() == pos:
            return False
        if m.group(1).lower() == want:
            return True
        pos = m.end()
    return False
# A link to a place in the page (`href="#..."`, `_in_page`): a heading's permalink when its text is a sign only
# (`select.is_decoration`), which the renderer decides where the element starts, for the pieces after it
# too; so not cut inside until some text in it is not a sign (`_scan`'s `anchors`).
_HREF = re.compile(r"""(?:^|[\s"'/])(?i:href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*))""")
_HREF_BYTES = re.compile(_HREF.pattern.encode())


def _in_page(attrs: Any, encoding: str | None) -> bool:
    """True when the start tag's attributes `attrs` (text, or bytes in `encoding`) hold an `href`
    whose value, its character references decoded and leading white space stripped, starts with
    "#" (as `select.is_decoration` reads it: `&#35;x` and `&nbsp;#x` too, helper-96)."""
    m = (_HREF_BYTES if isinstance(attrs, bytes) else _HREF).search(attrs)
    if m is None:
        return False
    value = m.group(1) if m.group(1) is not None else m.group(2) if m.group(2) is not None else m.group(3)
    if isinstance(value, bytes):
        value = value.decode(encoding or "utf-8", "replace")
    return html_entities.unescape(value).lstrip().startswith("#")
SIGN_WINDOW = 4096  # characters (bytes) of a text run read for a character that is not a sign
# Markup the tokens above should have taken (a tag they do not read): text is cut only before it.
_MARKUP = re.compile(r"<[A-Za-z!/?]")
_MARKUP_BYTES = re.compile(_MARKUP.pattern.encode())
# Elements whose text the form's count leaves out, as `select._text_len` does (script, style and
# textarea among them are raw text, which the scan skips anyway).
_UNCOUNTED = frozenset(select.CONTROL_TAGS)
# What a form's text count leaves out of a text run: white space, NUL (the parser drops it) and
# character references (one may stand for white space), so that the count is never more than
# `select._text_len` finds in the form's tree.
_NOT_COUNTED = re.compile(rf"{_REF_PATTERN}|[\s\x00]+")
COUNT_SLICE = 1 << 16  # characters of a text run counted at a time (`text_chars_in`)
# A role attribute: a form with one may be furniture (`role="search"`) whatever its text.
_ROLE_ATTR = re.compile(r"""(?:^|[\s"'/])(?i:role)\s*=""")
_ROLE_ATTR_BYTES = re.compile(_ROLE_ATTR.pattern.encode())
# A form's start tag: the text of a page with one is counted (see `_scan`'s `unsure`).
_FORM_TAG = re.compile(r"<form[\s/>]", re.I)
_FORM_TAG_BYTES = re.compile(_FORM_TAG.pattern.encode(), re.I)
_DEEPEST = 2 * MAX_DEPTH  # open elements past which a page is not cut (read whole)
# Past `_SHALLOW` open elements, a failed test for a cut holds the next one back for `_BACKOFF`
# characters (bytes) of markup an open element, a quarter piece at most, until the stack is that
# shallow again: those tests (each a walk of the stack) take time linear in the page however deep it
# nests and wherever no cut is allowed.
_SHALLOW = 200
_BACKOFF = 64


_Open = tuple[str, Any, int]  # an open element: name, start tag as written (str or bytes), offset of its start tag


class _Stack(list[_Open]):
    """The scan's stack of open elements (`_Open`, outermost first) that keeps an index as it
    changes: the positions of its elements by name (`names`: name -> indices, innermost last),
    its start-tag offsets (`offsets`: offset -> count), the length of their start tags (`markup`:
    a piece's prefix, in characters or bytes) and the lowest depth it has had since it was made
    (`low`: the elements below it are those of the stack it was copied from). With them the
    innermost element of some names, and whether one stands in a scope (`find`), take the same
    time at any depth: walks of the stack at each tag made a page of 300 nested `<div>`s and
    2 M paragraphs quadratic, so pages nested past 200 elements were read whole (65x the page).
    Removing elements from the top keeps the index; one from the middle (the adoption agency)
    rebuilds it."""

    __slots__ = ("names", "offsets", "markup", "low", "_popped")
    names: dict[str, list[int]]
    offsets: dict[int, int]
    markup: int
    low: int
    _popped: _Open

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        if isinstance(items, _Stack):
            self.names = {name: at.copy() for name, at in items.names.items()}
            self.offsets, self.markup = dict(items.offsets), items.markup
        else:
            self._index()
        self.low = len(self)

    def _index(self) -> None:
        self.names, self.offsets, self.markup = {}, {}, 0
        for i, o in enumerate(self):
            self._add(o, i)

    def _add(self, o: _Open, i: int) -> None:
        self.names.setdefault(o[0], []).append(i)
        self.offsets[o[2]] = self.offsets.get(o[2], 0) + 1
        self.markup += len(o[1])

    def _drop_top(self, o: _Open) -> None:
        """Unindex `o`, an element removed from the top (the innermost of its name)."""
        at = self.names[o[0]]
        at.pop()
        if not at:
            del self.names[o[0]]
        k = self.offsets[o[2]] - 1
        if k:
            self.offsets[o[2]] = k
        else:
            del self.offsets[o[2]]
        self.markup -= len(o[1])

    def append(self, o: _Open) -> None:
        super().append(o)
        self._add(o, len(self) - 1)

    def pop(self, i: Any = -1) -> _Open:
        del self[i]  # (through __delitem__)
        return self._popped

    def __delitem__(self, i: Any) -> None:
        if isinstance(i, slice):
            first, stop, step = i.indices(len(self))
        else:
            self[i]  # (an index out of range raises IndexError, as a list's)
            first = i if i >= 0 else len(self) + i
            stop, step = first + 1, 1
        gone = self[first:stop:step]
        if not gone:
            return
        super().__delitem__(i)
        if step == 1 and stop >= len(self) + len(gone):  # (from the top)
            for o in gone:
                self._drop_top(o)
        else:
            self._index()
        self.low = min(self.low, first)
        self._popped = gone[-1]

    def count(self, names: Any) -> int:
        """Open elements named in `names` (a set of names)."""
        return sum(len(self.names.get(name, ())) for name in names)

    def has(self, names: Any) -> bool:
        """True when an element named in `names` (a set of names) is open."""
        return not self.names.keys().isdisjoint(names)

    def innermost(self, names: Any) -> int:
        """Index of the innermost open element named in `names`, or -1."""
        at = self.names
        return max((at[name][-1] for name in at.keys() & names), default=-1)

    def find(self, names: Any, stop: Any) -> int:
        """`_find`: the innermost element named in `names` unless one of `stop` stands above it."""
        i = self.innermost(names)
        return i if i >= 0 and i >= self.innermost(stop) else -1


_Entry = tuple[str, int, Any, int]  # a formatting element: (name, markers open around it, start tag, innermost marker's offset or -1)


class _Pending(dict[int, _Entry]):
    """The formatting elements on the parser's list but not open (start-tag offset -> `_Entry`),
    indexed by their marker context (the markers open around each, and the innermost one's offset)
    and, in each, by name (offsets ascending), so that clearing those of a closed cell (`purge`)
    and finding the one an end tag takes off the list (`last`) cost the entries concerned, not all
    of them. Where the scan stops following the list, entries are no longer opened again and the
    list only grows (`<nobr>`, then `<p><i>x</p>` for each paragraph): each element's end walked
    them all, quadratic in the page (helper-89: 146 s to scan 20 MB before reading it whole).
    Set, delete and `pop` keep the index; other dict mutators are not used on it."""

    __slots__ = ("groups",)
    groups: dict[tuple[int, int], dict[str, list[int]]]

    def __init__(self, items: Any = ()) -> None:
        super().__init__()
        self.groups = {}
        for at, entry in dict(items).items():
            self[at] = entry

    def __setitem__(self, at: int, entry: _Entry) -> None:
        if at in self:
            del self[at]
        super().__setitem__(at, entry)
        bisect.insort(self.groups.setdefault((entry[3], entry[1]), {}).setdefault(entry[0], []), at)

    def __delitem__(self, at: int) -> None:
        entry = super().pop(at)
        group = self.groups[entry[3], entry[1]]
        named = group[entry[0]]
        named.remove(at)
        if not named:
            del group[entry[0]]
            if not group:
                del self.groups[entry[3], entry[1]]

    def pop(self, at: int, *default: Any) -> Any:
        if at not in self and default:
            return default[0]
        entry = self[at]
        del self[at]
        return entry

    def purge(self, markers: int, live: Any) -> None:
        """Drop the entries opened with more than `markers` markers around them, or in a marker
        whose offset is not in `live` (the open elements' offsets): a closed cell or caption
        clears the formatting opened in it."""
        for (mk, k), group in list(self.groups.items()):
            if k > markers or mk >= 0 and mk not in live:
                for named in list(group.values()):
                    for at in list(named):
                        del self[at]

    def last(self, name: str, markers: int) -> int:
        """Offset of the last entry named `name` opened with `markers` markers or more around it,
        or -1."""
        return max((g[name][-1] for (_, k), g in self.groups.items() if k >= markers and name in g), default=-1)


@dataclass(frozen=True)
class Piece:
    """One piece of a page's markup: `html[start:end]` (character offsets) parsed after `prefix`,
    the start tags of the elements open at `start`; `open_names` (outermost first) are the
    names of those prefix elements, `close_names` those of the elements still open at `end`
    (the next piece's `open_names`)."""

    start: int
    end: int
    prefix: str
    open_names: tuple[str, ...]
    close_names: tuple[str, ...]


def _find(stack: _Stack, names: frozenset[str] | set[str], stop: frozenset[str]) -> int:
    """Index of the innermost open element named in `names`, searching outwards until an element
    of `stop`; -1 when none (by the stack's index: `_Stack.find`)."""
    return stack.find(names, stop)


def _in_table_mode(stack: _Stack) -> bool:
    """True when the parser reads tags in table mode: a table is open and no cell or caption in it
    (elements it moved before the table may be open: their content is read in table mode too; a
    template's content is not, whatever is open around it)."""
    if "table" not in stack.names:
        return False
    for name, _, _ in reversed(stack):
        if name in ("td", "th", "caption", "template"):
            return False
        if name == "table":
            return True
    return False


def _start(stack: _Stack, name: str, tag: Any, at: int, quirks: bool = False) -> bool:
    """Apply a start tag's implied end tags, then open it; False when it opens nothing (a void
    element, a table part outside a table). In `quirks` mode a `<table>` leaves a `<p>` open."""
    if name in ("form", "table") and _in_table_mode(stack):
        if name == "form":
            return False  # right in a table (not in a cell) a form is closed as soon as it is made
        del stack[_find(stack, {"table"}, frozenset()):]  # a table there closes the table, then opens after it
    if name in _CLOSES_P and not (quirks and name == "table"):
        i = _find(stack, {"p"}, _SCOPE)
        if i >= 0:
            del stack[i:]
    if name == "li":
        i = _find(stack, {"li"}, _ITEM_STOP)
        if i >= 0:
            del stack[i:]
    elif name in ("dt", "dd"):
        i = _find(stack, {"dt", "dd"}, _ITEM_STOP)
        if i >= 0:
            del stack[i:]
    elif name in _HEADINGS:
        if stack and stack[-1][0] in _HEADINGS:
            stack.pop()
    elif name in _RUBY_PARTS:
        if _find(stack, {"ruby"}, _DEFAULT_SCOPE) >= 0:  # implied end tags (an rtc kept for an rt or rp)
            while stack and stack[-1][0] in _IMPLIED_END and not (name in ("rt", "rp") and stack[-1][0] == "rtc"):
                stack.pop()
    elif name in _TABLE_PARTS or name in _TABLE_HEAD:
        t = _find(stack, {"table"}, _TEMPLATE)
        if t < 0:
            return False  # outside a table the parser ignores these start tags (in a template, not
            # followed: its rows stand in it, which its end tag closes; helper-98: `<caption><pre></caption>`
            # held a caption, whose stray end tag closed the pre with it)
        keep = {"table"} if name in _ROW_GROUPS or name in _TABLE_HEAD else {"table", *_ROW_GROUPS} if name == "tr" \
            else {"table", "tr", *_ROW_GROUPS}
        while stack[-1][0] not in keep:
            stack.pop()
        if name not in _ROW_GROUPS and name not in _TABLE_HEAD and stack[-1][0] == "table":  # (a caption in the table)
            stack.append(("tbody", "<tbody>", at))  # rows always stand in a row group
        if name in ("td", "th") and stack[-1][0] != "tr":
            stack.append(("tr", "<tr>", at))
    if name in _VOID:
        return False
    stack.append((name, tag, at))
    return True


# A doctype named html with nothing after the name but a public or system id (anything else makes
# it a bogus doctype, which forces quirks: helper-54)
_HTML_DOCTYPE = re.compile(r"<!doctype\s+html\s*(?:>|(?:public|system)[\s\"'])", re.I)
# The HTML standard's public id prefixes that mean quirks, in short, and its one system id
_QUIRKY_IDS = re.compile(
    r'public\s*["\'](?:-//w3c//dtd html (?:4\.0 |3|2|experimental)|-//w3c//dtd w3 html|\+//silmaril//'
    r"|-//(?:ietf|w3o|metrius|microsoft|netscape comm\. corp\.|o'reilly and associates|sq|softquad|softquad software"
    r"|spyglass|sun microsystems corp\.|webtechs|as|advasoft ltd)//|-/w3c/dtd html 4\.0 transitional/en[\"']|html[\"']"
    r'|[^"\']*//dtd html 4\.01 (?:transitional|frameset)//[^"\']*["\']\s*>)'
    r'|["\']http://www\.ibm\.com/data/dtd/v11/ibmxhtml1-transitional\.dtd["\']', re.I)


def is_quirks(doctype: str) -> bool:
    """True when a page of this doctype ("" for none) is parsed in quirks mode, as far as a
    cut needs: no doctype, one not named html or with more than ids after the name, and the
    HTML standard's legacy public ids (HTML 2, 3.2, 4.0, 4.01 Transitional or Frameset without
    a system id, vendors' DTDs) and its IBM system id."""
    return not _HTML_DOCTYPE.match(doctype) or _QUIRKY_IDS.search(doctype) is not None


def _lead(lead: list[tuple[int, Any]], at: int, encoding: str | None) -> str:
    """The doctype and `<body>` tags of `lead` that end by `at`, as text."""
    tags = [t for end, t in lead if end <= at]
    if not tags:
        return ""
    return b"".join(tags).decode(encoding or "utf-8") if isinstance(tags[0], bytes) else "".join(tags)


_SCRIPT_MARKS = re.compile(r"<!--|-->|<(/?)script[\s/>]", re.I)
_SCRIPT_MARKS_BYTES = re.compile(_SCRIPT_MARKS.pattern.encode(), re.I)


def _script_end(html: Any, pos: int, n: int, as_bytes: bool) -> Any:
    """The match of the `</script` that ends a script whose text starts at `pos`, or None: the
    tokenizer's script states, where after `<!--` a `<script` hides the next `</script` (until
    `-->`), as in `document.write("<!--<script>...</script>-->")`."""
    marks = _SCRIPT_MARKS_BYTES if as_bytes else _SCRIPT_MARKS
    state = 0  # 0: data, 1: escaped (after "<!--"), 2: double escaped (after "<!--" and "<script")
    for m in marks.finditer(html, pos, n):
        mark = m.group(0)[:4].lower()
        if mark in ("<!--", b"<!--"):
            state = state or 1
        elif mark in ("-->", b"-->"):
            state = 0
        elif m.group(1):  # </script
            if state < 2:
                return m
            state = 1
        elif state == 1:
            state = 2
    return None
_SELECT = re.compile(r"</?select[\s/>]", re.I)
_SELECT_BYTES = re.compile(_SELECT.pattern.encode(), re.I)
# A formatting element's start tag (inside a select, which lexbor puts on its list of formatting
# elements and opens again after the select: the scan, which reads past a select, does not follow it)
_FORMATTING_TAG = re.compile(r"<(?:" + "|".join(sorted(_FORMATTING)) + r")[\s/>]", re.I)
_FORMATTING_TAG_BYTES = re.compile(_FORMATTING_TAG.pattern.encode(), re.I)
# Attributes that may mark a consent banner (`elements.CONSENT`, which reads id and class): a hint is enough
_CONSENT = re.compile(r"cookie|consent|gdpr|cmp|onetrust", re.I)
_CONSENT_BYTES = re.compile(_CONSENT.pattern.encode(), re.I)


def _end(stack: _Stack, name: str) -> None:
    """Apply an end tag as the parser's tree construction does, as far as a cut needs: a special
    element (a block) closes with what is open inside it when it is in scope (a `p` in button
    scope, an `li` in list-item scope); a formatting element (`b`, `a`...) with a block open
    inside it leaves that block open (the adoption agency moves the block out of it); another
    element closes only when no special element stands above it."""
    if name in _FORMATTING:
        # (one opened before the last marker, a cell, caption or template, is out of its reach: the
        # parser's list of formatting elements ends there, and the end tag is ignored)
        i = _find(stack, {name}, _MARKERS)
        if i >= 0:
            if any(o[0] in _SPECIAL for o in stack[i + 1:]):
                del stack[i]
            else:
                del stack[i:]
        return
    if name in _HEADINGS:  # closes whichever heading is open in scope
        i = _find(stack, _HEADINGS, _DEFAULT_SCOPE)
        if i >= 0:
            del stack[i:]
        return
    if name not in _SCOPED_END:  # "any other end tag" (noscript too: a block above it stops it)
        i = stack.innermost((name,))  # (the innermost of that name, unless a special element stands above it)
        if i >= 0 and i >= stack.innermost(_SPECIAL):
            del stack[i:]
        return
    # (the scope each end tag is looked for in: a template's anywhere, table parts' in table scope,
    # a button's, an object's... in the default scope: helper-54, `<button><object></button>`)
    stop = frozenset() if name == "template" else _TABLE_SCOPE if name in _TABLE_PARTS or name in ("table", "caption") \
        else _P_SCOPE if name == "p" else _LI_SCOPE if name == "li" else _DEFAULT_SCOPE
    i = _find(stack, {name}, stop)
    if i >= 0:
        del stack[i:]


def _invisible(ch: str) -> bool:
    """True for a character the renderer may take for a space, alone in a text node: Python's white
    space, and a soft hyphen or NUL, which the renderer and the parser drop (helper-54)."""
    return ch.isspace() or ch in ("\xad", "\x00")


def _adopted(stack: list[_Open]) -> bool:
    """True when a formatting element has a block open inside it: its end tag, in a later piece,
    would move the block out of it (the adoption agency), which that piece cannot do (helper-53:
    `<b><p>a b</b>` cut between "a" and "b")."""
    if isinstance(stack, _Stack) and not stack.has(_FORMATTING):
        return False
    formatting = False
    for name, _, _ in stack:
        if name in _FORMATTING:
            formatting = True
        elif formatting and name in _SPECIAL:
            return True
    return False


def _cuttable(stack: list[_Open], cut: int, start: int, settle: int, rows: dict[int, int],
              safe: frozenset[str] = _SAFE, layout: tuple[set[int], set[int]] = (set(), set()),
              wide: set[int] | frozenset[int] = frozenset()) -> bool:
    """True when a piece may end at `cut`: every open element is a plain container (of `safe`), each
    table or form (`_SETTLE`) opened in this piece (from `start`) opened at least `settle`
    characters before the cut, each table opened in this piece one with at least two rows
    (tests that read the whole element, such as whether a table holds data, see enough of it
    in this piece) and a row of two cells (`wide`: table offsets) before the cut; `rows`
    counts the rows of each table by its offset
    (negative, for any element: one never cut inside: a table the parser moves content out of,
    a form, a consent banner, whose tests read the whole element). The rows and cells of the
    tables in `layout` (offsets: those known to be layout, those of one row so far) may be open
    too, and such a table is not held to two rows: `select.is_data_table` takes it for layout in
    the piece it starts in, as in the whole page. Nor where the start tags of the open elements
    (the next piece's prefix) are longer than a piece (`2 * settle`): the prefixes of a page's
    pieces then hold at most as much markup as the page, however deep it nests."""
    markup = stack.markup if isinstance(stack, _Stack) else sum(len(o[1]) for o in stack)
    if markup > 2 * settle:
        return False
    for name, _, at in reversed(stack):  # first the elements opened last (offsets grow up the stack)
        if cut - at >= settle:  # (one opened at least half a piece before: so are those under it)
            break
        if name in _CELL_PARTS:
            continue  # (a layout table's cells pass, which needs the walk below)
        if name not in safe or rows.get(at, 0) < 0 or (at >= start and name in _SETTLE):
            return False  # (too young, or never cut: as the walk below finds, in less time on a deep page)
    table = -1  # the offset of the innermost table seen
    for i, (name, _, at) in enumerate(stack):
        if name == "table":
            table = at
        if name in _CELL_PARTS and (table in layout[0] or table in layout[1]) and rows.get(table, 0) >= 0 \
                and rows.get(at, 0) >= 0:
            continue
        if name not in safe or rows.get(at, 0) < 0 or (at >= start and name in _SAFE and (
                (cut - at < settle and name in _SETTLE) or (name == "table" and (rows.get(at, 0) < 2 or at not in wide)
                                                            and at not in layout[0] and at not in layout[1]))):
            return False
        if name == "code" and (i == 0 or stack[i - 1][0] not in _PRE):
            return False
    return True


@cache
def _raw_end(name: str, as_bytes: bool) -> re.Pattern:
    pattern = r"</" + re.escape(name) + r"[\s/>]"
    return re.compile(pattern.encode() if as_bytes else pattern, re.I)


_Waits = tuple[tuple[int, str], ...]  # markup put before elements of a prefix's stack: (index, markup), by index


def _tags(stack: list[_Open], encoding: str | None, waits: _Waits = (), in_body: bool = False) -> str:
    """The start tags of `stack` as text (as written; `tbody` and `tr` the parser adds, bare), each
    markup of `waits` (`_waiting_tags`) before the element at its index (at the end: `len(stack)`),
    after a `<body>` tag when the prefix begins with a `<noscript>` or a `<template>`, or is empty in
    a piece that begins `in_body` (a body the page opened without a `<body>` tag): before the body, the
    parser reads a noscript, template, script, style or `<head>` as in the head, where a block ends a
    noscript (scripting off, as lexbor parses) and white space after a template's end is the head's
    (helper-98: `...</p><script></script><head><noscript><p>x`, the noscript's text shown)."""
    body = "<body>" if (in_body and not stack) or (stack and stack[0][0] in _IN_HEAD) or (waits and waits[0][0] == 0) \
        else ""  # (an element of the body open, its start tag opens the body)
    if not waits:
        return body + _joined([o[1] for o in stack], encoding)
    out, i = [body], 0
    for k, markup in waits:
        out.append(_joined([o[1] for o in stack[i:k]], encoding))
        out.append(markup)
        i = k
    out.append(_joined([o[1] for o in stack[i:]], encoding))
    return "".join(out)


def _joined(tags: list[Any], encoding: str | None) -> str:
    """Start tags as written (str, or bytes in `encoding`) joined as text."""
    if encoding is None:
        return "".join(tags)
    return b"".join(t if isinstance(t, bytes) else t.encode() for t in tags).decode(encoding)


def _piece(start: int, end: int, before: list[_Open], after: list[_Open], encoding: str | None,
           waits: _Waits = (), in_body: bool = False) -> Piece:
    return Piece(start, end, _tags(before, encoding, waits, in_body), tuple(o[0] for o in before),
                 tuple(o[0] for o in after))


def _waiting_tags(tags: list[Any], encoding: str | None) -> str:
    """Markup that puts formatting elements on the parser's list without leaving them open: their
    start tags `tags` (as written, str or bytes in `encoding`) in a `<noscript>`, whose end tag
    closes them as the end tag of a block closed them on the page (lexbor parses with scripting
    off: a noscript in the body is an element as any other, its content parsed as HTML). The
    renderer leaves a noscript out whole (`elements.ALWAYS_DROPPED`), and finds a piece's open
    elements past it (`loader._path`)."""
    return "<noscript>" + _joined(tags, encoding) + "</noscript>"


@cache
def is_piecewise_codec(encoding: str) -> bool:
    """True when markup in `encoding` can be scanned and cut as bytes (`pieces` of bytes): the
    codec is stateless and a byte of `<`, `>`, `&`, a quote, `/`, `=`, `!`, a space or a line
    break is always that character, never the second byte of another (UTF-8, single-byte pages,
    and the CJK multi-byte pages whose second bytes are 0x40 and up: Shift-JIS, GBK, GB18030,
    Big5, EUC; not UTF-16/32, ISO-2022, or Johab, whose second bytes start at 0x31: helper-50).
    Checked on the codec itself: each such byte after each byte from 0x80 up."""
    try:
        name = codecs.lookup(encoding).name.replace("-", "_")
    except LookupError:
        return False
    if name.startswith(("utf_16", "utf_32", "iso2022", "utf_7", "hz")):
        return False
    special = b"<>&\"'\n\r/ =!"
    try:
        if special.decode(encoding) != special.decode("ascii"):
            return False
        for lead in range(0x80, 0x100):
            for byte in special:
                try:
                    if len(bytes((lead, byte)).decode(encoding)) < 2:
                        return False
                except UnicodeDecodeError:
                    pass
    except Exception:  # not a text encoding (a bytes-to-bytes codec)
        return False
    return True


def read_in_pieces(html: str | bytes, chars_from: int = PIECES_FROM, tags_from: int = PIECES_FROM_TAGS) -> bool:
    """True when a page (its text, or its bytes) is to be read in pieces: at least `chars_from`
    characters (bytes) long, or with at least `tags_from` `<` characters (one count, no parse)."""
    if len(html) >= chars_from:
        return True
    if len(html) < tags_from:
        return False
    return (html.count(b"<") if isinstance(html, bytes) else html.count("<")) >= tags_from


@dataclass(frozen=True)
class Cut:
    """A large page cut into pieces (`cut_page`).

    Attributes:
        parts: the pieces, in order.
        head: the page's `<html>` start tag and `<title>` as markup (for its title and language).
        main: True when the pieces cover only the page's first `<main>` (or `role="main"`)
            element: the element the page names as its content, as `select.semantic_root`
            takes it (its rule for a single `<article>` needs the whole tree, and is not applied).
    """

    parts: list[Piece]
    head: str
    main: bool


TITLE_MARKUP = 4096
"""Characters of a `<title>`'s markup from which `Cut.head` carries only its start (`_title_markup`)."""
# A character reference that a cut right after this would split (named ones are at most 33 characters
# long; digits past 62 give U+FFFD however many follow); after it, its character is whole.
_REF_TAIL = re.compile(r"&#?[0-9A-Za-z]{0,62}\Z")
_REF_TAIL_BYTES = re.compile(_REF_TAIL.pattern.encode())
# Bytes that are always one character in a codec `is_piecewise_codec` accepts: a cut before one never
# splits a character.
_WHOLE_BYTE = re.compile(rb"[<>&\"'\n\r/ =!]")


def _title_markup(html: Any, start: int, end: int, encoding: str | None) -> Any:
    """The markup `html[start:end]` (str, or bytes in `encoding`) of a page's `<title>` text as
    `Cut.head` carries it: whole up to `TITLE_MARKUP` characters; else its start, cut at a
    character (never inside one of UTF-8 or of a codec `is_piecewise_codec` accepts, never
    inside a character reference), long enough that its text, references decoded and white
    space collapsed, has more than twice `headings.TITLE_CHARS` characters. The page's title is
    that text collapsed and stripped, which `headings.short_title` cuts to `TITLE_CHARS`
    characters within its first `TITLE_CHARS + 1`: the start gives the same title. (The head
    of a 20 MB title, parsed as one tree beside the page's first piece, took 22x the page:
    helper-74.) A title of white space only is kept whole."""
    size = TITLE_MARKUP
    as_bytes = isinstance(html, bytes)
    utf8 = as_bytes and codecs.lookup(encoding or "utf-8").name == "utf-8"
    while start + size < end:
        at = start + size
        if utf8:
            while at > start and 0x80 <= html[at] < 0xC0:  # (a continuation byte)
                at -= 1
        elif as_bytes:
            whole = _WHOLE_BYTE.search(html, at, end)
            if whole is None:
                break
            at = whole.start()
        ref = (_REF_TAIL_BYTES if as_bytes else _REF_TAIL).search(html, max(start, at - 64), at)
        if ref is not None:
            at = ref.start()
        head = html[start:at]
        text = head.decode(encoding or "utf-8", errors="replace") if as_bytes else head
        if len(" ".join(html_entities.unescape(text).split())) > 2 * TITLE_CHARS:
            return head
        size *= 4
    return html[start:end]


# role="main" exactly, as `select.semantic_root`'s `[role="main"]` (not data-role, not "main-menu")
_ROLE_MAIN = re.compile(r"""(?:^|[\s"'/])(?i:role)\s*=\s*(?:"main"|'main'|main(?=[\s/>]|$))""")
_ROLE_MAIN_BYTES = re.compile(_ROLE_MAIN.pattern.encode())


def cut_page(html: str | bytes, piece_chars: int = PIECE_CHARS, encoding: str | None = None,
             begin: int = 0, main: bool = True) -> Cut:
    """`pieces` of the page's first `<main>` element (its start and end tags left out, the
    elements around it opened again in the first piece's prefix), or of the whole page when
    it has none or not `main` (page furniture kept: the whole body, as the whole reading);
    with the markup of its head (`Cut`). Two scans when the page has a main."""
    parts, head, region, doctype = _scan(html, piece_chars, encoding, begin, None, [])
    if region is None or not main:
        return Cut(parts, head, False)
    start, end, stack, state = region
    parts = _scan(html, piece_chars, encoding, start, end, stack, is_quirks(doctype), state)[0]
    # (its pieces begin with the doctype, not the <body> tags: the whole reading renders the main itself)
    return Cut([replace(p, prefix=doctype + p.prefix) for p in parts] if doctype else parts, head, True)


def pieces(html: str | bytes, piece_chars: int = PIECE_CHARS, encoding: str | None = None,
           begin: int = 0) -> list[Piece]:
    """Cut `html` into pieces of at least `piece_chars` characters (the last may be shorter), at
    the first safe point after that many (see the module doc); one piece (the whole page) when
    there is no such point. A table or form opened in a piece is not cut inside before it is
    `piece_chars // 2` characters long (until 0.1.25 any element was held so, and sections each
    opened in the last were never cut), and a piece's prefix is never longer than `piece_chars`.
    Time linear in the markup (one regex search per tag; tests for a cut walk the stack of open
    elements, held back past `_SHALLOW` of them after one fails).

    `html` may be the page's bytes in `encoding` (`is_piecewise_codec`), from offset `begin`
    (after a byte-order mark): offsets are then bytes, prefixes decoded text, and the page is
    never held as one string (4 bytes a character when one emoji is in it)."""
    return _scan(html, piece_chars, encoding, begin, None, [])[0]


_State = tuple[bool, dict[int, _Entry], dict[int, _Entry], bool]
"""What `_scan` follows of the parser's state besides its open elements: the form pointer set, the
formatting elements open and those waiting to be opened again (offset -> (name, markers open around
it, start tag, offset of the innermost marker or -1)), and whether it still follows that list."""


def _scan(html: Any, piece_chars: int, encoding: str | None, begin: int, end: int | None,
          open_at_begin: list[_Open], quirks: bool | None = None, state: _State | None = None,
          ) -> tuple[list[Piece], str, tuple[int, int, list[_Open], _State] | None, str]:
    """`pieces` of `html[begin:end]` (str, or bytes in `encoding`) with `open_at_begin` open at `begin`; with the head's markup
    (`Cut.head`), the first main element's (start, end, elements open around it) or None, and
    the page's doctype ("" for none), which the pieces after it begin with (without it the
    parser reads a piece in quirks mode, where a `<table>` does not close an open `<p>`).
    `quirks`: the page's mode (`is_quirks`); None: from its doctype, read at `begin`. Pieces
    after the `<body>` tags begin with them too (their attributes may make the page furniture).
    `state`: the parser's state at `begin` that the scan follows (`_State`), as the scan of the
    page found it at the main element's start (the main's own scan began without it, so a form
    inside the main was taken for one the parser opens though its form pointer was set, and the
    formatting elements it opens again were not followed)."""
    as_bytes = isinstance(html, bytes)
    if as_bytes and encoding is None:
        raise ValueError("pieces of bytes need their encoding")
    enc = encoding if as_bytes else None
    nl: Any = b"\n" if as_bytes else "\n"
    line_breaks: Any = (b"\n", b"\r") if as_bytes else ("\n", "\r")
    cdata = (b"<![CDATA[", "<![CDATA[")
    amp: Any = b"&" if as_bytes else "&"  # (nor before a reference, which may be a line break)
    gt: Any = b">" if as_bytes else ">"
    slash: Any = b"/" if as_bytes else "/"
    settle = piece_chars // 2
    text_chars = piece_chars + piece_chars // 4  # a piece's length from which it may be cut in text
    rows: dict[int, int] = {}  # rows seen of each table, by the offset of its start tag (-1: fostering)
    out: list[Piece] = []
    befores: list[list[_Open]] = []  # the open elements at the start of each piece of `out`
    waits: list[_Waits] = []  # ... and the markup that puts formatting elements back on the list (`waiting`)
    wait: _Waits = ()  # that markup for the current piece
    bodies: list[bool] = []  # ... and whether it begins in a body opened without a `<body>` tag
    body_before = False  # that for the current piece
    stack = _Stack(open_at_begin)  # (name, start tag as written, offset) of each open element, outermost first
    first_stack = before = list(stack)
    start = pos = begin
    foreign = 0  # foreign elements (svg, math) open
    svg_plain = False  # the outermost of them is an svg that may still be cut inside
    froot = 0  # the index on `stack` of the outermost of them
    n = len(html) if end is None else end
    html_tag: Any = b"" if as_bytes else ""
    title: Any = None
    role_main = (_ROLE_MAIN_BYTES if as_bytes else _ROLE_MAIN).search
    has_text = (_TEXT_BYTES if as_bytes else _TEXT).search
    word_start = (_WORD_START_BYTES if as_bytes else _WORD_START).search
    first_char = (_CHAR_BYTES if as_bytes else _CHAR).match
    # any character: in text, or UTF-8 bytes (elsewhere a byte may be the second of a character)
    outside = _OUTSIDE.match if not as_bytes else _OUTSIDE_UTF8.match \
        if codecs.lookup(encoding or "").name == "utf-8" else None
    ref = (_REF_BYTES if as_bytes else _REF).match
    decoration = (_DECORATION_BYTES if as_bytes else _DECORATION).search
    skip = (_INVISIBLE_BYTES if as_bytes else _INVISIBLE).match
    markup = (_MARKUP_BYTES if as_bytes else _MARKUP).search
    window = max(piece_chars // 4, 64)
    # The first <main> and the first role="main" element: [content start, open elements (itself the
    # innermost), (start, end) once closed, the parser state the scan follows there (`_State`)]; the
    # region is the main's, else the role's (`select.semantic_root`).
    mains: dict[str, list[Any]] = {}
    whole = False  # a page the scan cannot follow: read whole
    doctype: Any = None  # the doctype, when it comes before any element or text
    opening = quirks is None  # nothing but comments and white space yet
    lead: list[tuple[int, Any]] = []  # (end, markup) of the doctype and <body> tags: every later piece starts with them
    in_body = bool(stack)  # a `<body>` tag read, an element opened (which opens the body), or text
    head_noscript = -1  # the offset of the last noscript opened where the parser may be in the head
    anchors: set[int] = set()  # offsets of the links to a place in the page (`_in_page`) opened
    body_tag = False  # a `<body>` tag read (every later piece begins with it)
    form_open = state is not None and state[0]  # the parser's form pointer
    form_from = 0  # the offset of the form start tag that set it
    form_at = -1  # the offset of the open form not yet known to be content, or -1
    form_text = -1  # characters of its text counted so far (`form_chars`); -1: not counted (a role)
    form_min = select.FORM_TEXT  # (read at each scan: tests lower it)
    # `select._wraps_page` takes a form holding more text than the rest of the page for its content, and
    # a piece holding a search form and little else would take it for content where the whole page does
    # not. So the piece a form is in holds as much text outside it as the form may hold: its markup's
    # length, or `form_min` at most (a form of that much text is content); none for a form too short to
    # hold `select.WRAPPER_TEXT` (furniture either way). The text in the piece before the form counts;
    # what is missing is waited for after it (no cut until then), and at the page's end, taken from
    # the pieces before (joined to it). Text is counted (as `text_chars_in` counts it: never more than the
    # form rules find) only on a page with a form, and in each piece only up to `form_min`, all a form needs.
    unsure: dict[int, int] = {}  # forms open not known to be content: offset -> text in the piece before it
    form_left = -1  # text still to be read before a cut, or -1
    wrapper_min = select.WRAPPER_TEXT
    counting = (_FORM_TAG_BYTES if as_bytes else _FORM_TAG).search(html, begin, n) is not None
    seen = 0  # text counted in the current piece (up to `form_min`)
    seen_at: list[int] = []  # ... in each piece of `out`
    has_role = (_ROLE_ATTR_BYTES if as_bytes else _ROLE_ATTR).search
    # Tables cut inside a cell (`_cuttable`'s `layout`): those known to be layout (a table in one of
    # their cells, or a layout role), and those of one row so far (`trs`: rows made, by table offset),
    # whose cuts are undone at a second row (`is_data_table` may then take it for data).
    layout: tuple[set[int], set[int]] = (set(), set())
    trs: dict[int, int] = {}
    # The cells of each table's current row (table offset -> (row offset, cells)), and the tables
    # that may be cut between rows (`wide`): those with a row of two cells or more, and those of
    # one-cell rows so far (`narrow`), layout to `is_data_table` in any part as whole (helper-74: a
    # 20 MB one-column table was one tree, 32x); at a row of two cells the cuts made in a narrow
    # table are undone, since `is_data_table` takes its part of one-cell rows (a full-width `colspan`
    # header, helper-57's PACER receipts) for layout, the whole for data.
    cells: dict[int, tuple[int, int]] = {}
    wide: set[int] = set()
    narrow: set[int] = set()
    forget_at = FORGET_FROM  # (facts kept by offset, past which those of closed elements are forgotten)
    layout_role = (_LAYOUT_ROLE_BYTES if as_bytes else _LAYOUT_ROLE).search
    font_breakout = (_FONT_BREAKOUT_BYTES if as_bytes else _FONT_BREAKOUT).search
    # Formatting elements open (offset -> (name, cells open around it, start tag, offset of the
    # innermost marker open around it or -1)), and those closed by another element's end tag, which
    # the parser opens again at the next text or inline start tag (`reconstruct`; no cut while one
    # is pending). `fmt_exact`: the scan still follows the parser's list of them exactly (it stops
    # where the parser runs its adoption agency or Noah's ark clause, and then never reopens one).
    fmt_open: dict[int, _Entry] = {} if state is None else dict(state[1])
    pending = _Pending(() if state is None else state[2])
    fmt_exact = state is None or state[3]
    pre_end = -1  # where the start tag of the last <pre> or <listing> ends (a line break right after it is dropped)
    # After a formatting element's end tag with a block open inside it (the adoption agency: the parser
    # moves the block out, drops inline elements between, and puts a copy of the formatting element
    # between the block and its children), the elements above its place are not the scan's: no cut
    # until they are closed (helper-53's pages: `<b><span><p>a</b>b`, `<b><ul><li>a</b>`).
    fragile = -1  # that place (a stack depth), or -1
    select_tag = (_SELECT_BYTES if as_bytes else _SELECT).search
    formatting_tag = (_FORMATTING_TAG_BYTES if as_bytes else _FORMATTING_TAG).search
    consent = (_CONSENT_BYTES if as_bytes else _CONSENT).search
    for o in open_at_begin:  # (a main's region: the elements around it never cut inside stay so, helper-98)
        attrs = o[1][1 + len(o[0]):]
        if as_bytes and isinstance(attrs, str):  # (a tag the parser adds, `<tbody>`, is kept as str)
            attrs = attrs.encode()
        if consent(attrs) or decoration(attrs) or (o[0] == "ol" and _has_attribute(attrs, "reversed")):
            rows[o[2]] = -1
    search: Callable[[Any, int, int], Any] = (_TOKEN_BYTES if as_bytes else _TOKEN).search
    search_tail: Callable[[Any, int, int], Any] = (_TAIL_BYTES if as_bytes else _TAIL).search
    last_gt = html.rfind(gt, begin, n)  # the page's last ">": start tags are looked for up to it

    retry = -1  # the offset before which no cut is tested (`_BACKOFF`)

    def cuttable(open_now: list[_Open], at: int, safe: frozenset[str], adopted: bool = True) -> bool:
        """`_cuttable` at `at` with `open_now` open, and (`adopted`) no block in a formatting element
        (`_adopted`); past `_SHALLOW` open elements a failed test holds the next one back."""
        nonlocal retry
        if at < retry:
            return False
        if not (adopted and _adopted(open_now)) and _cuttable(open_now, at, start, settle, rows, safe, layout, wide):
            return True
        if len(open_now) > _SHALLOW:
            retry = at + min(len(open_now) * _BACKOFF, window)
        return False

    def cut(at: int, after: list[_Open], waiting_after: _Waits = ()) -> None:
        nonlocal before, start, seen, wait, body_before
        out.append(_piece(start, at, before, after, enc, wait, body_before))
        befores.append(before)
        waits.append(wait)
        seen_at.append(seen)
        bodies.append(body_before)
        # (the next piece opens the body itself when the page opened it without a tag; a `<body>` tag
        # read is put before every later piece, `lead`)
        before, start, seen, wait, body_before = list(after), at, 0, waiting_after, in_body and not body_tag

    def template_cut(at: int) -> None:
        """Cut before the start tag at `at` inside a `<template>`, the next piece reopening the elements
        up to the template only (as in an svg). Its content is a fragment the renderer leaves out, and
        nothing in it reaches the elements around it until its end tag, which closes what is open in
        it (an end tag without its element in the template stops at the template, a special element;
        `<body>` and `<html>` in it are ignored); so not in a template in another, whose end tag would
        end the reopened one early, nor in foreign content, where CDATA is read otherwise, nor in one
        that held a `<select>` (read past by the scan, which would miss a `</template>` in it)
        (helper-74's 20 MB template of paragraphs took 31x the page, read in one piece)."""
        if at - start < piece_chars or "template" not in stack.names:
            return
        t = next((i for i, o in enumerate(stack) if o[0] == "template"), -1)
        if t < 0 or rows.get(stack[t][2], 0) < 0 or any(o[0] == "template" for o in stack[t + 1:]):
            return
        cut_reopening(at, t)

    def cut_reopening(at: int, k: int) -> None:
        """Cut at `at` (a start tag inside the element `stack[k]`, a plain svg or a template), once a
        piece is full, the next piece reopening the elements up to that element only, when those
        around it may stay open at a cut."""
        if at - start < piece_chars or pending or fragile >= 0 or form_left >= 0:
            return
        around = stack[:k]
        if cuttable(around, at, _SAFE_TEXT):
            cut(at, stack[:k + 1])

    def undo_cuts(at: int, element: bool = False) -> None:
        """Join the pieces that begin at or after `at` to the one before; with `element`, after it
        only: those inside the element whose start tag is at `at` (a piece that begins with the
        start tag opens the element itself: back-to-back tables of two rows, each undoing the cut
        before it at its second row, were one piece, helper-87)."""
        nonlocal before, start, seen, wait, body_before
        while out and (start > at if element else start >= at):  # the current piece began in it: join it
            start, before, wait, body_before = out.pop().start, befores.pop(), waits.pop(), bodies.pop()
            seen = min(seen + seen_at.pop(), form_min)

    def foster() -> None:
        """The innermost open table has content the parser moves before it, which a piece that
        reopens the table would lose: no cut inside it, and the cuts made inside it undone."""
        t = _find(stack, {"table"}, frozenset())
        if t < 0:
            return
        at = stack[t][2]
        rows[at] = -1
        undo_cuts(at, element=True)

    def table_opened(attrs: Any, at: int) -> None:
        """A table opened at `at` (the top of the stack) with `attrs` (its start tag's attributes):
        a layout role makes it layout; the tables around it with it in a cell are layout, and the
        cuts made between their rows undone (`select.is_data_table` took such a table for data in
        the piece it starts in, a grid of court events with a table of documents in a later row)."""
        if attrs and layout_role(attrs):
            layout[0].add(at)
        if "td" not in stack.names and "th" not in stack.names:
            return
        cell = False
        for name, _, outer in reversed(stack[:-1]):
            if name == "template":
                break  # (the tables around a template do not hold its content)
            if name in ("td", "th"):
                cell = True
            elif name == "table" and cell:
                if outer not in layout[0] and outer not in layout[1]:  # (one row so far: layout already)
                    undo_cuts(outer, element=True)
                layout[0].add(outer)
                layout[1].discard(outer)

    def forget_closed() -> None:
        """Forget what `rows`, `cells`, `trs`, `wide`, `narrow` and `layout` hold of elements no longer
        open: only the open elements' facts are read (by the offsets on the stack), and a page of
        many small tables kept some 360 bytes a table (helper-107: 20 MB of one-cell tables, 8.4x).
        Run when they hold twice as many as after the last run (amortised: a constant a table)."""
        nonlocal forget_at
        open_now = stack.offsets
        for facts in (rows, cells, trs):
            for at in [at for at in facts if at not in open_now and at != form_at]:
                del facts[at]
        for kept in (wide, narrow, *layout):
            kept.intersection_update(open_now)
        forget_at = max(FORGET_FROM, 2 * facts_held())

    def facts_held() -> int:
        """How many facts `forget_closed` looks at (a table's may be in several of them)."""
        return len(rows) + len(cells) + len(trs) + len(wide) + len(layout[0])

    def row_made(name: str, at: int) -> None:
        """A row or cell `name` opened at `at`: a table with rows of one cell so far is `wide` and
        `narrow`, one with a row of two cells `wide` (the cuts made while it was narrow undone); a
        row made (explicit, or for a cell outside one) that is a table's second undoes the cuts made
        in its first, unless the table is known to be layout."""
        t = _find(stack, {"table"}, _TEMPLATE)
        if t < 0:
            return
        table = stack[t][2]
        if name != "tr" and (table not in wide or table in narrow):
            row = _find(stack, {"tr"}, _TABLE_SCOPE)
            if row >= 0:
                row_at, n = cells.get(table, (-1, 0))
                n = n + 1 if row_at == stack[row][2] else 1
                cells[table] = (stack[row][2], n)
                if n == 2:
                    if table in narrow:
                        narrow.discard(table)
                        undo_cuts(table, element=True)
                    wide.add(table)
                    del cells[table]
        if not any(o[0] == "tr" and o[2] == at for o in stack[t:]):
            return
        if table not in wide:
            wide.add(table)
            narrow.add(table)
        if table in layout[0]:
            return
        trs[table] = trs.get(table, 0) + 1
        if trs[table] == 1:
            layout[1].add(table)
        elif table in layout[1]:
            layout[1].discard(table)
            undo_cuts(table, element=True)

    def formatting_closed() -> None:
        """Formatting elements closed by another element's end stay on the parser's list and are
        opened again at the next text (inside what follows): no cut while one is pending."""
        live = stack.offsets
        markers = stack.count(_MARKERS)
        gone = []  # (elements leave from the top, whose offsets are the greatest: the last entries)
        for at in reversed(fmt_open):
            if at in live:
                break
            gone.append(at)
        for at in reversed(gone):
            pending[at] = fmt_open.pop(at)
        pending.purge(markers, live)

    def marker_at() -> int:
        """Offset of the innermost marker (a cell, caption, template...) open, or -1."""
        i = stack.innermost(_MARKERS)
        return stack[i][2] if i >= 0 else -1

    def reconstruct() -> None:
        """Open again, at the top of the stack, the formatting elements the parser opens again here
        (before text, or a start tag not of `_NO_REOPEN`): those after the last marker on its list
        from after the last one still open, in the order they were opened (the HTML standard's
        "reconstruct the active formatting elements"). A piece cut after is then parsed with them
        open, as the whole page is (`<p><b>x</p>` and the rest of the page in a `<b>`, which was one
        piece: 39x its size for 5 MB)."""
        nonlocal fmt_exact
        if not pending or not fmt_exact:
            return
        if len(pending) + len(fmt_open) > _LIST_MAX:
            fmt_exact = False
            return
        mk = marker_at()
        listed = sorted(at for at, e in (*fmt_open.items(), *pending.items()) if e[3] == mk)
        run = 0
        while run < len(listed) and listed[-1 - run] in pending:
            run += 1
        for at in listed[len(listed) - run:]:
            entry = pending.pop(at)
            stack.append((entry[0], entry[2], at))
            fmt_open[at] = entry
            if at in anchors:
                rows[at] = -1  # (a new element, whose own text decides whether it is a permalink)

    def waiting(after: _Stack) -> _Waits | None:
        """The markup a piece's prefix holds so that the formatting elements waiting on the
        parser's list (`pending`) are on its list too, with `after` open (`_waiting_tags`, put by
        `_tags`): those of each marker context (the body, or a cell, caption... open in `after`)
        before its first element that is a table part or a marker, or at the end, so that each
        stands on the list where it waits, after the elements open in its context, before the
        next marker. () when none waits; None when a prefix cannot put them as they are, and so
        no cut: the scan no longer follows the list, one waits in a context no longer open, one
        open in the same context comes after one waiting (the parser opens again only those after
        the last one open) or stands after its context's first table part, an `a` or `nobr` comes
        twice in a context (its start tag would close the first), or `after` holds a template
        (whose content's insertion mode a start tag sets). A link left open before blocks with no
        white space between them (`<p><a name=x>T</p><p>..`, an anchor on an old page, minified)
        waits at every block's start: such a page was read whole, 108x its size at 5 MB; since
        0.1.30 also where the blocks are in a table after it (one tree before)."""
        if not pending:
            return ()
        if not fmt_exact or "template" in after.names:
            return None
        contexts: dict[int, int] = {-1: -1}  # marker offset -> its index in `after` (-1: the body)
        place: dict[int, int] = {}  # marker offset -> where its waiting markup goes
        index: dict[int, int] = {}  # start-tag offset -> index in `after`
        ctx = -1
        for i, o in enumerate(after):
            index[o[2]] = i
            if o[0] in _MARKERS or o[0] in _TABLE_CONTEXT:
                place.setdefault(ctx, i)
                if o[0] in _MARKERS:
                    ctx = contexts[o[2]] = o[2]
        place.setdefault(ctx, len(after))
        groups: dict[int, list[int]] = {}
        for at, e in pending.items():
            if e[3] not in contexts:
                return None
            groups.setdefault(e[3], []).append(at)
        waits = []
        for mk, ats in groups.items():
            first = min(ats)
            names = [e[0] for e in pending.values() if e[3] == mk]
            for at, e in fmt_open.items():
                if e[3] == mk:
                    if at > first or index.get(at, len(after)) >= place[mk]:
                        return None
                    names.append(e[0])
            if names.count("a") > 1 or "nobr" in names:
                return None
            waits.append((place[mk], _waiting_tags([pending[at][2] for at in sorted(ats)], enc)))
        return tuple(sorted(waits))

    def signs_only_until(q: int, text_end: int) -> int:
        """Where cuts may be made in the text `html[q:text_end]` inside the innermost open link to
        a place in the page that is not yet known not to be a permalink: -1 when it is still not
        known (no character in the run's first `SIGN_WINDOW` but white space, signs and character
        references, which may be signs; or the text is in a template, whose content is not the
        link's text), else the end of that window, and the link may be cut inside from there (its
        piece holds text that is not a sign, as the whole element does); `q` for text not in such
        a link. helper-95: `<a href="#s" class=headerlink>¶` and blocks after, cut after the sign,
        made a piece take the link for a permalink and leave it out, with the pieces after it."""
        i = _find(stack, {"a"}, frozenset())
        if i < 0 or stack[i][2] not in anchors or rows.get(stack[i][2], 0) >= 0:
            return q
        if "template" in (o[0] for o in stack[i + 1:]):
            return -1  # (a template's content is not the link's text)
        end = min(text_end, q + SIGN_WINDOW)
        run = html[q:end]
        text = run.decode(enc or "utf-8", "ignore") if as_bytes else run
        if PERMALINK_TEXT.fullmatch(_REF.sub("", text).replace("\0", "")):
            return -1
        rows[stack[i][2]] = 0
        return end

    def opens_body(q: int, text_end: int) -> bool:
        """False for text before the body that is white space once its character references are
        read (`&#32;`, `&Tab;`), which the parser keeps in the head (helper-96: a `<noscript>`
        after it was taken for one in the body, its blocks for content it leaves out)."""
        if text_end - q > SIGN_WINDOW:
            return True
        run = html[q:text_end]
        text = run.decode(enc or "utf-8", "replace") if as_bytes else run
        return bool(html_entities.unescape(text).strip(" \t\n\r\f"))

    def text_reopens(q: int, text_end: int) -> None:
        """`reconstruct` for the text `html[q:text_end]` when the parser reads it in the body: not
        white space only in table mode (it goes where it stands then), nor a line break alone right
        after a `<pre>` start tag (dropped), nor NUL characters (ignored)."""
        nonlocal fmt_exact
        if q == pre_end and html[q:q + 1] in line_breaks:
            q += 2 if html[q:q + 2] in ("\r\n", b"\r\n") else 1
        elif q == pre_end and html[q:q + 1] == amp:
            fmt_exact = False  # (a reference for a line break would be dropped too)
            return
        while q < text_end and html[q:q + 1] in ("\0", b"\0"):
            q += 1
        if q >= text_end or _in_table_mode(stack) and not has_text(html, q, text_end):
            return
        reconstruct()

    def close_a(at: int) -> None:
        """An `<a>` start tag at `at` with an `a` open after the last marker: the parser closes that
        one first, as it does at its end tag (the adoption agency: `<a href=1>x<a href=2>y</a>`, whose
        first `a` the scan kept open, was one piece to the end of the page)."""
        nonlocal fragile, fmt_exact
        own = _find(stack, {"a"}, _MARKERS)
        if own < 0:
            return
        own_at = stack[own][2]
        if any(o[0] in _SPECIAL for o in stack[own + 1:]):
            fragile = own if fragile < 0 else min(fragile, own)  # (no cut until what was open in it is closed)
            fmt_exact = False
            undo_cuts(own_at, element=True)
        depth = len(stack)
        _end(stack, "a")
        fmt_open.pop(own_at, None)
        if len(stack) < depth and (fmt_open or pending):
            formatting_closed()
        if len(stack) <= fragile:
            fragile = -1
        if mains:
            closed(at)

    def tag_reopens(name: str) -> None:
        """`reconstruct` before the start tag of `name` (not of `_NO_REOPEN`), with the steps the
        parser takes first for some: an `<a>` takes a pending `a` off its list; where the scan does
        not follow those steps (an `a` or `nobr` open, a `button` or `option` to close first, an
        `<xmp>` that closes a `p` first, a hidden input in a table), it stops following the list."""
        nonlocal fmt_exact
        if not fmt_exact or not pending:
            return
        mk = marker_at()
        if name == "a":  # (one open is closed first: `close_a`)
            named = [at for at, e in pending.items() if e[0] == "a" and e[3] == mk]
            if named:
                del pending[max(named)]
            if len(named) > 1:
                fmt_exact = False
                return
        elif name == "nobr" and any(e[0] == "nobr" for e in (*fmt_open.values(), *pending.values())) \
                or name == "button" and "button" in stack.names \
                or name in ("option", "optgroup") and stack and stack[-1][0] == "option" \
                or name == "xmp" or name == "input" and _in_table_mode(stack):
            fmt_exact = False
            return
        reconstruct()

    def open_tag(name: str, tag: Any, at: int) -> bool:
        """`_start` on the stack, with what the elements it closes change: formatting elements
        waiting to be opened again, and the end of a stretch after the adoption agency."""
        nonlocal fragile
        depth = len(stack)
        opened = _start(stack, name, tag, at, bool(quirks))
        if (fmt_open or pending) and len(stack) - opened < depth:
            formatting_closed()
        if len(stack) - opened <= fragile:
            fragile = -1
        return opened

    def char_at(q: int) -> str:
        return html[q] if not as_bytes else html[q:q + 4].decode(enc, "ignore")[:1]

    def first_visible(run: int, run_end: int) -> int:
        """Offset of the first character of `html[run:run_end]` that Python does not call white
        space and no reference stands for (the renderer takes a text node of only such characters
        for a space: helper-53, `&#8201;` and U+3000), or `run_end`."""
        q = run
        while q < run_end:
            q = skip(html, q, run_end).end()  # type: ignore[union-attr]  # (it matches "" at least)
            if q >= run_end:
                break
            ch = char_at(q)
            if not _invisible(ch):
                return q
            q += len(ch.encode(encoding or "utf-8")) if as_bytes else 1
        return run_end

    def text_cut(at: int, run: int, run_end: int, visible: int) -> int:
        """Where the text `html[run:run_end]` may be cut at or after `at` (within `window`): at its
        start, after white space, else at any character outside a reference; each part of the run
        with a `visible` character (`first_visible`); -1 when nowhere in the window."""
        if at == run and first_char(html, at):
            return at
        at = max(at, visible + 1)
        stop = min(run_end, at + window)
        q = max(at - 1, run)
        while (m := word_start(html, q, stop)) is not None:
            q = m.start() + 1
            if not _invisible(char_at(q)):
                return q
        if outside is None:
            return -1
        q = at
        k = html.rfind(amp, run, q)
        if k >= 0:  # a reference that may reach `at`
            q = max(q, ref(html, k).end())  # type: ignore[union-attr]  # (the pattern matches "&" at least)
        while q < stop and (m := outside(html, q, stop)) is not None:
            q = m.start(1)
            if not _invisible(char_at(q)):
                return q
            q += 1
        return -1

    def form_chars(q: int, q_end: int, enough: int) -> int:
        """Characters of the text run `html[q:q_end]` that the open form `form_at` certainly holds
        (none in a control, noscript or template in it; -1 once it is closed): those
        `select._text_len` counts, less references, NUL and what follows markup the tokens did not
        take; decoded alone (a run ends at a `<`, where a piecewise codec may be cut). Counted up to
        `enough` or a slice past it (`text_chars_in`)."""
        f = len(stack) - 1
        uncounted = False
        while f >= 0 and stack[f][2] != form_at:
            uncounted = uncounted or stack[f][0] in _UNCOUNTED
            f -= 1
        if f < 0:
            return -1
        return 0 if uncounted else text_chars_in(q, q_end, enough)

    def text_chars_in(q: int, q_end: int, enough: int) -> int:
        """Characters of the text run `html[q:q_end]` that `select._text_len` and `_text_upto` count at
        least: white space, NUL, references and what follows markup the tokens did not take left out.
        Counted `COUNT_SLICE` characters at a time, never across a reference, until `enough` are (the
        callers need no more; `re.sub` over a 20 MB paragraph after a form took 18x the page)."""
        odd = markup(html, q, q_end)
        end = q_end if odd is None else odd.start()
        total = 0
        while q < end and total < enough:
            b = min(end, q + COUNT_SLICE)
            if b < end:
                k = html.rfind(amp, q, b)
                if k >= 0 and ref(html, k).end() >= b:  # type: ignore[union-attr]  # (it matches "&" at least)
                    b = k if k > q else ref(html, k).end()  # type: ignore[union-attr]
            run = html[q:b]
            if as_bytes:
                run = run.decode(enc or "utf-8", "ignore")  # (a character cut at `b` left out: fewer, never more)
            total += len(_NOT_COUNTED.sub("", run))
            q = b
        return total

    def forms_closed(end: int, every: bool = False) -> None:
        """Start the wait for text (`form_left`) for the forms not known to be content that are no longer
        open (`every`: all of them, the page's end closing them), closed before `end`."""
        nonlocal form_left
        gone = set(unsure) if every else {at for at in unsure if at not in stack.offsets}  # (a form's own offset)
        for at in gone:
            had = unsure.pop(at)
            span = end - at  # (characters or bytes: no fewer than the form's text)
            if span >= wrapper_min and min(span, form_min) > had:
                form_left = max(form_left, min(span, form_min) - had)

    def line_cuts(at: int, end: int, safe: frozenset[str], any_line: bool) -> None:
        """Cut just after the line breaks of the text `html[at:end]` (of a code block or a plaintext,
        `stack` open, every one of `safe`), a piece's worth apart; `any_line` False: not before
        another line break or a character reference."""
        while (br := html.find(nl, at, end)) >= 0:
            at = br + 1
            if not any_line and (html[at:at + 1] in line_breaks or html[at:at + 1] == amp) or pending \
                    or fragile >= 0 or form_left >= 0 or not cuttable(stack, at, safe, adopted=False):
                continue
            cut(at, stack)
            at = start + piece_chars - 1

    def token_cut(at: int, element: bool) -> None:
        """Cut just before the token at `at` (a comment, or the start tag of an `element` of
        `_CUT_BEFORE_INLINE`) once the piece is as long as text is cut at: the parser builds the same
        nodes on both sides, a comment or an element being a node of its own. Only once the body is
        open, and before a comment only where the next piece's prefix opens it again (a `<body>` tag
        read, or an element open): a piece starting with a comment and nothing open is read before
        the body (helper-73: the white space after it dropped, a `</p>` or a `<noscript>` read as in
        the head). An element's start tag opens the body itself."""
        if at - start >= text_chars and in_body and (element or body_tag or stack) and not foreign and not pending \
                and fragile < 0 and form_left < 0 and cuttable(stack, at, _SAFE_TEXT):
            cut(at, stack)

    def closed(at: int) -> None:
        """Ends the region of a main element no longer open (by its own offset: one taken from under
        it, a formatting element whose end tag the adoption agency ran, leaves it open; helper-89:
        `<b><main>...</b>...` ended the main's region at the `</b>`, and what followed was lost)."""
        for found in mains.values():
            if found[2] is None and found[1][-1][2] not in stack.offsets:
                found[2] = (found[0], at)

    if pending:  # (a main's region: the formatting elements waiting at its start wait in its first piece too)
        wait = waiting(stack) or ()
    while pos < n:
        if retry >= 0 and len(stack) <= _SHALLOW:
            retry = -1
        if unsure:
            forms_closed(pos)
        m = search(html, pos, last_gt + 1) if pos <= last_gt else None
        if m is None:
            m = search_tail(html, max(pos, last_gt + 1), n)
        elif m.end() == last_gt + 1 and m.group(0)[:3] in ("<!-", "<![", b"<!-", b"<![") \
                and not m.group(0).endswith(_ENDS_BYTES if as_bytes else _ENDS):
            m = search_tail(html, m.start(), n)  # a comment that never ends: to the end of the page
        text_end = n if m is None else m.start()
        if stack and stack[-1][0] in _TABLE_CONTEXT and not foreign and has_text(html, pos, text_end):
            foster()
        if opening and (m is None or m.group(1) is not None or m.group(2) is not None or has_text(html, pos, text_end)):
            opening = False
            quirks = is_quirks("" if doctype is None else doctype.decode(encoding) if as_bytes else doctype)
        elif opening and doctype is None and m.group(0)[:9].lower() in ("<!doctype", b"<!doctype"):
            doctype = m.group(0)
            lead.append((m.end(), m.group(0)))
        if pending and fmt_exact and in_body and not foreign and text_end > pos:
            text_reopens(pos, text_end)
        hold = pos  # (no cut in this text before it: `signs_only_until`)
        if anchors and text_end > pos and not foreign and "a" in stack.names:
            hold = signs_only_until(pos, text_end)
        if text_end - start >= piece_chars and not foreign and stack and stack[-1][0] in ("pre", "listing", "code"):
            # Text of a code block: never before another line break (the parser drops one right
            # after a <pre> start tag).
            if hold >= 0:
                line_cuts(max(pos, start + piece_chars - 1, retry - 1, hold - 1), text_end, _SAFE, False)
        elif text_end - start >= text_chars and not foreign and not pending and fragile < 0 and form_left < 0 \
                and has_text(html, pos, text_end):
            # Text of a paragraph, or of the body itself, where no block began for a quarter piece
            # more: the renderer goes on with its line.
            # (not before the element of `_SETTLE` opened last in this piece is half a piece long: the
            # top one of the stack, whose offsets grow upwards)
            at = max(pos, start + text_chars, retry, hold if hold >= 0 else text_end)
            for o in reversed(stack) if at < text_end else ():
                if o[2] < start:
                    break
                if o[0] in _SETTLE:
                    at = max(at, o[2] + settle)
                    break
            odd = markup(html, pos, text_end)  # (markup the tokens did not take: no cut after it)
            run_end = text_end if odd is None else odd.start()
            visible = -1
            while at < run_end:
                if visible < 0:
                    visible = first_visible(pos, run_end)
                q = text_cut(at, pos, run_end, visible)
                if q < 0:
                    at += window  # nothing in this window: the next one
                    continue
                if not cuttable(stack, q, _SAFE_TEXT):
                    break
                cut(q, stack)
                at = start + text_chars
        if not in_body and text_end > pos and has_text(html, pos, text_end) and not (stack and stack[0][0] == "template") \
                and opens_body(pos, text_end):
            in_body = True  # (text opens the body; not a template's in the head, helper-96)
        if form_text >= 0 and text_end > pos and not foreign and "template" not in stack.names:
            counted = form_chars(pos, text_end, form_min - form_text)  # (a template's text is not the form's)
            form_text = form_text + counted if counted >= 0 else -1
            if form_text >= form_min:  # content by its text, which its first piece holds (up to here)
                rows[form_at] = 0
                unsure.pop(form_at, None)
                form_at = form_text = -1
        if counting and (seen < form_min or form_left >= 0) and text_end > pos and not foreign \
                and not stack.has(ALWAYS_DROPPED):
            counted = text_chars_in(pos, text_end, max(form_min - seen, form_left))
            seen = min(seen + counted, form_min)
            if form_left >= 0:
                form_left -= counted
                if form_left <= 0:
                    form_left = -1
        if m is None:
            break
        if m.group(4) is not None:
            whole = True
            break
        pos = m.end()
        end_name, name = m.group(1), m.group(2)
        if as_bytes:
            end_name = end_name and end_name.decode("latin-1")
            name = name and name.decode("latin-1")
        if end_name is not None:
            end_name = end_name.lower()
            if end_name in _IGNORED:
                continue
            if foreign:
                inside = stack[froot:]  # the foreign elements (and those in their integration points)
                if svg_plain and stack[-1][0] != end_name and not any(o[0] == end_name for o in inside):
                    svg_plain = False
                point = -1 if svg_plain else next(  # (no integration point in a plain svg)
                    (i for i in range(len(inside) - 1, -1, -1) if inside[i][0] in _INTEGRATION), -1)
                # (with elements open in the point, the parser reads the end tag as HTML, which stops at the
                # point, a special element: so the point's own end tag is ignored too; helper-89)
                scope = inside[point + 1:] if 0 <= point < len(inside) - 1 else inside[point:]
                if point >= 0 and not any(o[0] == end_name for o in scope):
                    continue  # an integration point bounds the scope: the parser ignores an end tag from outside it
                if end_name in ("p", "br") and point < 0:
                    del stack[froot:]  # out of foreign content, then read as HTML
                    foreign = 0
                elif end_name in _FOREIGN:
                    foreign -= 1
            if end_name == "form" and not foreign and "template" not in stack.names:
                # (in a template it closes a form in scope, as other end tags do, the pointer aside)
                if not form_open:
                    continue  # the parser ignores it: no form pointer (an earlier `</form>` reset it, in scope or not)
                form_open = False
                f = _find(stack, {"form"}, _DEFAULT_SCOPE)
                # (the elements open in the form stay open, and in it; so do the formatting elements the
                # parser opened again there, at its text, which the scan does not follow: pending ones)
                if f >= 0 and (pending or any(o[0] not in _IMPLIED_END for o in stack[f + 1:])):
                    whole = True
                    break
                if f < 0:  # out of scope (in a cell): the form stays open without its pointer, which a
                    for o in stack:  # piece reopening it would set again (its `</form>` would close it)
                        if o[0] == "form":
                            rows[o[2]] = -1
                    form_at = form_text = -1  # (for good: no heading or text after makes it cuttable)
            if end_name == "br" and not foreign:
                tag_reopens("br")  # (the parser reads it as a `<br>`)
            depth = len(stack)
            # (in foreign content too: the parser walks up past the svg's elements to the HTML one and
            # reads the end tag as in the body, the adoption agency closing the element and what it holds)
            own = _find(stack, {end_name}, _MARKERS) if end_name in _FORMATTING else -1
            own_at = stack[own][2] if own >= 0 else -1
            if own >= 0 and any(o[0] in _SPECIAL for o in stack[own + 1:]):
                fragile = own if fragile < 0 else min(fragile, own)
                fmt_exact = False  # (the adoption agency moves elements on the list too)
                undo_cuts(own_at, element=True)  # (`adopted`: a piece cut inside cannot move its blocks)
            if own >= 0 and pending and fmt_exact:
                mk = marker_at()  # (the end tag closes the last of that name on the list: one pending after it?)
                if any(e[0] == end_name and e[3] == mk and at > own_at for at, e in pending.items()):
                    fmt_exact = False
            if end_name == "noscript" and not foreign and stack and stack[0][2] == head_noscript \
                    and len(stack) > 1:
                # A noscript the scan holds from where the parser may still be in the head, with elements
                # left open in it: in the head, the parser closed it at the first of them (opening the
                # body) and ignores this end tag, leaving them open; in the body, this end tag closes
                # them (or is ignored, a block open in it). The scan cannot tell which: read the page
                # whole (helper-95: `<noscript><b></noscript>` and a table, the rest of the page in the
                # `<b>`, taken for one closed and waiting to be opened again)
                whole = True
                break
            tail = stack[froot:] if foreign else None
            _end(stack, end_name)
            if tail is not None and len(stack) < depth - 1 and _left_on_list(tail, max(len(stack) - froot, -1)):
                # A formatting element in an integration point (`foreignObject`, `mi`...), where the
                # parser reads HTML, closed by another's end tag: it waits on the parser's list, which
                # the scan does not follow in foreign content, and is opened again after the svg
                # (helper-98: `<svg><foreignObject><div><b></div>...</svg><pre>`, the pre's code in it)
                whole = True
                break
            if foreign and (len(stack) < depth - 1 or end_name in _FOREIGN):  # (`</div>` in an svg closes it too)
                if len(stack) > froot and stack[froot][0] not in _FOREIGN:  # (an element below it went)
                    froot = next((i for i, o in enumerate(stack) if o[0] in _FOREIGN), len(stack))
                    svg_plain = False
                foreign = sum(o[0] in _FOREIGN for o in stack[froot:]) if len(stack) > froot else 0
            fmt_open.pop(own_at, None)
            if end_name in _FORMATTING and own < 0:
                # (its end tag takes the last one off the parser's list of formatting elements; one
                # open of that name is the one it closes, and the one pending stays on the list)
                markers = stack.count(_MARKERS)  # (none opened before these)
                last = pending.last(end_name, markers)
                if last >= 0:
                    if pending.pop(last)[3] != marker_at():
                        fmt_exact = False
                    if stack.has(_SPECIAL):
                        fragile = 0  # (the copy it closes, opened again somewhere in the stack, may hold a block)
            if len(stack) < depth and (fmt_open or pending):
                formatting_closed()
            if len(stack) <= fragile:
                fragile = -1
            if mains:
                closed(m.start())
            continue
        if name is None:  # a comment, doctype or processing instruction
            if not foreign and m.group(0)[:9] in cdata:  # outside SVG and MathML, a comment to the first ">"
                pos = html.find(gt, m.start()) + 1 or n
            token_cut(m.start(), False)
            continue
        name = name.lower()
        if name == "noscript" and head_noscript >= 0 and stack and stack[-1][2] == head_noscript:
            continue  # (the parser ignores a noscript in a noscript in the head; helper-97)
        if name in _MARKERS and name != "template" and (pending or fmt_open) and "template" in stack.names:
            # A cell, caption... in a template puts a marker on the parser's list; one left open there,
            # the template's end clears the list back to it only, the template's own marker staying,
            # before which nothing is opened again (helper-97: `<p><b>x</p><template><td></template>`):
            # the scan stops following the list
            fmt_exact = False
        if foreign and (name in _BREAKOUT or name == "font" and font_breakout(m.group(3))) \
                and not any(o[0] in _INTEGRATION for o in stack[froot:]):
            del stack[froot:]  # out of foreign content: the tag is read as HTML, below
            foreign = 0
            svg_plain = False
        if name in _IGNORED:
            if name == "html" and not html_tag:
                html_tag = m.group(0)
            elif name == "body":  # its attributes (hidden, a role...) count for every piece
                lead.append((m.end(), m.group(0)))
                in_body = body_tag = True
            continue
        if not foreign and stack and stack[-1][0] in _TABLE_CONTEXT and name not in _IN_TABLE:
            foster()
        if foreign:
            if name in _INTEGRATION or name in _FOREIGN or name == "font":
                svg_plain = False
            elif svg_plain:
                cut_reopening(m.start(), froot)  # (reopening only the svg)
            if name in _FOREIGN:
                foreign += 1
            if not m.group(3).rstrip().endswith(slash):
                stack.append((name, m.group(0), m.start()))
            elif name in _FOREIGN:
                foreign -= 1
            continue
        if name == "a" and "a" in stack.names:
            close_a(m.start())
        if pending and name not in _NO_REOPEN:
            tag_reopens(name)
        template_cut(m.start())
        if name in _CUT_BEFORE_INLINE:
            token_cut(m.start(), True)
        if name == "plaintext":
            # The rest of the page is the plaintext's text: cut after line breaks, a piece's worth
            # apart, each piece reopening it (the parser keeps a line break right after its start
            # tag; helper-105: 20 MB of `a<b>` lines in one took 18x the page, read as one tree).
            if open_tag(name, m.group(0), m.start()) and "table" not in stack.names:
                line_cuts(max(pos, start + piece_chars - 1), n - 1, _PLAIN_SAFE, True)  # (none at the page's end)
            break
        if name == "frameset":
            whole = True  # the parser ignores the body of a frameset page, or the frameset
            break
        if name in _RAW:
            if name == "xmp" and open_tag(name, m.group(0), m.start()):  # (it closes an open <p>, as a block does)
                stack.pop()  # (and ends at its end tag, read past below)
            close = _raw_end(name, as_bytes).search(html, pos, n) if name != "script" else \
                _script_end(html, pos, n, as_bytes)
            if close is None:
                break
            if name == "title" and title is None:
                title = _title_markup(html, pos, close.start(), encoding)
            pos = html.find(gt, close.end() - 1) + 1 or n
            continue
        if name in _FOREIGN:
            if not m.group(3).rstrip().endswith(slash):
                foreign += 1
                froot = len(stack)
                stack.append((name, m.group(0), m.start()))
                svg_plain = name == "svg"
            continue
        if name == "form" and not foreign and "template" not in stack.names:
            # (in a template the parser neither reads nor sets its form pointer: the form is opened)
            if form_open:
                if "form" not in stack.names:
                    # The pointer outlived its form (closed by another element's end tag): a piece cut
                    # since has no pointer and would open this form, so those cuts are undone.
                    undo_cuts(form_from)
                continue  # the parser ignores a form inside a form (its form pointer is set)
            form_open = True
            form_from = m.start()
        if name == "select":
            # The parser ignores most tags inside a select: read on from its end (or the next select).
            # (Not a `</template>`, which it reads as in the head, closing a template the select is in:
            # no cut inside that template then, helper-75.)
            for o in reversed(stack):
                if o[0] == "template":
                    rows[o[2]] = -1
                    break
            close = select_tag(html, pos, n)
            if close is None or formatting_tag(html, pos, close.start()):
                whole = True  # (never closed; or holding a formatting element, helper-89: `<select><i></select>e`)
                break
            pos = close.start()
        if name in _CUT_BEFORE and m.start() - start >= piece_chars and form_left < 0 and m.start() >= retry \
                and (fmt_exact or not pending):  # (else `waiting` says no: no copy of the stack)
            trial = _Stack(stack)
            opens = _start(trial, name, m.group(0), m.start(), bool(quirks))
            while opens and trial and trial[-1][2] == m.start():
                # (the element about to open belongs to the next piece, and so do the row group and row
                # the parser makes for a bare `<tr>` or cell: after a `</tbody>`, a `<tbody>` of them in
                # the next piece's prefix was taken for the group closed, and a `rowspan=0` ran on into
                # the new one, helper-98)
                trial.pop()
            # (an inline element may stay open around the block when none holds a block: `<font><p>`;
            # not one the start tag closes, which the parser opens again at the next text, in the next
            # piece, where it is not on the list of formatting elements: `<li><code><li>i`, helper-73)
            kept = trial.low  # (the elements of `stack` the start tag left open)
            # (blocks may stand open in a formatting element while the scan follows the parser's list
            # of them: an end tag that moves them undoes the cuts; not once it stops following it,
            # helper-89: `<u><u><u><u></u></u><main></u></u>` and a block after)
            if (opens or name not in _TABLE_PARTS) and (fragile < 0 or len(trial) <= fragile) \
                    and not any(o[0] in _FORMATTING for o in stack[kept:]) \
                    and (made := waiting(trial)) is not None \
                    and cuttable(trial, m.start(), _SAFE_BLOCK, adopted=not fmt_exact):
                cut(m.start(), trial, made)
                stack = trial
            elif len(stack) > _SHALLOW:  # (the copy, a walk of the stack, is held back too)
                retry = max(retry, m.start() + min(len(stack) * _BACKOFF, window))
        opened = open_tag(name, m.group(0), m.start())
        if opened and name in _IN_HEAD and not in_body:
            # In the head (scripting off, as lexbor parses): a noscript is closed by the first element
            # not of the head, which opens the body, and the scan still holds it; a template stays in
            # the head: never cut inside either (each piece reopens them in the body).
            rows[m.start()] = -1
            if name == "noscript":
                head_noscript = m.start()
        elif opened:
            in_body = in_body or stack[0][0] != "template"  # (a template's content in the head: not the body)
            if name in _FORMATTING and not foreign:
                mk = marker_at()
                if fmt_exact and (len(fmt_open) + len(pending) >= _LIST_MAX or sum(
                        e[0] == name and e[3] == mk for e in (*fmt_open.values(), *pending.values())) >= 3):
                    fmt_exact = False  # (the parser's Noah's ark clause may take the first of them off its list)
                fmt_open[m.start()] = (name, stack.count(_MARKERS), stack[-1][1], mk)  # (its start tag, as opened)
            elif name in _PRE:
                pre_end = m.end()
            if m.group(3) and (consent(m.group(3)) or decoration(m.group(3)) or (
                    name == "ol" and _has_attribute(m.group(3), "reversed"))):
                rows[m.start()] = -1  # never cut inside: its furniture or decoration test or numbering reads it whole
            elif name == "a" and m.group(3) and _in_page(m.group(3), enc):
                rows[m.start()] = -1  # not until its text is not a sign only (`signs_only_until`)
                anchors.add(m.start())
            elif name == "form":
                rows[m.start()] = -1  # not until a heading or article in it makes it content (`_FORM_CONTENT`)
                form_at = m.start()
                form_text = -1 if m.group(3) and has_role(m.group(3)) else 0  # (a role may make it furniture)
                unsure[form_at] = seen
            elif name in _FORM_CONTENT and form_at >= 0 and form_at in stack.offsets \
                    and "template" not in stack.names:
                rows[form_at] = 0
                unsure.pop(form_at, None)
                form_at = form_text = -1
            if name == "table":
                if facts_held() > forget_at:
                    forget_closed()
                table_opened(m.group(3), m.start())
            elif name in _CELL_PARTS:
                row_made(name, m.start())
            kind = "main" if name == "main" else "role" if role_main(m.group(3)) else None
            if kind is not None and kind not in mains:
                mains[kind] = [m.end(), list(stack), None,
                               (form_open, dict(fmt_open), dict(pending), fmt_exact)]
            if len(stack) > _DEEPEST:
                whole = True
                break
        if mains:
            closed(m.start())
        if name == "tr":
            t = _find(stack, {"table"}, _TEMPLATE)
            if t >= 0 and rows.get(stack[t][2], 0) >= 0:
                rows[stack[t][2]] = rows.get(stack[t][2], 0) + 1
    if unsure and not whole:
        forms_closed(pos)
        forms_closed(n, every=True)  # (a form never closed runs to the end)
    while form_left > 0 and out:  # too little text beside a form: the piece before is joined to its piece
        form_left -= seen_at[-1]
        undo_cuts(start)
    region: tuple[int, int, list[_Open], _State] | None = None
    if whole:
        out = [_piece(begin, n, first_stack, [], enc)]
    else:
        out.append(_piece(start, n, before, [], enc, wait, body_before))
        for kind in ("main", "role"):
            if kind in mains:
                at, around, span, at_state = mains[kind]
                region = (at, n if span is None else span[1], around, at_state)  # a main never closed runs to the end
                break
    head = html_tag + (b"<title>" + title + b"</title>" if as_bytes else "<title>" + title + "</title>") \
        if title is not None else html_tag
    doctype_text = "" if doctype is None else doctype.decode(encoding) if as_bytes else doctype
    if lead:
        out = [replace(p, prefix=_lead(lead, p.start, encoding) + p.prefix) for p in out]
    return out, (head.decode(encoding) if as_bytes else head), region, doctype_text
