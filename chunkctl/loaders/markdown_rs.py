"""Markdown block structure read with markdown-it-pyrs (markdown-it.rs, in Rust): the fast path
of the Markdown loader.

markdown-it-py stays the reference (`markdown._reference_items`): this module gives the same
items, in lines, and says `None` wherever it is not known to agree, so the loader falls back
to the reference: markdown-it-pyrs not installed (it has wheels for CPython 3.8-3.12 only),
a node type it was not tested on, a document nested deeper than markdown-it-py's
`maxNesting` could reach, or lines the two are known to read differently (`_DIVERGENT`,
`_TABLE_ROWS`, `_table_diverges`). tests/loaders/test_markdown_parsers.py checks that both give the
same blocks on the CommonMark 0.31.2 spec examples, GFM tables, generated Markdown and every
Markdown file of the shared corpus.

Speed (issue 19, 583 real Markdown files, 9.6 MB): markdown-it-py's block parse took about
1.05 s, markdown-it-pyrs with the walk below about 0.33 s.
"""

from __future__ import annotations

import bisect
import codecs
import re
from collections.abc import Callable, Sequence
from typing import Any

from chunkctl.text.lines import line_starts as lines_of

_PLUGINS = ("blockquote", "code", "fence", "heading", "hr", "lheading", "list", "paragraph", "reference",
            "html_block", "table")
# markdown-it-py's commonmark preset stops reading blocks at nesting level 20 (`maxNesting`) and
# drops the rest; markdown-it.rs goes on. Documents nested this deep (in token levels: a quote,
# a list and a list item add one each) take the reference parser.
MAX_LEVEL = 16

_NEWLINES = re.compile(r"\r\n?")
# Nesting markdown-it.rs is not given: a line that opens 12 or more quotes or list items, or is
# indented 64 columns or more. (About 20,000 nested markers on one line overflow its stack and
# kill the process; nesting deeper than `MAX_LEVEL` takes the reference anyway.)
_TOO_DEEP = re.compile(r"\n(?:[ \t]*(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))){12}|\n[ \t]{64}")
_SIMPLE = {"blockquote": "quote", "paragraph": "paragraph", "html_block": "html", "hr": "rule"}
_CONTAINERS = frozenset(("blockquote", "bullet_list", "ordered_list", "list_item"))  # one token level each
_INLINE = frozenset(("text",))

# Where the two parsers are known to read lines differently, the reference reads the whole
# document. Each pattern below was found by tests/loaders/test_markdown_parsers.py on generated
# Markdown; a match inside a code block (as markdown-it.rs reads it) does not count. The
# patterns are searched in "\n" + text and open with that line break instead of "^", which
# lets the regex engine skip from line break to line break (ten times faster than "^" in
# MULTILINE mode on 10 MB of Markdown).
_TABLE_ROWS = re.compile(
    # - GFM tables. A line that may be a table's delimiter row (pipes, colons and hyphens, with
    #   a pipe in it, or hyphens under a line with a pipe) must be the delimiter row of a table
    #   markdown-it.rs found, which then passes `_table_diverges`: otherwise the reference may
    #   read a table there that markdown-it.rs does not ("| h |" over "---": a one-column table
    #   for markdown-it-py, a setext heading for markdown-it.rs; "```|" over "--": a table, or
    #   a fence). A delimiter row with a colon and no pipe (":--") counts too: markdown-it.rs
    #   ends a paragraph there for a table it may then not read ("alpha", "<b>", ":--": a
    #   paragraph and an HTML block for it, one paragraph for markdown-it-py).
    #   Written so that no two unbounded runs can trade characters (possessive runs, and
    #   lookaheads for "a hyphen, then a pipe" in the line): the plain form backtracked over
    #   every split of a line that fails at its end, cubic in its length (helper-56: 4 KB of
    #   "|-" and an "x" took 15 s, 8 KB over 120 s; a 200 KB line with pipes 22 s).
    r"\n[ \t>]*+(?::-++:?|-++:)[ \t]*+$"
    r"|\n[ \t>]*+[:\-]*+\|(?=[^\-\n]*-)[|:\- \t]*+$"
    r"|\n[ \t>]*+(?=[^\-\n]*-[^|\n]*\|)[|:\- \t]*+$"
    r"|\n(?=[^|\n]*\|)[^\n]*+\n[ \t>]*+:?-++:?[ \t]*+$",
    re.M,
)
# Each of the following needs a character ('>', a tab, "]:") that many documents lack: it is
# searched for only when the text has it. (Patterns open with "\n": see `_TABLE_ROWS`.)
# - a list item that may not interrupt a paragraph (an empty item, a number other than 1) in a
#   run of text lines that holds a quote line before it ("> a" then "b" then "2)", or ">> a"
#   then "> 2. b"): markdown-it-py ends the quote, markdown-it.rs reads a lazy continuation
#   line. Found by one pass over three kinds of lines (`_lazy_quotes`): quote lines, such
#   list items, and blank lines (only spaces and tabs: a no-break space is text).
_QUOTE_LINE = re.compile(r"\n[ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)*>")
_WEAK_ITEM = re.compile(r"\n[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]*$|(?!1[.)])\d{1,9}[.)][ \t])", re.M)
_BLANK_LINE = re.compile(r"\n[ \t]*$", re.M)
# - a list marker on the line right after a quote line: markdown-it-py ends the quote,
#   markdown-it.rs may read a lazy continuation line
_QUOTE_THEN_ITEM = re.compile(r"\n[ \t]*>[^\n]*\n[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)", re.M)
# - a tab after a list or quote marker, before the content: the column it starts at differs
_TAB_AFTER_MARK = re.compile(
    r"\n[ \t]*(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))(?:[ >]|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))*\t")
