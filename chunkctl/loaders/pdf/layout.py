"""PDF layout: page furniture, reading order (columns), line groups, headings and hyphenation; no PDF parsing, no tokens."""

from __future__ import annotations

import bisect
import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Union

from chunkctl.loaders.pdf.page import Line, PageData, is_cjk
from chunkctl.loaders.pdf.tables import Table

# A list item opens with a bullet glyph or an enumerator ("1.", "a)", "(iv)").
_BULLET = re.compile(
    r"^(?:[\u2022\u25cf\u25cb\u25e6\u25aa\u25ab\u25a0\u25a1\u2023\u2043\u2219\u00b7\u27a2\u2713\u2714\u2756\u2192"
    r"\u25ba\u25b6\u2605\u2606\u2666\u25c6\u25c7\u2013\u2014*\-+]"
    r"|\(?(?:\d{1,2}|[a-z]|[ivx]{1,5})[.)](?=\s)|\[\d{1,3}\](?=\s)|o(?=\s+[A-Z]))\s+\S"
)
_NUMBERED_HEADING = re.compile(r"^(?:(?:\d{1,2}(?:\.\d{1,2}){0,4}\.?|[A-Z]\.|[IVX]{1,5}\.)\s+\S"
                               r"|[一二三四五六七八九十]{1,3}[、.．]|第[0-9一二三四五六七八九十百]{1,4}[章节條条部篇])")
_PAGE_NUMBER = re.compile(
    r"^\W{0,3}(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?\W{0,3}$"
    r"|^\W{0,3}(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,7})\s.{0,80}$"
    r"|^.{0,80}\b(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?\W{0,3}$",
    re.I,
)
_DIGITS = re.compile(r"\d+")
_PAGE_WORD = re.compile(r"^(?:page|p\.|seite|página|pagina)\s*", re.I)
_TOC_END = re.compile(r"(?:\.{2,}|\s|\u2026)\s*(?:\d{1,4}|[ivxlc]{1,6})$")
_SPACES = re.compile(r"\s+")
_TERMINAL = re.compile(r"[.!?:;\u3002\uff01\uff1f\u300d\u201d\"')\]]\W{0,2}\d{0,3}$")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W\d_]{2,}")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_NUMBERING = re.compile(
    r"^\s*(?:(?:chapter|section|part|appendix|kapitel|abschnitt)\s+)?"
    r"(?:\d{1,3}(?:\.\d{1,3})*|[ivxlc]{1,6}|[a-z])?[.:)]?\s+", re.I)

Element = Union[Line, Table]


# -- page furniture ---------------------------------------------------------------

def _roman_value(s: str) -> int | None:
    s = s.lower()
    if not s or any(c not in _ROMAN for c in s):
        return None
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = _ROMAN[a]
        total += -v if b != " " and _ROMAN[b] > v else v
    return total if total > 0 else None


def _page_number_value(text: str) -> int | None:
    m = _PAGE_NUMBER.match(text.strip())
    if not m:
        return None
    raw = next(g for g in m.groups() if g)
    if raw.isdigit():
        return int(raw)
    return _roman_value(raw)


