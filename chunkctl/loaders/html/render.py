"""HTML rendering: one walk of the content root into raw blocks (text, kind, spans); no document text, no tokens."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

from chunkctl.loaders.html.elements import (
    ALWAYS_DROPPED,
    BLOCK_TAGS,
    HEADING_LEVELS,
    LANGUAGE,
    LIST_TAGS,
    PRE_TAGS,
    SECTIONING,
)
from chunkctl.loaders.html.select import (
    cell_spans,
    html_integer,
    is_data_table,
    is_decoration,
    is_furniture,
    node_attrs,
)
from chunkctl.loaders.html.text import INDENT_FREE, Lines, TableGrid, collapse, line_spans
from chunkctl.model import BlockKind, compact_spans

# A raw block: (kind, text, level, language, header span, row spans, meta or None); spans relative to its text.
RawBlock = tuple[BlockKind, str, int, str, "tuple[int, int] | None", "Sequence[tuple[int, int]]", "dict | None"]

_FLOW, _LINES, _CODE, _HEAD, _TABLE = range(5)
_NODE, _END, _ROOT = range(3)  # walk steps: visit a node (then its next sibling), end an element, visit the root


class _Frame:
    """One open sink of the walk: where text goes until the element that opened it ends."""

    __slots__ = ("kind", "node", "lines", "level", "language", "block_kind", "lists", "row_starts",
                 "grid", "cell", "cell_th", "cell_span", "caption", "in_head", "in_foot", "last_item")

    def __init__(self, kind: int, node=None, lines: Lines | None = None):
        self.kind = kind
        self.node = node
        self.lines = lines
        self.level = 0
        self.language = ""
        self.block_kind = BlockKind.PARAGRAPH
        self.lists: list[list] = []      # open lists: [tag, next number, indent, reversed]
        self.row_starts = array("I")  # line index of each top-level item (4 bytes each, not an int object)
        self.grid: TableGrid | None = None
        self.cell: Lines | None = None
        self.cell_th = False
        self.cell_span = (1, 1)
        self.caption: Lines | None = None
        self.in_head = False
        self.in_foot = False
        self.last_item = ""  # tag of the last top-level item ("li", "dt", "dd")


class _Held:
    """An element left open at the end of a piece (`Renderer.render`'s `suspend`): its tag, and
    whether the walk entered it (False: it was left out, and so is its rest)."""

    __slots__ = ("tag", "entered")

    def __init__(self, tag: str, entered: bool):
        self.tag = tag
        self.entered = entered


def _ordinal_attr(attrs: dict[str, Any], name: str) -> int | None:
    """A list's `start` or an item's `value` by the HTML standard's rules for parsing integers
    (`select.html_integer`); None where they fail or give a number outside a 32-bit `long`, the
    attributes' type in the DOM (until 0.1.29 six digits at most were read: `start=1000000`
    counted from 100000)."""
    n = html_integer(attrs.get(name))
    return None if n is None or not -_LONG <= n < _LONG else n


_LONG = 1 << 31
# Characters that show nothing (zero-width space, non-joiner, joiner, word joiner, byte-order mark,
# soft hyphen): a block of them and white space alone is empty. Blog platforms (Naver's) put a
# paragraph of U+200B between paragraphs as a spacer: 20 of the 181 pages of the article
# extraction benchmark gave chunks such paragraphs (helper-116's find, counted here).
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_INVISIBLE_CHECK = 256  # characters up to which a block is looked at for them (a copy is made)
_OWN_COUNT = LIST_TAGS  # lists whose items are theirs: another list around them does not count them


class Renderer:
    """Walks a content root once, without recursion, and turns it into raw blocks.

    Sinks: the flow (paragraphs between blocks), a heading, a code block, a list or
    quote (indented lines), a data table (a grid of one-line cells). Elements that
    open a sink push a frame; their end pops it and hands the result to the frame
    below (a block of the document, or lines of an enclosing list).
    """

    def __init__(self, keep_boilerplate: bool, emit: Callable[[RawBlock], None]):
        """`emit` takes each raw block as it is made (the loader's assembler), so a page's raw
        blocks are never all held."""
        self.keep = keep_boilerplate
        self.emit = emit
        self.para = Lines()
        self.frames: list[_Frame] = [_Frame(_FLOW, lines=self.para)]
        self.raw_depth = 0
        self.scoped = 0  # open sectioning elements (article, aside, main, nav, section)
        self.excluded: set[int] = set()  # mem_ids of elements left out (main-content selection)
        self.held: list[_Held] = []  # elements the last piece left open, outermost first
        self.going = False  # the page of the last `render` goes on in the next piece
        self.indent_free = INDENT_FREE  # characters of list indentation past the share still free

    # -- output
    def _emit(self, kind: BlockKind, text: str, level: int = 0, language: str = "",
              header: tuple[int, int] | None = None, rows: Sequence[tuple[int, int]] = (),
              meta: dict | None = None) -> None:
        """Add a block; its text is stripped (code keeps its first line's indentation), spans follow. A
        block of white space and invisible characters (`_INVISIBLE`) alone is no block."""
        body = text.rstrip()
        lead = 0 if kind == BlockKind.CODE else len(body) - len(body.lstrip())
        if lead == len(body) or (len(body) <= _INVISIBLE_CHECK and not body.isascii()
                                 and not body.translate(_INVISIBLE).strip()):  # (ASCII: none of them)
            return
        if lead:
            body = body[lead:]
            header = (max(0, header[0] - lead), header[1] - lead) if header is not None else None
            rows = compact_spans((max(0, a - lead), b - lead) for a, b in rows if b > lead)
        self.emit((kind, body, level, language, header, rows, meta))

    def _flush(self) -> None:
        if self.para.cur or self.para.lines:
            self._emit(BlockKind.PARAGRAPH, self.para.take())
            self.para = Lines()
            self.frames[0].lines = self.para

    def _sink(self) -> Lines | None:
        f = self.frames[-1]
        if f.kind == _TABLE:
            return f.cell if f.cell is not None else f.caption
        return f.lines

    # -- the walk
    def render(self, root, resume: Sequence[Any] = (), suspend: Sequence[Any] = (), more: bool = False) -> None:
        """Give the raw blocks of the content under `root` (root itself included) to `emit`.
        Sectioning elements above `root` count as open (a `header` inside a `section` stays the
        section's own).

        A page read in pieces (`pieces.pieces`) is rendered one piece's tree at a time:
        `suspend` names the elements of this tree (outermost first) that the next piece
        continues: their end is not handled, so an open table, list or code block goes on
        in the next piece; `resume` names the elements of this tree (outermost first) that
        continue those the last piece left open: they are not opened again (left out again
        when they were left out). Held elements that `resume` does not continue are closed
        first. `more`: the page goes on in the next piece (the end of `root` is not handled:
        a paragraph cut in its text goes on). The result is the whole page's when the pieces
        build the same elements.
        """
        held, self.held = self.held, []
        going, self.going = self.going, False
        for h in reversed(held[len(resume):]):  # left open, but the parser did not continue them
            if h.entered:
                self._close(h)
        reopened = {node.mem_id: h for node, h in zip(resume, held)}
        suspended = {node.mem_id: i for i, node in enumerate(suspend)}
        entered = [False] * len(suspend)
        p = root.parent
        while p is not None and not going:
            if p.tag in SECTIONING:
                self.scoped += 1
            p = p.parent
        # The stack holds, per open element, its end and the next sibling to visit: its size is
        # the depth, not the number of children (a page of 400,000 paragraphs under one
        # `body` held 400,000 node objects here at once).
        stack: list[tuple[Any, int]] = [(root, _ROOT)]
        pop = stack.pop
        push = stack.append
        while stack:
            node, step = pop()
            if step == _END:
                if (not suspended or node.mem_id not in suspended) and not (more and node is root):
                    self._close(node)
                continue
            if step == _NODE:
                sibling = node.next
                if sibling is not None:
                    push((sibling, _NODE))
            tag = node.tag
            if tag == "-text":
                sink = self._sink()
                if sink is not None:
                    t = node.text_content
                    if "\xad" in t:  # a soft hyphen: invisible, and it splits the word for search
                        t = t.replace("\xad", "")
                    if self.raw_depth:
                        sink.raw(t)
                    elif t.isspace():  # most text nodes: the indentation between tags
                        sink.space = True
                    elif t:
                        sink.text(collapse(t))
                continue
            if not tag or tag[0] == "-" or tag in ALWAYS_DROPPED:  # None: a processing instruction
                continue
            if reopened and node.mem_id in reopened:
                h = reopened[node.mem_id]
                if not h.entered:
                    continue
                for f in self.frames:  # its frame now ends at this tree's end of it
                    if f.node is h:
                        f.node = node
                        if f.kind == _CODE and not f.language:  # a `code` child in this piece names it
                            f.language = self._language(node, node_attrs(node))
            else:
                attrs = node_attrs(node)
                if (attrs and is_decoration(node, tag, attrs)) or (not self.keep and is_furniture(
                        node, tag, attrs, self.scoped)) or (
                        self.excluded and node.mem_id in self.excluded):
                    if tag in BLOCK_TAGS:  # a block left out still ends the line ("a<nav>x</nav>b" is not "ab")
                        self._boundary()
                    continue
                if not (going and node is root) and not self._open(node, tag, attrs):
                    continue  # (the root goes on from the last piece: its start not handled again)
            if suspended and node.mem_id in suspended:
                entered[suspended[node.mem_id]] = True
            push((node, _END))
            child = node.child
            if child is not None:
                push((child, _NODE))
        if suspend or more:
            self.going = True
            self.held = [_Held(node.tag, entered[i]) for i, node in enumerate(suspend)]
            for f in self.frames:
                i = suspended.get(getattr(f.node, "mem_id", -1), -1)
                if i >= 0:
                    f.node = self.held[i]  # this tree goes; the frame waits for the next piece's element
            return
        while len(self.frames) > 1:  # frames left open by an unbalanced walk (never expected)
            self._close(self.frames[-1].node)
        self._flush()
        self.scoped = 0

    def _boundary(self) -> None:
        """A block boundary where an element was left out: end the paragraph, line or cell line in progress."""
        f = self.frames[-1]
        if f.kind == _FLOW:
            self._flush()
        elif f.kind == _TABLE:
            if f.cell is not None:
                f.cell.newline()
        elif f.lines is not None:
            f.lines.newline()

    def _open(self, node, tag: str, attrs: dict[str, Any]) -> bool:
        """Handle a start tag; False to skip the element's content."""
        if tag in SECTIONING:
            self.scoped += 1
        f = self.frames[-1]
        kind = f.kind
        if tag == "br":
            sink = self._sink()
            if sink is not None:
                sink.raw("\n") if self.raw_depth else sink.br()
            return False
        if tag == "math":
            alt = attrs.get("alttext")
            if alt:
                sink = self._sink()
                if sink is not None:
                    sink.text(" " + collapse(alt) + " ")
                return False
            return True
        if kind == _TABLE:
            return self._open_table_part(f, node, tag, attrs)
        assert f.lines is not None  # every frame but a table's has lines
        if kind in (_HEAD, _CODE):
            if tag in PRE_TAGS:
                self.raw_depth += 1
            if tag in BLOCK_TAGS:
                f.lines.newline()
            return True
        if tag in PRE_TAGS:
            self.raw_depth += 1
            if kind == _FLOW:
                self._flush()
                fr = _Frame(_CODE, node, Lines())
                fr.language = self._language(node, attrs)
                self.frames.append(fr)
            else:
                f.lines.newline()
            return True
        if tag == "table" and is_data_table(node, attrs):
            if kind == _FLOW:
                self._flush()
            else:
                f.lines.newline()
            fr = _Frame(_TABLE, node)
            fr.grid = TableGrid()
            self.frames.append(fr)
            return True
        if kind == _FLOW:
            level = HEADING_LEVELS.get(tag)
            if level:
                self._flush()
                fr = _Frame(_HEAD, node, Lines(one_line=True))
                fr.level = level
                self.frames.append(fr)
                return True
            if tag in LIST_TAGS or tag == "blockquote":
                self._flush()
                fr = _Frame(_LINES, node, Lines())
                fr.block_kind = BlockKind.QUOTE if tag == "blockquote" else BlockKind.LIST
                self.frames.append(fr)
                if tag in LIST_TAGS:
                    self._open_list(fr, node, tag, attrs)
                return True
            if tag in BLOCK_TAGS:
                self._flush()
            return True
        # kind == _LINES: lists and quotes keep everything as indented lines
        if tag in LIST_TAGS:
            self._open_list(f, node, tag, attrs)
            return True
        if tag in ("li", "dt", "dd"):
            self._open_item(f, tag, attrs)
            return True
        if tag in BLOCK_TAGS:
            f.lines.newline()
        return True

    def _open_list(self, f: _Frame, node, tag: str, attrs: dict[str, Any]) -> None:
        """Open a list in the lines of `f`: an `<ol>` counts from its `start`, else from 1, or,
        `reversed`, down from the number of its items (`_owned_items`), as browsers do (until
        0.1.30 a reversed list without a start counted down from 1)."""
        assert f.lines is not None  # a list or quote frame
        f.lines.newline()
        rev = "reversed" in attrs
        start = _ordinal_attr(attrs, "start")
        if start is None:
            start = self._owned_items(node) if rev else 1
        f.lists.append([tag, start, f.lines.indent, rev])

    def _owned_items(self, node) -> int:
        """The number of items the list `node` numbers: the `li` elements under it that the walk
        renders (not left out: `ALWAYS_DROPPED`, decoration, furniture unless kept, hidden), outside
        the lists nested in it and data tables (whose cells are lines of text); the HTML standard's
        owned list items, from which a reversed list without `start` counts down (to 1 at its last
        item, as browsers show it; helper-98: `<li hidden>` and items in a `<dl>` were counted). One
        walk of the subtree, the parts left out skipped."""
        n = 0
        todo = [node.child] if node.child is not None else []
        while todo:
            c = todo.pop()
            if c.next is not None:
                todo.append(c.next)
            tag = c.tag
            if not tag or tag[0] == "-" or tag in ALWAYS_DROPPED or tag in _OWN_COUNT:
                continue
            attrs = node_attrs(c)
            if (attrs and is_decoration(c, tag, attrs)) or (not self.keep and is_furniture(
                    c, tag, attrs, self.scoped)) or (self.excluded and c.mem_id in self.excluded) or (
                    tag == "table" and is_data_table(c, attrs)):
                continue
            if tag == "li":
                n += 1
            if c.child is not None:
                todo.append(c.child)
        return n

    def _open_item(self, f: _Frame, tag: str, attrs: dict[str, Any]) -> None:
        lines = f.lines
        assert lines is not None  # a list or quote frame
        if not f.lists:  # an item outside any list (inside a quote): a plain line
            lines.newline()
            f.lists.append(["ul", 1, lines.indent, False])
            top_level = False
        else:
            top_level = len(f.lists) == 1
        lst = f.lists[-1]
        if tag == "li":
            if lst[0] == "ol":
                n = _ordinal_attr(attrs, "value")
                if n is None:
                    n = lst[1]
                marker = f"{n}. "
                lst[1] = n - 1 if lst[3] else n + 1
            else:
                marker = "- "
        elif tag == "dt":
            marker = ""
        else:
            marker = ": "
        lines.newline()
        if top_level and f.block_kind == BlockKind.LIST and (tag != "dd" or not f.row_starts) and not (
                tag == "dt" and f.last_item == "dt"):  # the terms of one definition ("-f", "--force") are one row
            f.row_starts.append(lines.n_lines)
        if top_level:
            f.last_item = tag
        lst.append(lines.start_item(marker, lst[2]))

    def _open_table_part(self, f: _Frame, node, tag: str, attrs: dict[str, Any]) -> bool:
        if f.cell is not None:  # inside a cell: everything is inline text of the cell
            if tag in PRE_TAGS:
                self.raw_depth += 1
            if tag in BLOCK_TAGS:
                f.cell.newline()
            return True
        assert f.grid is not None  # a table frame has its grid
        if tag == "tr":
            f.grid.new_row(f.in_head, f.in_foot)
        elif tag in ("td", "th"):
            f.cell = Lines(one_line=True)
            f.cell_th = tag == "th"
            f.cell_span = cell_spans(attrs)
        elif tag in ("thead", "tbody", "tfoot"):
            f.grid.new_group()
            f.in_head = tag == "thead"
            f.in_foot = tag == "tfoot"
        elif tag == "caption":
            f.caption = Lines(one_line=True)
        return True

    @staticmethod
    def _language(node, attrs: dict[str, Any]) -> str:
        """Language of a code block from class="language-x" (or lang-x) on the pre or its code child."""
        for cls in (attrs.get("class"), *(node_attrs(c).get("class") for c in node.iter() if c.tag == "code")):
            if cls:
                m = LANGUAGE.search(cls)
                if m:
                    return m.group(1).lower()
        return ""

    def _close(self, node) -> None:
        """Handle an end tag."""
        tag = node.tag
        if tag in SECTIONING:
            self.scoped -= 1
        f = self.frames[-1]
        if f.node is node:
            self._close_frame(f)
            return
        if tag in PRE_TAGS:
            self.raw_depth -= 1
        if f.kind == _TABLE:
            assert f.grid is not None  # a table frame has its grid
            if f.cell is not None and tag in ("td", "th"):
                f.grid.add_cell(f.cell.take(), f.cell_th, *f.cell_span)
                f.cell = None
            elif f.cell is not None:
                if tag in BLOCK_TAGS:
                    f.cell.newline()
            elif tag in ("thead", "tbody", "tfoot"):
                f.grid.new_group()  # rows after the group (none in parsed HTML) start another
                f.in_head = f.in_foot = False
            return
        assert f.lines is not None  # every frame but a table's has lines
        if f.kind == _LINES:
            if tag in LIST_TAGS and f.lists:
                f.lists.pop()
                f.lines.newline()
                return
            if tag in ("li", "dt", "dd") and f.lists and len(f.lists[-1]) > 4:
                f.lines.end_item(f.lists[-1].pop())
                return
        if tag in BLOCK_TAGS:
            if f.kind == _FLOW:
                self._flush()
            else:
                f.lines.newline()

    def _close_frame(self, f: _Frame) -> None:
        self.frames.pop()
        if f.kind == _CODE:
            assert f.lines is not None  # every frame but a table's has lines
            self.raw_depth -= 1
            self._emit(BlockKind.CODE, f.lines.take(), language=f.language)
            return
        if f.kind == _HEAD:
            assert f.lines is not None
            self._emit(BlockKind.HEADING, f.lines.take(), level=f.level)
            return
        parent = self.frames[-1]
        if f.kind == _LINES:
            assert f.lines is not None
            # Each of the block's forms is let go as soon as the next is made, and its text is held
            # by `_emit` only (a list of 4 M numbered one-letter items: its lines 59 MB, their item
            # starts 16 MB, its text 43 MB and its item spans 32 MB, held at once in 0.1.28).
            built, f.lines = f.lines, None
            lines = built.finish(self.indent_free)
            self.indent_free -= built.over
            del built
            rows = line_spans(lines, f.row_starts) if f.block_kind == BlockKind.LIST else ()
            f.row_starts = array("I")
            text = lines.join_all()
            del lines
            self._emit(f.block_kind, text, rows=rows)
            return
        if f.kind == _TABLE:
            assert f.grid is not None  # a table frame has its grid
            table_lines, n_head, header_cells = f.grid.render()
            caption = f.caption.take() if f.caption is not None else ""
            if parent.kind == _FLOW:
                if caption:
                    self._emit(BlockKind.PARAGRAPH, caption)
                if not table_lines:
                    return
                text = "\n".join(table_lines)
                head_end = len(table_lines[0]) + 1 + len(table_lines[1])
                rows = line_spans(table_lines, range(n_head, len(table_lines)))
                self._emit(BlockKind.TABLE, text, header=(0, head_end), rows=rows,
                           meta={"header_cells": header_cells})
            else:
                sink = parent.lines
                assert sink is not None  # tables open only in the flow or in a list/quote frame
                if caption:
                    sink.line(caption)
                for ln in table_lines:
                    sink.line(ln)
            return
