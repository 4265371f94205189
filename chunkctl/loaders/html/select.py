"""HTML content selection: the lexbor DOM, the element holding the page's text, furniture and data-table tests; no text."""

from __future__ import annotations

import re
from typing import Any

from chunkctl.loaders.html.elements import (
    ALWAYS_DROPPED,
    CELL_BLOCKS,
    CONSENT,
    DISPLAY_NONE,
    EDIT_SECTION_CLASSES,
    FURNITURE_ROLES,
    FURNITURE_TAGS,
    HEADING_LEVELS,
    LINE_NUMBER_CLASSES,
    LINE_NUMBERS_TEXT,
    PERMALINK_CLASS,
    PERMALINK_TEXT,
    WIKI_FURNITURE_CLASSES,
    WIKI_FURNITURE_IDS,
)


def parse(html: str):
    from selectolax.lexbor import LexborHTMLParser

    return LexborHTMLParser(html)


def node_attrs(node) -> dict[str, Any]:
    try:
        return node.attributes
    except Exception:  # a malformed attribute name lexbor keeps but Python cannot decode
        return {}


_INTEGER = re.compile(r"[\t\n\f\r ]*([-+]?)0*([0-9]+)")


def html_integer(value: str | None) -> int | None:
    """`value` read by the HTML standard's rules for parsing integers (leading ASCII white space, a
    sign, ASCII digits, anything after them ignored; HTML Living Standard, "Numbers"); None where
    they fail. More than 18 digits read as 10**18, past every limit the callers apply."""
    m = _INTEGER.match(value) if value else None
    if m is None:
        return None
    digits = m.group(2)
    n = int(digits) if len(digits) <= 18 else 10 ** 18
    return -n if m.group(1) == "-" else n


MAX_COLSPAN, MAX_ROWSPAN = 1000, 65534  # (the HTML standard's table model clamps spans to these)


def cell_spans(attrs: dict[str, Any]) -> tuple[int, int]:
    """A cell's (rowspan, colspan) as the HTML table model reads them: each by the rules for
    non-negative integers (a negative or unreadable value gives 1), a colspan of 0 gives 1, a
    rowspan of 0 runs to the end of the row group (0 is returned), clamped to 65534 rows and 1000
    columns. Until 0.1.30 six digits were read, a `+` sign gave 1 and `rowspan=-2` ran to the end."""
    rows = html_integer(attrs.get("rowspan"))
    cols = html_integer(attrs.get("colspan"))
    return (1 if rows is None or rows < 0 else min(rows, MAX_ROWSPAN),
            1 if cols is None or cols <= 0 else min(cols, MAX_COLSPAN))


def _outside_furniture(node) -> bool:
    """True when no ancestor of `node` is page furniture (a nav, footer, aside, ... holding it)."""
    p = node.parent
    while p is not None and p.tag not in ("body", "html", "-document"):
        tag = p.tag
        if tag in FURNITURE_TAGS or tag == "header":
            return False
        role = (node_attrs(p).get("role") or "").strip().lower()
        if role in FURNITURE_ROLES:
            return False
        p = p.parent
    return True


def semantic_root(tree):
    """The element the page's markup names as its content, or None.

    Rule: exactly one top-level `<article>` outside page furniture -> that article;
    else the first `<main>` (or `role="main"`) -> it; else None.
    """
    articles = [a for a in tree.css("article") if _outside_furniture(a)]
    top = []
    for a in articles:
        p = a.parent
        nested = False
        while p is not None:
            if p.tag == "article":
                nested = True
                break
            p = p.parent
        if not nested:
            top.append(a)
    if len(top) == 1:
        return top[0]
    return tree.css_first("main") or tree.css_first('[role="main"]')


FORM_TEXT = 2000
"""Characters of text (not white space; outside its controls, scripts and styles) from which a
`<form>` is the page's content, not furniture, even without a heading: an ASP.NET page wraps
its whole body in one form, and one without an `<h1>` or `<h2>` gave no text at all. Search,
login, comment and newsletter forms hold tens to some hundreds (the shared corpus's 39 forms:
412 at most; helper-68's 1,704 real pages with forms: their search forms once counted with
their indentation and their `<datalist>` options)."""

WRAPPER_TEXT = 200
"""Characters of text (as FORM_TEXT counts them) from which a form holding more text than the
rest of the page is its content: a page that is only a login or newsletter form stays empty."""

CONTROL_TEXT = 100
"""Characters of text (as FORM_TEXT counts them) a form holding more text than the rest of the
page needs per visible control (an `input` other than hidden, a `select`, `textarea` or
`button`) to be its content: a search page's form is mostly labels (helper-68: a court's
search page, 1,279 characters for 41 controls), an ASP.NET page's has a search box or two."""

