"""PDF tables: pdfplumber's `lines` table finder on a page's ruling edges, and tables without rulings from text
alignment; cell text from pdfium; no layout, no tokens."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field
from statistics import median

from chunkctl.loaders.pdf.page import PageData, clean_text, is_cjk

_WS = re.compile(r"\s+")


@dataclass(slots=True)
class Table:
    """A ruled table of one page, cells as text.

    Attributes:
        x0, top, x1, bottom: bounding box in the page's upright frame (points).
        header: the header cells (first row), one string per column.
        rows: body rows, each a list of cell strings (same length as `header`).
        captions: title rows printed inside the grid above the header (one cell
            spanning every column), kept as text before the table.
        notes: such rows below the last body row (notes, sources), kept as text
            after the table.
        col_x: left edge of each column (points), to recognise a continuation.
        continues: set by the layout when this table continues the previous
            page's last table (its rows then join that table's block).
    """

    x0: float
    top: float
    x1: float
    bottom: float
    header: list[str]
    rows: list[list[str]]
    captions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    col_x: list[float] = field(default_factory=list)
    continues: bool = False

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.bottom - self.top

    def contains(self, x: float, y: float, tol: float = 1.0) -> bool:
        """Whether the upright point (x, y) lies inside the table's box."""
        return self.x0 - tol <= x <= self.x1 + tol and self.top - tol <= y <= self.bottom + tol


class _EdgePage:
    """The part of a pdfplumber page its `lines` table finder reads: ruling edges and a bbox.

    pdfplumber would otherwise parse the whole page with pdfminer first (0.1-0.2 s
    per dense page here); the edges come from pdfium's path objects instead.
    """

    def __init__(self, edges: list[dict], bbox: tuple[float, float, float, float]):
        self.edges = edges
        self.bbox = bbox


def _edge_dicts(pdata: PageData) -> list[dict]:
    """The page's ruling edges as pdfplumber edge dicts in the upright frame (y down)."""
    frame = pdata.frame
    out = []
    for kind, c, lo, hi in pdata.edges:
        if kind == "h":
            x0, y, x1, _ = frame.box(lo, c, hi, c)
            out.append({"object_type": "line", "orientation": "h", "x0": x0, "x1": x1, "top": y, "bottom": y,
                        "width": x1 - x0, "height": 0.0})
        else:
            x, top, _, bottom = frame.box(c, lo, c, hi)
            out.append({"object_type": "line", "orientation": "v", "x0": x, "x1": x, "top": top, "bottom": bottom,
                        "width": 0.0, "height": bottom - top})
    return out


def find_tables(pdata: PageData, tp, page_text: str) -> list[Table]:
    """Ruled tables of one page (pdfplumber's default `lines` strategy).

    Cell text is read with pdfium (`FPDFText_GetBoundedText`) from the open text
    page, so it gets the same repairs as the rest of the page. Grids of one row or
    one column are not tables.

    Args:
        pdata: the page as read by `PageReader` (its ruling edges and frame).
        tp: the page's open `PdfTextPage`.
        page_text: pdfium's text of the page (index-aligned with its characters).

    Returns:
        tables in top-to-bottom order (upright coordinates, points).
    """
    from pdfplumber.table import TableFinder

    edges = _edge_dicts(pdata)
    if not edges:
        return []
    frame = pdata.frame
    page = _EdgePage(edges, (0.0, 0.0, frame.width, frame.height))
    finder = TableFinder(page, {})  # type: ignore[arg-type]  # duck-typed Page: `lines` finder reads .edges, .bbox
    out: list[Table] = []
    chars = None
    for t in finder.tables:
        grid = [list(r.cells) for r in t.rows]
        if len(grid) < 2 or max(len(r) for r in grid) < 2:
            continue
        ncols = max(len(r) for r in grid)
        grid = [r + [None] * (ncols - len(r)) for r in grid]
        texts = [[_cell_lines(tp, frame, c) if c is not None else None for c in row] for row in grid]
        table = _build(grid, texts)
        if table is None:
            continue
        header_row, header_boxes, body, captions, notes, keep_cols = table
        if any(c is None for c in header_row) and body:
            if chars is None:
                chars = _page_chars(tp, frame, page_text)
            header = _split_header(header_row, header_boxes, body, keep_cols, grid, chars)
        else:
            header = [_join(c or []) for c in header_row]
        rows = [[_join(c or []) for c in r] for r in body]
        ncol = len(header)
        if ncol < 2 or not rows:
            continue
        x0, top, x1, bottom = t.bbox
        col_x = []
        for ci in keep_cols:
            xs = [grid[ri][ci][0] for ri in range(len(grid)) if grid[ri][ci] is not None]
            col_x.append(median(xs) if xs else x0)
        out.append(Table(x0, top, x1, bottom, header, rows, captions, notes, col_x))
    out.sort(key=lambda tb: (tb.top, tb.x0))
    return out


