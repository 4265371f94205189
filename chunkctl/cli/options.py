"""Option bundles shared by commands, their help derived from the registries, and options -> ChunkConfig/RunOptions."""

from __future__ import annotations

import functools
import inspect
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Optional

import typer

from chunkctl.chunking import get_strategy, strategy_names
from chunkctl.cli.console import usage_error
from chunkctl.config import CONTEXT_MODES, DEFAULT_OVERLAP, OCR_MODES, SENTENCE_SPLITTERS, ChunkConfig
from chunkctl.configfile import parse_size
from chunkctl.errors import ConfigError, MissingExtraError, TokenizerError
from chunkctl.loaders import format_list
from chunkctl.output.flavours import FLAVOURS, check_flavour
from chunkctl.pipeline import DEFAULT_FILE_TIMEOUT, ENGINES, RunOptions


@dataclass
class Opt:
    """One option of a bundle: its parameter name, type, default and typer declaration."""

    name: str
    type: Any
    default: Any
    info: Any


def opt(name: str, type_: Any, default: Any, *decls: str, help: str, **kw: Any) -> Opt:
    """An option for a bundle (`help` shown by `--help`; the default shown unless None or False)."""
    return Opt(name, type_, default, typer.Option(*decls, help=help, show_default=default not in (None, False), **kw))


def _completer(values: Callable[[], list[tuple[str, str]]]) -> Callable[[str], list[tuple[str, str]]]:
    """A shell-completion function for typer: the (value, help) pairs of `values()` that start with what was typed.

    `values` is called when the shell asks (not at import), so strategies and
    formats registered by plugins are offered too.
    """
    def complete(incomplete: str) -> list[tuple[str, str]]:
        return [(v, h) for v, h in values() if v.startswith(incomplete)]

    return complete


def _strategies() -> list[tuple[str, str]]:
    """Strategy names with the start of their summary (shells show one short line beside each)."""
    import re

    from chunkctl.chunking import STRATEGIES

    def short(text: str) -> str:
        text = re.split(r"[:;,(]", text, maxsplit=1)[0].strip()
        return text if len(text) <= 50 else text[:50].rsplit(" ", 1)[0] + " ..."

    return [(name, short(s.summary)) for name, s in STRATEGIES.items()]


def _flavours() -> list[tuple[str, str]]:
    helps = {"chunkctl": "the record contract", "langchain": "LangChain Document", "llamaindex": "LlamaIndex TextNode"}
    return [(f, helps.get(f, "")) for f in FLAVOURS]


def _contexts() -> list[tuple[str, str]]:
    helps = {"none": "no prefix", "headings": "the heading breadcrumb", "title+headings": "the title, then the "
             "breadcrumb"}
    return [(c, helps.get(c, "")) for c in CONTEXT_MODES]


ENCODINGS = ("cl100k_base", "o200k_base", "p50k_base", "r50k_base")
"""The tiktoken encodings chunkctl serves offline (`--tokenizer` also takes model names and `.tiktoken` files)."""


def _tokenizers() -> list[tuple[str, str]]:
    """Encoding names, then the model names tiktoken maps to one of them (a path is left to the shell)."""
    out = [(e, "encoding") for e in ENCODINGS]
    try:
        from tiktoken.model import MODEL_TO_ENCODING
    except ImportError:  # pragma: no cover (tiktoken is a dependency)
        return out
    return out + [(m, e) for m, e in sorted(MODEL_TO_ENCODING.items()) if e in ENCODINGS]


def complete_tokenizer(incomplete: str) -> list[tuple[str, str]]:
    """Completions of `--tokenizer`: names that start with `incomplete`; none for a path (the shell completes files)."""
    if incomplete.startswith((".", "~")) or "/" in incomplete:
        return []
    return [(v, h) for v, h in _tokenizers() if v.startswith(incomplete)]


complete_strategy = _completer(_strategies)
complete_flavour = _completer(_flavours)
complete_context = _completer(_contexts)
complete_sentence_splitter = _completer(lambda: [(s, "") for s in SENTENCE_SPLITTERS])
complete_engine = _completer(lambda: [(e, "") for e in ENGINES])
complete_ocr = _completer(lambda: [(m, "") for m in OCR_MODES])
complete_content_type = _completer(lambda: [(c, "") for c in ("legal", "narrative", "code", "other")])


