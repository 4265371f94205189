"""Plots as inline SVG text (chunk-size histogram, bars per document, metric-against-size lines); every label escaped, no I/O.

The SVG is written here, by hand, so that a page that embeds it stays one
self-contained file with no plotting library and nothing fetched at view time.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d", "#ff9da6",
           "#bab0ac")
"""Series colours (Tableau 10 order), reused in turn when there are more series."""

FRAGMENT = 0.10
"""A chunk under this fraction of the budget counts as a fragment."""
WALL = 0.90
"""A chunk at or over this fraction of the budget stands at the wall."""

_FONT = 'font-family="system-ui, sans-serif" font-size="11"'


def esc(text: object) -> str:
    """`text` escaped for SVG/HTML text and attribute values (& < > " ')."""
    return html.escape(str(text), quote=True)


def ticks(top: float, n: int = 4) -> list[float]:
    """About `n` round tick values from 0 to `top` (1, 2 or 5 times a power of ten apart)."""
    if top <= 0:
        return [0.0]
    raw = top / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    return [i * step for i in range(int(top // step) + 1)]


def _num(x: float) -> str:
    return f"{x:.0f}" if float(x).is_integer() else f"{x:g}"


@dataclass(frozen=True)
class SizeSummary:
    """The shape of a run's chunk sizes against its budget.

    Attributes:
        chunks: number of sizes.
        budget: the token budget (`meta.chunk_size`; 0 when unknown).
        median: median size in tokens (lower middle).
        fragments: chunks under FRAGMENT of the budget.
        at_wall: chunks at WALL of the budget or over it.
        over: chunks over the budget (oversize records).
    """

    chunks: int
    budget: int
    median: int
    fragments: int
    at_wall: int
    over: int

    @classmethod
    def of(cls, sizes: Sequence[int], budget: int) -> SizeSummary:
        """Summarise `sizes` (tokens per chunk) against `budget` (tokens)."""
        s = sorted(sizes)
        median = s[(len(s) - 1) // 2] if s else 0
        if budget <= 0:
            return cls(len(s), 0, median, 0, 0, 0)
        return cls(len(s), budget, median, sum(1 for n in s if n < FRAGMENT * budget),
                   sum(1 for n in s if n >= WALL * budget), sum(1 for n in s if n > budget))

    def line(self) -> str:
        """One line: "34 chunks, median 118 tokens, 3 fragments (< 10% of 256), 5 at the wall (>= 90%)"."""
        parts = [f"{self.chunks} chunks", f"median {self.median} tokens"]
        if self.budget:
            parts.append(f"{self.fragments} under {FRAGMENT:.0%} of the budget {self.budget}")
            parts.append(f"{self.at_wall} at {WALL:.0%} or more")
            if self.over:
                parts.append(f"{self.over} over it")
        return ", ".join(parts)


def size_bins(sizes: Sequence[int], budget: int, bins: int = 32) -> list[tuple[int, int, int]]:
    """Chunk sizes counted in equal token ranges from 0 to the budget (or the largest size when bigger).

    Args:
        sizes: tokens per chunk.
        budget: the token budget (0: unknown; the largest size is used).
        bins: at most this many ranges (fewer when the budget is smaller).

    Returns:
        (low, high, count) per range, `low < n <= high`; the first range also holds 0.
        Past the budget come at most a quarter of `bins` more ranges (at least one), the
        last one holding every larger size up to the largest (an oversize chunk of a
        million tokens is one bar, not a chart as wide as its size).
    """
    top = max(budget, max(sizes, default=0), 1)
    step = max(1, math.ceil(max(budget, 1) / bins)) if budget else max(1, math.ceil(top / bins))
    n = math.ceil(top / step)
    if budget:
        n = min(n, math.ceil(budget / step) + max(1, bins // 4))
    counts = [0] * n
    for x in sizes:
        counts[min(n - 1, max(0, math.ceil(x / step) - 1))] += 1
    return [(i * step, top if i == n - 1 else min(top, (i + 1) * step), c) for i, c in enumerate(counts)]


def histogram(sizes: Sequence[int], budget: int, width: int = 560, height: int = 170, bins: int = 32,
              title: str = "chunk sizes") -> str:
    """An SVG histogram of chunk sizes in tokens with the budget marked.

    Bars are counts per token range (`size_bins`); the budget is a dashed line, ranges
    past it are red; each bar's tooltip gives its range and count. The caption says
    how many chunks are fragments and how many stand at the wall (`SizeSummary`).

    Args:
        sizes: tokens per chunk (`n_tokens`).
        budget: the run's `meta.chunk_size` in tokens (0 when unknown).
        width, height: in CSS pixels.
        bins: at most this many bars.
        title: the accessible name (SVG <title>).

    Returns:
        an `<svg>` element as text.
    """
    left, right, top_m, bottom = 40, 14, 22, 32
    pw, ph = width - left - right, height - top_m - bottom
    hist = size_bins(sizes, budget, bins)
    top = hist[-1][1] if hist else max(budget, 1)
    peak = max((c for _, _, c in hist), default=0) or 1
    yt = ticks(peak, 3)
    ymax = max(peak, yt[-1])

    def x(v: float) -> float:
        return left + pw * v / top

    def y(v: float) -> float:
        return top_m + ph - ph * v / ymax

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" {_FONT}><title>{esc(title)}</title>']
    for v in yt:
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#e5e7eb"/>'
                   f'<text x="{left - 5}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#555">{_num(v)}</text>')
    for lo, hi, c in hist:
        if not c:
            continue
        over = budget and lo >= budget
        x0, x1 = x(lo), x(hi)
        out.append(f'<rect x="{x0 + 0.5:.1f}" y="{y(c):.1f}" width="{max(1.0, x1 - x0 - 1):.1f}" '
                   f'height="{y(0) - y(c):.1f}" fill="{"#dc2626" if over else PALETTE[0]}">'
                   f'<title>{lo + 1 if lo else 0}-{hi} tokens: {c} chunk{"s" if c != 1 else ""}</title></rect>')
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#333"/>')
    for v in ticks(top, 4):
        out.append(f'<text x="{x(v):.1f}" y="{y(0) + 14:.1f}" text-anchor="middle" fill="#555">{_num(v)}</text>')
    out.append(f'<text x="{left + pw}" y="{height - 3}" text-anchor="end" fill="#555">tokens per chunk</text>'
               f'<text x="4" y="12" fill="#555">chunks</text>')
    if budget:
        bx = x(budget)
        out.append(f'<line x1="{bx:.1f}" x2="{bx:.1f}" y1="{top_m - 8}" y2="{y(0):.1f}" stroke="#dc2626" '
                   f'stroke-dasharray="4 3"/><text x="{bx - 4:.1f}" y="{top_m - 10}" text-anchor="end" '
                   f'fill="#dc2626">budget {budget}</text>')
    out.append("</svg>")
    return "".join(out)


def bars(items: Sequence[tuple[str, float]], width: int = 560, most: int = 20, unit: str = "chunks",
         title: str = "chunks per document") -> str:
    """An SVG chart of horizontal bars, largest first, with the labels on the left.

    Args:
        items: (label, value) pairs, e.g. (document source, chunk count).
        width: in CSS pixels; the height follows the number of bars (18 px each).
        most: show at most this many bars; a last line says how many were left out.
        unit: what the values count (tooltips).
        title: the accessible name.

    Returns:
        an `<svg>` element as text.
    """
    ranked = sorted(items, key=lambda kv: (-kv[1], kv[0]))
    shown, rest = ranked[:most], ranked[most:]
    row, label_w, right = 18, 200, 40
    height = row * (len(shown) + (1 if rest else 0)) + 8
    peak = max((v for _, v in shown), default=0) or 1
    pw = width - label_w - right
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" role="img" {_FONT}><title>{esc(title)}</title>']
    for i, (label, v) in enumerate(shown):
        y0 = 4 + i * row
        short = label if len(label) <= 32 else "…" + label[-31:]
        w = pw * v / peak
        out.append(f'<g><title>{esc(label)}: {_num(v)} {esc(unit)}</title>'
                   f'<text x="{label_w - 6}" y="{y0 + 12}" text-anchor="end" fill="#333">{esc(short)}</text>'
                   f'<rect x="{label_w}" y="{y0 + 2}" width="{max(1.0, w):.1f}" height="{row - 5}" '
                   f'fill="{PALETTE[0]}"/><text x="{label_w + w + 4:.1f}" y="{y0 + 12}" fill="#333">{_num(v)}'
                   f'</text></g>')
    if rest:
        out.append(f'<text x="{label_w}" y="{4 + len(shown) * row + 12}" fill="#555">and {len(rest)} more '
                   f'({esc(unit)}: {_num(min(v for _, v in rest))} to {_num(max(v for _, v in rest))})</text>')
    out.append("</svg>")
    return "".join(out)


def lines(series: Mapping[str, Sequence[tuple[float, float, str]]], y_label: str, x_label: str = "chunk size (tokens)",
          width: int = 460, height: int = 260, y_max: float = 100.0, y_min: float = 0.0, title: str = "") -> str:
    """An SVG line plot: one line per series, points in x order, a legend below.

    Args:
        series: name -> (x, y, point label) points; y in the unit of `y_max` (percent by default).
        y_label, x_label: axis names.
        width, height: in CSS pixels (the legend adds rows below).
        y_max, y_min: top and bottom of the y axis.
        title: the accessible name (default: `y_label`).

    Returns:
        an `<svg>` element as text.
    """
    left, right, top_m, bottom = 44, 16, 24, 36
    names = list(series)
    legend_rows = math.ceil(len(names) / 2)
    total_h = height + legend_rows * 16
    pw, ph = width - left - right, height - top_m - bottom
    xs = [p[0] for pts in series.values() for p in pts]
    x_lo, x_hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x_hi == x_lo:
        x_lo, x_hi = x_lo * 0.8, (x_hi * 1.2) or 1.0
    pad = (x_hi - x_lo) * 0.05
    x_lo, x_hi = max(0.0, x_lo - pad), x_hi + pad

    def x(v: float) -> float:
        return left + pw * (v - x_lo) / (x_hi - x_lo)

    def y(v: float) -> float:
        return top_m + ph - ph * (max(y_min, min(v, y_max)) - y_min) / (y_max - y_min)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{width}" height="{total_h}" '
           f'viewBox="0 0 {width} {total_h}" role="img" {_FONT}><title>{esc(title or y_label)}</title>']
    for t in ticks(y_max - y_min, 4):
        v = y_min + t
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#e5e7eb"/>'
                   f'<text x="{left - 5}" y="{y(v) + 4:.1f}" text-anchor="end" fill="#555">{_num(v)}</text>')
    step = ticks(x_hi - x_lo, 5)
    d = step[1] if len(step) > 1 else 1.0
    v = math.ceil(x_lo / d) * d
    while v <= x_hi:
        out.append(f'<text x="{x(v):.1f}" y="{top_m + ph + 14}" text-anchor="middle" fill="#555">{_num(v)}</text>')
        v += d
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(y_min):.1f}" y2="{y(y_min):.1f}" stroke="#333"/>'
               f'<text x="{left + pw}" y="{top_m + ph + 30}" text-anchor="end" fill="#555">{esc(x_label)}</text>'
               f'<text x="4" y="14" fill="#555">{esc(y_label)}</text>')
    for i, name in enumerate(names):
        colour = PALETTE[i % len(PALETTE)]
        pts = sorted(series[name])
        if len(pts) > 1:
            path = " ".join(f"{x(px):.1f},{y(py):.1f}" for px, py, _ in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for px, py, label in pts:
            out.append(f'<circle cx="{x(px):.1f}" cy="{y(py):.1f}" r="3.5" fill="{colour}"><title>{esc(label)}: '
                       f'{py:.1f}</title></circle>')
        lx, ly = left + (i % 2) * (pw / 2), height + (i // 2) * 16 + 4
        out.append(f'<rect x="{lx:.1f}" y="{ly - 9}" width="12" height="4" fill="{colour}"/>'
                   f'<text x="{lx + 16:.1f}" y="{ly - 4}" fill="#333">{esc(name)}</text>')
    out.append("</svg>")
    return "".join(out)