# - a link reference definition with a title, whose label or destination goes on to another
#   line, whose destination ends in a backslash, or followed by a line that could open a
#   title ('"', "'", "("): where the definition ends differs
#   (A label is at most 999 characters, as CommonMark's link labels, and its runs are possessive:
#   unbounded, each "[" of a long stretch without "]" was tried to its end and over every line
#   break in it, cubic: helper-56's family, 12 KB of "[a" lines after one "]:" took 36 s. A
#   label holds no unescaped "[" (CommonMark; markdown-it's reference rule stops there) and
#   its "[" opens a line's content, so follows no backslash: a run of "[" was tried up to 999
#   characters a "[", 1 MB of them took 18 s.)
#   Each branch opens with the "[" and looks behind it for a backslash after: a pattern that opens
#   with a literal lets the regex engine skip to each "["; opened by the look-behind, it tried every
#   position, 11x slower on the speed corpus's Markdown (0.24 s of its 9.6 MB against 0.02 s).
# a character of a label on one line, an escaped one, or a backslash at the line's end
_LABEL_CHAR = r"(?:[^\[\]\n\\]|\\[^\n]|\\(?![^\n]))"
_LABEL_CHAR_NL = r"(?:[^\[\]\\]|\\[\s\S]|\\\Z)"  # the same, line breaks included
_REF_DEF = re.compile(rf"\[(?<!\\\[){_LABEL_CHAR}{{0,999}}+\]:[ \t]*+(?:\n|[^\n]*[\"'(\\])"
                      rf"|\[(?<!\\\[)(?={_LABEL_CHAR}{{0,999}}+\n){_LABEL_CHAR_NL}{{0,999}}+\]:"
                      rf"|\[(?<!\\\[){_LABEL_CHAR}{{0,999}}+\]:[^\n]*+\n[ \t]*+[\"'(]")
# - the information separators U+001C-U+001F, which Python's `\s` matches and Rust's does not:
#   "<b>" and U+001F on a line opens an HTML block for markdown-it-py only (helper-108)
_SEPARATORS = re.compile("[\x1c-\x1f]")
# - an escaped pipe right before a pipe, or opening a line's content: markdown-it.rs splits a
#   header row of it into other cells than markdown-it-py (`|a\||h|` over `|-|` is a table to it
#   only, `\||a` over `-|-` to markdown-it-py only)
# - a line with a pipe that starts or ends with white space markdown-it-py trims (its
#   `MD_TRIM_CHARS` but space, tab and line ends) and markdown-it.rs keeps (U+00A0, U+2003, U+2028,
#   form feed, ...): `|` and U+2003 over `-|` is a table to
#   markdown-it.rs only (helper-109)
try:
    from markdown_it.common.utils import MD_TRIM_CHARS as _MD_TRIM_CHARS
