"""The typer app: registers each command (one module each) and maps uncaught chunkctl errors to one line and an exit code."""

from __future__ import annotations

import atexit
import errno
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Annotated, Any, NoReturn

import typer

from chunkctl.__about__ import __version__
from chunkctl.cli import console
from chunkctl.cli.chunk import chunk
from chunkctl.cli.commands import config_cmd, extract, inspect_cmd, schema, stats_cmd
from chunkctl.cli.console import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, print_line
from chunkctl.cli.evaluation import eval_app
from chunkctl.cli.view import view_cmd
from chunkctl.errors import ChunkctlError


def _new_app() -> typer.Typer:
    """The `chunkctl` group, without its commands."""
    return typer.Typer(
        name="chunkctl",
        help="Chunk documents (txt, Markdown, PDF, HTML) into token-budgeted JSONL for RAG.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # help texts hold literal brackets: chunkctl[dask], [tool.chunkctl]
        context_settings={"help_option_names": ["-h", "--help"]},
    )


app = _new_app()


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


# The commands, in the order `chunkctl --help` lists them (`eval` is a group of its own).
_COMMANDS: dict[str, Callable[..., Any]] = {
    "chunk": chunk, "config": config_cmd, "inspect": inspect_cmd, "stats": stats_cmd, "extract": extract,
    "view": view_cmd}
for _name, _command in _COMMANDS.items():
    app.command(_name)(_command)
app.add_typer(eval_app, name="eval")
app.command("schema")(schema)
_COMMANDS["schema"] = schema


def _app_for(argv: list[str]) -> typer.Typer:
    """The app that runs `argv`: when its first word names a command, a `chunkctl` group that
    holds only that command (same options, help and errors: typer builds every registered
    command's options at each start, about 30 ms of a 0.3 s run of one small file), else
    the whole app (`--help`, `--version`, `eval`, shell completion, unknown commands)."""
    command = _COMMANDS.get(argv[1]) if len(argv) > 1 else None
    if command is None:
        return app
    one = _new_app()
    one.callback()(main)
    one.command(argv[1])(command)
    return one


def _escape_what_stdout_cannot_encode() -> None:
    """Standard output in an encoding that is not UTF (`PYTHONIOENCODING=ascii`, a Latin-1 terminal) writes the
    characters it cannot encode as `\\uXXXX` escapes, as Python's standard error does, instead of failing
    with a traceback in `inspect` or `stats` (records go out as UTF-8 bytes whatever the encoding)."""
    enc = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    if enc and not enc.startswith("utf"):
        try:
            sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass


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
    _closed_streams_fail_cleanly()
    _escape_what_stdout_cannot_encode()
    try:
        code = _app_for(sys.argv)(standalone_mode=False)
        sys.stdout.flush()  # (what a command printed: a full disk or a closed pipe shows here, not after the exit)
    except ChunkctlError as exc:
        print_line("error", str(exc))
        sys.exit(EXIT_FAILED)
    except BrokenPipeError:  # the reader of standard output went away (`| head`): nothing to say
        console.drop_stdout()
        sys.exit(EXIT_OK)
    except OSError as exc:  # standard output or input that cannot be used (a full disk, closed)
        console.drop_stdout()
        print_line("error", _stream_error(exc))
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


class _ClosedStream:
    """Stands in for a standard stream the process was started without (`>&-`, `<&-`:
    Python then sets `sys.stdout` or `sys.stdin` to None): using it raises OSError(EBADF)
    with a message naming the stream, which `run` prints as one line; a command that never
    uses it runs as before."""

    def __init__(self, name: str) -> None:
        self.name = name

    def _closed(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise OSError(errno.EBADF, f"{self.name} is closed")

    write = read = readline = readlines = writelines = fileno = _closed

    @property
    def buffer(self) -> NoReturn:
        self._closed()

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False


def _closed_streams_fail_cleanly() -> None:
    if sys.stdout is None:
        sys.stdout = _ClosedStream("standard output")
    if sys.stdin is None:
        sys.stdin = _ClosedStream("standard input")


def _stream_error(exc: OSError) -> str:
    """One line for an OSError no command reported: a file's (named) or standard output's."""
    reason = exc.strerror or str(exc) or exc.__class__.__name__
    if exc.filename:
        return f"{os.fsdecode(exc.filename)}: {reason}"
    if reason.startswith("standard "):
        return reason
    return f"cannot write standard output: {reason}"


def entry_point() -> NoReturn:
    """The `chunkctl` console script and `python -m chunkctl`: `run`, then the process ends
    without the interpreter's teardown.

    Freeing what a run built (the tokenizer's 100,000-entry tables in tiktoken's Rust
    encoder and in Python, the modules) took 50-80 ms of a 0.3 s run of one small file,
    after the last line was printed. So once `run` has finished, when no thread is left to
    wait for, the standard streams are flushed, the `atexit` functions run (as at a
    normal exit: worker processes ended, logs flushed, temporary files closed) and the
    process exits at once with `run`'s code (`os._exit`). Otherwise (a thread still to
    join, a stream that cannot be flushed, an exit message) the exit is the usual one.
    `run` itself raises `SystemExit` as before, for callers that embed it.
    """
    try:
        run()
    except SystemExit as exc:
        _exit_without_teardown(exc)
    raise SystemExit(EXIT_OK)  # (`run` always exits)


def _exit_without_teardown(exc: SystemExit) -> NoReturn:
    """End the process with `exc`'s code after flushing and `atexit`, or raise `exc` when that
    would drop anything (see `entry_point`)."""
    code = exc.code
    if code is not None and type(code) is not int:
        raise exc  # (a message to print: the interpreter prints it)
    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        raise exc
    _flush_or_raise(exc)
    atexit._run_exitfuncs()
    _flush_or_raise(exc)
    os._exit(code or 0)


def _flush_or_raise(exc: SystemExit) -> None:
    """Flush standard output and error, or raise `exc` (the normal exit) when that fails."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        raise exc from None


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
        message += f" (see '{ctx.command_path.rstrip()} --help')"
    print_line("error", message)
    sys.exit(code)