def _cell_lines(tp, frame, cell: tuple[float, float, float, float]) -> list[str]:
    """Text lines inside one cell box (upright), repaired, without empty lines."""
    l, b, r, t = frame.user_box(*cell)
    raw = tp.get_text_bounded(l, b, r, t)
    lines = []
    for part in raw.replace("\ufffe", "-\r\n").split("\r\n"):
        s = _WS.sub(" ", clean_text(part)).strip()
        if s:
            lines.append(s)
    return lines


def _join(lines: list[str]) -> str:
    """One cell's lines as one line: joined by spaces (none between CJK, none after a hyphen)."""
    out = ""
    for s in lines:
        if not out:
            out = s
        elif out.endswith("-") or (is_cjk(out[-1]) and is_cjk(s[0])):
            out += s
        else:
            out += " " + s
    return out.replace("|", "\\|")


def _build(grid, texts):
    """Clean a raw grid: captions and notes out, empty rows and columns out, stacked rows split.

    Returns:
        (header cells as line lists or None for merged, header boxes, body rows as
        line lists, caption strings, note strings, kept column indexes), or None
        when what is left has fewer than 2 rows or 2 columns.
    """
    ncols = len(grid[0])
    rows = [(grid[i], texts[i]) for i in range(len(grid))]
    rows = [(g, t) for g, t in rows if any(c for c in t if c)]

    def spanning(row) -> bool:
        g, t = row
        return ncols > 1 and sum(1 for c in t if c) == 1 and sum(1 for c in g if c is not None) == 1

    captions: list[str] = []
    while rows and spanning(rows[0]):
        captions.append(_join(next(c for c in rows.pop(0)[1] if c)))
    notes: list[str] = []
    while len(rows) > 2 and spanning(rows[-1]):
        notes.insert(0, _join(next(c for c in rows.pop()[1] if c)))
    keep_cols = [ci for ci in range(ncols) if any(t[ci] for _, t in rows)
                 or (rows and rows[0][0][ci] is None)]
    if len(rows) < 2 or len(keep_cols) < 2:
        return None
    header_g, header_t = rows[0]
    header_row = [header_t[ci] if header_g[ci] is not None else None for ci in keep_cols]
    # A header cell whose grid cell is merged into its left neighbour stays None.
    header_boxes = [header_g[ci] for ci in keep_cols]
    body: list[list[list[str]]] = []
    for _g, t in rows[1:]:
        cells = [t[ci] or [] for ci in keep_cols]
        body.extend(_split_stacked(cells))
    if any(sum(1 for c in r if c) >= 1 for r in body):
        used = [i for i in range(len(keep_cols)) if any(r[i] for r in body) or header_row[i]]
    else:
        return None
    if len(used) < 2:
        return None
    keep_cols = [keep_cols[i] for i in used]
    header_row = [header_row[i] for i in used]
    header_boxes = [header_boxes[i] for i in used]
    body = [[r[i] for i in used] for r in body]
    return header_row, header_boxes, body, captions, notes, keep_cols


def _split_stacked(cells: list[list[str]]) -> list[list[list[str]]]:
    """One grid row that stacks several records (no rulings between them) -> one row each.

    When every non-empty cell has the same number n >= 2 of lines and at least two
    cells have text, line i of each cell forms record i.
    """
    filled = [c for c in cells if c]
    if len(filled) >= 2:
        n = len(filled[0])
        if n >= 2 and all(len(c) == n for c in filled):
            return [[[c[i]] if c else [] for c in cells] for i in range(n)]
    return [cells]


