"""Character-span retrieval metrics of Chroma's chunking evaluation; pure arithmetic, no retrieval and no I/O.

Source of every definition: Smith & Troynikov, "Evaluating Chunking Strategies for
Retrieval", Chroma technical report, July 2024 (https://research.trychroma.com/evaluating-chunking),
section "Metrics", as its code computes them (brandonstarxel/chunking_evaluation,
`evaluation_framework/base_evaluation.py`): on character spans of the corpus file,
not on tokens. For one question, with E the characters of its reference excerpts and
the retrieved chunks C_1..C_k (in rank order):

    recall      = |E ∩ R| / |E|                      R = ∪ C_i of the question's corpus
    precision   = |E ∩ R| / Σ|C_i|                   every retrieved chunk, duplicates and
                                                     chunks of other corpora included
    IoU         = |E ∩ R| / (Σ|C_i| + |E| − |E ∩ R|)
    precision_Ω = |E ∩ U| / |U ∪ E|                  U = ∪ of all chunks of the question's
                                                     corpus that share a character with E

precision_Ω is the precision of a perfect retriever that returns exactly the chunks
holding excerpt text; it depends on the chunking only. A chunk "holds excerpt text"
when it shares at least one character with an excerpt: Chroma's code also counts a
chunk that only touches an excerpt (ends where it starts), which adds nothing to the
numerator; on the Chroma evaluation corpora that changes precision_Ω by 0.03 points (fixed
200-token windows), so the stricter, stated definition is kept here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

Span = tuple[int, int]
"""A half-open character range `[start, end)` of one document's text (Python `str` indices)."""


def merge(spans: Iterable[Span]) -> list[Span]:
    """The union of `spans` as sorted, disjoint, non-empty spans (characters).

    Spans that overlap or touch are joined; empty spans are dropped.
    """
    out: list[Span] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def measure(spans: Sequence[Span]) -> int:
    """Number of characters in disjoint spans (as returned by `merge`)."""
    return sum(end - start for start, end in spans)


def overlap(a: Sequence[Span], b: Sequence[Span]) -> int:
    """Characters in both `a` and `b`, each sorted and disjoint (as returned by `merge`)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return total


@dataclass(frozen=True)
class RetrievalScore:
    """The retrieval metrics of one question (fractions in [0, 1]).

    Attributes:
        recall: |E ∩ R| / |E|.
        precision: |E ∩ R| / Σ|C_i|; 0 when nothing was retrieved.
        iou: |E ∩ R| / (Σ|C_i| + |E| − |E ∩ R|).
        retrieved_chars: Σ|C_i| (characters of every retrieved chunk body).
    """

    recall: float
    precision: float
    iou: float
    retrieved_chars: int


def score_retrieval(excerpts: Sequence[Span], retrieved: Sequence[tuple[str, int, int]], corpus: str
                    ) -> RetrievalScore:
    """Score the chunks retrieved for one question against its reference excerpts.

    Args:
        excerpts: the question's reference excerpts, character spans of its corpus
            (at least one character in all).
        retrieved: the retrieved chunks in rank order as `(corpus_id, start, end)`
            character spans of their body; a chunk of another corpus adds its length to
            Σ|C_i| but never intersects an excerpt, and a chunk retrieved twice counts twice.
        corpus: the question's corpus id.

    Returns:
        recall, precision and IoU (definitions in the module docstring).

    Raises:
        ValueError: the excerpts hold no character.
    """
    e = merge(excerpts)
    e_len = measure(e)
    if e_len == 0:
        raise ValueError("a question needs at least one non-empty excerpt")
    here = merge((s, t) for c, s, t in retrieved if c == corpus)
    hit = overlap(e, here)
    total = sum(t - s for _, s, t in retrieved)
    return RetrievalScore(
        recall=hit / e_len,
        precision=hit / total if total else 0.0,
        iou=hit / (total + e_len - hit),
        retrieved_chars=total,
    )


def precision_omega(excerpts: Sequence[Span], starts: np.ndarray, ends: np.ndarray) -> float:
    """precision_Ω of one question: |E ∩ U| / |U ∪ E| (a fraction in [0, 1]).

    Args:
        excerpts: the question's reference excerpts (character spans).
        starts, ends: character spans of every chunk of the question's corpus in the
            configuration scored (arrays of equal length; overlapping chunks allowed).

    Returns:
        the share of the excerpt-holding chunks' characters, together with any excerpt
        characters no chunk holds, that are excerpt characters.
    """
    e = merge(excerpts)
    if not e:
        raise ValueError("a question needs at least one non-empty excerpt")
    holds = np.zeros(len(starts), dtype=bool)
    for s, t in e:
        holds |= (starts < t) & (ends > s)
    u = merge(zip(starts[holds].tolist(), ends[holds].tolist()))
    inside = overlap(e, u)
    return inside / (measure(u) + measure(e) - inside)