except ImportError:  # (markdown-it-py 3 trimmed with `str.strip`: Python's white space)
    _MD_TRIM_CHARS = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
_TRIM_OTHER = re.escape("".join(sorted(set(_MD_TRIM_CHARS) - set(" \t\r\n"))))
_TRIM_START = re.compile(f"^[ \\t>]*+[{_TRIM_OTHER}]", re.M)
_TRIM_END = re.compile(f"[{_TRIM_OTHER}][ \\t]*+$", re.M)


def _trimmed_row(norm: str) -> bool:
    """True when a line of `norm` that holds a pipe starts or ends with `_TRIM_OTHER` white space."""
    for rx in (_TRIM_START, _TRIM_END):
        for m in rx.finditer(norm):
            a = norm.rfind("\n", 0, m.start()) + 1
            b = norm.find("\n", m.end())
            if norm.find("|", a, len(norm) if b < 0 else b) >= 0:
                return True
    return False


_ESCAPED_PIPE = re.compile(r"\\\|\||(?:^|\n)[ \t>]*\\\|")
_DIVERGENT = ((">", _QUOTE_THEN_ITEM), ("\t", _TAB_AFTER_MARK), ("]:", _REF_DEF))
"""(a character or string the text must hold, pattern): lines the two parsers read differently."""
# - an HTML block of the kinds that end at a marker ("<!--", "<?", "<![CDATA[", "<pre", ...)
#   that is indented or inside a list or quote: where it ends differs. Found from each such
#   opener (a literal search), then its line: only container marks and indentation before it.
_HTML_OPENER = re.compile(r"<(?:!|\?|script|pre|style|textarea)", re.I)
# - "<!" and a letter (CommonMark 0.31 takes any letter, markdown-it.rs upper case only) and the
#   tags the two spec versions list differently ("source", "search"), at a line's start after
#   container marks (column 0 included)
_HTML_VERSIONED = re.compile(r"<(?:![a-z]|source|search)", re.I)
_CONTAINER_MARKS = re.compile(r"[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])(?=[ \t])[ \t>]*)*")
# A table row whose first character may start another block (quote, fence, heading, list item,
# rule, HTML): markdown-it-py ends the table before such a line, markdown-it.rs may not; a
# header row that starts so may be that block for one parser and a table for the other.
_ROW_OPENER = re.compile(rb"[>`~#<]|[-+*](?:[ \t]|$)|[-*_][ \t]*[-*_][ \t]*[-*_]|\d{1,9}[.)](?:[ \t]|$)")
# A table under a paragraph line of a quote or list item: markdown-it-py reads its rows as lazy
# continuation lines of that paragraph, markdown-it.rs lets the table interrupt it.
_CONTAINER_START = re.compile(rb">|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)")
# markdown-it-py stops a table's body once it has filled in 65,536 missing cells (a guard against
# huge tables of short rows); tables that could reach it take the reference.
_MAX_FILLED_CELLS = 60_000
# A line that may be a table's delimiter row (`|---|:-:|`): its `-` runs are the table's columns.
_DELIMITER_ROW = re.compile(r"^[ \t>]*[|:-][|:\- \t]*-[|:\- \t]*$", re.M)
_DASHES = re.compile(r"-+")
_BLANK_LINE = re.compile(r"\n[ \t>]*(?:\n|\Z)")


def _filled_cells_may_pass(norm: str) -> bool:
    """True when a table of `norm` may fill in `_MAX_FILLED_CELLS` cells or more: a delimiter row's
    columns times the lines up to the next blank line, an upper bound. markdown-it.rs builds a
    node for every cell of every body row, missing ones included, before `_table_diverges` can
    send such a table to the reference: helper-105's header of 2,000 columns over 4,096 rows of
    two cells, 32 KB of Markdown, took 4 GB."""
    for m in _DELIMITER_ROW.finditer(norm):
        columns = len(_DASHES.findall(m.group()))
        if columns < 2:
            continue
        blank = _BLANK_LINE.search(norm, m.end())
        rows = norm.count("\n", m.end(), blank.start() if blank else len(norm))
        if columns * rows > _MAX_FILLED_CELLS:
            return True
    return False