def _page_chars(tp, frame, text: str) -> list[tuple[str, float, float, float, float]]:
    """Every character of the page with its upright box: (char, x0, top, x1, bottom).

    White space is kept as (" ", 0, 0, 0, 0): it separates words.
    """
    out = []
    n = len(text)
    for i in range(n):
        ch = text[i]
        if ch.isspace() or ch in "\ufffe\ufffd":
            out.append((" ", 0.0, 0.0, 0.0, 0.0))
            continue
        l, b, r, t = tp.get_charbox(i)
        x0, top, x1, bottom = frame.box(l, b, r, t)
        out.append((ch, x0, top, x1, bottom))
    return out


def _split_header(header_row, header_boxes, body, keep_cols, grid, chars) -> list[str]:
    """Header labels per column when header cells span several columns.

    The spanning cell's characters are grouped into lines and words; each word
    goes to the column under its centre. A line whose words all fall in one column
    while another line of the cell spreads over several (a group label such as
    "Pre-Pawn" over "Handgun | Long Gun | Other") is put in front of every column
    of the span.
    """
    ncol = len(header_row)
    # Column x ranges from the body rows' cells.
    bounds = []
    for ci in keep_cols:
        xs0 = [grid[ri][ci][0] for ri in range(1, len(grid)) if grid[ri][ci] is not None]
        xs1 = [grid[ri][ci][2] for ri in range(1, len(grid)) if grid[ri][ci] is not None]
        bounds.append((median(xs0), median(xs1)) if xs0 else None)
    labels = [_join(c) if c else "" for c in header_row]
    i = 0
    while i < ncol:
        if header_row[i] is None:
            i += 1
            continue
        j = i + 1
        while j < ncol and header_row[j] is None:
            j += 1
        if j - i > 1 and header_boxes[i] is not None and all(bounds[k] for k in range(i, j)):
            x0, top, x1, bottom = header_boxes[i]
            last = bounds[j - 1]
            assert last is not None  # all(bounds[k] for k in range(i, j)) checked above
            x1 = max(x1, last[1])
            inside = [c for c in chars if c[0] == " " or
                      (x0 - 1 <= (c[1] + c[3]) / 2 <= x1 + 1 and top - 1 <= (c[2] + c[4]) / 2 <= bottom + 1)]
            parts = _words_by_column(inside, [bounds[k] for k in range(i, j)])
            if parts is not None:
                for k, label in enumerate(parts):
                    labels[i + k] = label.replace("|", "\\|")
        i = j
    return labels


def _words_by_column(chars, bounds) -> list[str] | None:
    """Group characters (content order) into words and lines, then words into column ranges."""
    words: list[list] = []
    cur: list = []
    for c in chars + [(" ", 0.0, 0.0, 0.0, 0.0)]:
        if c[0] == " ":
            if cur:
                words.append(cur)
            cur = []
        elif cur and min(cur[-1][4], c[4]) - max(cur[-1][2], c[2]) <= 0:
            words.append(cur)
            cur = [c]
        else:
            cur.append(c)
    if not words:
        return None
    # A word joins the line it overlaps vertically (descenders do not start a line).
    lines: list[list] = []
    for w in words:
        top = min(c[2] for c in w)
        bottom = max(c[4] for c in w)
        for ln in lines:
            if min(ln[1], bottom) - max(ln[0], top) > 0.3 * min(bottom - top, ln[1] - ln[0]):
                ln[0], ln[1] = min(ln[0], top), max(ln[1], bottom)
                ln[2].append(w)
                break
        else:
            lines.append([top, bottom, [w]])
    lines.sort(key=lambda ln: ln[0])
    # Top lines set with ordinary word spaces (no column-wide gap) and with more
    # lines below them are group labels ("Pre-Pawn" over its three sub-columns).
    group: list[str] = []
    while len(lines) > 1:
        top, bottom, ws = lines[0]
        ws.sort(key=lambda w: w[0][1])
        gaps = [b[0][1] - a[-1][3] for a, b in zip(ws, ws[1:])]
        if gaps and max(gaps) > 0.6 * (bottom - top):
            break
        group.extend(clean_text("".join(ch[0] for ch in w)) for w in ws)
        lines.pop(0)
    labels: list[list[str]] = [[] for _ in bounds]
    spread = False
    for _, _, ws in lines:
        ws.sort(key=lambda w: w[0][1])
        cols: set[int] = set()
        for w in ws:
            cx = (min(c[1] for c in w) + max(c[3] for c in w)) / 2
            best = min(range(len(bounds)), key=lambda k: 0 if bounds[k][0] <= cx <= bounds[k][1]
                       else min(abs(cx - bounds[k][0]), abs(cx - bounds[k][1])))
            labels[best].append(clean_text("".join(ch[0] for ch in w)))
            cols.add(best)
        spread = spread or len(cols) >= 2
    if not spread:
        return None
    prefix = " ".join(group)
    return [" ".join(x for x in (prefix, " ".join(ws)) if x) for ws in labels]


