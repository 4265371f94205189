"""Text building for the HTML loader: browser white-space rules, indented lines, pipe tables; no DOM, no tokens."""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, cast

from chunkctl.model import PackedStrings, compact_spans

# HTML's white space (plus the no-break space, which we fold too: it is layout, not text).
_WS = re.compile(r"[ \t\n\r\f\xa0]+")
_NEWLINES = re.compile(r"\r\n?")


_NOT_WS = re.compile(r"[^ \t\n\r\f\xa0]")
COLLAPSE_SLICE = 1 << 16
"""Characters of text `collapse` substitutes in at a time: `re.sub` holds a string a match until it
joins them, some 90 bytes a run of white space, 24x a 3.7 MB text node of words (a page read
whole, or its `<title>`)."""


def collapse(text: str) -> str:
    """Runs of white space -> one space, as a browser renders text outside `pre` (ends kept as " ").
    A text over `COLLAPSE_SLICE` characters is done in slices that each begin where no white space
    runs across the cut (the same result, in bounded memory beside it)."""
    if len(text) <= COLLAPSE_SLICE:
        return _WS.sub(" ", text)
    out = []
    a, n = 0, len(text)
    while a < n:
        b = a + COLLAPSE_SLICE
        if b < n:
            m = _NOT_WS.search(text, b)  # (each slice after the first starts outside white space)
            b = m.start() if m is not None else n
        out.append(_WS.sub(" ", text[a:min(b, n)]))
        a = b
    return "".join(out)


MAX_INDENT = 64
"""Characters of indentation a list item's lines get at most (some 16-32 levels of nesting): each
level indented them further, so the text of deeply nested lists grew with the square of their
depth (helper-56: 73 KB of nested `<ul>` gave a 14.8 MB document)."""

INDENT_SHARE = 0.5
"""A block's indentation takes at most this many characters per character of the rest of its text
(its lines without their indentation, list markers included), beyond a page's `INDENT_FREE`;
deeper nesting is shown up to the widest indentation that fits, the same width for every line of
the block. Lines of a few markup bytes each (a `<pre>` or `<br>` lines in an item 40 lists deep:
2-5 bytes of markup, 66 characters of text) made the text of a page up to 33x its file, and the
memory of a run 41-100x (0.1.27); with this share a block's text is at most 1.5x its characters
of content. (With a share of 1, a `<pre>` of `a` and blank lines 40 lists deep was 8.05x its
20 MB file: every `a` line kept one space of indentation.)"""

INDENT_FREE = 65_536
"""Characters of indentation past `INDENT_SHARE` that a page's lists may take in all, so that small
lists keep their nesting (helper-93: a file tree of eight short names four lists deep lost its
deepest level); a constant beside the page, whatever its size or number of lists."""