CHUNK_OPTIONS = [
    opt("strategy", str, "recursive", "--strategy", "-s", help=f"Chunking strategy: {', '.join(strategy_names())}.",
        autocompletion=complete_strategy),
    opt("chunk_size", int, 512, "--chunk-size", "-n", help="Token budget per chunk, prefix included."),
    opt("overlap", str, str(DEFAULT_OVERLAP), "--overlap", help="Tokens shared by consecutive chunks at most: a "
        "number (64) or a percentage of --chunk-size (15%)."),
    opt("tokenizer", str, "cl100k_base", "--tokenizer", help="cl100k_base, o200k_base, a model name, a "
        ".tiktoken file, or a Hugging Face tokenizer.json file.", autocompletion=complete_tokenizer),
    opt("tokenizer_pattern", Optional[str], None, "--tokenizer-pattern", help="Pre-tokenizer regex for a local "
        ".tiktoken file."),
    opt("count_special_tokens", bool, False, "--count-special-tokens", help="tokenizer.json: count the tokens the "
        "model adds to every input ([CLS], [SEP]) in the budget."),
    opt("context", str, "headings", "--context", help=f"What goes in prefix: {', '.join(CONTEXT_MODES)}.",
        autocompletion=complete_context),
    opt("no_breadcrumbs", bool, False, "--no-breadcrumbs", help="Same as --context none."),
    opt("encoding", Optional[str], None, "--encoding", help="Force the text encoding of txt/md/html files "
        "(default: detect)."),
    opt("min_chunk_tokens", int, 0, "--min-chunk-tokens", help="section: merge sibling sections smaller than this."),
    opt("parent_chunk_size", Optional[int], None, "--parent-chunk-size", help="hierarchical: parent budget "
        "(default 4x --chunk-size)."),
    opt("levels", Optional[str], None, "--levels", help="hierarchical: budgets from largest to smallest, "
        "e.g. 2048,512,128 (replaces --chunk-size and --parent-chunk-size)."),
    opt("sentence_splitter", str, "blingfire", "--sentence-splitter",
        help=f"{' (fast) or '.join(SENTENCE_SPLITTERS)} (accurate).", autocompletion=complete_sentence_splitter),
    opt("breakpoint_percentile", float, 95.0, "--breakpoint-percentile", help="semantic: a gap between sentences "
        "whose embedding distance is above this percentile of the document's gaps ends a chunk (95: the 5% widest)."),
    opt("content_type", Optional[str], None, "--content-type", help="auto: force legal, narrative, code or other.",
        autocompletion=complete_content_type),
    opt("main_content", bool, False, "--main-content", help="html: keep only the main article."),
    opt("keep_boilerplate", bool, False, "--keep-boilerplate", help="html: keep navigation, headers, footers and "
        "asides."),
    opt("password", Optional[str], None, "--password", help="pdf: password of encrypted files."),
    opt("ocr", str, "auto", "--ocr", help="pdf: read pages with OCR: auto (pages without a text layer, when "
        "chunkctl[ocr] is installed), always, never.", autocompletion=complete_ocr),
]
RUN_OPTIONS = [
    opt("jobs", int, 0, "--jobs", "-j", help="Worker processes (0: all cores). 1: files run in this process, and token tables "
        "are encoded on a thread while a second core is idle. The output does not depend on it."),
    opt("quiet", bool, False, "--quiet", "-q", help="No warnings, progress or summary (errors still print)."),
    opt("include", Optional[list[str]], None, "--include", help="Only files matching this gitignore-style pattern "
        "(repeatable): '*.md' at any depth, 'docs/**/*.md'; * does not cross /."),
    opt("exclude", Optional[list[str]], None, "--exclude", help="Skip files matching this gitignore-style pattern "
        "(repeatable): 'drafts/', '*.tmp.md'."),
    opt("hidden", bool, False, "--hidden", help="Also walk hidden files and folders."),
    opt("follow_links", bool, False, "--follow-links", help="Follow symbolic links in folders that lead out of "
        "them (default: skip them with a warning)."),
    opt("max_file_size", Optional[str], None, "--max-file-size", help="Skip larger files, with a warning: bytes "
        "(1000000) or a size with a unit (10MB, 1.5GiB)."),
    opt("file_timeout", float, DEFAULT_FILE_TIMEOUT, "--file-timeout", help="Seconds one file may take before it is "
        "stopped and reported as failed (0: no limit)."),
    opt("flavour", str, "chunkctl", "--flavour", "--format", "-f", help=f"Record flavour: {', '.join(FLAVOURS)} "
        "(chunkctl: the record contract; langchain: Document; llamaindex: TextNode). --format is its old name.",
        autocompletion=complete_flavour),
    opt("cache", Optional[str], None, "--cache", help="Folder of cached records: unchanged files are not parsed "
        "again."),
    opt("engine", str, "local", "--engine", help=f"{' or '.join(ENGINES)}: worker processes here, or a Dask "
        "cluster (extra chunkctl[dask]).", autocompletion=complete_engine),
    opt("scheduler", Optional[str], None, "--scheduler", help="--engine dask: scheduler address, e.g. "
        "tcp://10.0.0.5:8786 (default: a local cluster of --jobs processes)."),
    opt("source_root", Optional[str], None, "--source-root", help="Make every record's source relative to this "
        "folder, however the files were named (folders, --from-list, names), so ids match from run to run; a file "
        "outside it fails."),
]
LLM_OPTIONS = [
    opt("llm_base_url", Optional[str], None, "--llm-base-url", help="OpenAI-compatible endpoint, e.g. "
        "http://localhost:8080/v1 (contexts, summaries, --strategy llm)."),
    opt("llm_model", Optional[str], None, "--llm-model", help="Model name sent to the endpoint."),
    opt("llm_api_key_env", Optional[str], None, "--llm-api-key-env", help="Name of the environment variable that "
        "holds the API key (default OPENAI_API_KEY); the key itself never goes on the command line."),
    opt("llm_concurrency", Optional[int], None, "--llm-concurrency", help="Model requests in flight per worker "
        "process (default 4)."),
    opt("llm_timeout", Optional[float], None, "--llm-timeout", help="Seconds one model request may take "
        "(default 60); failed requests are retried with backoff."),
    opt("contextualize", bool, False, "--contextualize", help="Prepend a model-written context to each chunk "
        "(contextual retrieval), inside the budget."),
    opt("summaries", bool, False, "--summaries", help="Add a summary record (kind summary) per long section."),
    opt("summary_min_tokens", Optional[int], None, "--summary-min-tokens", help="--summaries: sections longer "
        "than this many tokens (default: --chunk-size)."),
    opt("llm_required", bool, False, "--llm-required", help="A failed model call fails the file (default: the "
        "chunk is written without it and the run exits 1)."),
    opt("llm_dry_run", bool, False, "--llm-dry-run", help="Print how many model calls and prompt tokens the run "
        "would make; write nothing."),
]
LLM_KEYS = {o.name for o in LLM_OPTIONS}
CONFIG_OPTIONS = [
    opt("config_file", Optional[str], None, "--config", help="Read options from this TOML file (default: "
        "chunkctl.toml or [tool.chunkctl] in pyproject.toml, searched upward)."),
    opt("no_config", bool, False, "--no-config", help="Read no configuration file."),
]
STDIN_FORMAT_HELP = f"Format of the document read from '-': {format_list()}."


