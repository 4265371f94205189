"""Markdown block structure read with markdown-it-pyrs (markdown-it.rs, in Rust): the fast path
of the Markdown loader.

markdown-it-py stays the reference (`markdown._reference_items`): this module gives the same
items, in lines, and says `None` wherever it is not known to agree, so the loader falls back
to the reference: markdown-it-pyrs not installed (it has wheels for CPython 3.8-3.12 only),
a node type it was not tested on, or a document nested deeper than markdown-it-py's
`maxNesting` could reach. tests/loaders/test_markdown_parsers.py checks that both give the
same blocks on the CommonMark 0.31.2 spec examples, GFM tables, generated Markdown and every
Markdown file of the shared corpus.

Speed (issue 19, 583 real Markdown files, 9.6 MB): markdown-it-py's block parse took about
1.05 s, markdown-it-pyrs with the walk below about 0.33 s.
"""

from __future__ import annotations

import bisect
import itertools
import re
from array import array
from collections.abc import Sequence
from typing import Any

from chunkctl.text.lines import line_starts as lines_of

_PLUGINS = ("blockquote", "code", "fence", "heading", "hr", "lheading", "list", "paragraph", "reference",
            "html_block", "table")
# markdown-it-py's commonmark preset stops reading blocks at nesting level 20 (`maxNesting`) and
# drops the rest; markdown-it.rs goes on. Documents nested this deep (in token levels: a quote,
# a list and a list item add one each) take the reference parser.
MAX_LEVEL = 16

_NEWLINES = re.compile(r"\r\n?")
_SIMPLE = {"blockquote": "quote", "paragraph": "paragraph", "html_block": "html", "hr": "rule"}
_CONTAINERS = {"blockquote": 1, "bullet_list": 1, "ordered_list": 1, "list_item": 1}
_SKIP = frozenset(("definition",))  # link reference definitions: markdown-it-py gives no token
_INLINE = frozenset(("text",))