class Lines:
    """Text of one block being built: lines with list indentation, and the inline line in progress.

    Inline text arrives in pieces (one per DOM text node). A space between pieces
    survives only once and never at a line start or end, so `w<b>or</b>d` stays one
    word and `a <b> b</b>` gets one space. Preformatted text keeps its white space.

    Args:
        one_line: fold line and block breaks into spaces (headings, table cells).
    """

    __slots__ = ("lines", "widths", "counts", "content", "cur", "space", "indent", "first", "first_width",
                 "one_line", "over")

    def __init__(self, one_line: bool = False):
        self.lines = PackedStrings()  # finished lines without their indentation
        self.widths: array | None = None  # each finished line's indentation (<= MAX_INDENT); None while all are 0
        self.counts: list[int] = []  # number of finished lines of each indentation width, with `widths`
        self.content = 0  # characters of the finished lines without their indentation
        self.cur: list[str] = []
        self.space = False
        self.indent = ""
        self.first: str | None = None  # the marker of an item whose first line is not finished yet
        self.first_width = 0  # that first line's indentation, in characters
        self.one_line = one_line
        self.over = 0  # characters of indentation past the share, once finished

    def text(self, s: str) -> None:
        """Append collapsed inline text (`collapse` already applied; may start or end with a space)."""
        if not s:
            return
        if s[0] == " ":
            self.space = True
            s = s[1:]
        if not s:
            return
        trailing = s[-1] == " "
        if trailing:
            s = s[:-1]
        if self.space and self.cur:
            self.cur.append(" ")
        self.cur.append(s)
        self.space = trailing

    def raw(self, s: str) -> None:
        """Append preformatted text: white space and line breaks kept (folded in one-line mode)."""
        if self.one_line:
            self.text(collapse(s))
            return
        s = _NEWLINES.sub("\n", s).replace("\xa0", " ")
        if self.space and self.cur:
            self.cur.append(" ")
        self.space = False
        parts = s.split("\n")
        if parts[0]:
            self.cur.append(parts[0])
        for part in parts[1:]:
            self._end_line(keep_empty=True)
            if part:
                self.cur.append(part)

    def br(self) -> None:
        """A `<br>`: end the line (an empty line is kept, at most one in a row)."""
        if self.one_line:
            self.space = True
        else:
            self._end_line(keep_empty=True)

    def newline(self) -> None:
        """A block boundary: end the line when it holds text."""
        if self.one_line:
            self.space = True
        elif self.cur:
            self._end_line(keep_empty=False)
        else:
            self.space = False

    def line(self, s: str) -> None:
        """Add one finished line (indented like the text around it)."""
        self.newline()
        self.cur.append(s)
        self._end_line(keep_empty=False)

    def start_item(self, marker: str, indent: str) -> str:
        """Begin a list item: its first line starts with `indent + marker`, later ones align under it
        (indentation of at most `MAX_INDENT` characters, and the block's share: `INDENT_SHARE`).

        Returns:
            the indentation to restore when the item ends.
        """
        self.newline()
        saved = self.indent
        indent = indent[:MAX_INDENT]
        self.first = marker
        self.first_width = len(indent)
        self.indent = (indent + " " * len(marker))[:MAX_INDENT]
        return saved

    def end_item(self, saved: str) -> None:
        """End a list item begun by `start_item`."""
        self.newline()
        self.first = None
        self.indent = saved

    def _end_line(self, keep_empty: bool) -> None:
        text = "".join(self.cur).rstrip()
        self.cur = []
        self.space = False
        if text:
            if self.first is not None:
                text = self.first + text
                self.first = None
                self._add(text, self.first_width)
            else:
                self._add(text, len(self.indent))
        elif keep_empty and self.lines and self.lines[-1]:
            self._add("", 0)

    def _add(self, line: str, width: int) -> None:
        widths = self.widths
        if widths is None and width:  # (a paragraph or a list without nesting, most, keeps no widths)
            widths = self.widths = array("B", bytes(len(self.lines)))
            self.counts = [0] * (MAX_INDENT + 1)
            self.counts[0] = len(self.lines)
        if widths is not None:
            widths.append(width)
            self.counts[width] += 1
        self.lines.append(line)
        self.content += len(line)

    def _pop(self) -> None:
        line = self.lines.pop()
        if self.widths is not None:
            self.counts[self.widths.pop()] -= 1
        self.content -= len(line)

    @property
    def n_lines(self) -> int:
        """Number of finished lines (the index the next line will get)."""
        return len(self.lines)

    def finish(self, free: int = 0) -> Indented:
        """End the line in progress and return the lines, indented, without trailing empty ones
        (`Indented`: the indentation is capped by `INDENT_SHARE` beyond `free` characters, and a
        line is made when read). `over` is then the characters of indentation past the share."""
        self._trim()
        cap, used = self.cap(free)
        over = used - INDENT_SHARE * self.content
        self.over = math.ceil(over) if over > 0 else 0
        return Indented(self.lines, self.widths, cap)

    def _trim(self) -> None:
        """End the line in progress and drop the trailing empty lines."""
        if self.cur:
            self._end_line(keep_empty=False)
        lines = self.lines
        while lines and not lines[-1].strip():
            self._pop()

    def cap(self, free: int = 0) -> tuple[int, int]:
        """(w, its indentation): the widest indentation, in characters, that the finished lines may
        have, the largest w for which the lines' indentation, each cut to w, is at most
        `INDENT_SHARE` times their characters without it plus `free` (`MAX_INDENT` when every
        line fits), and the characters of indentation the lines then take."""
        if self.widths is None:
            return MAX_INDENT, 0
        budget = INDENT_SHARE * self.content + free
        counts = self.counts
        below, deep = 0, len(self.lines)  # the sum of the widths below w; the number of lines from w
        used = 0
        for w in range(MAX_INDENT + 1):
            # lines narrower than w keep their width, the others are cut to w
            if below + w * deep > budget:
                return w - 1, used
            used = below + w * deep
            below += w * counts[w]
            deep -= counts[w]
        return MAX_INDENT, used

    def take(self) -> str:
        """The finished text: lines joined by "\\n", stripped (one line in one-line mode)."""
        if self.one_line:
            return "".join(self.cur).strip()
        self._trim()
        lines = self.lines if self.widths is None else self.finish()
        first = 0
        while first < len(lines) and not lines[first].strip():
            first += 1
        return lines.join(first).rstrip()


