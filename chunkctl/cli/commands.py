"""`chunkctl config`, `inspect`, `stats`, `extract` and `schema`: each a thin wiring of library calls."""

from __future__ import annotations

import contextlib
import sys
from typing import Annotated, Any, Optional

import typer

from chunkctl.cli.console import EXIT_FAILED, EXIT_OK, EXIT_USAGE, print_line, usage_error, warnings_as_lines
from chunkctl.cli.options import (
    CHUNK_OPTIONS,
    CONFIG_OPTIONS,
    LLM_OPTIONS,
    RUN_OPTIONS,
    chunk_config,
    effective,
    levels_warnings,
    ready,
    run_options,
    with_options,
)
from chunkctl.errors import ConfigError, LoaderError


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

    values, origins = effective(opts)
    config = chunk_config(values, origins)
    run_options(values, origins)
    ready(config, origins)  # (a tokenizer or extra a run would refuse: refused here too)
    for line in levels_warnings(values, origins, config):
        print_line("warning", line)
    if config.levels is not None:  # the chunk size in force is its smallest budget
        values["chunk_size"], origins["chunk_size"] = config.chunk_size, f"--levels ({origins.get('levels')})"
    values.pop("password", None)
    if origins.get("tokenizer") == "command line" and isinstance(values.get("tokenizer"), str):
        from pathlib import Path

        from chunkctl.configfile import tokenizer_path

        values["tokenizer"] = tokenizer_path(Path.cwd(), values["tokenizer"])  # (written absolute, as paths are)
    if as_json:
        sys.stdout.buffer.write(orjson.dumps({"values": values, "origins": origins}, option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
    elif sys.stdout.isatty():
        from rich.console import Console

        from chunkctl.cli.render import config_table

        Console(highlight=False).print(config_table(values, origins))
    else:
        print(config_toml(values, origins), end="")


def config_toml(values: dict[str, Any], origins: dict[str, str]) -> str:
    """The effective options as a configuration file that `chunkctl` reads back to the same values.

    Keys a file may hold (`chunkctl.configfile.KEYS`) are written as TOML with their
    origin in a comment; an option that is not set, and the command-line-only ones
    (`quiet`, `llm-dry-run`, ...), are comments, so `chunkctl config > chunkctl.toml`
    gives a file that `chunkctl` accepts.
    """
    import orjson

    from chunkctl.configfile import KEYS

    lines = []
    for key, value in values.items():
        name = key.replace("_", "-")
        if key not in KEYS:
            lines.append(f"# {name} = {orjson.dumps(value).decode()}  (command line only; {origins[key]})")
        elif value is None:
            lines.append(f"# {name} is not set  ({origins[key]})")
        else:
            if isinstance(value, str) and value.isascii() and value.isdigit() and KEYS[key] == (int, str):
                value = int(value)  # (`overlap = 0`, not "0": a count, a percentage "15%" stays a string)
            lines.append(f"{name} = {orjson.dumps(value).decode()}  # {origins[key]}")
    return "\n".join(lines) + "\n"


@with_options(CHUNK_OPTIONS, CONFIG_OPTIONS)
def inspect_cmd(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="The file to chunk and show.", show_default=False)],
    preview: Annotated[int, typer.Option("--preview", min=0, help="Show at most this many characters of each chunk "
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
        raise usage_error("inspect reads a file, not standard input: save the document to a file first")
    values, origins = effective(opts)
    config = chunk_config(values, origins)
    ready(config, origins)
    for line in levels_warnings(values, origins, config):
        print_line("warning", line)
    try:
        with warnings_as_lines(lambda line: print_line("warning", line)):
            views = inspect_file(file, config)
    except LoaderError as exc:
        print_line("error", str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    Console(highlight=False).print(chunk_panels(views, preview))


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
        print_line("error", f"{file}: cannot read it ({exc.strerror or exc})")
        raise typer.Exit(EXIT_USAGE) from None
    try:
        with contextlib.closing(stream) if file != "-" else contextlib.nullcontext():
            st = read_stats(stream)
    except (OSError, EOFError) as exc:
        print_line("error", f"{file}: cannot read it ({exc})")
        raise typer.Exit(EXIT_FAILED) from None
    if not st.records and st.violations:  # not chunk records at all (a README, a CSV): one line, not a table
        first = st.violations[0]
        print_line("error", f"{file}: not chunkctl JSONL records (line {first.line}: {first.message}; "
                            f"{len(st.violations)} such lines)")
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

        from chunkctl.cli.charts import size_chart
        from chunkctl.cli.render import stats_tables

        console = Console(highlight=False)
        if st.sizes:
            console.print(size_chart(st.sizes, st.budget, console.width), "")
        console.print(stats_tables(st, top))
    raise typer.Exit(EXIT_FAILED if st.violations else EXIT_OK)


def extract(
    file: Annotated[str, typer.Argument(help="The file whose document text to print.", show_default=False)],
    blocks: Annotated[bool, typer.Option("--blocks", help="Print the typed blocks as JSONL instead.")] = False,
    encoding: Annotated[Optional[str], typer.Option("--encoding", help="Force the text encoding.")] = None,
    main_content: Annotated[bool, typer.Option("--main-content", help="html: keep only the main article.")] = False,
    keep_boilerplate: Annotated[bool, typer.Option("--keep-boilerplate", help="html: keep page furniture.")] = False,
    password: Annotated[Optional[str], typer.Option("--password", help="pdf: password.")] = None,
    ocr: Annotated[str, typer.Option("--ocr", help="pdf: auto, always or never (as for chunk).")] = "auto",
) -> None:
    """Print the document text that chunk offsets (start, end) index, as UTF-8.

    Examples:

    \b
      chunkctl extract report.pdf > report.txt
      chunkctl extract page.html --blocks | jq -c '[.kind, .headings]'
    """
    import orjson

    from chunkctl.config import ChunkConfig
    from chunkctl.errors import MissingExtraError
    from chunkctl.pipeline import load
    from chunkctl.pipeline.document import check_loader_extras

    try:
        config = ChunkConfig(encoding=encoding, main_content=main_content, keep_boilerplate=keep_boilerplate,
                             password=password, ocr=ocr)
        check_loader_extras(config)  # (a missing extra is a usage error, as for chunk: exit 2)
    except (ConfigError, MissingExtraError) as exc:
        raise usage_error(str(exc)) from None
    if file == "-":
        raise usage_error("extract reads a file, not standard input: save the document to a file first")
    try:
        doc = load(file, config)
    except LoaderError as exc:
        print_line("error", str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    for w in doc.warnings:
        print_line("warning", f"{file}: {w}")
    out = sys.stdout.buffer
    if blocks:
        for b in doc.blocks:
            d = b.to_dict()
            d["text"] = doc.text[b.start:b.end]
            out.write(orjson.dumps(d, option=orjson.OPT_APPEND_NEWLINE))
    else:
        out.write(doc.text.encode("utf-8", "surrogatepass"))
    out.flush()


def schema() -> None:
    """Print the JSON Schema of one output record (contract v1).

    Example:

    \b
      chunkctl schema > chunk-record.schema.json
    """
    import orjson

    from chunkctl.contract.schema import record_schema

    sys.stdout.buffer.write(orjson.dumps(record_schema(), option=orjson.OPT_INDENT_2) + b"\n")
