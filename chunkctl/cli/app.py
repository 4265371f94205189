"""The typer app: registers each command (one module each) and maps uncaught chunkctl errors to one line and an exit code."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from chunkctl.__about__ import __version__
from chunkctl.cli import console
from chunkctl.cli.chunk import chunk
from chunkctl.cli.commands import config_cmd, extract, inspect_cmd, schema, stats_cmd
from chunkctl.cli.console import EXIT_FAILED, EXIT_INTERRUPTED, print_line
from chunkctl.cli.evaluation import eval_app
from chunkctl.cli.view import view_cmd
from chunkctl.errors import ChunkctlError

app = typer.Typer(
    name="chunkctl",
    help="Chunk documents (txt, Markdown, PDF, HTML) into token-budgeted JSONL for RAG.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts hold literal brackets: chunkctl[dask], [tool.chunkctl]
    context_settings={"help_option_names": ["-h", "--help"]},
)


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


app.command("chunk")(chunk)
app.command("config")(config_cmd)
app.command("inspect")(inspect_cmd)
app.command("stats")(stats_cmd)
app.command("extract")(extract)
app.command("view")(view_cmd)
app.add_typer(eval_app, name="eval")
app.command("schema")(schema)


def run() -> None:
    """Console-script entry point."""
    console.OWNS_PROCESS = True
    try:
        app()
    except ChunkctlError as exc:
        print_line("error", str(exc))
        sys.exit(EXIT_FAILED)
    except KeyboardInterrupt:
        print_line("error", "interrupted")
        sys.exit(EXIT_INTERRUPTED)
