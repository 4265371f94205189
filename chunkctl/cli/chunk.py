"""`chunkctl chunk`: options -> inputs -> pipeline.run -> output.deliver -> outputs committed or aborted, with exit codes."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from typing import Annotated, Any, Optional

import typer

from chunkctl.allocator import return_freed_memory
from chunkctl.cli.console import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Console,
    Terminated,
    catch_stop_signals,
    defer_stop_signals,
    deferred_stop_signal,
    drop_stdout,
    end_stop_signals,
    one_line,
    print_line,
    stop_reported,
    stop_signals_held,
    usage_error,
    warn_selection,
)
from chunkctl.cli.options import (
    CHUNK_OPTIONS,
    CONFIG_OPTIONS,
    LLM_OPTIONS,
    RUN_OPTIONS,
    STDIN_FORMAT_HELP,
    chunk_config,
    effective,
    levels_warnings,
    naming_origin,
    ready,
    run_options,
    with_options,
)
from chunkctl.errors import ChunkctlError, ConfigError, OutputError
from chunkctl.pipeline.inputs import source_name
from chunkctl.pipeline.summary import SKIP_LINK_OUT, SKIP_NO_LOADER, SKIP_TOO_LARGE, RunSummary


def _gather(paths: list[str], from_list: Optional[str], stdin_format: Optional[str], stdin_name: Optional[str],
            values: dict[str, Any], con: Console, origins: dict[str, str] | None = None) -> Any:
    """The run's inputs (pipeline.gather) from the command line's paths and list; usage errors exit 2."""
    from chunkctl import pipeline

    if paths.count("-") > 1:
        raise usage_error("standard input can be read once: give '-' once")
    if "-" in paths and from_list == "-":
        raise usage_error("standard input can be read once: give '-' or '--from-list -', not both")
    if from_list is not None:
        try:
            if from_list == "-":
                paths += pipeline.read_list(sys.stdin)
            else:
                # (lines end at "\n" only: a name may hold a carriage return; CRLF lists lose theirs to strip)
                with open(from_list, encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
                    paths += pipeline.read_list(fh)
        except OSError as exc:
            raise usage_error(f"--from-list {from_list}: cannot read it ({exc.strerror or exc})") from None
    if not paths and from_list is None:
        raise usage_error("give files or folders to chunk, '-' for standard input, or --from-list FILE")
    for flag, given in (("--stdin-format", stdin_format), ("--stdin-name", stdin_name)):
        if given is not None and "-" not in paths:  # (helper-102: ignored without a word)
            print_line("warning", f"{flag} has no effect: no '-' among the inputs (standard input is not read)")
    try:
        found = pipeline.gather(paths, read_stdin=sys.stdin.buffer.read, stdin_format=stdin_format,
                                stdin_name=stdin_name, include=values["include"] or (),
                                exclude=values["exclude"] or (), hidden=values["hidden"],
                                follow_links=values["follow_links"], source_root=values["source_root"])
    except ConfigError as exc:
        raise usage_error(naming_origin(str(exc), origins)) from None
    warn_selection(con, found)
    return found


def chunk(
    ctx: typer.Context,
    paths: Annotated[Optional[list[str]], typer.Argument(
        help="Files and folders to chunk (folders recursively, in sorted order); '-' reads one document from "
             "standard input.", show_default=False)] = None,
    output: Annotated[Optional[str], typer.Option("-o", "--output", help="Write JSONL here, atomically; '-' or "
                                                  "nothing: stdout. A name ending in .gz is gzip-compressed; "
                                                  "one ending in .parquet is Parquet.")] = None,
    output_dir: Annotated[Optional[str], typer.Option("--output-dir", help="Write one JSONL file per document "
                                                      "under this folder, mirroring the input tree.")] = None,
    errors: Annotated[Optional[str], typer.Option("--errors", help="Write one JSON record per failed file here "
                                                  "(source, error_type, message).")] = None,
    fail_fast: Annotated[bool, typer.Option("--fail-fast", help="Stop at the first failure (exit 1); no output "
                                            "file is written.")] = False,
    from_list: Annotated[Optional[str], typer.Option("--from-list", help="Also read paths from this file, one per "
                                                     "line ('-': standard input).")] = None,
    stdin_format: Annotated[Optional[str], typer.Option("--stdin-format", help=STDIN_FORMAT_HELP)] = None,
    stdin_name: Annotated[Optional[str], typer.Option("--stdin-name", help="The records' source for the document "
                                                      "read from '-' (default '-').")] = None,
    allow_empty: Annotated[bool, typer.Option("--allow-empty", help="When no file is selected, write an empty "
                                              "output and exit 0; when every file fails, write an empty output "
                                              "(exit 1). Default: keep the old output, exit 1.")] = False,
    prune: Annotated[bool, typer.Option("--prune", help="--output-dir: also delete the .jsonl files of documents "
                                        "that are no longer among the inputs.")] = False,
    summary_json: Annotated[Optional[str], typer.Option("--summary-json", help="Also write the run's summary here "
                                                        "as JSON, atomically, however the run ends (failed files, "
                                                        "Ctrl-C); for CI jobs.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List the files the run would take, with their "
                                          "format, and those it would skip and why, on stdout; chunk and write "
                                          "nothing.")] = False,
    opts: Any = None,
) -> None:
    """Chunk files and folders into JSONL records (one per chunk).

    Examples:

    \b
      chunkctl chunk ./docs -o chunks.jsonl
      chunkctl chunk ./docs --chunk-size 256 --overlap 32 --jobs 4 --cache .chunk-cache -o chunks.jsonl.gz
      git ls-files '*.md' | chunkctl chunk --from-list - --flavour langchain > docs.jsonl
      curl -s https://example.com/page.html | chunkctl chunk - --stdin-format html --stdin-name page.html
      chunkctl chunk ./docs --output-dir chunks/ --errors failed.jsonl || echo "some files failed"

    Exit codes: 0 all files chunked; 1 some failed (each named on stderr; the rest
    fully written) or no file was selected; 2 bad usage; 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP
    (the last line says what was written: nothing, unless the signal came while the
    finished output was being moved into place).
    """
    from chunkctl import pipeline
    from chunkctl.loaders import format_for
    from chunkctl.output.checks import check_not_read_back, check_output_flags, check_outputs, check_writable
    from chunkctl.output.delivery import deliver, open_output
    from chunkctl.output.writer import ErrorLog, OutputDir, mirror_path
    from chunkctl.pipeline.cache import RecordCache

    values, origins = effective(opts)
    con = Console(values["quiet"])
    config = chunk_config(values, origins)
    run = run_options(values, origins)
    report = SummaryReport(None if dry_run or config.extras.get("llm_dry_run") else summary_json)
    try:
        check_output_flags(output, output_dir, errors)  # before standard input is read
        report.check_flag()
    except ConfigError as exc:
        raise usage_error(str(exc)) from None
    found = _gather(list(paths or []), from_list, stdin_format, stdin_name, values, con, origins)
    inputs = found.inputs
    try:
        check_outputs(output, output_dir, errors, inputs)
        check_writable(output, output_dir, errors)
        if prune and not output_dir:
            raise ConfigError("--prune needs --output-dir")
        report.check(inputs, output, errors)
        check_not_read_back([("-o", output), ("--errors", errors), ("--summary-json", summary_json)], found.folders,
                            bool(values["hidden"]), lambda path: format_for(path) is not None)
        cache = RecordCache(values["cache"], warn=con.warn) if values["cache"] and not dry_run else None
    except ConfigError as exc:
        raise usage_error(naming_origin(str(exc), origins)) from None
    for line in levels_warnings(values, origins, config):  # (after the usage checks: a usage error is one line)
        con.warn(line)
    if dry_run:
        _dry_run(found, run.max_file_size, allow_empty, con)
    summary = report.summary = RunSummary()
    for _ in found.outside:
        summary.skip(SKIP_LINK_OUT)
    errlog = ErrorLog(errors)
    limit = run.max_file_size
    if not any(i.format and (limit is None or i.size <= limit) for i in inputs) and not allow_empty:
        _nothing_selected(found, output, output_dir, errlog, con, report, summary, limit)
    known = pipeline.plan(inputs, config, run.max_file_size, cache)
    if any(r is None for r in known):
        ready(config, origins)  # after the cache: a run that needs no tokenizer does not load one
    for p in found.problems:
        con.error(str(p))
        errlog.add(p.source, p.error_type, p.reason)
        summary.fail(p.error_type)
    if found.problems and fail_fast:
        _commit_errors(errlog, con)
        raise report.exit(EXIT_FAILED, "stopped", error=f"stopped at the first failure (--fail-fast): {found.problems[0]}")
    catch_stop_signals(True)
    show = con.tty and not values["quiet"]
    # No live display when the records go to the terminal or down a pipe: its frames would
    # be mixed into them, or into what the reader of the pipe (`| jq`) prints there.
    live_display = show and bool(output_dir or output not in (None, "-") or not _stdout_is_shared())
    sink: Any = None
    said: str | None = None  # what ended the run besides its files' results (`--summary-json`'s "error")
    try:
        try:
            # --prune removes files of documents that no longer exist: a file --include/--exclude left out or
            # a link not followed this time still exists, and keeps its file (as a file over --max-file-size does)
            keep = {mirror_path(s) for s in [i.source for i in inputs] + [p.source for p in found.problems]
                    + [s for s, _why in found.left_out] + list(found.outside)}
            with stop_signals_held():  # a signal meanwhile comes once `sink` can remove its temporary file
                sink = OutputDir(output_dir, keep if prune else None) if output_dir else open_output(
                    output, values["flavour"])
        except OutputError as exc:
            raise usage_error(str(exc)) from None
        progress: Any = contextlib.nullcontext()
        if live_display:
            from chunkctl.cli.render import RunProgress

            skips = [i.size for i in inputs if pipeline.is_skipped(i, run.max_file_size)]
            progress = RunProgress(con.rich, len(inputs), sum(i.size for i in inputs), skipped=len(skips),
                                   skipped_bytes=sum(skips))
        return_freed_memory()  # this process's allocator (see chunkctl.allocator)
        results = pipeline.run(inputs, config, run.workers, run.max_file_size, run.file_timeout, cache, known,
                               run.engine, run.scheduler, progress=progress.done if live_display else None, spill=True)
        with progress as live, contextlib.closing(results):
            con.live = live
            stopped = deliver(results, sink, errlog, values["flavour"], summary, fail_fast=fail_fast, say=con.say)
            con.live = None
        # From here the outputs land whole: a stop signal is noted, acted on at the end.
        defer_stop_signals()
        if stopped:
            sink.abort()
            said = f"stopped at the first failure (--fail-fast); {sink.state()}"
            con.error(said)
        elif config.extras.get("llm_dry_run"):
            sink.abort()
        elif summary.failed and not summary.files and output not in (None, "-") and not output_dir \
                and not allow_empty:
            sink.abort()  # no document made it: an empty file would replace a good output for nothing
            said = f"every file failed; {sink.state()} (--allow-empty writes an empty one)"
            con.error(said)
        else:
            sink.commit()
            for rel in getattr(sink, "pruned", ()):
                con.warn(f"--prune: removed {os.path.join(output_dir or '', rel)} (no such input any more)")
        said = _commit_errors(errlog, con) or said
    except KeyboardInterrupt as exc:
        con.live = None
        if sink is not None:
            sink.abort()
        said = f"interrupted; {sink.state() if sink is not None else 'no output file was written or replaced'}"
        con.error(said)
        stop_reported()
        catch_stop_signals(False)
        raise report.exit(128 + exc.signum if isinstance(exc, Terminated) else EXIT_INTERRUPTED, error=said) from None
    except OutputError as exc:  # a full disk, a device that refuses writes: what was written is dropped
        con.live = None
        if sink is not None:
            sink.abort()
        said = f"{exc}; {sink.state() if sink is not None else 'no output file was written or replaced'}"
        con.error(said)
        catch_stop_signals(False)
        raise report.exit(EXIT_FAILED, error=said) from None
    except ConfigError as exc:  # the engine found bad usage late (a Dask scheduler with no worker, an LLM option)
        con.live = None
        if sink is not None:
            sink.abort()
        said = (f"{naming_origin(str(exc), origins)}; "
                f"{sink.state() if sink is not None else 'no output file was written or replaced'}")
        con.error(said)
        catch_stop_signals(False)
        raise report.exit(EXIT_USAGE, error=said) from None
    except ChunkctlError as exc:  # the engine stopped the run (a cluster without workers, workers blind to the files)
        con.live = None
        if sink is not None:
            sink.abort()
        _commit_errors(errlog, con)
        said = f"{exc}; {sink.state() if sink is not None else 'no output file was written or replaced'}"
        con.error(said)
        catch_stop_signals(False)
        raise report.exit(EXIT_FAILED, error=said) from None
    except BrokenPipeError:
        # The reader of standard output went away before every record was written (`| head`, or an
        # embedding step that crashed): the records are not all delivered, so the run failed and
        # says so (helper-114: exit 0, a summary saying "ok" and no --errors file, which hid a
        # crashed reader from a CI job with `set -o pipefail`).
        sink.abort()
        drop_stdout()
        _commit_errors(errlog, con)
        said = "standard output was closed by its reader before every record was written; the run stopped"
        con.error(said)
        catch_stop_signals(False)
        raise report.exit(EXIT_FAILED, "stopped", error=said) from None
    except BaseException:
        if sink is not None:
            sink.abort()
        catch_stop_signals(False)
        raise
    _closing_lines(summary, config, con, show, values["quiet"])
    signum = deferred_stop_signal()
    end_stop_signals()
    if signum is not None:
        said = f"signal {signum} came while the run was being finished; it was finished: {sink.state()}"
        con.error(said)
        raise report.exit(128 + signum, "failed" if summary.failed or summary.incomplete else "ok", error=said)
    raise report.exit(EXIT_FAILED if summary.failed or summary.incomplete or said else EXIT_OK,
                      "stopped" if stopped else None, error=said)


def _nothing_selected(found: Any, output: str | None, output_dir: str | None, errlog: Any, con: Console,
                      report: SummaryReport, summary: RunSummary, limit: int | None = None) -> None:
    """End a run that selected no file to chunk (none has a loader, or each is over `limit` bytes):
    the old output stays, the exit code is 1 (see --allow-empty)."""
    n = len(found.inputs)
    large = [i for i in found.inputs if i.format and limit is not None and i.size > limit]
    reasons = [f"{len(large)} over --max-file-size {limit}"] if large else []
    if len(large) < n:
        reasons.append("no loader for their extensions" if not large else
                       f"{n - len(large)} with no loader for their extensions")
    why = f"no file to chunk among {n} selected ({', '.join(reasons)})" if n else "no input files selected"
    for item in found.inputs:  # none has a loader, or each is too large
        if item.format:
            con.warn(f"{item.source}: skipped, {item.size} bytes is over --max-file-size {limit}")
            summary.skip(SKIP_TOO_LARGE, item.source)
        else:
            summary.skip(SKIP_NO_LOADER, item.source)
    for p in found.problems:
        con.error(str(p))
        errlog.add(p.source, p.error_type, p.reason)
        summary.fail(p.error_type)
    where = output_dir if output_dir else (output if output not in (None, "-") else None)
    # An output left as it was keeps the --errors file that goes with it (helper-114: it was emptied,
    # so the old output no longer matched its list of failed files); else the problems are written.
    left = where is not None and os.path.exists(where)
    errors_kept = left and errlog.path is not None and os.path.exists(errlog.path)
    if where is not None and errors_kept:
        kept = f"; {source_name(where)} and {source_name(errlog.path)} were left as they were"
    else:
        kept = (f"; {source_name(where)} was left as it was" if left else "; nothing was written") if where else ""
    if found.problems and not n:  # the inputs named are missing or unreadable: their lines said why
        said = f"nothing to chunk{kept}"
        if where:
            con.error(said)
    else:
        said = f"{why}{kept} (--allow-empty writes an empty output and exits 0)"
        con.error(said)
    if not errors_kept:
        _commit_errors(errlog, con)
    raise report.exit(EXIT_FAILED, "nothing-selected", error=said)


class SummaryReport:
    """`--summary-json FILE`: the run's counts as JSON (`RunSummary.to_dict`), written atomically however the run
    ends once it has started (all good, failed files, --fail-fast, nothing selected, a stop signal).

    Bad usage (exit 2 before any work) and dry runs write nothing. Attach the run's
    `summary` when it starts; `exit(code)` writes the file and returns the exit to raise.
    """

    def __init__(self, path: str | None):
        self.path = path
        self.summary: RunSummary | None = None

    def check_flag(self) -> None:
        """Refuse `-` (standard output carries the records) and an empty name, before standard input is read.

        Raises:
            ConfigError: one line naming --summary-json.
        """
        if self.path == "-":
            raise ConfigError("--summary-json needs a file name: standard output carries the records")
        if self.path == "":
            raise ConfigError("--summary-json needs a file name: it is empty")

    def check(self, inputs: list[Any], output: str | None, errors: str | None) -> None:
        """Refuse, before any work, a summary file that is a folder, an input or another output, or that
        could not be created.

        Raises:
            ConfigError: one line naming --summary-json, the path and the reason.
        """
        if not self.path:
            return
        from chunkctl.output.checks import check_file_writable

        path, real = self.path, os.path.realpath(self.path)
        if os.path.isdir(real):
            raise ConfigError(f"--summary-json {path}: is a folder, not a file")
        for flag, other in (("-o", output), ("--errors", errors)):
            if other and other != "-" and os.path.realpath(other) == real:
                raise ConfigError(f"--summary-json {path} is also the {flag} file")
        if os.path.exists(real) and any(i.path and i.format is not None and os.path.realpath(i.path) == real
                                        for i in inputs):  # (a file no loader reads is skipped, never read)
            raise ConfigError(f"--summary-json {path} is also an input: it would be overwritten")
        check_file_writable("--summary-json", path)

    def exit(self, code: int, status: str | None = None, error: str | None = None) -> typer.Exit:
        """Write the summary (when asked for and the run started) and return the exit to raise.

        Args:
            code: the run's exit code.
            status: how it ended; by default from `code`: 0 "ok", 1 "failed", 2
                "error", 128 and above "interrupted".
            error: the line that said what ended or failed the run besides its files' results (an
                output that could not be written, a stop signal, --fail-fast, ...), or None.

        Returns:
            typer.Exit(code), or exit 1 for a run that was all good but whose summary
            could not be written (the line on stderr says why).
        """
        if not self.path or self.summary is None:
            return typer.Exit(code)
        import orjson

        from chunkctl.atomic import replace_atomically

        if status is None:
            status = {EXIT_OK: "ok", EXIT_FAILED: "failed", EXIT_USAGE: "error"}.get(code, "interrupted")
        data = orjson.dumps(self.summary.to_dict(status, code, error), option=orjson.OPT_INDENT_2) + b"\n"
        try:
            replace_atomically(self.path, data, public=True)
        except OSError as exc:
            # An older summary left in place would tell a CI job of another run ("status": "ok" beside a run
            # that failed on a full disk, helper-117): it goes, and the line says so.
            gone = ""
            with contextlib.suppress(OSError):
                os.remove(self.path)
                gone = "; the summary of an earlier run there was removed"
            print_line("error", f"--summary-json {self.path}: cannot write it ({exc.strerror or exc}){gone}")
            return typer.Exit(code or EXIT_FAILED)
        return typer.Exit(code)


def _dry_run(found: Any, max_file_size: int | None, allow_empty: bool, con: Console) -> None:
    """`--dry-run`: list what the run would do with each input on stdout and exit; nothing is read or written.

    One line per input, tab-separated: `take FORMAT SOURCE`, `skip FORMAT|- SOURCE
    REASON`, `fail - SOURCE REASON`; then a count on stderr. Exits 1 when the run would
    fail files or select none (as the run would), else 0.
    """
    from chunkctl.pipeline.inputs import preview

    planned = preview(found, max_file_size)
    out = sys.stdout
    for p in planned:
        fields = [p.action, p.format or "-", p.source] + ([p.reason] if p.reason else [])
        out.write("\t".join(one_line(f) for f in fields) + "\n")  # a tab or line break in a name is escaped
    out.flush()
    taken = [p for p in planned if p.action == "take"]
    by_format: dict[str, int] = {}
    for p in taken:
        by_format[p.format or "?"] = by_format.get(p.format or "?", 0) + 1
    fmts = ", ".join(f"{k} {v}" for k, v in sorted(by_format.items())) or "none"
    skipped = sum(p.action == "skip" for p in planned)
    failed = sum(p.action == "fail" for p in planned)
    if not con.quiet:
        print(f"chunkctl: dry run: {len(taken)} files would be chunked ({fmts}), {skipped} skipped, {failed} "
              "failed; nothing was chunked or written", file=sys.stderr, flush=True)
    raise typer.Exit(EXIT_FAILED if failed or (not taken and not allow_empty) else EXIT_OK)


def _stdout_is_shared() -> bool:
    """Standard output is the terminal, or a pipe or socket whose reader (`| jq`) may print to the terminal."""
    try:
        mode = os.fstat(sys.stdout.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return True
    return sys.stdout.isatty() or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _closing_lines(summary: Any, config: Any, con: Console, show: bool, quiet: bool) -> None:
    """The dry-run count and the run's summary (a table on a terminal, one line otherwise), on stderr."""
    if config.extras.get("llm_dry_run"):
        calls, tokens, cached = summary.llm_plan
        print(f"chunkctl: dry run: {calls} model calls, {tokens} prompt tokens (counted with "
              f"{config.tokenizer}); {cached} answers already cached; nothing written", file=sys.stderr, flush=True)
    if not quiet:
        if show:
            from chunkctl.cli.render import summary_table

            con.rich.print(summary_table(summary))
        else:
            print(summary.line(), file=sys.stderr, flush=True)


def _commit_errors(errlog: Any, con: Console) -> str | None:
    """Write the --errors file; on failure say so in one line and return that line (None when written)."""
    try:
        errlog.commit()
    except OutputError as exc:
        said = f"--errors: {exc}"
        con.error(said)
        return said
    return None


chunk = with_options(CHUNK_OPTIONS, RUN_OPTIONS, LLM_OPTIONS, CONFIG_OPTIONS)(chunk)