def drop_furniture(pages: list[PageData], labels: list[str] | None = None) -> int:
    """Remove running headers, footers, page numbers and margin numbering, in place.

    A line is in a page's margin when it lies in the top or bottom 12% of the page
    or is one of the two top-most or bottom-most lines of a page of six lines or
    more. Dropped are lines that (a) repeat with the same text at the same height
    on at least 40% of the pages (3 or more), (b) sit in the margin and repeat there
    (digits ignored in lines of up to 60 characters) on 3 or more
    pages, (c) sit in the margin and carry a number that runs with the physical page
    number at the same end of 3 or more pages, or of 2 pages in a row (the printed page number,
    alone or beside a running title), or (d) sit in the margin and read as the
    page's label from /PageLabels. A page whose every line would go keeps them (what
    repeats is then the content). Needs 2 pages or more.

    Args:
        pages: the read pages (their `lines` are filtered).
        labels: printed page labels per physical page, when the PDF defines them.

    Returns:
        the number of lines dropped.
    """
    n = len(pages)
    if n < 2:
        return 0
    keyed: dict[tuple[str, int], set[int]] = defaultdict(set)
    zone_keyed: dict[tuple[str, int], set[int]] = defaultdict(set)
    offsets: dict[tuple[int, bool], set[int]] = defaultdict(set)
    facts = []
    for p in pages:
        h = p.frame.height or 1.0
        by_height = sorted(p.lines, key=lambda ln: ln.top)
        edge_ids = {id(ln) for ln in by_height[:2] + by_height[-2:]} if len(by_height) >= 6 else set()
        label = labels[p.index].strip().lower() if labels and p.index < len(labels) else ""
        for ln in p.lines:
            text = ln.text.strip()
            if len(text) > 120:
                continue
            exact = _SPACES.sub(" ", text.lower())
            cy = (ln.top + ln.bottom) / 2
            bucket = int(cy // 4)
            zone = cy < 0.12 * h or cy > 0.88 * h or id(ln) in edge_ids
            value = _page_number_value(text) if zone and len(text) <= 80 else None
            # A page number runs with the page at the same end of every page.
            off = (value - (p.index + 1), cy < h / 2) if value is not None else None
            if off is not None:
                offsets[off].add(p.index)
            keyed[(exact, bucket)].add(p.index)
            norm = _DIGITS.sub("#", exact) if zone and len(exact) <= 60 else exact
            if zone:
                zone_keyed[(norm, bucket)].add(p.index)
            is_label = zone and bool(label) and _PAGE_WORD.sub("", exact).strip(" -\u2013\u2014.") == label
            facts.append((p, ln, exact, norm, bucket, zone, off, is_label))

    def count(table: dict, key: str, bucket: int) -> int:
        pages_seen: set[int] = set()
        for b in (bucket - 1, bucket, bucket + 1):
            pages_seen |= table.get((key, b), set())
        return len(pages_seen)

    repeat_min = max(3, math.ceil(0.4 * n))
    good_offsets = {o for o, idx in offsets.items()
                    if len(idx) >= 3 or any(i + 1 in idx for i in idx)}
    drop: set[int] = set()
    for p, ln, exact, norm, bucket, zone, off, is_label in facts:
        if (n >= 3 and count(keyed, exact, bucket) >= repeat_min) \
                or (zone and n >= 3 and count(zone_keyed, norm, bucket) >= 3) \
                or (off is not None and off in good_offsets) or is_label:
            drop.add(id(ln))
    if not drop:
        return 0
    dropped = 0
    for p in pages:
        keep = [ln for ln in p.lines if id(ln) not in drop]
        if not keep and not p.tables:
            continue  # what repeats is all the page says: it is content, not furniture
        dropped += len(p.lines) - len(keep)
        p.lines = keep
    return dropped


# -- lines of one page --------------------------------------------------------------

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
    figures); other pages keep pdfium's content order, each table placed after the
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
        out = [Placed(ln) for ln in lines]
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


# -- groups: paragraphs, list items, code, heading candidates ------------------------

@dataclass(slots=True)
class Group:
    """Consecutive lines of one page that form one block (or a table).

    Attributes:
        kind: "para", "item" (a list item), "code", "heading" or "table".
        lines: the lines, in reading order (empty for tables).
        table: the table, for kind "table".
        page: 0-based page number.
        level: heading level (1-6) once the group is a heading.
        title: heading text used in the heading path.
    """

    kind: str
    lines: list[Line] = field(default_factory=list)
    table: Table | None = None
    page: int = 0
    level: int = 0
    title: str = ""

    @property
    def size(self) -> float:
        return max(ln.size for ln in self.lines) if self.lines else 0.0

    @property
    def bold(self) -> bool:
        return bool(self.lines) and all(ln.bold for ln in self.lines)

    def plain(self) -> str:
        return " ".join(ln.text.strip() for ln in self.lines)


def is_list_start(text: str) -> bool:
    """Whether a line opens a list item: a bullet glyph, "1." / "a)" / "(iv)", "[12]" or Word's "o"."""
    return bool(_BULLET.match(text))


