"""Command line: parse and cross-check options, wire inputs -> pipeline -> outputs; rich only here (and in cli_render), on stderr."""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import signal
import sys
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Optional

import typer

from chunkctl.__about__ import __version__
from chunkctl.errors import ChunkctlError, ConfigError, LoaderError, MissingExtraError, OutputError, TokenizerError

app = typer.Typer(
    name="chunkctl",
    help="Chunk documents (txt, Markdown, PDF, HTML) into token-budgeted JSONL for RAG.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts hold literal brackets: chunkctl[dask], [tool.chunkctl]
    context_settings={"help_option_names": ["-h", "--help"]},
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130  # a stop signal N exits with 128 + N


class _Terminated(KeyboardInterrupt):
    """SIGTERM (a cancelled CI job) or SIGHUP (a closed terminal): stop as cleanly as on Ctrl-C."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signum)
        self.signum = int(signum)


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated(signum)


_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


# ----------------------------------------------------------------------------- messages
class _Console:
    """One-line messages on stderr, through the live progress display when there is one."""

    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.live: Any = None
        self._rich: Any = None

    @property
    def rich(self) -> Any:
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(stderr=True, highlight=False)
        return self._rich

    def _say(self, line: str) -> None:
        line = one_line(line)
        if self.live is not None:
            self.live.progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            print(line, file=sys.stderr, flush=True)

    def error(self, msg: str) -> None:
        self._say(f"chunkctl: error: {msg}")

    def warn(self, msg: str) -> None:
        if not self.quiet:
            self._say(f"chunkctl: warning: {msg}")


_CONTROL_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7f)} | {0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t"}


def one_line(msg: str) -> str:
    """`msg` with control characters escaped (\\n, \\t, \\x00): a file name with a line break stays on one line."""
    return msg.translate(_CONTROL_ESCAPES)


def _print_line(kind: str, msg: str) -> None:
    """`chunkctl: KIND: MSG` on stderr, on one line (outside a progress display)."""
    print(f"chunkctl: {kind}: {one_line(msg)}", file=sys.stderr, flush=True)


def _usage_error(msg: str) -> typer.Exit:
    _print_line("error", msg)
    return typer.Exit(EXIT_USAGE)


# ----------------------------------------------------------------------------- option bundles
@dataclass
class _Opt:
    name: str
    type: Any
    default: Any
    info: Any


def _opt(name: str, type_: Any, default: Any, *decls: str, help: str, **kw: Any) -> _Opt:
    return _Opt(name, type_, default, typer.Option(*decls, help=help, show_default=default not in (None, False), **kw))


CHUNK_OPTIONS = [
    _opt("strategy", str, "recursive", "--strategy", "-s", help="Chunking strategy: recursive, fixed, sentence, "
         "section, hierarchical, semantic, auto, llm."),
    _opt("chunk_size", int, 512, "--chunk-size", "-n", help="Token budget per chunk, prefix included."),
    _opt("overlap", str, "15%", "--overlap", help="Tokens shared by consecutive chunks at most: a number or a "
         "percentage of --chunk-size."),
    _opt("tokenizer", str, "cl100k_base", "--tokenizer", help="cl100k_base, o200k_base, a model name, or a "
         ".tiktoken file."),
    _opt("tokenizer_pattern", Optional[str], None, "--tokenizer-pattern", help="Pre-tokenizer regex for a local "
         ".tiktoken file."),
    _opt("context", str, "headings", "--context", help="What goes in prefix: none, headings, title+headings."),
    _opt("no_breadcrumbs", bool, False, "--no-breadcrumbs", help="Same as --context none."),
    _opt("encoding", Optional[str], None, "--encoding", help="Force the text encoding of txt/md/html files "
         "(default: detect)."),
    _opt("min_chunk_tokens", int, 0, "--min-chunk-tokens", help="section: merge sibling sections smaller than this."),
    _opt("parent_chunk_size", Optional[int], None, "--parent-chunk-size", help="hierarchical: parent budget "
         "(default 4x --chunk-size)."),
    _opt("levels", Optional[str], None, "--levels", help="hierarchical: budgets from largest to smallest, "
         "e.g. 2048,512,128."),
    _opt("sentence_splitter", str, "blingfire", "--sentence-splitter", help="blingfire (fast) or pysbd (accurate)."),
    _opt("breakpoint_percentile", float, 95.0, "--breakpoint-percentile", help="semantic: cut below this "
         "percentile of neighbour similarity."),
    _opt("content_type", Optional[str], None, "--content-type", help="auto: force legal, narrative, code or other."),
    _opt("main_content", bool, False, "--main-content", help="html: keep only the main article."),
    _opt("keep_boilerplate", bool, False, "--keep-boilerplate", help="html: keep navigation, headers, footers and "
         "asides."),
    _opt("password", Optional[str], None, "--password", help="pdf: password of encrypted files."),
]
RUN_OPTIONS = [
    _opt("jobs", int, 0, "--jobs", "-j", help="Worker processes (0: all cores). The output does not depend on it."),
    _opt("quiet", bool, False, "--quiet", "-q", help="No warnings, progress or summary (errors still print)."),
    _opt("include", Optional[list[str]], None, "--include", help="Only files matching this glob (repeatable)."),
    _opt("exclude", Optional[list[str]], None, "--exclude", help="Skip files matching this glob (repeatable)."),
    _opt("hidden", bool, False, "--hidden", help="Also walk hidden files and folders."),
    _opt("max_file_size", Optional[int], None, "--max-file-size", help="Skip files larger than this many bytes, "
         "with a warning."),
    _opt("file_timeout", float, 300.0, "--file-timeout", help="Seconds one file may take before it is stopped and "
         "reported as failed (0: no limit)."),
    _opt("format", str, "chunkctl", "--format", "-f", help="Record flavour: chunkctl (the contract), langchain "
         "(Document), llamaindex (TextNode)."),
    _opt("cache", Optional[str], None, "--cache", help="Folder of cached records: unchanged files are not parsed "
         "again."),
    _opt("engine", str, "local", "--engine", help="local (worker processes here) or dask (a Dask cluster; extra "
         "chunkctl[dask])."),
    _opt("scheduler", Optional[str], None, "--scheduler", help="--engine dask: scheduler address, e.g. "
         "tcp://10.0.0.5:8786 (default: a local cluster of --jobs processes)."),
]
LLM_OPTIONS = [
    _opt("llm_base_url", Optional[str], None, "--llm-base-url", help="OpenAI-compatible endpoint, e.g. "
         "http://localhost:8080/v1 (contexts, summaries, --strategy llm)."),
    _opt("llm_model", Optional[str], None, "--llm-model", help="Model name sent to the endpoint."),
    _opt("llm_api_key_env", Optional[str], None, "--llm-api-key-env", help="Name of the environment variable that "
         "holds the API key (default OPENAI_API_KEY); the key itself never goes on the command line."),
    _opt("llm_concurrency", Optional[int], None, "--llm-concurrency", help="Model requests in flight per worker "
         "process (default 4)."),
    _opt("llm_timeout", Optional[float], None, "--llm-timeout", help="Seconds one model request may take "
         "(default 60); failed requests are retried with backoff."),
    _opt("contextualize", bool, False, "--contextualize", help="Prepend a model-written context to each chunk "
         "(contextual retrieval), inside the budget."),
    _opt("summaries", bool, False, "--summaries", help="Add a summary record (kind summary) per long section."),
    _opt("summary_min_tokens", Optional[int], None, "--summary-min-tokens", help="--summaries: sections longer "
         "than this many tokens (default: --chunk-size)."),
    _opt("llm_required", bool, False, "--llm-required", help="A failed model call fails the file (default: the "
         "chunk is written without it and the run exits 1)."),
    _opt("llm_dry_run", bool, False, "--llm-dry-run", help="Print how many model calls and prompt tokens the run "
         "would make; write nothing."),
]
_LLM_KEYS = {o.name for o in LLM_OPTIONS}
CONFIG_OPTIONS = [
    _opt("config_file", Optional[str], None, "--config", help="Read options from this TOML file (default: "
         "chunkctl.toml or [tool.chunkctl] in pyproject.toml, searched upward)."),
    _opt("no_config", bool, False, "--no-config", help="Read no configuration file."),
]


@dataclass
class _Given:
    """The values of a command's bundled options, and which were given on the command line."""

    values: dict[str, Any]
    given: set[str]


def with_options(*bundles: list[_Opt]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add bundles of options to a command; it receives them as `opts` (a `_Given`).

    The command must take `ctx: typer.Context` (to learn which options were given
    explicitly: click's parameter source) and `opts`.
    """
    names = [o.name for b in bundles for o in b]

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(fn, eval_str=True)
        own = [p for p in sig.parameters.values() if p.name != "opts"]
        extra = [inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default,
                                   annotation=Annotated[o.type, o.info]) for b in bundles for o in b]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            ctx = kwargs["ctx"]
            values = {n: kwargs.pop(n) for n in names}
            given = set()
            for n in names:
                src = ctx.get_parameter_source(n)
                if src is not None and src.name not in ("DEFAULT", "DEFAULT_MAP"):
                    given.add(n)
            return fn(*args, opts=_Given(values, given), **kwargs)

        wrapper.__signature__ = sig.replace(parameters=own + extra)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in own + extra}
        return wrapper

    return deco


def _effective(opts: _Given) -> tuple[dict[str, Any], dict[str, str]]:
    """Options after the configuration file: (values, origins); a bad file is a usage error."""
    from chunkctl.configfile import KEYS, Settings, load_settings, resolve

    v = opts.values
    try:
        settings = Settings() if v.get("no_config") else load_settings(v.get("config_file"))
    except ConfigError as exc:
        raise _usage_error(str(exc))
    keyed = {k: d for k, d in v.items() if k in KEYS}
    given = {k: v[k] for k in keyed if k in opts.given}
    values, origins = resolve(keyed, given, settings)
    for k in v:
        if k not in values and k not in ("config_file", "no_config"):
            values[k], origins[k] = v[k], "command line" if k in opts.given else "default"
    if values.pop("no_breadcrumbs", False):
        values["context"], origins["context"] = "none", "command line"
    origins.pop("no_breadcrumbs", None)
    return values, origins


def _chunk_config(values: dict[str, Any]):
    """ChunkConfig from effective values; a bad value is a usage error naming the fix."""
    from chunkctl.chunking import get_strategy
    from chunkctl.config import ChunkConfig

    levels = values.get("levels")
    if isinstance(levels, str):
        try:
            levels = tuple(int(x) for x in levels.replace(" ", "").split(",") if x) or None
        except ValueError:
            raise _usage_error(f"--levels {levels!r}: give budgets in tokens separated by commas, e.g. 2048,512,128")
    fields = set(ChunkConfig.field_names())
    kw = {k: val for k, val in values.items() if k in fields}
    kw["levels"] = levels
    extras = {k: val for k, val in values.items() if k in _LLM_KEYS and val not in (None, False)}
    if extras and values.get("cache"):
        extras["cache_dir"] = str(values["cache"])
    if extras:
        kw["extras"] = extras
    try:
        config = ChunkConfig(**kw)
        get_strategy(config.strategy)
    except ConfigError as exc:
        raise _usage_error(str(exc))
    if config.encoding:
        import codecs

        try:
            # a text encoding (bytes to str), not a transform such as rot13, hex or base64
            codecs.lookup(config.encoding).decode(b"")[0].encode("utf-8")
        except (LookupError, TypeError, AttributeError):
            raise _usage_error(f"--encoding {config.encoding!r} is not a text encoding Python knows")
    return config


def _ready(config) -> None:
    """Check the strategy, tokenizer and extras now, so a problem is a usage error, not N failures."""
    from chunkctl.pipeline import prepare

    try:
        prepare(config)
    except (TokenizerError, ConfigError, MissingExtraError) as exc:
        raise _usage_error(str(exc))


def _version(value: bool) -> None:
    if value:
        print(f"chunkctl {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """chunkctl: structure-aware, token-exact chunking for retrieval-augmented generation.

    Exit codes: 0 all good, 1 some files failed (the rest fully written), 2 bad usage, 130 interrupted.
    """


# ----------------------------------------------------------------------------- chunk
def _check_run_options(values: dict[str, Any]) -> None:
    from chunkctl.output.flavours import FLAVOURS

    if values["jobs"] < 0:
        raise _usage_error("--jobs must be 0 (all cores) or a positive number")
    if values["max_file_size"] is not None and values["max_file_size"] < 0:
        raise _usage_error("--max-file-size must not be negative")
    if not 0 <= values["file_timeout"] <= 366 * 86400:  # NaN fails too
        raise _usage_error("--file-timeout must be 0 (no limit) or a number of seconds up to a year")
    if values["format"] not in FLAVOURS:
        raise _usage_error(f"--format {values['format']!r} is not one of: {', '.join(FLAVOURS)}")
    if values["engine"] not in ("local", "dask"):
        raise _usage_error(f"--engine {values['engine']!r} is not one of: local, dask")
    if values["scheduler"] and values["engine"] != "dask":
        raise _usage_error("--scheduler needs --engine dask")
    if values["engine"] == "dask":
        from chunkctl.pipeline.engines.dask import check

        try:
            check()
        except MissingExtraError as exc:
            raise _usage_error(str(exc))


def _inputs(paths: list[str], from_list: Optional[str], stdin_format: Optional[str], stdin_name: Optional[str],
            values: dict[str, Any]):
    """Inputs in command-line order (then the list's), and the problems found; usage errors exit 2."""
    from chunkctl import pipeline

    paths = list(paths)
    if paths.count("-") + (from_list == "-") > 1:
        raise _usage_error("standard input can be read once: give '-' or '--from-list -', not both")
    if from_list is not None:
        try:
            if from_list == "-":
                paths += pipeline.read_list(sys.stdin)
            else:
                with open(from_list, encoding="utf-8", errors="surrogateescape") as fh:
                    paths += pipeline.read_list(fh)
        except OSError as exc:
            raise _usage_error(f"--from-list {from_list}: cannot read it ({exc.strerror or exc})")
    if "-" in paths and not stdin_format and stdin_name:
        from chunkctl.loaders import format_for

        stdin_format = format_for(stdin_name)
    if "-" in paths and not stdin_format:
        raise _usage_error("'-' reads a document from standard input: say its format with --stdin-format "
                           "(txt, md, html or pdf)")
    if not paths and from_list is None:
        raise _usage_error("give files or folders to chunk, '-' for standard input, or --from-list FILE")
    inputs, problems = [], []
    for p in paths:
        if p == "-":
            try:
                inputs.append(pipeline.stdin_input(sys.stdin.buffer.read(), stdin_format or "", stdin_name or "-"))
            except LoaderError as exc:
                raise _usage_error(f"--stdin-format: {exc.reason}")
            continue
        found = pipeline.discover([p], values["include"] or (), values["exclude"] or (), values["hidden"])
        inputs += found.inputs
        problems += found.problems
        for item in found.inputs:
            if item.format is None and not os.path.isdir(p):
                _Console(values["quiet"]).warn(f"{item.source}: skipped, no loader for its extension "
                                               f"(txt, md, html and pdf are read)")
    clash = pipeline.duplicate_sources(inputs)
    if clash:
        src, where = next(iter(clash.items()))
        raise _usage_error(f"two inputs would both be recorded as source {src!r} ({', '.join(where[:2])}): chunk "
                           f"them in separate runs, or give their common parent folder instead")
    if not inputs and not problems:
        _Console(values["quiet"]).warn("no input files found")
    return inputs, problems


@app.command()
@with_options(CHUNK_OPTIONS, RUN_OPTIONS, LLM_OPTIONS, CONFIG_OPTIONS)
def chunk(
    ctx: typer.Context,
    paths: Annotated[Optional[list[str]], typer.Argument(
        help="Files and folders to chunk (folders recursively, in sorted order); '-' reads one document from "
             "standard input.", show_default=False)] = None,
    output: Annotated[Optional[str], typer.Option("-o", "--output", help="Write JSONL here, atomically; '-' or "
                                                  "nothing: stdout. A name ending in .gz is gzip-compressed.")] = None,
    output_dir: Annotated[Optional[str], typer.Option("--output-dir", help="Write one JSONL file per document "
                                                      "under this folder, mirroring the input tree.")] = None,
    errors: Annotated[Optional[str], typer.Option("--errors", help="Write one JSON record per failed file here "
                                                  "(source, error_type, message).")] = None,
    fail_fast: Annotated[bool, typer.Option("--fail-fast", help="Stop at the first failure (exit 1); no output "
                                            "file is written.")] = False,
    from_list: Annotated[Optional[str], typer.Option("--from-list", help="Also read paths from this file, one per "
                                                     "line ('-': standard input).")] = None,
    stdin_format: Annotated[Optional[str], typer.Option("--stdin-format", help="Format of the document read from "
                                                        "'-': txt, md, html or pdf.")] = None,
    stdin_name: Annotated[Optional[str], typer.Option("--stdin-name", help="The records' source for the document "
                                                      "read from '-' (default '-').")] = None,
    opts: Any = None,
) -> None:
    """Chunk files and folders into JSONL records (one per chunk).

    Examples:

    \b
      chunkctl chunk ./docs -o chunks.jsonl
      chunkctl chunk ./docs --chunk-size 256 --overlap 32 --jobs 4 --cache .chunk-cache -o chunks.jsonl.gz
      git ls-files '*.md' | chunkctl chunk --from-list - --format langchain > docs.jsonl
      curl -s https://example.com/page.html | chunkctl chunk - --stdin-format html --stdin-name page.html
      chunkctl chunk ./docs --output-dir chunks/ --errors failed.jsonl || echo "some files failed"

    Exit codes: 0 all files chunked; 1 some failed (each named on stderr; the rest
    fully written); 2 bad usage; 130 interrupted (no output file written or replaced).
    """
    from chunkctl import pipeline
    from chunkctl.pipeline.cache import RecordCache
    from chunkctl.output.flavours import convert_lines
    from chunkctl.pipeline.summary import RunSummary
    from chunkctl.pipeline.engines.local import cpu_count
    from chunkctl.output.writer import ErrorLog, Output, OutputDir

    values, _ = _effective(opts)
    con = _Console(values["quiet"])
    config = _chunk_config(values)
    _check_run_options(values)
    if output and output_dir:
        raise _usage_error("give -o FILE or --output-dir DIR, not both")
    if errors == "-":
        raise _usage_error("--errors needs a file name: standard output carries the records")
    inputs, problems = _inputs(paths or [], from_list, stdin_format, stdin_name, values)
    _check_outputs(output, output_dir, errors, inputs)
    try:
        cache = RecordCache(values["cache"]) if values["cache"] else None
    except ConfigError as exc:
        raise _usage_error(str(exc)) from None
    known = pipeline.plan(inputs, config, values["max_file_size"], cache)
    if any(r is None for r in known):
        _ready(config)  # after the cache: a run that needs no tokenizer does not load one
    summary = RunSummary()
    errlog = ErrorLog(errors)
    for p in problems:
        con.error(str(p))
        errlog.add(p.source, p.error_type, p.reason)
        summary.failed += 1
    if problems and fail_fast:
        _commit_errors(errlog, con)
        raise typer.Exit(EXIT_FAILED)
    for sig in _STOP_SIGNALS:
        signal.signal(sig, _on_sigterm)
    show = con.tty and not values["quiet"]
    sink: Any = None
    stopped = False
    plan = [0, 0, 0]  # --llm-dry-run: calls, prompt tokens, cached answers
    errors_ok = True
    try:
        try:
            sink = OutputDir(output_dir) if output_dir else Output(output)
        except OutputError as exc:
            raise _usage_error(str(exc)) from None
        progress: Any = contextlib.nullcontext()
        if show:
            from chunkctl.cli.render import RunProgress

            progress = RunProgress(con.rich, len(inputs), sum(i.size for i in inputs))
        results = pipeline.run(inputs, config, values["jobs"] or cpu_count(), values["max_file_size"],
                               values["file_timeout"] or None, cache, known, values["engine"], values["scheduler"])
        with progress as live, contextlib.closing(results):
            con.live = live
            for res in results:
                for w in res.warnings:
                    con.warn(w)
                summary.add(res)
                if res.llm_plan is not None:
                    plan = [a + b for a, b in zip(plan, res.llm_plan)]
                    continue
                for problem in res.model_failures:  # model calls that failed: records written without them
                    con.error(problem)
                    errlog.add(res.source, "LLMFailure", problem)
                if res.model_failures:
                    if fail_fast:
                        stopped = True
                        break
                if res.error:
                    con.error(res.error)
                    errlog.add(res.source, res.error_type, res.error)
                    if fail_fast:
                        stopped = True
                        break
                elif not res.skipped:
                    lines = convert_lines(res.lines, values["format"])
                    if output_dir:
                        sink.write_document(res.source, lines)
                    else:
                        sink.write(lines)
                if live is not None:
                    live.update(summary)
            con.live = None
        if stopped:
            sink.abort()
            con.error("stopped at the first failure (--fail-fast); no output file was written")
        elif config.extras.get("llm_dry_run"):
            sink.abort()
        else:
            sink.commit()
        errors_ok = _commit_errors(errlog, con)
    except KeyboardInterrupt as exc:
        con.live = None
        if sink is not None:
            sink.abort()
        con.error("interrupted; no output file was written or replaced")
        raise typer.Exit(128 + exc.signum if isinstance(exc, _Terminated) else EXIT_INTERRUPTED)
    except OutputError as exc:  # a full disk, a device that refuses writes: what was written is dropped
        con.live = None
        if sink is not None:
            sink.abort()
        con.error(f"{exc}; no output file was written or replaced")
        raise typer.Exit(EXIT_FAILED) from None
    except BrokenPipeError:
        sink.abort()
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")
        raise typer.Exit(EXIT_FAILED if summary.failed else EXIT_OK)
    except BaseException:
        if sink is not None:
            sink.abort()
        raise
    finally:
        for sig in _STOP_SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
    if config.extras.get("llm_dry_run"):
        print(f"chunkctl: dry run: {plan[0]} model calls, {plan[1]} prompt tokens (counted with "
              f"{config.tokenizer}); {plan[2]} answers already cached; nothing written", file=sys.stderr, flush=True)
    if not values["quiet"]:
        if show:
            from chunkctl.cli.render import summary_table

            con.rich.print(summary_table(summary))
        else:
            print(summary.line(), file=sys.stderr, flush=True)
    raise typer.Exit(EXIT_FAILED if summary.failed or summary.incomplete or not errors_ok else EXIT_OK)


def _commit_errors(errlog, con) -> bool:
    """Write the --errors file; on failure say so in one line and return False."""
    try:
        errlog.commit()
    except OutputError as exc:
        con.error(f"--errors: {exc}")
        return False
    return True


def _check_outputs(output: Optional[str], output_dir: Optional[str], errors: Optional[str], inputs) -> None:
    """Refuse outputs that would overwrite an input or each other, or collide under --output-dir (exit 2)."""
    from chunkctl.output.writer import mirror_path

    real = os.path.realpath
    named = [(flag, p) for flag, p in (("-o", output), ("--errors", errors)) if p and p != "-"]
    existing = [(flag, p) for flag, p in named if os.path.exists(p)]  # a new file cannot be an input
    reads = {real(i.path) for i in inputs if i.path} if existing else set()
    for flag, p in existing:
        if real(p) in reads:
            raise _usage_error(f"{flag} {p} is also an input: it would be overwritten")
    for flag, p in named:
        if os.path.isdir(p):
            raise _usage_error(f"{flag} {p}: is a folder, not a file")
    if len(named) == 2 and real(named[0][1]) == real(named[1][1]):
        raise _usage_error(f"-o and --errors name the same file {output}")
    if output_dir:
        seen: dict[str, str] = {}
        for i in inputs:
            key = mirror_path(i.source)
            if key in seen:
                raise _usage_error(f"--output-dir: {seen[key]} and {i.source} would both be written to "
                                   f"{os.path.join(output_dir, key)}")
            seen[key] = i.source
        if errors and errors != "-":
            for key in seen:
                if real(os.path.join(output_dir, key)) == real(errors):
                    raise _usage_error(f"--errors {errors} is also where --output-dir writes {key}")


# ----------------------------------------------------------------------------- config, inspect, stats
@app.command("config")
@with_options(CHUNK_OPTIONS, RUN_OPTIONS, LLM_OPTIONS, CONFIG_OPTIONS)
def config_cmd(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object instead.")] = False,
    opts: Any = None,
) -> None:
    """Print the effective configuration and where each value comes from.

    Values come from the command line, else the configuration file (chunkctl.toml,
    or [tool.chunkctl] in pyproject.toml, in this folder or the nearest parent), else
    the defaults. Takes the same options as `chunk`.

    Examples:

    \b
      chunkctl config
      chunkctl config --chunk-size 256 --json | jq .values
    """
    import orjson

    values, origins = _effective(opts)
    _chunk_config(values)
    _check_run_options(values)
    values.pop("password", None)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps({"values": values, "origins": origins}, option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
    elif sys.stdout.isatty():
        from rich.console import Console

        from chunkctl.cli.render import config_table

        Console(highlight=False).print(config_table(values, origins))
    else:
        for key, value in values.items():
            name = key.replace("_", "-")
            if value is None:
                print(f"# {name} is not set  ({origins[key]})")
            else:
                print(f"{name} = {orjson.dumps(value).decode()}  # {origins[key]}")


@app.command("inspect")
@with_options(CHUNK_OPTIONS, CONFIG_OPTIONS)
def inspect_cmd(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="The file to chunk and show.", show_default=False)],
    preview: Annotated[int, typer.Option("--preview", help="Show at most this many characters of each chunk "
                                         "(0: all).")] = 0,
    opts: Any = None,
) -> None:
    """Show a file's chunks on the terminal: boundaries, token counts, breadcrumb, repeated headers, overlap.

    Takes the chunking options of `chunk` (and the configuration file), so what you
    see is what `chunk` writes.

    Examples:

    \b
      chunkctl inspect docs/guide.md --chunk-size 128
      chunkctl inspect report.html --strategy section --preview 300 | less -R
    """
    from rich.console import Console

    from chunkctl.cli.render import chunk_panels
    from chunkctl.pipeline.inspection import inspect_file

    if file == "-":
        raise _usage_error("inspect reads a file, not standard input: save the document to a file first")
    values, _ = _effective(opts)
    config = _chunk_config(values)
    _ready(config)
    try:
        views = inspect_file(file, config)
    except LoaderError as exc:
        _print_line("error", str(exc))
        raise typer.Exit(EXIT_FAILED)
    Console(highlight=False).print(chunk_panels(views, preview))


@app.command("stats")
def stats_cmd(
    file: Annotated[str, typer.Argument(help="A JSONL file of records (.gz too); '-': standard input.",
                                        show_default=False)],
    top: Annotated[int, typer.Option("--top", help="List this many documents with the most chunks.")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object instead.")] = False,
) -> None:
    """Show the token-size histogram, counts by format and kind, chunks per document, and contract violations.

    Exits 1 when a record breaks the contract (checks that need no document text:
    fields and types, spans, prefix, budgets, ids, chunk order), so it can gate a CI job.

    Examples:

    \b
      chunkctl stats chunks.jsonl
      chunkctl chunk ./docs | chunkctl stats -
    """
    import orjson

    from chunkctl.contract.stats import read_stats

    try:
        stream = sys.stdin.buffer if file == "-" else open(file, "rb")
    except OSError as exc:
        _print_line("error", f"{file}: cannot read it ({exc.strerror or exc})")
        raise typer.Exit(EXIT_USAGE)
    try:
        with contextlib.closing(stream) if file != "-" else contextlib.nullcontext():
            st = read_stats(stream)
    except (OSError, EOFError) as exc:
        _print_line("error", f"{file}: cannot read it ({exc})")
        raise typer.Exit(EXIT_FAILED)
    if as_json:
        hist = [{"low": lo, "high": hi, "chunks": c} for lo, hi, c in st.histogram()]
        doc = {"records": st.records, "documents": st.documents, "tokens": st.tokens, "histogram": hist,
               "by_format": dict(st.by_format), "documents_by_format": dict(st.docs_by_format()),
               "by_kind": dict(st.by_kind), "chunks_per_document": st.chunks_per_doc,
               "violations": [str(v) for v in st.violations]}
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        from rich.console import Console

        from chunkctl.cli.render import stats_tables

        Console(highlight=False).print(stats_tables(st, top))
    raise typer.Exit(EXIT_FAILED if st.violations else EXIT_OK)


# ----------------------------------------------------------------------------- extract, schema
@app.command()
def extract(
    file: Annotated[str, typer.Argument(help="The file whose document text to print.", show_default=False)],
    blocks: Annotated[bool, typer.Option("--blocks", help="Print the typed blocks as JSONL instead.")] = False,
    encoding: Annotated[Optional[str], typer.Option("--encoding", help="Force the text encoding.")] = None,
    main_content: Annotated[bool, typer.Option("--main-content", help="html: keep only the main article.")] = False,
    keep_boilerplate: Annotated[bool, typer.Option("--keep-boilerplate", help="html: keep page furniture.")] = False,
    password: Annotated[Optional[str], typer.Option("--password", help="pdf: password.")] = None,
) -> None:
    """Print the document text that chunk offsets (start, end) index, as UTF-8.

    Examples:

    \b
      chunkctl extract report.pdf > report.txt
      chunkctl extract page.html --blocks | jq -c '[.kind, .headings]'
    """
    import orjson

    from chunkctl.config import ChunkConfig
    from chunkctl.pipeline import load

    try:
        config = ChunkConfig(encoding=encoding, main_content=main_content, keep_boilerplate=keep_boilerplate,
                             password=password)
    except ConfigError as exc:
        raise _usage_error(str(exc))
    if file == "-":
        raise _usage_error("extract reads a file, not standard input: save the document to a file first")
    try:
        doc = load(file, config)
    except LoaderError as exc:
        _print_line("error", str(exc))
        raise typer.Exit(EXIT_FAILED)
    for w in doc.warnings:
        _print_line("warning", f"{file}: {w}")
    out = sys.stdout.buffer
    if blocks:
        for b in doc.blocks:
            d = b.to_dict()
            d["text"] = doc.text[b.start:b.end]
            out.write(orjson.dumps(d, option=orjson.OPT_APPEND_NEWLINE))
    else:
        out.write(doc.text.encode("utf-8", "surrogatepass"))
    out.flush()


@app.command("eval")
def eval_(
    corpus_dir: Annotated[str, typer.Argument(help="Folder of corpus files; a question's corpus_id is a file stem.",
                                              show_default=False)],
    questions: Annotated[str, typer.Option("--questions", help="Questions with reference excerpts: CSV or JSON "
                                           "lines (question, references, corpus_id).", show_default=False)],
    grid: Annotated[str, typer.Option("--grid", help="Configurations, comma-separated strategy:size/overlap"
                                      "[:key=value], e.g. recursive:200/0,hierarchical:200/0:parent=800.")
                    ] = "recursive:200/0,recursive:400/0,sentence:256/32,section:400/0,hierarchical:200/0,fixed:200/0",
    retriever: Annotated[str, typer.Option("--retriever", help="bm25 (no model) or embedding (WordLlama, the "
                                           "semantic extra).")] = "bm25",
    k: Annotated[Optional[int], typer.Option("--k", help="Chunks retrieved per question [default: 5, or no limit "
                                             "with --token-budget].", show_default=False)] = None,
    token_budget: Annotated[Optional[int], typer.Option("--token-budget", help="Retrieve chunks in rank order "
                                                        "while their tokens fit in this many.")] = None,
    optimize: Annotated[str, typer.Option("--optimize", help="Pick the best configuration by iou or "
                                          "recall.")] = "iou",
    min_recall: Annotated[Optional[float], typer.Option("--min-recall", help="Only configurations with at least "
                                                        "this mean recall (percent) can be best.")] = None,
    json_out: Annotated[Optional[str], typer.Option("--json", help="Write every figure (per corpus and per "
                                                    "question too) to this JSON file.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
) -> None:
    """Measure retrieval quality of chunkings on questions with known answers; print the best flags.

    Each configuration chunks every corpus file; the chunks of all corpora form one
    pool; each question retrieves from it, and the retrieved chunk bodies are scored
    on characters against the reference excerpts (recall, precision, precision_Ω and
    IoU of Smith & Troynikov 2024, Chroma). Needs the eval extra for BM25.

    Examples:

    \b
      chunkctl eval corpora --questions questions.csv
      chunkctl eval corpora --questions q.jsonl --grid "recursive:200/0,sentence:256/32" --json results.json
      chunkctl eval corpora --questions q.csv --token-budget 1000 --optimize iou --min-recall 87
    """
    import orjson

    from chunkctl.eval import evaluate
    from chunkctl.errors import LoaderError
    from chunkctl.output.writer import Output

    def progress(entry: str, secs: float) -> None:
        if not quiet:
            print(f"chunkctl: eval: {entry} done in {secs:.1f} s", file=sys.stderr, flush=True)

    if optimize not in evaluate.OPTIMIZE:
        raise _usage_error(f"--optimize {optimize!r} is not one of: {', '.join(evaluate.OPTIMIZE)}")
    try:
        report = evaluate.run(corpus_dir, questions, grid, retriever, k, token_budget, progress)
    except (ConfigError, MissingExtraError) as exc:
        raise _usage_error(str(exc))
    except LoaderError as exc:
        _Console().error(str(exc))
        raise typer.Exit(EXIT_FAILED)
    floor = None if min_recall is None else min_recall / 100
    if json_out:
        out = Output(json_out)
        out.write(orjson.dumps(report.to_dict(optimize, floor), option=orjson.OPT_INDENT_2) + b"\n")
        out.commit()
    _print_eval(report, report.best(optimize, floor), optimize, min_recall)


def _print_eval(report, best, optimize: str, min_recall: Optional[float]) -> None:
    """The results table and the best configuration, on stdout."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    s = report.settings
    limit = f"k={s['k']}" if s["token_budget"] is None else f"token budget {s['token_budget']}" + (
        f", k={s['k']}" if s["k"] else "")
    head, body = report.table()
    table = Table(title=f"{s['n_questions']} questions, {s['retriever']['name']}, {limit} "
                        f"(metrics in %, mean ± std over questions)")
    for i, name in enumerate(head):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row, cells in zip(report.rows, body):
        table.add_row(*map(Text, cells), style="bold" if row is best else None)  # Text: never read as markup
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    console.print(table)
    if best is None:
        console.print(f"no configuration reaches a mean recall of {min_recall}%")
        return
    note = " (retrieve the children, give the generator their parents)" if best.scored == "parents" else ""
    console.print(f"best by {optimize}: {best.name} ({optimize} {100 * best.mean(optimize):.1f}%, recall "
                  f"{100 * best.mean('recall'):.1f}%)\n  chunkctl chunk DOCS {best.flags}{note}",
                  soft_wrap=True, markup=False)


@app.command()
def schema() -> None:
    """Print the JSON Schema of one output record (contract v1).

    Example:

    \b
      chunkctl schema > chunk-record.schema.json
    """
    import orjson

    from chunkctl.contract.schema import record_schema

    sys.stdout.buffer.write(orjson.dumps(record_schema(), option=orjson.OPT_INDENT_2) + b"\n")


def run() -> None:
    """Console-script entry point."""
    try:
        app()
    except ChunkctlError as exc:
        _print_line("error", str(exc))
        sys.exit(EXIT_FAILED)
    except KeyboardInterrupt:
        _print_line("error", "interrupted")
        sys.exit(EXIT_INTERRUPTED)