@dataclass
class Given:
    """The values of a command's bundled options, and which were given on the command line."""

    values: dict[str, Any]
    given: set[str]


def with_options(*bundles: list[Opt]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add bundles of options to a command; it receives them as `opts` (a `Given`).

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
            return fn(*args, opts=Given(values, given), **kwargs)

        wrapper.__signature__ = sig.replace(parameters=own + extra)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in own + extra}
        return wrapper

    return deco


def effective(opts: Given) -> tuple[dict[str, Any], dict[str, str]]:
    """Options after the configuration file: (values, origins); a bad file is a usage error."""
    from chunkctl.configfile import KEYS, PATH_KEYS, ConfigFile, load_config_file, resolve

    v = opts.values
    try:
        config_file = ConfigFile() if v.get("no_config") else load_config_file(v.get("config_file"))
    except ConfigError as exc:
        raise usage_error(str(exc)) from None
    keyed = {k: d for k, d in v.items() if k in KEYS}
    given = {k: v[k] for k in keyed if k in opts.given}
    for k in PATH_KEYS:  # relative to the current folder, as the file's are made absolute against its folder
        if isinstance(given.get(k), str) and given[k]:
            given[k] = os.path.abspath(os.path.expanduser(given[k]))
    values, origins = resolve(keyed, given, config_file)
    for k in v:
        if k not in values and k not in ("config_file", "no_config"):
            values[k], origins[k] = v[k], "command line" if k in opts.given else "default"
    tok = values.get("tokenizer")
    if isinstance(tok, str) and tok.endswith("+special"):
        # "+special" on a tokenizer is --count-special-tokens (helper-101: the flag, false by default,
        # took it off without a word, while `chunkctl config` showed it on the tokenizer)
        from chunkctl.tokenizers import without_special

        values["tokenizer"] = without_special(tok)[0]
        if not values.get("count_special_tokens"):
            values["count_special_tokens"] = True
            origins["count_special_tokens"] = origins.get("tokenizer", "command line")
    if values.pop("no_breadcrumbs", False):
        values["context"], origins["context"] = "none", "command line"
    origins.pop("no_breadcrumbs", None)
    return values, origins


