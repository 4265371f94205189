"""The counts of a run (files by format, chunks, tokens, failures, time, speed) and its one-line summary; no I/O."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chunkctl.pipeline.run import FileResult


@dataclass
class RunSummary:
    """Counts of the results delivered so far (in input order), for the summary.

    Attributes:
        files: documents written (empty ones included).
        by_format: documents written per format.
        chunks, tokens: records written and their total `n_tokens`.
        bytes: input bytes of the documents written.
        failed: inputs that failed (missing, unreadable, undecodable, too slow).
        skipped: inputs skipped (no loader for the extension, over the size limit).
        empty: documents that gave no chunks.
        cached: documents whose records came from the cache.
        incomplete: documents written without some model output (failed model calls).
        llm_plan: with `--llm-dry-run`, [model calls, prompt tokens, cached answers] summed.
        started: `time.perf_counter()` at the start.
    """

    files: int = 0
    by_format: Counter = field(default_factory=Counter)
    chunks: int = 0
    tokens: int = 0
    bytes: int = 0
    failed: int = 0
    skipped: int = 0
    empty: int = 0
    cached: int = 0
    incomplete: int = 0
    llm_plan: list[int] = field(default_factory=lambda: [0, 0, 0])
    started: float = field(default_factory=time.perf_counter)

    def add(self, res: FileResult) -> None:
        """Count one file's result."""
        if res.llm_plan is not None:
            self.llm_plan = [a + b for a, b in zip(self.llm_plan, res.llm_plan)]
        if res.skipped:
            self.skipped += 1
        elif res.error:
            self.failed += 1
        else:
            self.files += 1
            self.by_format[res.format or "?"] += 1
            self.chunks += res.n_chunks
            self.tokens += res.n_tokens
            self.bytes += res.nbytes
            self.empty += res.n_chunks == 0 and not res.llm_plan
            self.cached += res.cached
            self.incomplete += bool(res.model_failures)

    @property
    def seconds(self) -> float:
        """Wall time since the start."""
        return time.perf_counter() - self.started

    @property
    def mb_per_s(self) -> float:
        """Megabytes (10^6 bytes) of documents written per second."""
        s = self.seconds
        return self.bytes / 1e6 / s if s > 0 else 0.0

    def line(self) -> str:
        """The one-line summary printed on stderr when it is not a terminal (scripts may grep it).

        Example: "chunkctl: 2 files (md 1, txt 1), 9 chunks, 1726 tokens, 0 failed, 0 skipped,
        0 empty, 0.31 s, 0.0 MB/s" (", N cached" is added when a cache served files).
        """
        fmts = ", ".join(f"{k} {v}" for k, v in sorted(self.by_format.items()))
        text = (f"chunkctl: {self.files} files ({fmts or 'none'}), {self.chunks} chunks, {self.tokens} tokens, "
                f"{self.failed} failed, {self.skipped} skipped, {self.empty} empty, {self.seconds:.2f} s, "
                f"{self.mb_per_s:.1f} MB/s")
        if self.cached:
            text += f", {self.cached} cached"
        if self.incomplete:
            text += f", {self.incomplete} written without some model output"
        return text