CONTROL_TAGS = ("select", "datalist", "option", "textarea", "button", "script", "style", "noscript", "template")
"""Elements whose text the form rules do not count (also `pieces.py`'s count of a form's text)."""
_CONTROLS = ", ".join(CONTROL_TAGS)
_LOOK_SIBLINGS = 64  # siblings per level (text nodes included), and levels, looked at beside a form
_LOOK_NODES = 20_000  # nodes walked beside a form, in all, before the text there counts as more than enough


# Python's white space (`str.isspace`, what `\s` matches), to delete with `str.translate`
_NO_SPACE = {c: None for c in range(0x3001) if chr(c).isspace()}


def _chars(text: str) -> int:
    """Characters of `text`, white space left out (how the form rules count text). (`str.translate`:
    `re.sub` held a string a match, 20x a large form's text.)"""
    return len(text.translate(_NO_SPACE))


def _text_len(node) -> int:
    """Characters of `node`'s text, white space left out, outside form controls, scripts and styles."""
    n = _chars(node.text(deep=True))
    if n:
        controls = node.css(_CONTROLS)
        inner = {c.mem_id for c in controls}
        for c in controls:
            p = c.parent
            while p is not None and p.mem_id != node.mem_id and p.mem_id not in inner:
                p = p.parent
            if p is None or p.mem_id == node.mem_id:  # (an option in a select is the select's)
                n -= _chars(c.text(deep=True))
    return n


def _visible_controls(node) -> int:
    """The form controls in `node` a reader sees (inputs other than hidden ones, selects, text
    areas, buttons)."""
    return sum(1 for c in node.css("input, select, textarea, button")
               if c.tag != "input" or (node_attrs(c).get("type") or "").strip().lower() != "hidden")


def _text_upto(node, limit: int, budget: list[int]) -> int:
    """Characters of `node`'s text (white space left out), counted up to `limit`: `limit` once
    reached, or once `budget[0]` (nodes, spent as it goes) runs out, so the siblings of a form
    cost _LOOK_NODES at most, however big or deep they are."""
    if node.tag == "-text":
        return min(limit, _chars(node.text_content))
    if node.tag in ALWAYS_DROPPED or (node.tag or "").startswith("-"):
        return 0
    seen = 0
    for d in node.traverse(include_text=True):
        budget[0] -= 1
        if budget[0] < 0:
            return limit
        if d.tag == "-text":
            seen += _chars(d.text_content)
            if seen >= limit:
                return limit
    return seen


def _wraps_page(form, n: int) -> bool:
    """True when `form` (holding `n` characters of text) holds more text than the rest of the
    page: the text of its siblings and of its ancestors' siblings, up to the `<body>`, is
    counted until it reaches `n` (at most _LOOK_SIBLINGS siblings a level and levels, and
    _LOOK_NODES nodes in all: past that, the rest of the page counts as more)."""
    node = form
    budget = [_LOOK_NODES]
    for _ in range(_LOOK_SIBLINGS):
        parent = node.parent
        if parent is None:
            return False
        for k, sib in enumerate(parent.iter(include_text=True)):
            if k > _LOOK_SIBLINGS:
                return False
            if sib.mem_id != node.mem_id:
                n -= _text_upto(sib, n, budget)
                if n <= 0:
                    return False
        if parent.tag == "body":
            return True
        node = parent
    return False


def _form_is_content(node, attrs: dict[str, Any]) -> bool:
    """A form that wraps the page's headings (`h1`, `h2`, `article`, `main`), holds FORM_TEXT
    characters of text or more, or holds more text than the rest of the page (`_wraps_page`),
    WRAPPER_TEXT or more and CONTROL_TEXT a visible control; never one with a furniture role
    (`role="search"`)."""
    role = attrs.get("role")
    if role and role.strip().lower() in FURNITURE_ROLES:
        return False
    if node.css_first("h1, h2, article, main") is not None:
        return True
    n = _text_len(node)
    return n >= FORM_TEXT or (n >= WRAPPER_TEXT and n >= CONTROL_TEXT * _visible_controls(node)
                              and _wraps_page(node, n))


def is_furniture(node, tag: str, attrs: dict[str, Any], scoped: int) -> bool:
    """True when an element is page furniture (see docs/loaders.md, HTML: what counts as boilerplate)."""
    if tag in FURNITURE_TAGS:
        return not (tag == "form" and _form_is_content(node, attrs))
    if tag == "header" and not scoped:
        return True
    if not attrs:
        return False
    if "hidden" in attrs:
        return True
    if (attrs.get("aria-hidden") or "").strip().lower() == "true":
        return True
    role = attrs.get("role")
    if role and role.strip().lower() in FURNITURE_ROLES:
        return True
    style = attrs.get("style")
    if style and DISPLAY_NONE.search(style):
        return True
    cls = attrs.get("class")
    if cls and not WIKI_FURNITURE_CLASSES.isdisjoint(cls.split()) or attrs.get("id") in WIKI_FURNITURE_IDS:
        return True
    marks = " ".join(v for v in (attrs.get("id"), cls) if v)
    if marks and CONSENT.search(marks) and tag not in ("body", "html", "main", "article"):
        return node.css_first("main, article, h1") is None
    return False