# Where the two parsers are known to read lines differently, the reference reads the whole
# document. Each pattern below was found by tests/loaders/test_markdown_parsers.py on generated
# Markdown; a match inside a code block (as markdown-it.rs reads it) does not count. The
# patterns are searched in "\n" + text and open with that line break instead of "^", which
# lets the regex engine skip from line break to line break (ten times faster than "^" in
# MULTILINE mode on 10 MB of Markdown).
_DIVERGENT = re.compile(
    # - GFM tables: which line may start a table (after a quote marker or a fence, a line
    #   without a pipe over "|-"), which line ends one (a list marker), one-column tables whose
    #   delimiter row has no pipe ("| h |" over "---": a table for markdown-it-py, a setext
    #   heading for markdown-it.rs). Any delimiter row sends the document to the reference; so
    #   does any table markdown-it.rs still finds (`block_items`).
    r"\n[ \t>]*[:\-]*\|[|:\- \t]*-[|:\- \t]*$"  # a delimiter row with a pipe
    r"|\n[ \t>]*[|:\- \t]*-[|:\- \t]*\|[|:\- \t]*$"
    r"|\n[^\n]*\|[^\n]*\n[ \t>]*:?-+:?[ \t]*$"  # a row of hyphens without a pipe under a line with one
    # - a list item that may not interrupt a paragraph (an empty item, a number other than 1)
    #   in or after a quote: markdown-it-py ends the quote, markdown-it.rs reads a lazy
    #   continuation line ("> a" then "b" then "2)")
    r"|\n[ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)*>[^\n]*\n(?:[ \t]*\S[^\n]*\n)*?"
    r"[ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]*$|(?!1[.)])\d{1,9}[.)][ \t])"
    # - a tab after a list or quote marker, before the content: the column it starts at differs
    r"|\n[ \t]*(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))(?:[ >]|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))*\t"
    # - an HTML block of the kinds that end at a marker ("<!--", "<?", "<![CDATA[", "<pre", ...)
    #   that is indented or inside a list or quote: where it ends differs
    r"|\n(?!<)[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])(?=[ \t])[ \t>]*)*<(?:!|\?|script|pre|style|textarea)"
    # - a link reference definition with a title, or whose label or destination goes on to
    #   another line: where the definition ends differs
    r"|\[[^\]\n]*\]:[ \t]*(?:\n|[^\n]*[\"'(])|\[[^\]]*\n[^\]]*\]:",
    re.M,
)

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
    root = md.tree(norm)
    if known_lines is None:
        line_starts: Sequence[int] = array("q", [0])
        line_starts.extend(itertools.accumulate(  # type: ignore[attr-defined]
            map((1).__add__, map(len, norm.encode("utf-8").split(b"\n")[:-1]))))
        offset = first = 0
    else:
        line_starts, offset, first = known_lines
    find = bisect.bisect_right

    def lines(node: Any) -> tuple[int, int]:
        bs, be = node.srcmap
        bs += offset
        return find(line_starts, bs) - 1 - first, find(line_starts, max(bs, be + offset - 1)) - first

    items: list[tuple[str, tuple[int, int], dict]] = []
    nested: list[tuple[int, int]] = []
    for node in root.children:
        name = node.name
        if node.srcmap is None:
            return None
        if name in _SKIP:
            continue
        if name in ("heading", "lheading"):
            content = "".join(c.meta.get("content", "") for c in node.children if c.name in _INLINE)
            if any(c.name not in _INLINE for c in node.children):
                return None
            items.append(("heading", lines(node), {"level": node.meta["level"], "content": content}))
        elif name in ("fence", "code_block"):
            items.append(("code", lines(node), {"info": node.meta.get("info", ""), "indented": name == "code_block"}))
        elif name in ("bullet_list", "ordered_list"):
            members = [lines(c) for c in node.children if c.name == "list_item"]
            items.append(("list", lines(node), {"items": members}))
        elif name in _SIMPLE:
            items.append((_SIMPLE[name], lines(node), {}))
        else:
            return None
        if name in _CONTAINERS and not _nested_atoms(node, lines, nested):
            return None
    nested.sort()
    if _diverges(norm, items, nested):
        return None
    return items, nested


def _diverges(norm: str, items: list, nested: list[tuple[int, int]]) -> bool:
    """True when a `_DIVERGENT` pattern matches lines of `norm` other than the inside of a code
    block from its third line on (a table's delimiter row under a fence's opening line counts)."""
    matches = _DIVERGENT.finditer("\n" + norm)  # offsets in it: a match's "\n" is at its line's start in `norm`
    first = next(matches, None)
    if first is None:
        return False
    code = sorted([lines for name, lines, _extra in items if name == "code"] + nested)
    code_starts = [a for a, _b in code]
    line_starts = lines_of(norm)
    for m in (first, *matches):
        la = bisect.bisect_right(line_starts, m.start()) - 1
        lb = bisect.bisect_right(line_starts, max(m.start(), m.end() - 2)) - 1
        k = bisect.bisect_right(code_starts, la) - 1
        if k < 0 or la <= code[k][0] + 1 or lb >= code[k][1]:
            return True  # not inside one code block, two lines below its first (a fence's opening line)
    return False


def _nested_atoms(root: Any, lines: Any, out: list[tuple[int, int]]) -> bool:
    """Add the lines of code blocks and tables inside a top-level container to `out`.

    Returns:
        False when the container nests deeper than `MAX_LEVEL` token levels or holds a table
        (tables are read by the reference parser, see `_DIVERGENT`).
    """
    stack = [(child, _CONTAINERS[root.name]) for child in root.children]
    while stack:
        node, level = stack.pop()
        name = node.name
        if name in ("fence", "code_block"):
            out.append(lines(node))
            continue
        if name == "table":
            return False
        step = _CONTAINERS.get(name)
        if step is None:
            continue
        level += step
        if level >= MAX_LEVEL:
            return False
        stack.extend((child, level) for child in node.children)
    return True
