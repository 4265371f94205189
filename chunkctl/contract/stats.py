"""Statistics of a JSONL stream of chunk records (sizes, formats, kinds, documents) and its contract violations; no rendering."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Any

import orjson

from chunkctl.contract.validate import RecordChecker, Violation
from chunkctl.output.flavours import jsonl_lines, to_records


@dataclass
class ChunkStats:
    """What `chunkctl stats` reports about a JSONL file.

    Attributes:
        records: number of records.
        sizes: `n_tokens` of every record, in file order.
        budget: the largest `meta.chunk_size` seen (0 when none).
        by_format: records per `format`.
        by_kind: records per `kind`.
        chunks_per_doc: records per `source`, in file order.
        doc_format: each document's format.
        oversize: records marked `oversize`.
        violations: contract rules broken (see `chunkctl.contract.validate`).
    """

    records: int = 0
    sizes: list[int] = field(default_factory=list)
    budget: int = 0
    by_format: Counter = field(default_factory=Counter)
    by_kind: Counter = field(default_factory=Counter)
    chunks_per_doc: dict[str, int] = field(default_factory=dict)
    doc_format: dict[str, str] = field(default_factory=dict)
    oversize: int = 0
    violations: list[Violation] = field(default_factory=list)

    @property
    def documents(self) -> int:
        """Number of distinct documents."""
        return len(self.chunks_per_doc)

    @property
    def tokens(self) -> int:
        """Total `n_tokens`."""
        return sum(self.sizes)

    def docs_by_format(self) -> Counter:
        """Documents per format."""
        return Counter(self.doc_format.values())

    def percentile(self, p: float) -> int:
        """The `p`-th percentile (0-100) of chunk sizes in tokens, nearest rank; 0 when empty."""
        if not self.sizes:
            return 0
        s = sorted(self.sizes)
        return s[max(0, min(len(s) - 1, math.ceil(p / 100 * len(s)) - 1))]

    def histogram(self, bins: int = 10) -> list[tuple[int, int, int]]:
        """Chunk sizes in `bins` equal token ranges from 0 to the budget (or the largest size).

        Returns:
            (low, high, count) per range, `low < n_tokens <= high`; the first range
            also holds 0.
        """
        top = max(self.budget, max(self.sizes, default=0), 1)
        step = max(1, math.ceil(top / bins))
        counts = [0] * math.ceil(top / step)
        for n in self.sizes:
            counts[min(len(counts) - 1, max(0, math.ceil(n / step) - 1))] += 1
        return [(i * step, min(top, (i + 1) * step), c) for i, c in enumerate(counts)]


def read_stats(stream: IO[bytes]) -> ChunkStats:
    """Read JSONL records (gzip-compressed or not) and gather their statistics and violations.

    Args:
        stream: a binary stream (a buffered file or stdin's buffer).
    """
    st = ChunkStats()
    checker = RecordChecker()
    for i, line in enumerate(jsonl_lines(stream), 1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            st.violations.append(Violation(i, None, "G1", f"not valid JSON ({exc})"))
            continue
        if isinstance(rec, dict) and ("page_content" in rec or "id_" in rec):
            # `--format langchain` / `llamaindex` output: read it back as the records it came from
            flavour = "langchain" if "page_content" in rec else ("llamaindex" if "id_" in rec else None)
            if flavour is not None:
                try:
                    rec = to_records([rec], flavour)[0]
                except (KeyError, TypeError, ValueError) as exc:
                    st.violations.append(Violation(i, None, "G1", f"{flavour} object without its chunkctl "
                                                                  f"metadata ({exc.__class__.__name__})"))
                    continue
        st.violations.extend(checker.check(rec, i))
        if not isinstance(rec, dict):
            continue
        st.records += 1
        n = rec.get("n_tokens")
        if isinstance(n, int):
            st.sizes.append(n)
        raw_meta = rec.get("meta")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        if isinstance(meta.get("chunk_size"), int):
            st.budget = max(st.budget, meta["chunk_size"])
        st.by_format[str(rec.get("format"))] += 1
        st.by_kind[str(rec.get("kind"))] += 1
        src = str(rec.get("source"))
        st.chunks_per_doc[src] = st.chunks_per_doc.get(src, 0) + 1
        st.doc_format.setdefault(src, str(rec.get("format")))
        st.oversize += bool(rec.get("oversize"))
    st.violations.extend(checker.finish())
    return st