# -- tables without ruling lines (text alignment) -------------------------------------

# A line whose width is this many times what its characters need (about half an em each)
# has wide gaps in it: a candidate table row. Pages with fewer such lines are skipped
# before any character box is read.
_GAPPY_RATIO = 1.4
_MIN_GAPPY_LINES = 3
# A gap wider than this fraction of the word height separates two cells (a word space is
# about a quarter of an em; table columns are set at least an em apart).
_CELL_GAP = 0.75
# A text table has at least this many rows of two or more cells.
_MIN_ROWS = 3
# Guard against prose set in columns: cells of prose lines are long.
_MAX_MEDIAN_CELL_CHARS = 24
_NUMERIC = re.compile(r"\d")


@dataclass(slots=True)
class _Word:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float

    @property
    def height(self) -> float:
        return self.bottom - self.top


@dataclass(slots=True)
class _Row:
    """Words of one text row cut into cells at wide gaps: cells are (x0, x1, text)."""

    top: float
    bottom: float
    cells: list[tuple[float, float, str]]

    @property
    def height(self) -> float:
        return self.bottom - self.top


def _gappy(pdata: PageData) -> bool:
    """Whether the page has enough lines with column-wide gaps to look for a text table."""
    n = 0
    per_baseline: dict[int, int] = {}
    for ln in pdata.lines:
        t = ln.text.strip()
        if t.count(" ") >= 1 and len(t) >= 3 and ln.width > _GAPPY_RATIO * 0.5 * ln.size * len(t):
            n += 1
        # Cells that pdfium gives as separate lines side by side on one baseline.
        key = round(ln.base / 2)
        per_baseline[key] = per_baseline.get(key, 0) + 1
    n += sum(1 for k in per_baseline.values() if k >= 3)
    return n >= _MIN_GAPPY_LINES


def find_text_tables(pdata: PageData, tp, page_text: str) -> list[Table]:
    """Tables without ruling lines found from text alignment (column gaps that repeat over rows).

    A row is a run of words on one baseline, cut into cells where the gap between two
    words exceeds `_CELL_GAP` of the word height. Consecutive rows of two or more cells,
    close together, whose cells leave the same vertical gutters free (column gaps that
    repeat over at least `_MIN_ROWS` rows) form a table. Guard against prose set in
    columns: a region is kept only when its cells are short (median at most
    `_MAX_MEDIAN_CELL_CHARS` characters) and it has three columns or numbers in at
    least a third of its cells. Rows above the first row of column names that hold one
    cell or cross a column gap (a title such as "Intl Pax Traffic") become captions,
    never the header; the header is the first row of column names, with the one or two
    rows under it that complete it merged into it (their first cell empty or fewer than
    half their cells filled: "DeepSeek" over "67B"). Contents lists, displayed
    equations, code, labels of drawings and forms are refused (`_toc_or_equations`,
    `_mostly_mono`, the checks in `_text_table`). The idea of
    column gutters from text alignment follows Tabula's and pdfplumber's "stream"/"text"
    strategies; the rules and thresholds here are chunkctl's.

    Args:
        pdata: the page as read (its lines, frame, and tables already found from rulings).
        tp: the page's open `PdfTextPage`.
        page_text: pdfium's text of the page (index-aligned with its characters).

    Returns:
        tables in top-to-bottom order (upright coordinates, points); none overlap a
        ruled table of `pdata.tables`.
    """
    if not _gappy(pdata):
        return []
    words = [w for w in _page_words(tp, pdata.frame, page_text)
             if not any(t.contains((w.x0 + w.x1) / 2, (w.top + w.bottom) / 2) for t in pdata.tables)]
    rows = _rows(words)
    out = []
    for region in _regions(rows):
        table = _text_table(region)
        if table is not None and not _mostly_mono(pdata, table):
            out.append(table)
    return out


