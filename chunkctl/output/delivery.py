"""Delivery: the `-o` output for a path (JSONL or Parquet), and a run's results, in order, into their outputs (records,
errors file, counts); no chunking, no terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from chunkctl.errors import OutputError
from chunkctl.output.flavours import flavoured_blocks
from chunkctl.output.parquet import ParquetOutput, is_parquet
from chunkctl.output.writer import ErrorLog, Output, OutputDir
from chunkctl.spill import discard


class _Counts(Protocol):
    def add(self, res: Any) -> None: ...


Say = Callable[[str, str], None]
"""`say(kind, line)`: kind is "warning" or "error"; the line names the file."""


def open_output(path: str | None, flavour: str = "chunkctl") -> Output:
    """The `-o` output for `path`: Parquet for a name ending in `.parquet`, else JSONL (`Output`).

    Args:
        path: the `-o` value (None or "-": standard output).
        flavour: the record flavour of the run; Parquet holds the contract records only.

    Raises:
        OutputError: Parquet with another flavour than "chunkctl", or the file cannot be
            opened (see `Output`).
        MissingExtraError: Parquet without pyarrow installed.
    """
    if not is_parquet(path):
        return Output(path)
    if flavour != "chunkctl":
        raise OutputError(f"-o {path}: Parquet output holds the chunkctl records; --flavour {flavour} is for JSONL "
                          "(flat metadata)")
    assert path is not None
    return ParquetOutput(path)


def deliver(results: Iterable[Any], sink: Output | OutputDir, errlog: ErrorLog, flavour: str, counts: _Counts, *,
            fail_fast: bool = False, say: Say | None = None) -> bool:
    """Write each result's records to `sink` and its failures to `errlog`, in input order.

    Results are `chunkctl.pipeline.FileResult`s (any object with the same fields).
    A failed file goes to `errlog` (one record) and `say("error", ...)`; model calls
    that failed without failing the file too ("LLMFailure"), while its records are
    still written; warnings go to `say("warning", ...)`. A dry-run result
    (`llm_plan`) writes nothing. Nothing is committed here: the caller commits or
    aborts `sink` and `errlog`.

    Args:
        results: the run's results, in input order.
        sink: a JSONL file (`Output`) or one file per document (`OutputDir`).
        errlog: the `--errors` file (may have no path: then it only counts).
        flavour: the record flavour to write (`chunkctl.output.flavours.FLAVOURS`).
        counts: gets `add(result)` for every result (e.g. `RunSummary`).
        fail_fast: stop at the first failure.
        say: where warning and error lines go. Defaults to nowhere.

    Returns:
        True when `fail_fast` stopped the run (the caller should abort `sink`).
    """
    say = say or (lambda kind, line: None)
    for res in results:
        for w in res.warnings:
            say("warning", w)
        counts.add(res)
        if res.llm_plan is not None:
            continue
        for failure in res.model_failures:  # model calls that failed: records written without them
            say("error", failure)
            errlog.add(res.source, "LLMFailure", failure)
        for lost in res.lost:  # parts of the file that could not be read: records written without them
            say("error", lost)
            errlog.add(res.source, "Incomplete", lost)
        if (res.model_failures or res.lost) and fail_fast:
            return True
        if res.error:
            # a document that failed keeps the file an earlier run wrote for it: say so (helper-117:
            # a rerun at another --chunk-size left that file at the old one without a word)
            kept = sink.earlier(res.source) if isinstance(sink, OutputDir) else None
            say("error", res.error + (f"; {kept}, written by an earlier run, is left as it was"
                                      if kept else ""))
            errlog.add(res.source, res.error_type, res.error)
            if fail_fast:
                return True
        elif not res.skipped:
            try:
                blocks = _read_back(res, flavour)
                if isinstance(sink, OutputDir):
                    sink.write_document(res.source, blocks)
                else:
                    for block in blocks:
                        sink.write(block)
            finally:
                discard(res.lines)
    return False


def _read_back(res: Any, flavour: str) -> Iterator[bytes]:
    """`flavoured_blocks` of a result's lines; a spill file that cannot be read is an OutputError."""
    try:
        yield from flavoured_blocks(res.lines, flavour)
    except OSError as exc:  # a spill file of the run went missing (see chunkctl.spill)
        raise OutputError(f"{res.source}: cannot read its records back from the temporary folder "
                          f"({exc.strerror or exc})") from None