def is_decoration(node, tag: str, attrs: dict[str, Any]) -> bool:
    """True for an element that is never text, whatever the options: code line numbers (a
    `LINE_NUMBER_CLASSES` class, or `td.gutter`, holding digits only) and a heading's
    in-page permalink (`href="#..."`, its text a sign only, `PERMALINK_TEXT`, in a heading or
    `dt` or with a permalink class): "Install¶" was the heading, the breadcrumb and a `dt`
    signature's end on every Sphinx page. A "#" link in running text ("tags #rust") stays. And
    MediaWiki's section edit links (`EDIT_SECTION_CLASSES`): "History[edit]" was every Wikipedia
    heading."""
    cls = attrs.get("class") or ""
    if cls:
        names = cls.split()
        if (not LINE_NUMBER_CLASSES.isdisjoint(names) or (tag == "td" and "gutter" in names)) and \
                LINE_NUMBERS_TEXT.fullmatch(node.text(deep=True)):
            return True
        if not EDIT_SECTION_CLASSES.isdisjoint(names):
            return True
    if tag == "a":
        href = attrs.get("href")
        if href and href.lstrip().startswith("#") and PERMALINK_TEXT.fullmatch(node.text(deep=True)):
            if PERMALINK_CLASS.search(cls):
                return True
            up = node.parent
            for _ in range(3):
                if up is None:
                    break
                if up.tag in HEADING_LEVELS or up.tag == "dt":
                    return True
                up = up.parent
    return False


# A table without header cells whose cells hold blocks is still data when it is a regular grid of short cells.
MAX_BLOCK_CELL = 400  # characters of one cell's text


def _cells(row) -> list:
    return [c for c in row.iter() if c.tag in ("td", "th")]


def _regular_grid(rows: list) -> bool:
    """True when every row covers the same number of columns (colspan and rowspan counted, as
    the table model counts them: a rowspan stops at its row group's end, `rowspan=0` runs to it;
    helper-98: both were read as crossing groups and as one row)."""
    pending: list[int] = []  # rows each column is still covered for, by a rowspan from above
    widths = set()
    groups = [r.parent.mem_id if r.parent is not None else -1 for r in rows]  # (a row's `tbody`...)
    left = [0] * len(rows)  # rows from each to its group's end, itself included
    for k in range(len(rows) - 1, -1, -1):
        left[k] = left[k + 1] + 1 if k + 1 < len(rows) and groups[k + 1] == groups[k] else 1
    for k, r in enumerate(rows):
        if k and groups[k] != groups[k - 1]:
            pending = []  # (a new row group: the rowspans above end)
        col = 0
        width = 0
        cells = _cells(r)
        i = 0
        while i < len(cells) or (col < len(pending) and pending[col] > 0):
            if col < len(pending) and pending[col] > 0:
                pending[col] -= 1
                col += 1
                width += 1
                continue
            down, span = cell_spans(node_attrs(cells[i]))
            down = min(down, left[k]) if down else left[k]
            i += 1
            for _ in range(span):
                while len(pending) <= col:
                    pending.append(0)
                pending[col] = down - 1
                col += 1
                width += 1
        widths.add(width)
    return len(widths) == 1


def is_data_table(node, attrs: dict[str, Any]) -> bool:
    """True for a table of data; False for a layout table (a container of blocks).

    Layout: role presentation/none, a nested table, fewer than two rows or two columns
    (a one-cell table around a `<pre>` is a code listing), or no header cells
    (`th`/`thead`) while cells hold blocks (paragraphs, lists, divs, headings, code),
    unless those cells make a regular grid (every row as wide) of short cells
    (at most `MAX_BLOCK_CELL` characters, no headings or code): a comparison table
    whose cells are paragraphs or lists is data.
    """
    role = (attrs.get("role") or "").strip().lower()
    if role in ("presentation", "none"):
        return False
    if node.css_first("table table") is not None:
        return False
    rows = node.css("tr")
    if len(rows) < 2:
        return False
    if max(len(_cells(r)) for r in rows) < 2:
        return False
    if node.css_first("th, thead") is not None:
        return True
    if node.css_first(CELL_BLOCKS) is None:
        return True
    return short_block_cells(node, rows)


def short_block_cells(node, rows: list[Any] | None = None) -> bool:
    """True when the table `node`'s cells, blocks or not, make a regular grid (every row as wide) of
    short cells: at most `MAX_BLOCK_CELL` characters each, no headings, code, forms or navigation
    (`rows`: its `tr`s, when known). Such cells read as a table's; long ones (a parameter list's
    paragraphs) read better as blocks."""
    if node.css_first("h1, h2, h3, h4, h5, h6, pre, form, nav") is not None:
        return False
    rows = node.css("tr") if rows is None else rows
    if any(len(c.text(deep=True).strip()) > MAX_BLOCK_CELL for r in rows for c in _cells(r)):
        return False
    return _regular_grid(rows)
