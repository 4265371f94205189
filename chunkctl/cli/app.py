"""The typer app: registers each command (one module each) and maps uncaught chunkctl errors to one line and an exit code."""

from __future__ import annotations

import signal
import sys
from typing import Annotated, NoReturn

import typer

from chunkctl.__about__ import __version__
from chunkctl.cli import console
from chunkctl.cli.chunk import chunk
from chunkctl.cli.commands import config_cmd, extract, inspect_cmd, schema, stats_cmd
from chunkctl.cli.console import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, print_line
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
    """Console-script entry point.

    Every failure ends in one `chunkctl: error: ...` line on stderr and an exit code:
    click's usage errors too (an unknown option, `--jobs abc`), which it would print as
    a usage block of four lines, with the command's `--help` named in the line.
    """
    console.OWNS_PROCESS = True
    # A stop signal while the command reads its options, its configuration or the folder
    # (before `chunk` opens any output) ends it with one line too, not a silent 143.
    console.catch_stop_signals(True)
    try:
        code = app(standalone_mode=False)
    except ChunkctlError as exc:
        print_line("error", str(exc))
        sys.exit(EXIT_FAILED)
    except Exception as exc:
        if not _is_click_error(exc):
            raise
        _click_error(exc)
    except KeyboardInterrupt as exc:
        # (before typer handles it: a stop signal while the command is being built)
        console.catch_stop_signals(False)
        stop = exc.signum if isinstance(exc, console.Terminated) else int(signal.SIGINT)
        print_line("error", "interrupted" if stop == signal.SIGINT else f"stopped by {signal.Signals(stop).name}")
        sys.exit(EXIT_INTERRUPTED if stop == signal.SIGINT else 128 + stop)
    signum = console.unreported_stop()
    if signum is not None and code == EXIT_INTERRUPTED:  # typer made the signal's exception exit 130
        console.catch_stop_signals(False)
        print_line("error", "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}")
        sys.exit(128 + signum)
    # A command's own exit (typer.Exit(code)) comes back as its code; a command that returns
    # normally gives None (0). Only a plain int is an exit code, never another return value.
    sys.exit(code if type(code) is int else EXIT_OK)


def _is_click_error(exc: BaseException) -> bool:
    """True for click's own errors (usage errors, Abort), whichever click raised them:
    typer before 0.22 raises the `click` package's, later versions their vendored copy's
    (`typer._click`), so they are known by their interface, not by their class."""
    names = {c.__name__ for c in type(exc).__mro__}
    return "ClickException" in names or "Abort" in names


def _click_error(exc: Exception) -> NoReturn:
    """Print click error `exc` as one line (the help text for a bare `chunkctl`) and exit."""
    name = type(exc).__name__
    if name == "NoArgsIsHelpError":
        exc.show()  # type: ignore[attr-defined]
        sys.exit(EXIT_USAGE)
    if "Abort" in {c.__name__ for c in type(exc).__mro__}:  # end of input or Ctrl-C at a prompt
        print_line("error", "interrupted")
        sys.exit(EXIT_INTERRUPTED)
    message = exc.format_message()  # type: ignore[attr-defined]
    ctx = getattr(exc, "ctx", None)
    code = getattr(exc, "exit_code", EXIT_FAILED)
    if code == EXIT_USAGE and ctx is not None:
        message += f" (see '{ctx.command_path} --help')"
    print_line("error", message)
    sys.exit(code)

