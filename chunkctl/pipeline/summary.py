"""The counts of a run (files by format, chunks, tokens, failures by reason, skips by extension, time, speed), its one-line summary and its JSON form; no I/O."""

from __future__ import annotations

import posixpath
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chunkctl.pipeline.run import FileResult

SUMMARY_VERSION = 1
"""Version of the shape of `RunSummary.to_dict` (`--summary-json`); a key may be added without a new version."""
SKIP_TOO_LARGE = "over --max-file-size"
SKIP_LINK_OUT = "link out of the folder"
SKIP_NO_LOADER = "no loader for the extension"


def extension(source: str) -> str:
    """The extension of a source for the skip counts: lower case with its dot (".rst"), or "(none)"."""
    ext = posixpath.splitext(posixpath.basename(source))[1].lower()
    return ext if ext and ext != "." else "(none)"


@dataclass
class RunSummary:
    """Counts of the results delivered so far (in input order), for the summary.

    Attributes:
        files: documents written (empty ones included).
        by_format: documents written per format.
        chunks, tokens: records written and their total `n_tokens`.
        bytes: input bytes of the documents written.
        failed: inputs that failed (missing, unreadable, undecodable, too slow).
        failures: `failed` by reason: the `error_type` of each ("LoaderError",
            "Timeout", "NotFound", "OutsideSourceRoot", ...).
        skipped: inputs skipped (no loader for the extension, over the size limit,
            symbolic links that lead out of a folder).
        skipped_by_extension: the files skipped because no loader reads their
            extension, by extension (".rst": 12; "(none)" for a name without one).
        skipped_by_reason: `skipped` by reason (SKIP_NO_LOADER, SKIP_TOO_LARGE, SKIP_LINK_OUT).
        empty: documents that gave no chunks.
        cached: documents whose records came from the cache.
        incomplete: documents written without some of their content: failed model calls, or
            parts of the file that could not be read (a damaged PDF's pages).
        llm_plan: with `--llm-dry-run`, [model calls, prompt tokens, cached answers] summed.
        started: `time.perf_counter()` at the start.
    """

    files: int = 0
    by_format: Counter = field(default_factory=Counter)
    chunks: int = 0
    tokens: int = 0
    bytes: int = 0
    failed: int = 0
    failures: Counter = field(default_factory=Counter)
    skipped: int = 0
    skipped_by_extension: Counter = field(default_factory=Counter)
    skipped_by_reason: Counter = field(default_factory=Counter)
    empty: int = 0
    cached: int = 0
    incomplete: int = 0
    unread: int = 0  # of them, documents written without parts that could not be read
    unanswered: int = 0  # and documents written without some model output (a document may be both)
    llm_plan: list[int] = field(default_factory=lambda: [0, 0, 0])
    started: float = field(default_factory=time.perf_counter)

    def add(self, res: FileResult) -> None:
        """Count one file's result."""
        if res.llm_plan is not None:
            self.llm_plan = [a + b for a, b in zip(self.llm_plan, res.llm_plan)]
        if res.skipped:
            if res.format is None:
                self.skip(SKIP_NO_LOADER, res.source)
            else:
                self.skip(SKIP_TOO_LARGE)
        elif res.error:
            self.fail(res.error_type)
        else:
            self.files += 1
            self.by_format[res.format or "?"] += 1
            self.chunks += res.n_chunks
            self.tokens += res.n_tokens
            self.bytes += res.nbytes
            self.empty += res.n_chunks == 0 and not res.llm_plan
            self.cached += res.cached
            self.incomplete += bool(res.model_failures or res.lost)
            self.unread += bool(res.lost)
            self.unanswered += bool(res.model_failures)

    def fail(self, error_type: str | None) -> None:
        """Count one failed input (a result or an input problem) under its `error_type`."""
        self.failed += 1
        self.failures[error_type or "internal"] += 1

    def skip(self, reason: str, source: str | None = None) -> None:
        """Count one skipped input: `reason` is SKIP_NO_LOADER (give `source`: its extension is counted),
        SKIP_TOO_LARGE or SKIP_LINK_OUT."""
        self.skipped += 1
        self.skipped_by_reason[reason] += 1
        if reason == SKIP_NO_LOADER and source is not None:
            self.skipped_by_extension[extension(source)] += 1

    @property
    def seconds(self) -> float:
        """Wall time since the start."""
        return time.perf_counter() - self.started

    @property
    def mb_per_s(self) -> float:
        """Megabytes (10^6 bytes) of documents written per second."""
        s = self.seconds
        return self.bytes / 1e6 / s if s > 0 else 0.0

    def skipped_detail(self) -> str:
        """What was skipped, most first: "12 .rst, 3 .docx, 1 over --max-file-size" ("" when nothing was)."""
        parts = [f"{n} {ext}" for ext, n in sorted(self.skipped_by_extension.items(), key=lambda kv: (-kv[1], kv[0]))]
        parts += [f"{n} {why}" for why, n in sorted(self.skipped_by_reason.items(), key=lambda kv: (-kv[1], kv[0]))
                  if why != SKIP_NO_LOADER]
        return ", ".join(parts)

    def line(self) -> str:
        """The one-line summary printed on stderr when it is not a terminal (scripts may grep it).

        Example: "chunkctl: 2 files (md 1, txt 1), 9 chunks, 1726 tokens, 0 failed, 3 skipped
        (2 .rst, 1 .docx), 0 empty, 0.31 s, 0.0 MB/s" (", N cached" is added when a cache
        served files).
        """
        fmts = ", ".join(f"{k} {v}" for k, v in sorted(self.by_format.items()))
        detail = self.skipped_detail()
        skipped = f"{self.skipped} skipped" + (f" ({detail})" if detail else "")
        text = (f"chunkctl: {self.files} files ({fmts or 'none'}), {self.chunks} chunks, {self.tokens} tokens, "
                f"{self.failed} failed, {skipped}, {self.empty} empty, {self.seconds:.2f} s, "
                f"{self.mb_per_s:.1f} MB/s")
        if self.cached:
            text += f", {self.cached} cached"
        if self.unanswered:
            text += f", {self.unanswered} written without some model output"
        if self.unread:
            text += f", {self.unread} written without parts that could not be read"
        return text

    def to_dict(self, status: str, exit_code: int, error: str | None = None) -> dict[str, Any]:
        """The summary as a JSON-ready dict (`--summary-json`); keys in a fixed order.

        Args:
            status: how the run ended: "ok" (every file chunked), "failed" (some files
                failed, or model calls did), "nothing-selected", "stopped" (--fail-fast)
                or "interrupted" (a stop signal).
            exit_code: the command's exit code.
            error: the line that said what ended or failed the run besides its files'
                results (the output could not be written, a stop signal...), or None. The
                counts are of the files read: with an output that could not be written,
                none of their records landed (helper-114: "failed": 0 beside exit 1).

        Returns:
            {"summary_version", "status", "exit_code", "files", "files_by_format",
            "chunks", "tokens", "bytes", "failed", "failures_by_reason", "skipped",
            "skipped_by_extension", "skipped_by_reason", "empty", "cached",
            "incomplete", "seconds", "error"}: counts are integers, maps sorted by key,
            `seconds` the wall time (float, rounded to milliseconds), `error` a string or None.
        """
        return {
            "summary_version": SUMMARY_VERSION, "status": status, "exit_code": exit_code,
            "files": self.files, "files_by_format": dict(sorted(self.by_format.items())),
            "chunks": self.chunks, "tokens": self.tokens, "bytes": self.bytes,
            "failed": self.failed, "failures_by_reason": dict(sorted(self.failures.items())),
            "skipped": self.skipped, "skipped_by_extension": dict(sorted(self.skipped_by_extension.items())),
            "skipped_by_reason": dict(sorted(self.skipped_by_reason.items())),
            "empty": self.empty, "cached": self.cached, "incomplete": self.incomplete,
            "seconds": round(self.seconds, 3), "error": error,
        }