def _mostly_mono(pdata: PageData, table: Table) -> bool:
    """Whether most text lines inside the table's box are monospaced (a code listing, not a table)."""
    inside = [ln for ln in pdata.lines if table.contains((ln.x0 + ln.x1) / 2, (ln.top + ln.bottom) / 2)]
    return bool(inside) and 2 * sum(1 for ln in inside if ln.mono) >= len(inside)


def _page_words(tp, frame, text: str) -> list[_Word]:
    """Words (runs of non-space characters) with upright boxes from their first and last characters."""
    out = []
    n = len(text)
    i = 0
    while i < n:
        if text[i].isspace() or text[i] in "\ufffe\ufffd":
            i += 1
            continue
        j = i
        while j < n and not (text[j].isspace() or text[j] in "\ufffe\ufffd"):
            j += 1
        l1, b1, r1, t1 = tp.get_charbox(i)
        l2, b2, r2, t2 = tp.get_charbox(j - 1)
        a = frame.box(l1, b1, r1, t1)
        b = frame.box(l2, b2, r2, t2)
        x0, x1 = min(a[0], b[0]), max(a[2], b[2])
        top, bottom = min(a[1], b[1]), max(a[3], b[3])
        word = clean_text(text[i:j]).strip()
        # First and last character on one line (a word cut by a line end has them far apart).
        same_line = abs((a[1] + a[3]) - (b[1] + b[3])) / 2 < max(a[3] - a[1], b[3] - b[1], 1.0)
        if word and x1 > x0 and bottom > top and same_line:
            out.append(_Word(word, x0, top, x1, bottom))
        i = j
    return out


def _rows(words: list[_Word]) -> list[_Row]:
    """Words grouped into rows (overlapping vertically), top to bottom, cut into cells at wide gaps."""
    words = sorted(words, key=lambda w: (w.top + w.bottom) / 2)
    groups: list[list[_Word]] = []
    for w in words:
        cy = (w.top + w.bottom) / 2
        if groups:
            g = groups[-1]
            top = min(x.top for x in g)
            bottom = max(x.bottom for x in g)
            if top <= cy <= bottom and w.height < 2.5 * (bottom - top):
                g.append(w)
                continue
        groups.append([w])
    rows = []
    for g in groups:
        g.sort(key=lambda w: w.x0)
        h = median(w.height for w in g)
        cells: list[tuple[float, float, str]] = []
        for w in g:
            if cells and w.x0 - cells[-1][1] <= _CELL_GAP * h:
                x0, _, t = cells[-1]
                cells[-1] = (x0, max(cells[-1][1], w.x1), t + " " + w.text)
            else:
                cells.append((w.x0, w.x1, w.text))
        rows.append(_Row(min(w.top for w in g), max(w.bottom for w in g), cells))
    return rows


