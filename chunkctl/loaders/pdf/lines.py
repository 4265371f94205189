"""PDF lines of one page: pieces merged into printed lines, reading order across columns; no PDF parsing, no tokens."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Union

from chunkctl.loaders.pdf.page import Line, PageData
from chunkctl.loaders.pdf.tables import Table

Element = Union[Line, Table]


def merge_pieces(lines: list[Line]) -> list[Line]:
    """Join consecutive pieces of one printed line (same baseline, small gap) into one Line.

    pdfium starts a new line after superscripts and font changes; a piece that
    continues the previous one to its right on the same baseline (gap at most one
    font size) is appended, with a space when the gap is wider than a fifth of it.

    Args:
        lines: a page's lines in content order (upright coordinates, points).

    Returns:
        the lines with such pieces merged (the Line objects are updated in place).
    """
    out: list[Line] = []
    for ln in lines:
        if out and not ln.vertical:
            p = out[-1]
            overlap = min(p.bottom, ln.bottom) - max(p.top, ln.top)
            gap = ln.x0 - p.x1
            size = max(p.size, ln.size)
            if (not p.vertical and overlap > 0.5 * min(p.height, ln.height) and -0.5 * size <= gap <= 1.0 * size
                    and not p.hyphen and p.mono == ln.mono):
                sep = " " if gap > 0.2 * size and not p.text.endswith(" ") else ""
                p.text = p.text + sep + ln.text
                p.x1 = max(p.x1, ln.x1)
                p.top = min(p.top, ln.top)
                p.bottom = max(p.bottom, ln.bottom)
                p.hyphen = ln.hyphen
                p.bold = p.bold and ln.bold
                if len(ln.text) > len(p.text) - len(ln.text):
                    p.size = ln.size
                continue
        out.append(ln)
    return out


@dataclass(slots=True)
class Placed:
    """An element of a page in reading order: a line (with its column) or a table."""

    item: Element
    col: int = 0
    band: int = 0


def reading_order(page: PageData) -> list[Placed]:
    """Order a page's lines and tables for reading.

    Vertical CJK pages read right to left. Pages with two (or more) columns read
    column by column inside each band between full-width elements (titles, wide
    figures); other pages keep pdfium's content order, but for a footer drawn before
    the body (last: `_margins_in_place`), each table placed after the
    last line that starts above it. Lines in other directions (margin stamps) come
    last.

    Args:
        page: a read page (its `lines`, `tables` and `stray` lines).

    Returns:
        the elements in reading order, each with its column and band numbers
        (column 0 = full width or single column).
    """
    lines = page.lines
    tables = page.tables
    if lines and sum(1 for ln in lines if ln.vertical) > len(lines) / 2:
        out = [Placed(ln) for ln in sorted(lines, key=lambda ln: (-ln.x1, ln.top))]
        out.extend(Placed(ln, col=1) for ln in page.stray)
        return out
    elems: list[Element] = list(lines) + list(tables)
    split = _columns(elems, 0)
    if split is None:
        out = [Placed(ln) for ln in _margins_in_place(lines, page.frame.height)]
        for t in sorted(tables, key=lambda t: t.top):
            # After the last line (in content order) that starts above the table.
            at = 0
            for i, p in enumerate(out):
                if p.item.top < t.top:
                    at = i + 1
            out.insert(at, Placed(t))
    else:
        out = _order_columns(elems, split, 0)
    start_band = (max((p.band for p in out), default=0) + 1)
    out.extend(Placed(ln, col=0, band=start_band + i) for i, ln in enumerate(page.stray))
    return out


MARGIN = 0.12
"""Share of the page's height at its top and at its foot taken for its margins: where a footer drawn
first is looked for (`_margins_in_place`) and the band of the furniture rules (`furniture.drop_furniture`)."""


def _margins_in_place(lines: list[Line], height: float) -> list[Line]:
    """`lines` (a page's, in content order) with the lines of its foot that it draws before any
    other line moved to the end: Word draws a page's header and footer before its body, so a
    footer left on the page (a short document's, where nothing repeats enough to be dropped) came
    between the title and the first paragraph (helper-115). Such a line is in the bottom MARGIN
    of the page's height, wholly below every line of the body (those between the margins), and
    before the first of them in content order; the lines moved keep their order. Margin lines
    drawn elsewhere (a footnote, a figure at the top of a column) stay where they are drawn.
    """
    if height <= 0 or len(lines) < 2:
        return lines
    top, foot = MARGIN * height, (1 - MARGIN) * height
    first = next((i for i, ln in enumerate(lines) if top <= (ln.top + ln.bottom) / 2 <= foot), None)
    if not first:  # (none, or a page that opens with its body)
        return lines
    body_bottom = max(ln.bottom for ln in lines[first:] if top <= (ln.top + ln.bottom) / 2 <= foot)
    foots = [ln for ln in lines[:first] if (ln.top + ln.bottom) / 2 > foot and ln.top >= body_bottom]
    if not foots:
        return lines
    ids = {id(ln) for ln in foots}
    return [ln for ln in lines if id(ln) not in ids] + foots


def _columns(elems: list[Element], depth: int) -> float | None:
    """The x of a gutter that splits `elems` into side-by-side columns, or None."""
    body = [e for e in elems if isinstance(e, Table) or len(e.text.strip()) >= 2]
    if len(body) < 6 or depth > 1:
        return None
    left = min(e.x0 for e in body)
    right = max(e.x1 for e in body)
    width = right - left
    if width <= 0:
        return None
    wide = sum(len(e.text) for e in body if isinstance(e, Line) and e.width > 0.6 * width)
    total = sum(len(e.text) for e in body if isinstance(e, Line)) or 1
    if wide > 0.5 * total:
        return None
    x0s = sorted(e.x0 for e in body)
    x1s = sorted(e.x1 for e in body)
    lo, hi = left + 0.2 * width, right - 0.2 * width
    best = None
    for x in sorted({round(v, 1) + 0.05 for v in x1s if lo <= v <= hi}):
        crossing = bisect.bisect_left(x0s, x) - bisect.bisect_right(x1s, x)
        n_left = bisect.bisect_right(x1s, x)
        n_right = len(x0s) - bisect.bisect_left(x0s, x)
        key = (crossing, -min(n_left, n_right))
        if best is None or key < best[0]:
            best = (key, x)
    if best is None:
        return None
    x = best[1]
    lefts = [e for e in body if e.x1 <= x]
    rights = [e for e in body if e.x0 >= x]
    crossing = len(body) - len(lefts) - len(rights)
    if len(lefts) < 3 or len(rights) < 3 or crossing > 0.35 * (len(lefts) + len(rights)):
        return None
    if min(e.x0 for e in rights) - x < 3.0:
        return None
    lw = sorted(e.width for e in lefts)[len(lefts) // 2]
    rw = sorted(e.width for e in rights)[len(rights) // 2]
    if lw < 0.2 * width or rw < 0.2 * width:
        return None
    l_top, l_bot = min(e.top for e in lefts), max(e.bottom for e in lefts)
    r_top, r_bot = min(e.top for e in rights), max(e.bottom for e in rights)
    overlap = min(l_bot, r_bot) - max(l_top, r_top)
    if overlap < 0.3 * min(l_bot - l_top, r_bot - r_top):
        return None
    return x


def _order_columns(elems: list[Element], x: float, depth: int) -> list[Placed]:
    """Bands between full-width elements; in each band the left column, then the right."""
    elems = sorted(elems, key=lambda e: (e.top, e.x0))
    out: list[Placed] = []
    band: list[Element] = []
    band_no = 0

    def flush() -> None:
        nonlocal band_no
        if not band:
            return
        left = [e for e in band if e.x1 <= x]
        right = [e for e in band if e.x1 > x]
        for ci, side in enumerate((left, right)):
            sub = _columns(side, depth + 1)
            if sub is not None:
                for p in _order_columns(side, sub, depth + 1):
                    out.append(Placed(p.item, col=ci * 10 + p.col + 1, band=band_no))
            else:
                out.extend(Placed(e, col=ci * 10 + 1, band=band_no) for e in side)
        band.clear()
        band_no += 1

    for e in elems:
        if e.x0 < x < e.x1:
            flush()
            out.append(Placed(e, col=0, band=band_no))
            band_no += 1
        else:
            band.append(e)
    flush()
    return out
