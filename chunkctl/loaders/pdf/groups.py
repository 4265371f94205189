"""PDF groups: a page's ordered lines cut into paragraphs, list items, code and tables; no PDF parsing, no tokens."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from chunkctl.loaders.pdf.lines import Placed
from chunkctl.loaders.pdf.page import Line
from chunkctl.loaders.pdf.tables import Table

# A list item opens with a bullet glyph or an enumerator ("1.", "a)", "(iv)").
_BULLET = re.compile(
    r"^(?:[\u2022\u25cf\u25cb\u25e6\u25aa\u25ab\u25a0\u25a1\u2023\u2043\u2219\u00b7\u27a2\u2713\u2714\u2756\u2192"
    r"\u25ba\u25b6\u2605\u2606\u2666\u25c6\u25c7\u2013\u2014*\-+]"
    r"|\(?(?:\d{1,2}|[a-z]|[ivx]{1,5})[.)](?=\s)|\[\d{1,3}\](?=\s)|o(?=\s+[A-Z]))\s+\S"
)
NUMBERED_HEADING = re.compile(r"^(?:(?:\d{1,2}(?:\.\d{1,2}){0,4}\.?|[A-Z]\.|[IVX]{1,5}\.)\s+\S"
                               r"|[一二三四五六七八九十]{1,3}[、.．]|第[0-9一二三四五六七八九十百]{1,4}[章节條条部篇])")
# Dot (or middle-dot, underscore, ellipsis) leaders, then a page number at the line end.
LEADER = re.compile(r"\s*(?:(?:[.\u00b7\u2024\u2219]\s?){4,}|\u2026+\s?(?:\u2026\s?)*|(?:_\s?){4,})\s*"
                    r"(?=(?:\d{1,4}|[ivxlcdm]{1,7})\s*$)", re.I)
_TOC_END = re.compile(r"(?:\.{2,}|\s|\u2026)\s*(?:\d{1,4}|[ivxlc]{1,6})$")
_TERMINAL = re.compile(r"[.!?:;\u3002\uff01\uff1f\u300d\u201d\"')\]]\W{0,2}\d{0,3}$")
LETTER = re.compile(r"[^\W\d_]")


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
    return bool(_TOC_END.search(text[-12:])) and LETTER.search(text) is not None


def _breaks(prev: Placed, cur_pl: Placed, group: Group, pitch: dict[float, float],
            edges: dict[tuple[int, int], tuple[float, float]], code: bool) -> bool:
    p = prev.item
    ln = cur_pl.item
    assert isinstance(p, Line) and isinstance(ln, Line)  # _cut passes only placed lines, never tables
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
            _TERMINAL.search(p.text[-8:].rstrip()) or (len(group.lines) == 1 and NUMBERED_HEADING.match(p.text))):
        return True
    return False