def _regions(rows: list[_Row]) -> list[list[_Row]]:
    """Runs of rows that may form a table: multi-cell rows close together, with short single-cell rows between."""
    out: list[list[_Row]] = []
    cur: list[_Row] = []

    def flush() -> None:
        # Single-cell rows at the end are text after the table, not rows.
        while cur and len(cur[-1].cells) < 2:
            cur.pop()
        if sum(1 for r in cur if len(r.cells) >= 2) >= _MIN_ROWS:
            out.append(list(cur))
        cur.clear()

    for r in rows:
        if cur:
            prev = cur[-1]
            pitch = max(prev.height, r.height)
            if r.top - prev.bottom > 2.6 * pitch:
                flush()
        if _prose_row(r):
            flush()  # a line of prose (inline math may cut it into "cells"): never a table row
            continue
        if len(r.cells) >= 2:
            cur.append(r)
        elif cur or r.cells:
            # A one-cell row joins a run (a title above it, a group label inside it) when short.
            width = r.cells[0][1] - r.cells[0][0]
            multi = [x for x in cur if len(x.cells) >= 2]
            if multi:
                span = max(c[1] for x in multi for c in x.cells) - min(c[0] for x in multi for c in x.cells)
                if width > 0.8 * span and len(r.cells[0][2]) > 40:
                    flush()
                    cur.append(r)
                    continue
            cur.append(r)
    flush()
    return out


def _prose_row(r: _Row) -> bool:
    """A row that reads as a line of prose: a long cell and at most two short fragments, not numbers."""
    if len(r.cells) > 3 or max(len(c[2]) for c in r.cells) < 40:
        return False
    return sum(1 for c in r.cells if _NUMERIC.search(c[2]) and len(c[2]) < 12) < 2