class Indented(Sequence[str]):
    """A `Lines` block's finished lines with their indentation: line i is `min(widths[i], cap)`
    spaces and `lines[i]`. `join` gives the text ("\\n" between lines) a pack of lines at a time,
    without a string per line beside it."""

    __slots__ = ("_lines", "_widths", "_cap")

    def __init__(self, lines: PackedStrings, widths: array | None, cap: int):
        self._lines, self._widths, self._cap = lines, widths, cap

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, i: Any) -> Any:  # (an index: a line)
        widths = self._widths
        return self._lines[i] if widths is None else " " * min(widths[i], self._cap) + self._lines[i]

    def join(self, first: int = 0) -> str:
        """`"\\n".join(self[first:])`."""
        widths, cap = self._widths, self._cap
        if widths is None or not any(memoryview(widths)[first:]):
            return self._lines.join(first)
        step = PackedStrings.PACK
        lines = self._lines
        out = []
        for a in range(first, len(lines), step):
            b = min(a + step, len(lines))
            out.append("\n".join([" " * min(widths[k], cap) + lines[k] for k in range(a, b)]))
        return "\n".join(out)

    def join_all(self) -> str:
        """`join()`, emptying the lines as the text is made (`PackedStrings.drain`): the block's
        text is then held beside its lines' packs no more than once (a `Lines` block's lines
        hold no "\\n")."""
        widths, cap = self._widths, self._cap
        if widths is None or not any(widths):
            return "\n".join(list(self._lines.drain()))
        n = len(self._lines)
        out = []
        k = 0
        for pack in self._lines.drain():
            lines = pack.split("\n")
            assert len(lines) == min(PackedStrings.PACK, n - k), "a line of a Lines block holds a line break"
            out.append("\n".join([" " * min(widths[k + j], cap) + line for j, line in enumerate(lines)]))
            k += len(lines)
            del lines, pack
        return "\n".join(out)


def line_spans(lines: Sequence[str], starts: Iterable[int]) -> Sequence[tuple[int, int]]:
    """Character spans in `"\\n".join(lines)` of groups of lines that begin at the given line indices
    (increasing).

    A group runs to the line before the next group's first line; its span ends at its
    last non-blank line. Groups with no text are left out. Returns a tuple, or `Spans`
    past `FEW_SPANS` groups (`compact_spans`).
    """
    n = len(lines)
    at, pos = 0, 0  # a line index and its offset, moving forward only

    def offset(k: int) -> int:
        nonlocal at, pos
        while at < k:
            pos += len(lines[at]) + 1
            at += 1
        return pos

    def spans() -> Iterator[tuple[int, int]]:
        it = iter(starts)
        a = next(it, None)
        while a is not None:
            nxt = next(it, None)
            b = min(nxt if nxt is not None else n, n)  # trailing blank lines were cut
            while b > a and not lines[b - 1].strip():
                b -= 1
            if b > a and a < n:
                start = offset(a)
                yield start, offset(b - 1) + len(lines[b - 1])
            a = nxt

    return compact_spans(spans())


# Guards against absurd spans (rowspan up to 65534 and colspan up to 1000 are legal).
MAX_COLS = 1000
MAX_CELLS = 200_000


