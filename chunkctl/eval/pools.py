"""Evaluation pools: the chunks of all corpora for one configuration, as retrievable texts and scored spans; no scoring."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from chunkctl.config import ChunkConfig
from chunkctl.eval.corpora import Corpus


@dataclass(frozen=True)
class Units:
    """Scored units of one configuration over all corpora (parallel arrays, one item per unit).

    Attributes:
        corpus: index into the pool's `corpora`.
        start, end: the body's character span in its corpus's document text.
        n_tokens: tokens of the unit's whole text (prefix + body).
    """

    corpus: np.ndarray
    start: np.ndarray
    end: np.ndarray
    n_tokens: np.ndarray

    def __len__(self) -> int:
        return len(self.start)


@dataclass(frozen=True)
class Pool:
    """What one configuration gives the retriever: the chunks of all corpora.

    Attributes:
        corpora: corpus ids; `Units.corpus` indexes this.
        texts: the text of each retrievable chunk (prefix + body), what is indexed.
        leaves: the retrievable chunks (records no other record names as parent).
        parents: for hierarchical records, the units the leaves expand to (a leaf's
            parent record, or the leaf itself when it has none); None otherwise.
        parent_of: for each leaf, the index of its unit in `parents`.
    """

    corpora: tuple[str, ...]
    texts: tuple[str, ...]
    leaves: Units
    parents: Units | None = None
    parent_of: np.ndarray | None = None


def pool_from_records(records: Mapping[str, Sequence[Mapping[str, Any]]]) -> Pool:
    """Pool the records of every corpus (`corpus id -> records`, in order).

    Each record needs `start`, `end` (body span, characters), `text` and `n_tokens`;
    `id` and `parent_id` are used when present (hierarchical output).
    """
    corpora = tuple(records)
    rows: list[tuple[int, int, int, int]] = []
    texts: list[str] = []
    targets: list[tuple[int, int, int, int]] = []
    has_parents = False
    for ci, recs in enumerate(records.values()):
        by_id = {r["id"]: r for r in recs if "id" in r}
        parent_ids = {r.get("parent_id") for r in recs} - {None}
        for r in recs:
            if r.get("id") in parent_ids:
                continue
            rows.append((ci, r["start"], r["end"], r["n_tokens"]))
            texts.append(r["text"])
            p = by_id.get(r.get("parent_id"))
            has_parents |= p is not None
            p = p or r
            targets.append((ci, p["start"], p["end"], p["n_tokens"]))
    leaves = _units(rows)
    if not has_parents:
        return Pool(corpora, tuple(texts), leaves)
    unique = list(dict.fromkeys(targets))
    where = {t: i for i, t in enumerate(unique)}
    return Pool(corpora, tuple(texts), leaves, _units(unique), np.array([where[t] for t in targets], dtype=np.int64))


def _units(rows: Sequence[tuple[int, int, int, int]]) -> Units:
    arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return Units(arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy(), arr[:, 3].copy())


def chunk_corpora(corpora: Mapping[str, Corpus], config: ChunkConfig) -> dict[str, list[dict[str, Any]]]:
    """Chunk every corpus with `config`; returns `corpus id -> contract records`."""
    from chunkctl.pipeline import chunk_records

    return {cid: chunk_records(c.doc, config) for cid, c in corpora.items()}