def _gutters(rows: list[_Row]) -> list[tuple[float, float]]:
    """Column gaps: x ranges no cell of the body rows covers, between the leftmost and rightmost cell."""
    multi = [r for r in rows if len(r.cells) >= 2]
    x0 = min(c[0] for r in multi for c in r.cells)
    x1 = max(c[1] for r in multi for c in r.cells)
    width = int(x1 - x0) + 1
    cover = [0] * (width + 1)
    for r in multi:
        for a, b, _ in r.cells:
            for x in range(max(0, int(a - x0)), min(width, int(b - x0) + 1)):
                cover[x] += 1
    # A cell spanning columns (a group header) may cross a gutter: allow a tenth of the rows.
    allowed = max(1, len(multi) // 10)
    h = median(r.height for r in multi)
    gutters = []
    x = 0
    while x < width:
        if cover[x] <= allowed:
            s = x
            while x < width and cover[x] <= allowed:
                x += 1
            if x - s >= 0.5 * h and s > 0 and x < width:
                gutters.append((x0 + s, x0 + x))
        else:
            x += 1
    return gutters


def _text_table(region: list[_Row]) -> Table | None:
    """A Table from a run of rows, or None when the rows do not form columns (or look like prose)."""
    multi = [r for r in region if len(r.cells) >= 2]
    if len(multi) < _MIN_ROWS:
        return None
    # Captions: one-cell rows above the first row of column names (inside the table's box, so
    # their lines are emitted once, as the captions).
    top = region[0].top
    captions = []
    while region and len(region[0].cells) < 2:
        captions.append(_cell_text(region.pop(0).cells[0][2]))
    gutters = _gutters(region)
    if not gutters:
        return None
    left = min(c[0] for r in multi for c in r.cells)
    right = max(c[1] for r in multi for c in r.cells)
    bounds = [left] + [(a + b) / 2 for a, b in gutters] + [right]
    ncol = len(bounds) - 1
    # A title row over the columns (few cells, one crossing a column gap) is a caption too.
    while len(region) > _MIN_ROWS and 2 * len(region[0].cells) < ncol and any(
            a < (g0 + g1) / 2 < b for a, b, _ in region[0].cells for g0, g1 in gutters):
        captions.append(_cell_text(" ".join(c[2] for c in region.pop(0).cells)))
    grid = [_assign(r, bounds) for r in region]
    cells = [c for row in grid for c in row if c]
    if not cells:
        return None
    if median(len(c) for c in cells) > _MAX_MEDIAN_CELL_CHARS:
        return None
    # Prose beside a column of numbers (line numbers, a margin) is not a table either.
    for ci in range(ncol):
        col = [row[ci] for row in grid if row[ci]]
        if col and median(len(c) for c in col) > 2 * _MAX_MEDIAN_CELL_CHARS:
            return None
    # Fragments of displayed math or of a drawing's labels: cells without a word or a number.
    informative = [c for c in cells if c.strip("-\u2013\u2014. ")]
    weak = sum(1 for c in informative if sum(ch.isalnum() for ch in c) == 0
               or (sum(ch.isalnum() for ch in c) == 1 and not any(ch.isdigit() for ch in c)))
    if weak > 0.3 * len(informative):
        return None
    # Symbols only (check boxes, bullets drawn as private-use glyphs): a form, not a table.
    if sum(1 for c in cells if any(0xE000 <= ord(ch) <= 0xF8FF or unicodedata.category(ch) == "So" for ch in c)
           and not any(ch.isalnum() and not 0xE000 <= ord(ch) <= 0xF8FF for ch in c)) > 0.3 * len(cells):
        return None
    numeric = sum(1 for c in cells if _NUMERIC.search(c)) / len(cells)
    if ncol < 3 and numeric < 1 / 3:
        return None
    # Every column has text in at least two rows (else it is a stray gap, e.g. an indent).
    if any(sum(1 for row in grid if row[ci]) < 2 for ci in range(ncol)):
        return None
    # Header: the first row, and the rows under it that complete it (a header set on two
    # or three lines: their first cell empty, or less than half of their cells filled),
    # but not a group label (a row with only its first cell).
    header = grid[0]
    body = grid[1:]
    k = 0
    while body and k < 2:
        row = body[0]
        filled = sum(1 for c in row if c)
        if row[0] and filled == 1:
            break
        if row[0] and 2 * filled >= ncol:
            break
        header = [" ".join(x for x in (a, b) if x) for a, b in zip(header, row)]
        body = body[1:]
        k += 1
    if _toc_or_equations(grid):
        return None
    if not body:
        return None
    header = [_cell_text(c) for c in header]
    rows = [[_cell_text(c) for c in row] for row in body]
    bottom = region[-1].bottom
    # Column left edges (where each column's leftmost text starts), to recognise the same
    # table continued on the next page.
    col_x = list(bounds[:-1])
    for r in region:
        for a, b, _ in r.cells:
            ci = max(0, min(ncol - 1, bisect_right(bounds, (a + b) / 2) - 1))
            col_x[ci] = a if col_x[ci] == bounds[ci] else min(col_x[ci], a)
    return Table(left, top, right, bottom, header, rows, captions, [], col_x)


_LEADERS = re.compile(r"^[.\u2026\u00b7\s]+$")
_INT = re.compile(r"^\d{1,4}$")
_EQ_NUMBER = re.compile(r"^\(\d{1,3}[a-z]?\)$")


def _toc_or_equations(grid: list[list[str]]) -> bool:
    """Columns of text that are not a table: a contents list (dot leaders, page numbers going up in
    the last column) or displayed equations (numbers "(12)" in the last column)."""
    last = [row[-1] for row in grid if row[-1]]
    if len(last) >= 3:
        if sum(1 for c in last if _EQ_NUMBER.match(c)) >= 0.5 * len(last):
            return True
        if all(_INT.match(c) for c in last) and [int(c) for c in last] == sorted(int(c) for c in last) \
                and len(set(last)) >= 3:
            return True
    # Dot leaders: a contents list has two or three columns (statistical tables use leaders too, on
    # their labels); cells of leaders alone are a contents list whatever the columns.
    cells = [c for row in grid for c in row if c]
    if sum(1 for c in cells if _LEADERS.match(c)) >= 0.2 * len(cells):
        return True
    dots = sum(1 for row in grid for c in row if ". . ." in c or "...." in c or "\u2026" in c)
    return len(grid[0]) <= 3 and dots >= 0.3 * len(grid)


def _assign(row: _Row, bounds: list[float]) -> list[str]:
    """A row's cells put into the columns between `bounds` (by their centre); text of one column joined."""
    out = [""] * (len(bounds) - 1)
    for a, b, t in row.cells:
        cx = (a + b) / 2
        ci = max(0, min(len(out) - 1, bisect_right(bounds, cx) - 1))
        out[ci] = (out[ci] + " " + t).strip()
    return out


def _cell_text(s: str) -> str:
    return _WS.sub(" ", s).strip().replace("|", "\\|")