BLANK_SLICE = 1 << 16
"""Bytes of a table row decoded at a time to see whether it is white space only (`_blank_utf8`):
a row of one giant cell was decoded whole, twice its size in a copy and its text."""
# markdown-it.rs reads link reference definitions one after another in quadratic time (found by a
# helper: 5,000 in a row 1.2 s, 20,000 19 s, 150,000 over 300 s; markdown-it-py 150,000 in 5 s).
_MAX_REF_DEFS = 1_000

_MD: Any = None
_MISSING = False


def _parser() -> Any:
    """The markdown-it-pyrs parser with CommonMark's block rules and GFM tables, no inline rules
    (built once per process), or None when markdown-it-pyrs is not installed."""
    global _MD, _MISSING
    if _MD is None and not _MISSING:
        try:
            from markdown_it_pyrs import MarkdownIt
        except ImportError:
            _MISSING = True
            return None
        md = MarkdownIt("zero")
        md.enable_many(list(_PLUGINS))  # type: ignore[arg-type]  # its stub lists names as Literals
        _MD = md
    return _MD


def available() -> bool:
    """True when markdown-it-pyrs is installed (the fast path can run)."""
    return _parser() is not None


def block_items(src: str, known_lines: tuple[Sequence[int], int, int] | None = None) -> Any:
    """The block items of `src` (see `markdown.Items`), or None when the reference parser must read it.

    `src` is normalized as markdown-it-py does before parsing (CR LF and CR become LF, NUL
    becomes U+FFFD), so line numbers are those of markdown-it-py's token maps. Source maps
    of markdown-it.rs are UTF-8 byte offsets; they become lines through the byte offsets of
    line starts. `known_lines` saves computing them: (line starts of a text `src` is the end
    of, where `src` starts in it, its first line's number); only for ASCII text without CR or
    NUL, where characters are bytes.
    """
    md = _parser()
    if md is None:
        return None
    norm = _NEWLINES.sub("\n", src)
    if "\0" in norm:
        norm = norm.replace("\0", "\ufffd")
    if _TOO_DEEP.search("\n" + norm):
        return None  # markdown-it.rs recurses per level: tens of thousands on one line crash it
    if norm.count("]:") > _MAX_REF_DEFS:
        return None  # markdown-it.rs takes quadratic time over link reference definitions in a row
    if "|" in norm and _trimmed_row(norm):
        return None  # the two count such a header row's cells otherwise
    if "\\|" in norm and _ESCAPED_PIPE.search(norm):
        return None  # the two split such a header row into cells otherwise
    if "<" in norm and _SEPARATORS.search(norm):
        return None  # markdown-it-py's HTML block patterns read U+001C-U+001F as white space (`\s`)
    if "-" in norm and "|" in norm and _filled_cells_may_pass(norm):
        return None  # its tree of a wide table's cells, missing ones filled in, is unbounded
    root = md.tree(norm)
    line_starts: Sequence[int]
    if known_lines is None:
        line_starts = lines_of(norm.encode("utf-8"))
        offset = first = 0
    else:
        line_starts, offset, first = known_lines
    find = bisect.bisect_right

    def lines(node: Any) -> tuple[int, int]:
        bs, be = node.srcmap
        bs += offset
        return find(line_starts, bs) - 1 - first, find(line_starts, max(bs, be + offset - 1)) - first

    def line_of(pos: int) -> int:
        """The line of character `pos` of `norm`: from the byte offsets above when characters
        are bytes, else from character offsets computed once, when first asked."""
        if known_lines is not None:
            return find(line_starts, pos + offset) - 1 - first
        if not char_starts:
            char_starts.append(lines_of(norm))
        return find(char_starts[0], pos) - 1

    char_starts: list[Sequence[int]] = []

    items: list[tuple[str, tuple[int, int], dict]] = []
    nested: list[tuple[int, int]] = []
    tables: list[Any] = []  # table nodes, top-level and nested
    for node in root.children:
        name = node.name
        if node.srcmap is None:
            return None
        if name == "definition":  # a link reference definition (no block; a place a piece can end)
            items.append(("definition", lines(node), {}))
        elif name in ("heading", "lheading"):
            if any(c.name not in _INLINE for c in node.children):
                return None
            items.append(("heading", lines(node), {"level": node.meta["level"], "content": _text(node)}))
        elif name in ("fence", "code_block"):
            items.append(("code", lines(node), {"info": node.meta.get("info", ""), "indented": name == "code_block"}))
        elif name == "table":
            table = _table(node, lines)
            if table is None:
                return None
            items.append(table)
            tables.append(node)
        elif name in ("bullet_list", "ordered_list"):
            members = [lines(c) for c in node.children if c.name == "list_item"]
            items.append(("list", lines(node), {"items": members}))
        elif name in _SIMPLE:
            items.append((_SIMPLE[name], lines(node), {}))
        else:
            return None
        if name in _CONTAINERS and not _nested_atoms(node, lines, nested, tables):
            return None
    nested.sort()
    if tables:
        data = norm.encode("utf-8")

        def line_bytes(k: int) -> bytes:  # line k of `norm`, in UTF-8
            a = line_starts[k + first] - offset
            b = line_starts[k + first + 1] - offset if k + first + 1 < len(line_starts) else len(data)
            return data[a:b]

        if any(_table_diverges(t, data, lines, line_bytes) for t in tables):
            return None
    if _diverges(norm, items, nested, [lines(t) for t in tables], line_of):
        return None
    return items, nested


