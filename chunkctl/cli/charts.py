"""Compact terminal charts for `chunkctl stats`: the chunk-size histogram against the budget, as block characters; no logic."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.text import Text

from chunkctl.view.svg import FRAGMENT, WALL, SizeSummary, size_bins

_EIGHTHS = " ▁▂▃▄▅▆▇█"


def size_chart(sizes: Sequence[int], budget: int, width: int = 80, rows: int = 5) -> Text:
    """The chunk sizes as a bar chart a few lines high: one bar per token range, the budget marked.

    Bars are counts per equal token range from 0 to the budget (`size_bins`), drawn in
    eighths of a line; ranges past the budget (oversize chunks) are red, and a dashed
    column stands at the budget. Under the chart: the median, the fragments (under
    FRAGMENT of the budget) and the chunks at the wall (WALL of it or more).

    Args:
        sizes: tokens per chunk.
        budget: `meta.chunk_size` in tokens (0: unknown).
        width: columns available (the chart uses at most 32 bars of two columns).
        rows: height of the bars in lines.

    Returns:
        rich Text, several lines.
    """
    n_bins = max(8, min(32, (width - 14) // 2))
    hist = size_bins(sizes, budget, n_bins)
    peak = max((c for *_, c in hist), default=0)
    levels = rows * 8
    heights = [math.ceil(levels * c / peak) if c else 0 for *_, c in hist] if peak else [0] * len(hist)
    wall = next((i for i, (_, hi, _) in enumerate(hist) if budget and hi >= budget), None)
    label_w = len(str(peak))
    out = Text()
    out.append(f"token sizes: {len(sizes)} chunks by tokens per chunk" + (f", budget {budget} (┆)" if budget else "")
               + "\n", style="bold")
    for r in range(rows, 0, -1):
        out.append((f"{peak:>{label_w}} ┤" if r == rows else " " * label_w + " │"), style="dim")
        for i, (lo, _, _) in enumerate(hist):
            fill = heights[i] - (r - 1) * 8
            ch = _EIGHTHS[max(0, min(8, fill))]
            out.append(ch * 2, style="red" if budget and lo >= budget else "cyan")
            if i == wall:
                out.append("┆", style="red")
        out.append("\n")
    cols = len(hist) * 2 + (1 if wall is not None else 0)
    axis = [" "] * (cols + 12)
    top = hist[-1][1] if hist else 0

    def put(col: int, label: str) -> None:
        col = max(0, min(col, len(axis) - len(label)))
        axis[col:col + len(label)] = list(label)

    put(0, "0")
    if budget and wall is not None:
        put(max(2, (wall + 1) * 2 - len(str(budget)) // 2), str(budget))
        if wall >= 8:
            put((wall + 1), str(budget // 2))
    elif top:
        put(cols - len(str(top)), str(top))
    out.append(" " * label_w + " └" + "─" * cols + "\n", style="dim")
    out.append(" " * (label_w + 2) + "".join(axis).rstrip() + "\n", style="dim")
    sm = SizeSummary.of(sizes, budget)
    note = f"median {sm.median}"
    if budget:
        note += (f" · fragments (< {FRAGMENT:.0%}) {sm.fragments} · at the wall (≥ {WALL:.0%}) {sm.at_wall}"
                 + (f" · over {sm.over}" if sm.over else ""))
    out.append(" " * (label_w + 2) + note, style="dim")
    return out