def chunk_config(values: dict[str, Any], origins: dict[str, str] | None = None) -> ChunkConfig:
    """ChunkConfig from effective values, built as the library builds it (`pipeline.document.make_config`);
    a bad value is a usage error naming the fix (and the configuration file, for a value set
    there: `origins`, as `effective` gives them)."""
    from chunkctl.pipeline.document import make_config

    fields = set(ChunkConfig.field_names())
    kw = {k: val for k, val in values.items() if k in fields or k in LLM_KEYS}
    try:
        config = make_config(kw, cache=values.get("cache") or None)
        get_strategy(config.strategy)
    except ConfigError as exc:
        raise usage_error(naming_origin(str(exc), origins)) from None
    return config


def run_options(values: dict[str, Any], origins: dict[str, str] | None = None) -> RunOptions:
    """RunOptions from effective values (and the flavour checked); a bad value is a usage error
    (naming the configuration file for a value set there, as `chunk_config` does)."""
    try:
        check_flavour(values["flavour"])
        run = RunOptions(values["jobs"], parse_size(values["max_file_size"]), values["file_timeout"] or None,
                         values["engine"], values["scheduler"])
        run.ready()
    except (ConfigError, MissingExtraError) as exc:
        raise usage_error(naming_origin(str(exc), origins)) from None
    return run


_FLAG = re.compile(r"--[a-z][a-z0-9-]*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def naming_origin(message: str, origins: dict[str, str] | None) -> str:
    """`message` with "(--x set in FILE)" added for each option it names whose value came from a
    configuration file: an option the user did not type is otherwise hard to find. Text in
    quotes (a value echoed back) is not read for option names. With `levels` in force, the
    chunk size named is its smallest budget, and `--levels`'s origin is given for it."""
    if not origins:
        return message
    notes: list[str] = []
    levels = origins.get("levels", "default")
    for flag in dict.fromkeys(_FLAG.findall(_QUOTED.sub("", message))):
        key = flag[2:].replace("-", "_")
        if key == "chunk_size" and levels != "default":
            notes.append("--chunk-size is the smallest --levels budget" +
                         (f", --levels set in {levels}" if levels != "command line" else ""))
            continue
        origin = origins.get(key, "default")
        if origin not in ("command line", "default"):
            notes.append(f"{flag} set in {origin}")
    return f"{message} ({'; '.join(notes)})" if notes else message


def levels_warnings(values: dict[str, Any], origins: dict[str, str], config: ChunkConfig) -> list[str]:
    """Warnings about `--levels` (set on the command line or in the configuration file): the
    budgets it replaces (--chunk-size, --parent-chunk-size, when they were set too), and a
    strategy other than `hierarchical`, where it only sets the chunk size. `config` is the
    ChunkConfig of `values` (its chunk size is the smallest budget)."""
    if config.levels is None:
        return []
    out = []
    smallest = config.chunk_size
    unused = [f"--{key.replace('_', '-')} {values[key]} ({origins.get(key, 'command line')})"
              for key in ("chunk_size", "parent_chunk_size") if origins.get(key, "default") != "default"
              and not (key == "chunk_size" and values[key] == smallest)]  # (as `chunkctl config` writes it)
    if unused:
        out.append(f"--levels replaces {' and '.join(unused)}: its budgets are used, the smallest as the chunk size")
    if config.strategy != "hierarchical":
        out.append(f"--levels ({origins.get('levels', 'command line')}) is for --strategy hierarchical; with "
                   f"{config.strategy} it only sets the chunk size, to its smallest budget ({smallest} tokens)")
    return out


def ready(config: ChunkConfig, origins: dict[str, str] | None = None) -> None:
    """Check the strategy, tokenizer and extras now, so a problem is a usage error, not N failures
    (naming the configuration file for a value set there: `origins`, as `effective` gives them)."""
    from chunkctl.pipeline import prepare

    try:
        prepare(config)
    except TokenizerError as exc:  # (its message names the tokenizer, not the option)
        message = str(exc) if "--tokenizer" in str(exc) else f"--tokenizer: {exc}"
        raise usage_error(naming_origin(message, origins)) from None
    except (ConfigError, MissingExtraError) as exc:
        raise usage_error(naming_origin(str(exc), origins)) from None