class TableGrid:
    """Cells of one data table as they arrive in document order, flattened into a grid when rendered.

    rowspan and colspan are flattened the way pandas' `read_html` does: a spanned
    cell's text is repeated in every grid position it covers, so each rendered row
    stands on its own (a chunk of rows keeps its values). As in browsers (HTML's table
    model), a rowspan never reaches past its row group (`thead`, `tbody`, `tfoot`;
    `rowspan="0"` runs to the group's end), and `tfoot` rows come last.
    """

    __slots__ = ("rows", "head", "th_only", "th_first", "group", "foot", "groups", "spanned")

    def __init__(self) -> None:
        # a cell: its text, or (text, rowspan, colspan) when it spans (most cells do not: no tuple each);
        # a finished row of two or more plain cells is packed into one string (`_pack`)
        self.rows: list[list[str | tuple[str, int, int]] | str] = []
        self.head: list[bool] = []
        self.th_only: list[bool] = []
        self.th_first: list[bool] = []
        self.group: list[int] = []
        self.foot: list[bool] = []
        self.groups = 0
        self.spanned = False  # a cell spans more than one row or column

    def new_group(self) -> None:
        """Start a row group (a `thead`, `tbody` or `tfoot`): rowspans stop at its end."""
        self.groups += 1

    def _pack(self) -> None:
        """Pack the last row, when it is two or more plain cells, into their texts joined by
        `_SEP`: a list and a string per cell cost some 60 bytes a cell beside the text
        (3-4x a table of short cells, held until the table ends)."""
        if self.rows:
            row = self.rows[-1]
            if isinstance(row, list) and all(type(c) is str for c in row):
                packed = _packed(cast(list[str], row))
                if isinstance(packed, str):
                    self.rows[-1] = packed

    def new_row(self, in_head: bool, in_foot: bool = False) -> None:
        """Start a row (`in_head`: it belongs to `<thead>`; `in_foot`: to `<tfoot>`)."""
        self._pack()
        self.rows.append([])
        self.head.append(in_head)
        self.th_only.append(True)
        self.th_first.append(False)
        self.group.append(self.groups)
        self.foot.append(in_foot)

    def add_cell(self, text: str, is_th: bool, rowspan: int = 1, colspan: int = 1) -> None:
        """Add the next cell of the current row (a row is started when none is open).

        Args:
            text: the cell's text on one line.
            is_th: a `<th>` cell.
            rowspan: rows the cell covers (0: to the end of the table).
            colspan: columns the cell covers.
        """
        if not self.rows:
            self.new_row(False)
        row = self.rows[-1]
        assert isinstance(row, list)  # (only finished rows are packed)
        if not row:
            self.th_first[-1] = is_th
        colspan = max(1, min(colspan, MAX_COLS))
        if rowspan == 1 and colspan == 1:
            row.append(text)
        else:
            row.append((text, rowspan, colspan))
            self.spanned = True
        if not is_th:
            self.th_only[-1] = False

    def _group_ends(self) -> list[int]:
        """For each row, one past the last row of its row group."""
        n = len(self.rows)
        group_end = [n] * n
        for r in range(n - 2, -1, -1):
            group_end[r] = group_end[r + 1] if self.group[r + 1] == self.group[r] else r + 1
        return group_end

    def _spread(self, group_end: list[int]) -> int:
        """Grid positions the cells would fill with their spans repeated (each colspan at most MAX_COLS)."""
        total = 0
        for r, cells in enumerate(self.rows):
            left = group_end[r] - r
            if isinstance(cells, str):
                total += _width(cells)
                continue
            for cell in cells:
                if isinstance(cell, str):
                    total += 1
                    continue
                _, rowspan, colspan = cell
                total += colspan * (left if rowspan <= 0 else min(rowspan, left))
        return total

    def _grid(self, group_end: list[int] | None) -> list[list[str] | str]:
        """The rows with spans flattened (rows of unequal length; empty rows kept), given each row's
        `_group_ends`; with None every cell stands once, in its own row, spans ignored.

        A cell's own text is always kept; its copies stop at MAX_COLS columns.
        """
        if not self.spanned:
            return cast(list[list[str] | str], self.rows)  # (every cell is its text already; rows may be packed)
        if group_end is None:
            return [_packed([cell if isinstance(cell, str) else cell[0] for cell in _cells(cells)])
                    for cells in self.rows]
        carry: dict[tuple[int, int], str] = {}
        grid: list[list[str] | str] = []
        for r, cells in enumerate(self.rows):
            self.rows[r] = []  # (each row goes as its grid row is made, packed: the table is not held twice)
            row: list[str] = []

            def take_carried() -> None:
                while (r, len(row)) in carry:
                    row.append(carry.pop((r, len(row))))

            left = group_end[r] - r
            for cell in _cells(cells):
                take_carried()
                text, rowspan, colspan = (cell, 1, 1) if isinstance(cell, str) else cell
                rows_down = left if rowspan <= 0 else min(rowspan, left)
                for k in range(colspan):
                    if k and len(row) >= MAX_COLS:
                        break
                    c = len(row)
                    row.append(text)
                    if c < MAX_COLS:
                        for dr in range(1, rows_down):
                            carry[(r + dr, c)] = text
                    take_carried()
            later = [c for (rr, c) in carry if rr == r]
            if later:
                while len(row) <= max(later):
                    row.append(carry.pop((r, len(row)), ""))
            grid.append(_packed(row))
        return grid

    def render(self) -> tuple[list[str], int, list[str]]:
        """The table as Markdown pipe-table lines (once: the cells are let go as their lines are made).

        The header is the `<thead>` rows, else the leading rows made only of `<th>`
        cells, else (a table of row headers, `<th>` first in most rows) an empty
        header, else the first row; several header rows are merged per column
        ("Group / Column"). Body rows whose cells are all empty are left out.
        Every cell's text is kept, however big the table. Spans are repeated and short
        rows padded to the table's width only while that fills at most
        `max(MAX_CELLS, 4 x the cells)` grid positions (`<td colspan=1000>` in each of
        10,000 rows would write 10 M cells): past it each cell stands once, unpadded.

        Returns:
            (lines, number of header lines (header row + delimiter row), header cell texts);
            ([], 0, []) for a table without cells.
        """
        self._pack()
        cells = sum(_width(r) for r in self.rows)
        room = max(MAX_CELLS, 4 * cells)
        group_end = self._group_ends() if self.spanned else None
        grid = self._grid(group_end if group_end is not None and self._spread(group_end) <= room else None)
        self.rows = []
        keep = [i for i, r in enumerate(grid) if r and not self.foot[i]]
        keep += [i for i, r in enumerate(grid) if r and self.foot[i]]
        if not keep:
            return [], 0, []
        rows = [grid[i] for i in keep]
        del grid
        head = [self.head[i] for i in keep]
        th_only = [self.th_only[i] for i in keep]
        row_headers = 2 * sum(self.th_first[i] for i in keep) >= len(keep)
        width = max(_width(r) for r in rows)
        pad = len(rows) * width <= room
        n_head = 0
        if any(head):
            while n_head < len(rows) and head[n_head]:
                n_head += 1
        if n_head == 0:
            while n_head < len(rows) - 1 and th_only[n_head]:
                n_head += 1
        if n_head == 0 and row_headers:
            rows.insert(0, [])
        n_head = max(1, n_head)
        header = []
        for k in range(n_head):
            rows[k] = _cells(rows[k])
        for c in range(width if pad else max(1, *(len(r) for r in rows[:n_head]))):
            parts: list[str] = []
            for r in rows[:n_head]:
                v = r[c] if c < len(r) else ""
                if v and (not parts or parts[-1] != v):
                    parts.append(v)
            header.append(" / ".join(parts))
        lines = [_pipe_row(header), "| " + " | ".join(["---"] * len(header)) + " |"]
        for k in range(n_head, len(rows)):
            r = _cells(rows[k])
            rows[k] = []  # its cells go as its line is made (a huge table is not held twice)
            if any(r):
                lines.append(_pipe_row(r + [""] * (width - len(r)) if pad else r))
        return lines, 2, header


_SEP = "\x1f"  # between the cells of a packed row (a row is packed only when no cell holds it)


def _packed(row: list[str]) -> list[str] | str:
    """A row of two or more cells as their texts joined by `_SEP` (unless a cell holds it), else the row."""
    if len(row) > 1:
        packed = _SEP.join(row)
        if packed.count(_SEP) == len(row) - 1:
            return packed
    return row


def _cells(row: Any) -> list:
    """The cells of a row, packed or not."""
    return row.split(_SEP) if isinstance(row, str) else row


def _width(row: Any) -> int:
    """The number of cells of a row, packed or not."""
    return row.count(_SEP) + 1 if isinstance(row, str) else len(row)


def _pipe_row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
