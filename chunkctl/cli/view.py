"""`chunkctl view`: documents and their chunks as one self-contained HTML page (chunked here, or from a JSONL file)."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Annotated, Any, Optional

import typer

from chunkctl.cli.console import EXIT_FAILED, EXIT_OK, Console, usage_error, warn_selection, warnings_as_lines
from chunkctl.cli.options import (
    CHUNK_OPTIONS,
    CONFIG_OPTIONS,
    RUN_OPTIONS,
    chunk_config,
    effective,
    levels_warnings,
    ready,
    with_options,
)
from chunkctl.errors import ConfigError, OutputError

SELECT_OPTIONS = [o for o in RUN_OPTIONS if o.name in ("quiet", "include", "exclude", "hidden", "follow_links",
                                                       "source_root")]
LOADING = {"encoding", "main_content", "keep_boilerplate", "password", "ocr"}
"""Chunking options that also shape the document text, so they apply with --records too."""


@with_options(CHUNK_OPTIONS, SELECT_OPTIONS, CONFIG_OPTIONS)
def view_cmd(
    ctx: typer.Context,
    paths: Annotated[list[str], typer.Argument(help="Files and folders to show (folders recursively, in sorted "
                                               "order), as given to `chunk`.", show_default=False)],
    output: Annotated[str, typer.Option("-o", "--output", help="Write the HTML page here, atomically.",
                                        show_default=False)],
    records: Annotated[Optional[str], typer.Option("--records", help="Show the records of this JSONL file (.gz, any "
                                                   "--flavour; '-': standard input) instead of chunking; give the "
                                                   "folder they were made from.")] = None,
    title: Annotated[Optional[str], typer.Option("--title", help="Title of the page [default: chunkctl view: "
                                                 "PATHS].", show_default=False)] = None,
    opts: Any = None,
) -> None:
    """Write an HTML page that shows each document's text with its chunks drawn over it, and plots of the sizes.

    Each chunk body is coloured (neighbours alternate; overlaps are striped), with its
    index and its prefix (breadcrumb, repeated table header) at its start; pointing at
    a chunk shows its record. A folder gives an index with per-file sizes and
    failures, a histogram of chunk sizes against the budget and the chunks per
    document. The page is one file: no network, nothing to install to open it.

    Without --records the documents are chunked here with the options of `chunk` (and
    the configuration file); with --records the records are shown, matched to the
    documents by source and checked against their text.

    Examples:

    \b
      chunkctl view docs/guide.md -o guide.html --chunk-size 256
      chunkctl view ./docs --strategy sentence -o view.html
      chunkctl chunk ./docs -o chunks.jsonl && chunkctl view ./docs --records chunks.jsonl -o view.html

    Exit codes: 0 every document shown; 1 some could not be (each named on stderr and
    in the page's index; the page is still written); 2 bad usage.
    """
    from chunkctl import pipeline
    from chunkctl.loaders import format_for
    from chunkctl.output.checks import check_not_read_back, check_outputs
    from chunkctl.output.writer import Output
    from chunkctl.view import chunk_views, read_records, record_views, render_view

    values, origins = effective(opts)
    con = Console(values["quiet"])
    config = chunk_config(values, origins)
    if records is not None:
        ignored = sorted(n for n in opts.given if n in {o.name for o in CHUNK_OPTIONS} - LOADING)
        if ignored:
            raise usage_error(f"--{ignored[0].replace('_', '-')} has no effect with --records: the records were "
                              "already chunked (only --encoding, --main-content, --keep-boilerplate, --password and --ocr "
                              "apply)")
    if output == "-" or not output:
        raise usage_error("-o: give the HTML file to write (the page is not written to standard output)")
    if "-" in paths:
        raise usage_error("view reads files and folders, not standard input: save the document to a file first")
    try:
        found = pipeline.gather(paths, include=values["include"] or (), exclude=values["exclude"] or (),
                                hidden=values["hidden"], follow_links=values["follow_links"],
                                source_root=values["source_root"])
        check_outputs(output, None, None, found.inputs)
        # (helper-117: `view docs -o docs/view.html` was written, and the next `chunk docs` read it)
        check_not_read_back([("-o", output)], found.folders, bool(values["hidden"]),
                            lambda path: format_for(path) is not None)
        if records not in (None, "-") and os.path.realpath(records) == os.path.realpath(output):
            raise ConfigError(f"-o {output} is also the --records file: it would be overwritten")
    except ConfigError as exc:
        raise usage_error(str(exc)) from None
    for p in found.problems:
        con.error(str(p))
    warn_selection(con, found)
    if not any(i.format for i in found.inputs):
        con.error(f"no document to show among {len(found.inputs)} files selected (no loader for their extensions)"
                  if found.inputs else "no input files selected; nothing written")
        raise typer.Exit(EXIT_FAILED)
    record_file = None
    if records is not None:
        try:
            stream = sys.stdin.buffer if records == "-" else open(records, "rb")
        except OSError as exc:
            raise usage_error(f"--records {records}: cannot read it ({exc.strerror or exc})") from None
        try:
            with contextlib.closing(stream) if records != "-" else contextlib.nullcontext():
                record_file = read_records(stream)
        except (OSError, EOFError) as exc:
            raise usage_error(f"--records {records}: cannot read it ({exc})") from None
        if record_file.bad_lines:
            lines = record_file.bad_lines
            con.warn(f"{records}: {len(lines)} line{'s' if len(lines) != 1 else ''} left out, not a record "
                     f"(first: line {lines[0]})")
    else:
        ready(config, origins)
        for line in levels_warnings(values, origins, config):
            con.warn(line)

    def done(view: Any) -> None:
        if view.error is not None:
            con.error(f"{view.source}: {view.error}")
        for w in view.warnings:
            con.warn(f"{view.source}: {w}")

    started = time.monotonic()
    with warnings_as_lines(con.warn, documents=False):  # (`done` says each document's warnings)
        if record_file is not None:
            views = record_views(found.inputs, record_file, config, done)
        else:
            views = chunk_views(found.inputs, config, done)
    page = render_view(views, title or "chunkctl view: " + " ".join(paths)).encode("utf-8")
    try:
        out = Output(output)
        out.write(page)
        out.commit()
    except OutputError as exc:
        con.error(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    failed = sum(1 for v in views if not v.shown) + len(found.problems)
    shown = sum(1 for v in views if v.shown)
    if not values["quiet"]:
        print(f"chunkctl: view: {output}: {shown} document{'s' if shown != 1 else ''} shown, "
              f"{sum(len(v.records) for v in views if v.shown)} chunks, {failed} failed, "
              f"{len(page) / 1e6:.2f} MB, {time.monotonic() - started:.2f} s", file=sys.stderr, flush=True)
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)