def _text(node: Any) -> str:
    """The raw inline text of a heading or table cell (no inline rules run: one text node)."""
    return "".join(c.meta.get("content", "") for c in node.children if c.name in _INLINE)


def _table(node: Any, lines: Any) -> tuple[str, tuple[int, int], dict] | None:
    """A table item (see `markdown.Item`) from markdown-it.rs's table node, or None for an unknown part."""
    head = None
    cells: list[str] = []
    rows: list[int] = []
    for part in node.children:
        if part.name == "thead":
            for row in part.children:
                head = lines(row)
                cells = [_text(cell) for cell in row.children]
        elif part.name == "tbody":
            rows.extend(lines(row)[0] for row in part.children)
        else:
            return None
    return "table", lines(node), {"head": head, "cells": cells, "rows": rows}


def _blank_utf8(data: bytes, a: int, e: int) -> bool:
    """Whether `data[a:e]`, decoded as UTF-8 (bad bytes replaced), is Unicode white space
    only (`str.strip` leaves nothing); decoded BLANK_SLICE bytes at a time, up to the first
    slice that holds something else."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    for p in range(a, e, BLANK_SLICE):
        if decoder.decode(data[p:min(e, p + BLANK_SLICE)]).strip():
            return False
    return not decoder.decode(b"", final=True).strip()


def _table_diverges(table: Any, data: bytes, lines: Any, line_bytes: Any) -> bool:
    """True when markdown-it-py may read this table of markdown-it.rs's differently (see
    `_TABLE_ROWS`, `_ROW_OPENER`, `_CONTAINER_START`): its header row has no pipe, is indented
    4 columns or more (or with a tab), or it or a body row starts like another block; it comes
    under text of a quote or list item; the line after it is not blank; or it is big enough
    for markdown-it-py's guard against filling in missing cells."""
    first, end = lines(table)
    head_line = line_bytes(first)
    if b"|" not in head_line:
        return True
    start = table.srcmap[0]
    before = data[data.rfind(b"\n", 0, start) + 1:start]  # its line up to the table: container marks, indentation
    if b"\t" in before or len(before) - len(before.rstrip(b" ")) >= 4:
        return True
    k = first - 1
    while k >= 0:  # the lines of text right above the table: a lazy continuation of a quote or list item?
        above = line_bytes(k).lstrip(b" \t")
        if not above.strip():
            break
        if _CONTAINER_START.match(above):
            return True
        k -= 1
    rows = [row for part in table.children if part.name == "tbody" for row in part.children]
    columns = sum(len(row.children) for part in table.children if part.name == "thead" for row in part.children)
    if len(rows) * max(columns, 1) > _MAX_FILLED_CELLS:
        return True
    for node in (table, *rows):
        a = node.srcmap[0]
        e = data.find(b"\n", a)
        if _ROW_OPENER.match(data, a, e if e >= 0 else len(data)):
            return True
        if node is not table and _blank_utf8(data, a, e if e >= 0 else len(data)):
            return True  # a row of Unicode white space only (a no-break space): markdown-it-py ends the table
    try:
        after = line_bytes(end)
    except IndexError:
        return False
    return bool(after.strip(b" \t>\n"))