def group_page(placed: list[Placed], page: int) -> list[Group]:
    """Cut a page's ordered lines into groups at paragraph boundaries.

    A new group starts at a column or band change, a move upwards, a change of font
    size, weight or monospacing, a vertical gap well above the usual line pitch, a
    first-line indent, a list bullet or enumerator, or after a short line that ends a
    sentence. Runs of monospaced lines that look like code (operators, brackets,
    indentation) form code groups; other monospaced text is cut like prose. A
    paragraph cut by a column break or a figure (no sentence end before, lower case
    after) is joined back.

    Args:
        placed: the page's elements in reading order (`reading_order`).
        page: 0-based page number.

    Returns:
        groups of kind "para", "item", "code" or "table" in reading order.
    """
    pitch = _line_pitch([p.item for p in placed if isinstance(p.item, Line)])
    edges = _column_edges(placed)
    groups: list[Group] = []
    for g, members in _cut(placed, page, pitch, edges, code=True):
        if g.kind == "code" and not _code_like(g.lines):
            groups.extend(x for x, _ in _cut(members, page, pitch, edges, code=False))
        else:
            groups.append(g)
    return _rejoin(groups)


def _rejoin(groups: list[Group]) -> list[Group]:
    """Join a paragraph cut by a column break or a figure: no sentence end before, lower case after."""
    out: list[Group] = []
    for g in groups:
        p = out[-1] if out else None
        if (p is not None and p.kind == "para" and g.kind == "para" and abs(p.size - g.size) < 0.5
                and p.bold == g.bold and not p.lines[-1].mono):
            end = p.lines[-1].text.rstrip()
            head = g.lines[0].text.lstrip()
            if end and head and head[0].islower() and not _TERMINAL.search(end[-8:]) and not end.endswith(":"):
                p.lines.extend(g.lines)
                continue
        out.append(g)
    return out


_CODE_MARK = re.compile(r"[=(){}\[\];<>#\\$|]|//|::|->|\b(?:def|class|return|import|void|int|var|let|const)\b")


def _code_like(lines: list[Line]) -> bool:
    """Monospaced lines that read as code: operators and brackets, or varying indentation."""
    hits = sum(len(_CODE_MARK.findall(ln.text)) for ln in lines)
    if hits >= max(2, 0.3 * len(lines)):
        return True
    if len(lines) >= 3:
        size = lines[0].size
        return len({round((ln.x0 - min(x.x0 for x in lines)) / (0.5 * size)) for ln in lines}) >= 3
    return False


def _cut(placed: list[Placed], page: int, pitch: dict[float, float],
         edges: dict[tuple[int, int], tuple[float, float]], code: bool) -> list[tuple[Group, list[Placed]]]:
    out: list[tuple[Group, list[Placed]]] = []
    prev: Placed | None = None
    cur: Group | None = None
    for pl in placed:
        item = pl.item
        if isinstance(item, Table):
            out.append((Group("table", table=item, page=page), [pl]))
            cur = None
            prev = None
            continue
        ln = item
        if cur is not None and prev is not None and not _breaks(prev, pl, cur, pitch, edges, code):
            cur.lines.append(ln)
            out[-1][1].append(pl)
        else:
            kind = "code" if (ln.mono and code) else ("item" if is_list_start(ln.text) else "para")
            cur = Group(kind, [ln], page=page)
            out.append((cur, [pl]))
        prev = pl
    return out


