"""PDF tables: pdfplumber's `lines` table finder on a page's ruling edges, cell text from pdfium; no layout, no tokens."""

from __future__ import annotations

import re
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