def _diverges(norm: str, items: list, nested: list[tuple[int, int]], tables: list[tuple[int, int]],
              line_of: Callable[[int], int]) -> bool:
    """True when lines of `norm` match a `_DIVERGENT` pattern, an `_HTML_OPENER` after container
    marks, or a `_TABLE_ROWS` pattern other than on the header and delimiter rows of one of
    `tables` (their lines), anywhere but inside a code block from its third line on (a
    table's delimiter row under a fence's opening line counts). `line_of` gives the line of a
    character offset of `norm`."""
    text = "\n" + norm  # offsets in it: a match's "\n" is at its line's start in `norm`
    found = [(m.start(), m.end(), False) for need, rx in _DIVERGENT if need in norm for m in rx.finditer(text)]
    found += [(m.start(), m.end(), True) for m in _TABLE_ROWS.finditer(text)]
    for rx, column0 in ((_HTML_OPENER, False), (_HTML_VERSIONED, True)):
        for m in rx.finditer(norm):
            q = m.start()
            line = norm.rfind("\n", 0, q) + 1
            if (column0 or q > line) and _CONTAINER_MARKS.fullmatch(norm, line, q):
                found.append((line, q + 2, False))  # in `text`'s offsets, as the matches above
    if ">" in norm:
        found += [(lazy, lazy + 2, False) for lazy in _lazy_quotes(text)]
    if not found:
        return False
    code = sorted([lines for name, lines, _extra in items if name == "code"] + nested)
    code_starts = [a for a, _b in code]
    heads = {a for a, _b in tables}
    for start, end, table_row in found:
        la = line_of(start)
        lb = line_of(max(start, end - 2))
        if table_row and (la - 1 in heads and lb == la or la in heads and lb == la + 1):
            continue  # the delimiter row (or header and delimiter rows) of a table markdown-it.rs read
        k = bisect.bisect_right(code_starts, la) - 1
        if k < 0 or la <= code[k][0] + 1 or lb >= code[k][1]:
            return True  # not inside one code block, two lines below its first (a fence's opening line)
    return False


def _lazy_quotes(text: str) -> list[int]:
    """Offsets in `text` ("\n" + the document) of every `_WEAK_ITEM` line in a run of text
    lines (no blank line between) that holds a `_QUOTE_LINE` before it. One pass over the
    three kinds of lines, in order (a line can be a quote line and a weak item). Every one,
    not the first only: the first may lie in a code block, where it changes nothing."""
    marks = [(m.start(), 1) for m in _QUOTE_LINE.finditer(text)]
    if not marks:
        return []
    marks += [(m.start(), 2) for m in _WEAK_ITEM.finditer(text)]
    marks += [(m.start(), 0) for m in _BLANK_LINE.finditer(text)]
    marks.sort()
    quote_seen = -1  # start of the last quote line since the last blank line
    out = []
    for pos, kind in marks:
        if kind == 0:
            quote_seen = -1
        elif kind == 1:
            if quote_seen < 0:
                quote_seen = pos
        elif 0 <= quote_seen < pos:
            out.append(pos)
    return out


def _nested_atoms(root: Any, lines: Any, out: list[tuple[int, int]], tables: list[Any]) -> bool:
    """Add the lines of code blocks and tables inside a top-level container to `out`, and its
    table nodes to `tables`.

    Returns:
        False when the container nests deeper than `MAX_LEVEL` token levels.
    """
    stack = [(child, 1) for child in root.children]
    while stack:
        node, level = stack.pop()
        name = node.name
        if name in ("fence", "code_block", "table"):
            out.append(lines(node))
            if name == "table":
                tables.append(node)
            continue
        if name not in _CONTAINERS:
            continue
        level += 1
        if level >= MAX_LEVEL:
            return False
        stack.extend((child, level) for child in node.children)
    return True
