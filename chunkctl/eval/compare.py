"""Honest comparison of evaluated configurations: paired bootstrap intervals against a baseline and leave-one-corpus-out selection; pure arithmetic on per-question scores.

A mean difference between two chunkings on one question set says little by itself:
both are scored on the same questions, so the comparison is paired (per-question
differences), and its uncertainty comes from which questions were asked. The
interval is the percentile bootstrap over questions (Efron & Tibshirani, "An
Introduction to the Bootstrap", 1993, ch. 13): resample the questions with
replacement, recompute the mean difference, take the 2.5th and 97.5th percentiles.
The same resamples serve every row, so intervals are comparable.

Picking the best of many configurations on the questions that then score it is
optimistic (the winner's curse). Leave-one-corpus-out: for each corpus, choose the
configuration on the other corpora's questions only and score that choice on the
held-out corpus; the question-weighted mean of those held-out scores estimates what
the selection is worth on a corpus nobody tuned on (cross-validation with corpora as
groups; Stone, "Cross-validatory choice and assessment of statistical predictions",
JRSS B 1974).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from chunkctl.errors import ConfigError

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Delta:
    """A paired difference `row − baseline` of one metric (fractions).

    Attributes:
        mean: mean over questions of the per-question difference.
        low, high: the 95% percentile-bootstrap interval of that mean.
    """

    mean: float
    low: float
    high: float

    @property
    def significant(self) -> bool:
        """The interval excludes 0."""
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "low": self.low, "high": self.high}

    def __str__(self) -> str:
        return f"{100 * self.mean:+.1f} [{100 * self.low:+.1f}, {100 * self.high:+.1f}]"


def resamples(n: int, count: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """Bootstrap resamples of `n` questions: an int array of shape (count, n), fixed by `seed`."""
    return np.random.default_rng(seed).integers(0, n, size=(count, n))


def paired_delta(values: np.ndarray, base: np.ndarray, draws: np.ndarray) -> Delta:
    """The mean of `values − base` (per question, same order) and its bootstrap interval over `draws`.

    Raises:
        ConfigError: the arrays differ in length (rows scored on different questions).
    """
    if values.shape != base.shape:
        raise ConfigError("paired comparison needs both rows scored on the same questions")
    diff = np.asarray(values, dtype=float) - np.asarray(base, dtype=float)
    if diff.size == 0:
        return Delta(0.0, 0.0, 0.0)
    boot = diff[draws].mean(axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    return Delta(float(diff.mean()), float(np.percentile(boot, tail)), float(np.percentile(boot, 100 - tail)))


def find_row(rows: Sequence[Any], name: str) -> Any:
    """The row called `name` (a grid entry as written, or `entry → parents`).

    Raises:
        ConfigError: no such row (the known names are listed).
    """
    for r in rows:
        if r.name == name:
            return r
    raise ConfigError(f"--baseline {name!r} is not a grid entry of this run (entries: "
                      f"{', '.join(r.name for r in rows)})")


def _pick(rows: Sequence[Any], mask: np.ndarray, optimize: str, min_recall: float | None) -> Any:
    """The best row on the questions in `mask` (ties: the other metric, then row order); None if none qualifies."""
    other = "recall" if optimize == "iou" else "iou"
    best, key = None, None
    for r in rows:
        rec = float(np.mean(r.per_question["recall"][mask]))
        if min_recall is not None and rec < min_recall:
            continue
        k = (float(np.mean(r.per_question[optimize][mask])), float(np.mean(r.per_question[other][mask])))
        if key is None or k > key:
            best, key = r, k
    return best


@dataclass(frozen=True)
class HeldOut:
    """Leave-one-corpus-out selection.

    Attributes:
        folds: per held-out corpus: (corpus id, questions, the row chosen without it or
            None, that row's mean `optimize` on the held-out corpus, the in-sample best's
            mean there).
        per_question: for every question, the `optimize` value of the row chosen
            without its corpus (NaN where no row met the recall floor).
        recall: the same for recall.
        pick: the row chosen in most folds (ties: higher mean on all questions), None
            when there is a single corpus or no fold chose a row.
        in_sample: the row best on all questions (None when no row meets the floor).
    """

    folds: list[tuple[str, int, Any, float, float]]
    per_question: np.ndarray
    recall: np.ndarray
    pick: Any
    in_sample: Any = None

    @property
    def mean(self) -> float:
        """Question-weighted mean of the held-out scores (the selection's expected worth on a new corpus)."""
        ok = ~np.isnan(self.per_question)
        return float(self.per_question[ok].mean()) if ok.any() else float("nan")


def leave_one_corpus_out(rows: Sequence[Any], optimize: str, min_recall: float | None = None) -> HeldOut:
    """Choose a row without each corpus in turn and score the choice on it (see the module docstring).

    Args:
        rows: evaluated rows, all scored on the same questions (per_question arrays
            aligned with `corpus_ids`).
        optimize: "iou" or "recall".
        min_recall: only rows with at least this mean recall (fraction) on the
            training corpora may be chosen.
    """
    if not rows:
        raise ConfigError("no rows to choose from")
    ids = np.array(rows[0].corpus_ids)
    corpora = list(dict.fromkeys(rows[0].corpus_ids))
    held = np.full(len(ids), np.nan)
    held_recall = np.full(len(ids), np.nan)
    folds = []
    chosen: Counter[int] = Counter()
    everything = np.ones(len(ids), dtype=bool)
    in_sample = _pick(rows, everything, optimize, min_recall)
    for cid in corpora:
        test = ids == cid
        if len(corpora) < 2:
            break
        row = _pick(rows, ~test, optimize, min_recall)
        value = float(np.mean(row.per_question[optimize][test])) if row is not None else float("nan")
        best_here = float(np.mean(in_sample.per_question[optimize][test])) if in_sample is not None else float("nan")
        folds.append((cid, int(test.sum()), row, value, best_here))
        if row is not None:
            held[test] = row.per_question[optimize][test]
            held_recall[test] = row.per_question["recall"][test]
            chosen[next(i for i, r in enumerate(rows) if r is row)] += 1
    pick = None
    if chosen:
        top = max(chosen.values())
        pick = max((rows[i] for i, c in chosen.items() if c == top),
                   key=lambda r: float(np.mean(r.per_question[optimize])))
    return HeldOut(folds, held, held_recall, pick, in_sample)