def _line_pitch(lines: list[Line]) -> dict[float, float]:
    """Typical baseline distance per font size (points), from consecutive lines."""
    by_size: dict[float, list[float]] = defaultdict(list)
    for a, b in zip(lines, lines[1:]):
        if abs(a.size - b.size) < 0.5:
            d = b.base - a.base
            if 0.8 * a.size < d < 2.5 * a.size:
                by_size[round(a.size * 2) / 2].append(d)
    return {s: sorted(v)[len(v) // 2] for s, v in by_size.items() if v}


def _column_edges(placed: list[Placed]) -> dict[tuple[int, int], tuple[float, float]]:
    """Left and right text edge of each (band, column), from its lines (points)."""
    xs: dict[tuple[int, int], list[tuple[float, float]]] = defaultdict(list)
    for p in placed:
        if isinstance(p.item, Line):
            xs[(p.band if p.col else -1, p.col)].append((p.item.x0, p.item.x1))
    out = {}
    for k, v in xs.items():
        lefts = sorted(a for a, _ in v)
        rights = sorted(b for _, b in v)
        out[k] = (lefts[len(lefts) // 10], rights[(len(rights) * 9) // 10])
    return out


def _toc_entry(text: str) -> bool:
    """A line that reads like a table-of-contents entry: words, then a page number at the end."""
    return bool(_TOC_END.search(text[-12:])) and _LETTER.search(text) is not None


def _breaks(prev: Placed, cur_pl: Placed, group: Group, pitch: dict[float, float],
            edges: dict[tuple[int, int], tuple[float, float]], code: bool) -> bool:
    p = prev.item
    ln = cur_pl.item
    if prev.col != cur_pl.col or (prev.col and prev.band != cur_pl.band):
        return True
    if ln.vertical or p.vertical:
        return not (ln.vertical and p.vertical and abs(ln.top - p.top) < ln.size)
    size = max(p.size, ln.size)
    if abs(p.size - ln.size) > 0.12 * size or (code and p.mono != ln.mono) or p.bold != ln.bold:
        return True
    if ln.mono and code:  # code: only a large gap or a move up ends it
        d = ln.base - p.base
        return d < 0 or d > 2.2 * size
    if ln.top < p.top - 0.3 * size:
        return True
    if is_list_start(ln.text):
        return True
    if _toc_entry(p.text) and _toc_entry(ln.text):
        return True  # table-of-contents entries: one per line
    d = ln.base - p.base
    normal = pitch.get(round(ln.size * 2) / 2, 1.2 * ln.size)
    if d > max(1.35 * normal, normal + 0.35 * size):
        return True
    key = (cur_pl.band if cur_pl.col else -1, cur_pl.col)
    left, right = edges.get(key, (p.x0, p.x1))
    col_width = max(1.0, right - left)
    centred = (abs((ln.x0 + ln.x1) / 2 - (p.x0 + p.x1) / 2) < 0.04 * col_width
               and (p.x0 > left + size or ln.x0 > left + size))
    if ln.x0 > p.x0 + 0.7 * size and not centred:
        first = group.lines[0]
        if not (group.kind == "item" and abs(ln.x0 - group.lines[-1].x0) < 0.7 * size and len(group.lines) > 1) \
                and not (group.kind == "item" and ln.x0 <= first.x0 + 4 * size):
            return True
    if group.kind == "item" and ln.x0 <= group.lines[0].x0 + 0.3 * size and p.x1 < right - 2.5 * size:
        return True  # back at the bullet's margin after a short line: the item has ended
    if p.x1 < right - 2.5 * size and not centred and (
            _TERMINAL.search(p.text[-8:].rstrip()) or (len(group.lines) == 1 and _NUMBERED_HEADING.match(p.text))):
        return True
    return False


# -- headings ----------------------------------------------------------------------

def body_size(groups: list[Group]) -> float:
    """The body text's font size: the most common size in points, weighted by characters (10 when empty)."""
    c: Counter = Counter()
    for g in groups:
        for ln in g.lines:
            c[round(ln.size * 2) / 2] += len(ln.text)
    return c.most_common(1)[0][0] if c else 10.0


def _heading_like(g: Group, body: float) -> str | None:
    """"size" or "bold" when a group looks like a heading by its font, else None."""
    if g.kind not in ("para", "item") or not g.lines or len(g.lines) > 3:
        return None
    text = g.plain()
    if len(text) > 200 or len(_LETTER.findall(text)) < 2 or text.endswith("-") or g.lines[-1].hyphen:
        return None
    if text.endswith(("\u3002", "\uff0e", "!", "?", "\uff01", "\uff1f", ",", ";", "\uff0c")) \
            or (text.endswith(".") and not text.endswith("..") and len(text.split()) > 3):
        return None  # a sentence, not a title
    if g.kind == "item" and not _NUMBERED_HEADING.match(text):
        return None
    size = g.size
    if size >= 1.15 * body and size - body >= 1.0:
        return "size"
    if g.bold and size >= 0.9 * body and len(g.lines) <= 2 and len(text.split()) <= 15 \
            and not text.rstrip().endswith((".", ",", ";", ":")):
        return "bold"
    return None


def font_headings(groups_by_page: list[list[Group]], body: float) -> None:
    """Mark heading groups by font size and weight relative to the body text, in place.

    Larger sizes rank higher (level 1 = largest); bold body-size headings come one
    level below the smallest size heading. A bold or large group qualifies when it
    has at most three lines, at most 200 characters and is not a sentence fragment.
    Heading lines of the same level that follow each other closely (a title set on
    two lines) become one heading.
    """
    groups = [g for gs in groups_by_page for g in gs]
    kinds = {}
    for i, g in enumerate(groups):
        k = _heading_like(g, body)
        if k == "bold":
            nxt = next((x for x in groups[i + 1:i + 2]), None)
            if nxt is not None and nxt.kind in ("para", "item") and nxt.bold and nxt.size <= g.size:
                k = None  # a run of bold text, not a heading
        if k:
            kinds[id(g)] = k
    sizes = sorted({round(g.size * 2) / 2 for g in groups if kinds.get(id(g)) == "size"}, reverse=True)
    # Merge sizes closer than 0.75 pt so that tiny differences do not make levels.
    levels: dict[float, int] = {}
    lvl = 0
    last = None
    for s in sizes:
        if last is None or last - s >= 0.75:
            lvl += 1
        levels[s] = min(lvl, 6)
        last = s
    bold_level = min(lvl + 1, 6)
    for gs in groups_by_page:
        out: list[Group] = []
        for g in gs:
            k = kinds.get(id(g))
            if k:
                g.kind = "heading"
                g.level = levels.get(round(g.size * 2) / 2, 1) if k == "size" else bold_level
                p = out[-1] if out else None
                if (p is not None and p.kind == "heading" and p.level == g.level and abs(p.size - g.size) < 0.5
                        and len(p.lines) + len(g.lines) <= 3
                        and 0 <= g.lines[0].base - p.lines[-1].base <= 1.6 * g.size):
                    p.lines.extend(g.lines)
                    p.title = p.plain()
                    continue
                g.title = g.plain()
            out.append(g)
        gs[:] = out


def _norm_title(s: str) -> str:
    s = _NUMBERING.sub("", s.strip().lower(), count=1) if _NUMBERING.match(s.strip()) else s.strip().lower()
    return "".join(ch for ch in s if ch.isalnum())


def outline_headings(groups_by_page: list[list[Group]], outline: list[tuple[int, str, int, float | None]],
                     pages: list[PageData], body: float) -> int:
    """Mark the groups that outline (bookmark) entries point at as headings, in place.

    An entry matches a group on its destination page whose first one to three lines
    read as the entry's title (numbering, case and punctuation ignored); among
    several, the one nearest the destination's height wins. Without a text match,
    the first short bold or large group at the destination height is taken (for a
    destination without a height, the first such group of the page).
    The heading path uses the outline's titles (the printed text for matches by
    position only); levels are outline depths + 1.

    Args:
        groups_by_page: groups of each page.
        outline: (depth, title, page index, destination y in user space or None).
        pages: the pages (for their frames).
        body: body font size (points).

    Returns:
        the number of entries matched.
    """
    matched = 0
    for depth, title, pidx, y in outline:
        if not 0 <= pidx < len(groups_by_page):
            continue
        want = _norm_title(title)
        if not want:
            continue
        groups = groups_by_page[pidx]
        frame = pages[pidx].frame
        ty = -y - frame.oy if y is not None and frame.angle == 0 else None
        best = None
        for gi, g in enumerate(groups):
            if g.kind not in ("para", "item", "heading") or not g.lines:
                continue
            if g.kind == "heading" and g.title and g.level:
                continue
            for k in range(1, min(3, len(g.lines)) + 1):
                text = " ".join(ln.text for ln in g.lines[:k])
                got = _norm_title(text)
                if got == want or (len(want) >= 4 and got.endswith(want) and len(got) - len(want) <= 6):
                    dist = abs(g.lines[0].top - ty) if ty is not None else gi
                    if best is None or dist < best[0]:
                        best = (dist, gi, k)
                    break
        if best is None:
            # No text match: the first short bold or large group at or below the
            # destination (the page's top when the destination has no height).
            for gi, g in enumerate(groups):
                if g.kind not in ("para", "item") or not g.lines:
                    continue
                if ty is not None and g.lines[0].bottom < ty - 2:
                    continue
                if len(g.lines) <= 3 and len(g.plain()) <= 150 and (g.bold or g.size >= 1.15 * body):
                    best = (-1.0, gi, len(g.lines))
                    break
                if ty is not None:
                    break
        if best is None:
            continue
        _, gi, k = best
        g = groups[gi]
        if k < len(g.lines):
            rest = Group(g.kind if g.kind != "heading" else "para", g.lines[k:], page=g.page)
            g.lines = g.lines[:k]
            groups.insert(gi + 1, rest)
        g.kind = "heading"
        g.level = min(depth + 1, 6)
        # A text match names the heading by its outline title; a match by position
        # only (the printed words differ) by the printed heading.
        g.title = " ".join(title.split()) if best[0] >= 0 else g.plain()
        matched += 1
    return matched


# -- hyphenation and joining ------------------------------------------------------------

class Joiner:
    """Joins a group's lines into running text: hyphenated words rejoined, CJK without spaces.

    A word broken at a line end by a hyphen is joined without the hyphen unless the
    hyphenated compound appears elsewhere in the document, or the second part starts
    upper-case and the joined word does not appear elsewhere.

    Args:
        texts: every line of the document (to learn its words and compounds).
    """

    def __init__(self, texts: list[str]):
        words: set[str] = set()
        compounds: set[str] = set()
        for t in texts:
            low = t.lower()
            words.update(_WORD.findall(low))
            if "-" in low:
                compounds.update(_COMPOUND.findall(low))
        self.words = words
        self.compounds = compounds

    def join(self, lines: list[Line]) -> str:
        """The lines as one paragraph string: no line breaks, joined by spaces (none between CJK characters,
    after an em dash or slash, or before a combining mark), hyphenated words rejoined."""
        out = ""
        pending_hyphen = False
        for ln in lines:
            t = ln.text.strip()
            if not t:
                continue
            if not out:
                out = t
            elif pending_hyphen:
                out = self.hyphen(out, t)
            elif (is_cjk(out[-1]) and is_cjk(t[0])) or out[-1] in "\u2014/" or unicodedata.category(t[0])[0] == "M":
                out += t
            else:
                out += " " + t
            pending_hyphen = ln.hyphen or (t.endswith("-") and len(t) > 1 and t[-2].isalnum())
            if ln.hyphen:
                out += "-"
        return out

    def hyphen(self, left: str, right: str) -> str:
        """Join `left` (ending in "-") and `right` (the next line) across a line break, by the class rules."""
        m = re.search(r"([^\W\d_]+)-$", left)
        r = re.match(r"[^\W\d_]+", right)
        if not m or not r:
            return left + right
        a, b = m.group(1), r.group(0)
        if f"{a}-{b}".lower() in self.compounds:
            return left + right
        joined = (a + b).lower()
        if joined in self.words or not b[0].isupper():
            return left[:-1] + right
        return left + right


def move_split_words(groups_by_page: list[list[Group]], joiner: Joiner) -> None:
    """A word hyphenated across a page break moves whole to the earlier page, in place.

    Applies when a page's last group is a paragraph or item ending in a hyphen and
    the next page's first group is a paragraph starting lower-case; the joined word
    follows the `Joiner` rules.
    """
    for gp, gn in zip(groups_by_page, groups_by_page[1:]):
        if not gp or not gn:
            continue
        last, first = gp[-1], gn[0]
        if last.kind not in ("para", "item") or first.kind != "para" or not last.lines or not first.lines:
            continue
        a, b = last.lines[-1], first.lines[0]
        left = a.text.rstrip() + ("-" if a.hyphen else "")
        head = b.text.lstrip()
        if not (len(left) > 1 and left.endswith("-") and left[-2].isalpha()) or not head or not head[0].islower():
            continue
        word, _, rest = head.partition(" ")
        a.text = joiner.hyphen(left, word)
        a.hyphen = False
        b.text = rest
        if not rest.strip():
            first.lines.pop(0)
            if not first.lines:
                gn.pop(0)
