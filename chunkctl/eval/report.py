"""Evaluation scores: one pool retrieved and scored into rows, and the report of a run; no I/O, no terminal output."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from chunkctl.errors import ConfigError
from chunkctl.eval import compare, retrieval
from chunkctl.eval.pools import Units, pool_from_records
from chunkctl.eval.questions import Question
from chunkctl.eval.scoring import precision_omega, score_retrieval

if TYPE_CHECKING:
    from chunkctl.eval.embedder import Embedder

DEFAULT_K = 5
METRICS = ("recall", "precision", "precision_omega", "iou")
OPTIMIZE = ("iou", "recall")


@dataclass
class Row:
    """The scores of one configuration and one kind of scored unit.

    Attributes:
        label: the grid entry (or the caller's label).
        scored: "chunks" (the retrieved chunks) or "parents" (the parent spans the
            retrieved children expand to, deduplicated).
        n_units: units of this kind in the pool.
        unit_tokens: mean tokens of a unit (prefix + body).
        per_question: metric name -> one value per question, in question order:
            `recall`, `precision`, `precision_omega`, `iou` (fractions) and
            `retrieved_units`, `retrieved_tokens`, `retrieved_chars`.
        corpus_ids: the corpus id of each question.
        flags: the `chunkctl chunk` options of the configuration ("" when not from a grid).
    """

    label: str
    scored: str
    n_units: int
    unit_tokens: float
    per_question: dict[str, np.ndarray]
    corpus_ids: list[str]
    flags: str = ""

    def mean(self, metric: str) -> float:
        """Mean of `metric` over the questions."""
        return float(np.mean(self.per_question[metric]))

    def std(self, metric: str) -> float:
        """Population standard deviation of `metric` over the questions (as Chroma's code: numpy's std)."""
        return float(np.std(self.per_question[metric]))

    @property
    def name(self) -> str:
        """The label, with "→ parents" for the parent rows."""
        return self.label if self.scored == "chunks" else f"{self.label} → parents"

    def to_dict(self) -> dict[str, Any]:
        """Every figure of the row (fractions, not percent), JSON-ready."""
        per_corpus = {}
        ids = np.array(self.corpus_ids)
        for cid in dict.fromkeys(self.corpus_ids):
            mask = ids == cid
            per_corpus[cid] = {"n_questions": int(mask.sum())} | {
                m: float(np.mean(self.per_question[m][mask])) for m in METRICS}
        return {
            "config": self.label,
            "scored": self.scored,
            "flags": self.flags,
            "n_units": self.n_units,
            "mean_unit_tokens": self.unit_tokens,
            "retrieved": {m: self.mean(f"retrieved_{m}") for m in ("units", "tokens", "chars")},
            "metrics": {m: {"mean": self.mean(m), "std": self.std(m)} for m in METRICS},
            "per_corpus": per_corpus,
            "per_question": {m: [round(float(x), 6) for x in self.per_question[m]] for m in METRICS},
        }


def evaluate_records(records: Mapping[str, Sequence[Mapping[str, Any]]], questions: Sequence[Question],
                     retriever: str = "bm25", k: int | None = DEFAULT_K, token_budget: int | None = None,
                     label: str = "", flags: str = "", embedder: Embedder | None = None) -> list[Row]:
    """Retrieve and score one chunking given as records (`corpus id -> records`).

    All corpora's chunks form one pool; each question retrieves from all of it. The
    `text` of each chunk is indexed; its body span is scored (`chunkctl.eval.scoring`).

    Args:
        records: the chunks of each corpus, e.g. `chunk_corpora(...)` or any chunker's
            spans as dicts with `start`, `end`, `text`, `n_tokens` (+ `id`, `parent_id`).
        questions: aligned questions (`align`).
        retriever: "bm25", "embedding" or "openai" (with `embedder`).
        k: retrieve this many chunks per question (None: no count limit).
        token_budget: retrieve chunks in rank order while their `n_tokens` sum stays
            within this many tokens; the first chunk that would exceed it ends the list
            (None: no budget). For parent rows the budget applies to the parents' tokens.
        label, flags: copied into the rows.
        embedder: the OpenAI-compatible embedder of retriever "openai".

    Returns:
        one row scoring the retrieved chunks, and for hierarchical records a second
        row scoring the parents they expand to (first occurrence kept, rank order).
    """
    if k is None and token_budget is None:
        raise ConfigError("give k or a token budget, or both")
    pool = pool_from_records(records)
    index = retrieval.build(retriever, pool.texts, embedder)
    n = len(pool.leaves)
    ranked = index.rank([q.text for q in questions], k if k is not None and token_budget is None else n)
    if k is not None:
        ranked = ranked[:, :k]
    rows = [_score(pool.leaves, list(ranked), pool.corpora, questions, token_budget, label, "chunks", flags)]
    if pool.parents is not None and pool.parent_of is not None:
        expanded = [np.array(list(dict.fromkeys(pool.parent_of[r].tolist())), dtype=np.int64) for r in ranked]
        rows.append(_score(pool.parents, expanded, pool.corpora, questions, token_budget, label, "parents", flags))
    return rows


def _within_budget(ranked: np.ndarray, n_tokens: np.ndarray, budget: int | None) -> np.ndarray:
    """The leading units of `ranked` whose tokens sum to at most `budget` (all when None)."""
    if budget is None:
        return ranked
    fits = np.cumsum(n_tokens[ranked]) <= budget
    return ranked[: int(np.argmin(fits)) if not fits.all() else len(ranked)]


def _score(units: Units, ranked: list[np.ndarray], corpora: tuple[str, ...], questions: Sequence[Question],
           budget: int | None, label: str, scored: str, flags: str) -> Row:
    """Score one kind of unit for every question; `ranked[i]` = unit indices retrieved for question i."""
    cid_of = {c: i for i, c in enumerate(corpora)}
    by_corpus = {ci: (units.start[units.corpus == ci], units.end[units.corpus == ci]) for ci in range(len(corpora))}
    values: dict[str, list[float]] = {m: [] for m in (*METRICS, "retrieved_units", "retrieved_tokens",
                                                       "retrieved_chars")}
    for qi, q in enumerate(questions):
        chosen = _within_budget(ranked[qi], units.n_tokens, budget)
        spans = [(corpora[units.corpus[u]], int(units.start[u]), int(units.end[u])) for u in chosen]
        s = score_retrieval(q.excerpts, spans, q.corpus_id)
        starts, ends = by_corpus[cid_of[q.corpus_id]]
        values["recall"].append(s.recall)
        values["precision"].append(s.precision)
        values["iou"].append(s.iou)
        values["precision_omega"].append(precision_omega(q.excerpts, starts, ends))
        values["retrieved_units"].append(len(chosen))
        values["retrieved_tokens"].append(int(units.n_tokens[chosen].sum()))
        values["retrieved_chars"].append(s.retrieved_chars)
    return Row(label, scored, len(units), float(units.n_tokens.mean()) if len(units) else 0.0,
               {m: np.asarray(v, dtype=float) for m, v in values.items()}, [q.corpus_id for q in questions], flags)


@dataclass
class EvalReport:
    """The result of `chunkctl eval`: settings, one or two rows per grid entry, and optionally
    the same entries scored at equal retrieved tokens (`token_rows`)."""

    settings: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    token_rows: list[Row] = field(default_factory=list)

    def best(self, optimize: str = "iou", min_recall: float | None = None) -> Row | None:
        """The row with the highest mean `optimize` ("iou" or "recall") on all questions (in-sample).

        Args:
            optimize: the metric to maximise.
            min_recall: only rows whose mean recall is at least this fraction (None: all).

        Returns:
            the best row (ties: the other metric decides, then grid order), or None when
            no row meets `min_recall`.
        """
        if optimize not in OPTIMIZE:
            raise ConfigError(f"--optimize {optimize!r} is not one of: {', '.join(OPTIMIZE)}")
        other = "recall" if optimize == "iou" else "iou"
        rows = [r for r in self.rows if min_recall is None or r.mean("recall") >= min_recall]
        return max(rows, key=lambda r: (r.mean(optimize), r.mean(other)), default=None)

    def baseline(self, name: str | None = None) -> Row | None:
        """The baseline row: the one called `name`, else the first row (None: no rows).

        Raises:
            ConfigError: `name` is not a row of this report.
        """
        if name is not None:
            return compare.find_row(self.rows, name)
        return self.rows[0] if self.rows else None

    def deltas(self, baseline: Row, rows: Sequence[Row] | None = None) -> list[dict[str, compare.Delta]]:
        """Per row of `rows` (default: `rows`): paired recall and IoU differences to the row of the same
        configuration as `baseline`, with 95% bootstrap intervals over questions."""
        rows = self.rows if rows is None else rows
        base = compare.find_row(rows, baseline.name)
        draws = compare.resamples(len(base.corpus_ids))
        return [{m: compare.paired_delta(r.per_question[m], base.per_question[m], draws) for m in ("recall", "iou")}
                for r in rows]

    def held_out(self, optimize: str = "iou", min_recall: float | None = None) -> compare.HeldOut:
        """Leave-one-corpus-out selection (`compare.leave_one_corpus_out`) over the rows at equal retrieved
        tokens when the run has them (at equal k a smaller chunk raises IoU by itself), else over `rows`."""
        return compare.leave_one_corpus_out(self.token_rows or self.rows, optimize, min_recall)

    def to_dict(self, optimize: str = "iou", min_recall: float | None = None,
                baseline: str | None = None) -> dict[str, Any]:
        """Settings, every row's figures, the baseline comparison, the held-out selection and the best row,
        JSON-ready (metrics as fractions)."""
        best = self.best(optimize, min_recall)
        base = self.baseline(baseline)
        out: dict[str, Any] = {"settings": self.settings, "results": [r.to_dict() for r in self.rows]}
        if base is not None:
            out["baseline"] = base.name
            for r, d in zip(out["results"], self.deltas(base)):
                r["vs_baseline"] = {m: v.to_dict() for m, v in d.items()}
        if self.token_rows:
            out["equal_tokens"] = [r.to_dict() for r in self.token_rows]
            if base is not None:
                for r, d in zip(out["equal_tokens"], self.deltas(base, self.token_rows)):
                    r["vs_baseline"] = {m: v.to_dict() for m, v in d.items()}
        held = self.held_out(optimize, min_recall)
        out["leave_one_corpus_out"] = {
            "optimize": optimize, "min_recall": min_recall,
            "scored_at": "equal_tokens" if self.token_rows else "k",
            "pick": None if held.pick is None else held.pick.name,
            "held_out_mean": None if not held.folds else held.mean,
            "in_sample_best_mean": None if held.in_sample is None else held.in_sample.mean(optimize),
            "folds": [{"corpus": c, "n_questions": n, "chosen": None if r is None else r.name, "held_out": v,
                       "in_sample_best": b} for c, n, r, v, b in held.folds],
        }
        out["best"] = None if best is None else {
            "config": best.label, "scored": best.scored, "optimize": optimize, "min_recall": min_recall,
            "value": best.mean(optimize), "flags": best.flags,
        }
        return out

    def table(self, rows: Sequence[Row] | None = None, baseline: Row | None = None
              ) -> tuple[list[str], list[list[str]]]:
        """Column names and one row of strings per result (metrics in percent, mean ± std; with a
        baseline, the paired differences to it with 95% bootstrap intervals)."""
        rows = self.rows if rows is None else rows
        head = ["configuration", "chunks", "tokens", "retrieved", "recall", "precision", "precision_Ω", "IoU"]
        deltas = self.deltas(baseline, rows) if baseline is not None else None
        if baseline is not None:
            head += [f"Δrecall vs {baseline.name}", "ΔIoU"]
        body = []
        for i, r in enumerate(rows):
            cells = [r.name, str(r.n_units), f"{r.unit_tokens:.0f}",
                     f"{r.mean('retrieved_units'):.1f} / {r.mean('retrieved_tokens'):.0f} tok",
                     *(f"{100 * r.mean(m):.1f} ± {100 * r.std(m):.1f}" for m in METRICS)]
            if baseline is not None and deltas is not None:
                same = r.name == baseline.name
                cells += ["—" if same else str(deltas[i][m]) for m in ("recall", "iou")]
            body.append(cells)
        return head, body
