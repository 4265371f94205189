"""One-line messages on stderr (through the progress display when there is one), exit codes and stop signals."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any

import typer

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130  # a stop signal N exits with 128 + N


def drop_stdout() -> None:
    """Point standard output at the null device, so that nothing left in its buffer is
    written (and fails) again at the exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:
        pass


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cancelled CI job) or SIGHUP (a closed terminal): stop as cleanly as on Ctrl-C."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signum)
        self.signum = int(signum)


_deferred: list[int] = []
_deferring = False
OWNS_PROCESS = False
"""True when the CLI runs as its own process (the console script): the process ends with the command, so a
stop signal that comes after the last line was printed is ignored (see `end_stop_signals`)."""


_unreported: list[int] = []  # stop signals raised as exceptions that no command has reported yet


def _on_stop_signal(signum: int, frame: Any) -> None:
    if _deferring:
        _deferred.append(int(signum))
        return
    _unreported.append(int(signum))
    exc: KeyboardInterrupt = KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)
    run = sys.modules.get("chunkctl.pipeline.run")
    if run is not None:  # a native library may swallow the exception: the run raises it again
        run.note_stop(exc)
    raise exc


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
_hook: list[Any] = []  # the `sys.unraisablehook` that `catch_stop_signals` replaced


def _unraisable(info: Any) -> None:
    """`sys.unraisablehook` while stop signals are caught: the exception of a stop signal that came
    while a `__del__` or a gc callback ran cannot leave it; the run raises it again between steps
    (`pipeline.run.note_stop`) and the command reports it, so it is no error to print (CI: a
    SIGTERM during a `regex` compile printed "Exception ignored in SetBase.__del__" and its
    traceback). Other unraisable exceptions go to the hook it replaced."""
    if isinstance(info.exc_value, KeyboardInterrupt) and _unreported:
        return
    (_hook[0] if _hook else sys.__unraisablehook__)(info)


def catch_stop_signals(on: bool) -> None:
    """Turn SIGTERM and SIGHUP into `Terminated`, Ctrl-C into KeyboardInterrupt (on), or back to their defaults (off).

    Turning them off also ends `defer_stop_signals` and forgets a deferred signal.
    """
    global _deferring
    for sig in STOP_SIGNALS:
        signal.signal(sig, _on_stop_signal if on else signal.SIG_DFL)
    signal.signal(signal.SIGINT, _on_stop_signal if on else signal.default_int_handler)
    if on and sys.unraisablehook is not _unraisable:
        _hook[:] = [sys.unraisablehook]
        sys.unraisablehook = _unraisable
    if not on:
        if sys.unraisablehook is _unraisable:
            sys.unraisablehook = _hook[0] if _hook else sys.__unraisablehook__
        _deferring = False
        _deferred.clear()


def stop_reported() -> None:
    """The command has said what a stop signal did (`unreported_stop` is None again)."""
    _unreported.clear()


def unreported_stop() -> int | None:
    """The last stop signal raised as an exception that no command reported, or None: the
    console script then says it (typer turns the exception into exit code 130, silently)."""
    return _unreported[-1] if _unreported else None


def defer_stop_signals() -> None:
    """From now on, a stop signal caught by `catch_stop_signals` is only noted (see `deferred_stop_signal`).

    For the last steps of a run (moving outputs into place, the summary): once they
    begin, the outputs land whole and what is printed says so, whatever arrives.
    """
    global _deferring
    _deferring = True


@contextlib.contextmanager
def stop_signals_held() -> Iterator[None]:
    """Hold stop signals for the block: one that comes in it is raised when the block ends.

    For steps whose result must be known to clean it up, such as opening an output (its
    temporary file exists before the object that removes it is returned). Inside
    `defer_stop_signals` nothing changes.
    """
    global _deferring
    if _deferring:
        yield
        return
    _deferring = True
    try:
        yield
    finally:
        _deferring = False
    if _deferred:
        signum = _deferred[0]
        _deferred.clear()
        _unreported.append(signum)
        raise KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def deferred_stop_signal() -> int | None:
    """The first stop signal noted since `defer_stop_signals`, or None."""
    return _deferred[0] if _deferred else None


def end_stop_signals() -> None:
    """The command has said its last line: from now on a stop signal changes nothing.

    In the console script (`OWNS_PROCESS`) the stop signals are ignored until the
    process exits: Python restores the default action of a handled signal while it
    shuts down, and a signal in that window would kill a finished, reported run
    silently (exit 143 after a complete output). An ignored signal stays ignored. A
    caller running the CLI inside its own process gets the default handlers back
    instead.
    """
    if OWNS_PROCESS:
        for sig in (*STOP_SIGNALS, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
    else:
        catch_stop_signals(False)


_CONTROL_ESCAPES = ({c: f"\\x{c:02x}" for c in (*range(0x20), 0x7f)} | {c: f"\\u{c:04x}" for c in range(0x80, 0xa0)}
                    | {0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t"})
# A document's text on a terminal: line breaks and tabs stay, a page break (form feed) is shown as
# U+240C and a line break, and every other C0/C1 control is escaped as in `one_line`, so an escape
# sequence in a document (ESC [, OSC titles, 8-bit CSI) is shown, never obeyed by the terminal.
_TEXT_ESCAPES = _CONTROL_ESCAPES | {0x0a: "\n", 0x09: "\t", 0x0c: "\u240c\n"}


def one_line(msg: str) -> str:
    """`msg` with control characters escaped (\\n, \\t, \\x00; a C1 control as \\u0085, apart from an
    undecodable byte's \\x85): a file name with a line break stays on one line, and one with an escape
    sequence cannot drive the terminal. A path's bytes that are not UTF-8 (lone surrogates, as Python
    holds them) are written as `\\xNN`, the rule of `source` (helper-114: `-o`, `--errors` and other
    paths in messages showed `\\udcff`)."""
    if any("\udc80" <= ch <= "\udcff" for ch in msg):
        from chunkctl.pipeline.inputs import source_name  # (the rule's one place; loaded only when needed)

        msg = source_name(msg)
    return msg.translate(_CONTROL_ESCAPES)


def shown_text(text: str) -> str:
    """A document's `text` as shown on a terminal (`inspect`): CRLF or a lone CR becomes one line break,
    a form feed (page break) becomes U+240C and a line break, and any other control character is
    escaped as `one_line` does (`\\x1b`), so a document cannot send the terminal escape sequences.
    Display only: the number of characters changes."""
    return text.replace("\r\n", "\n").replace("\r", "\n").translate(_TEXT_ESCAPES)


def print_line(kind: str, msg: str) -> None:
    """`chunkctl: KIND: MSG` on stderr, on one line (outside a progress display)."""
    print(f"chunkctl: {kind}: {one_line(msg)}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def warnings_as_lines(say: Callable[[str], None], documents: bool = True) -> Iterator[None]:
    """Python warnings shown meanwhile (a document's `DocumentWarning`, "<source>: <what>"; a
    model call that failed) said through `say`, one line each, after the block, not in
    Python's two-line form that names a line of chunkctl's code (helper-65: `inspect` and
    `view` printed them so). `documents=False` drops `DocumentWarning`s, for a caller
    that prints each document's warnings itself."""
    import warnings

    from chunkctl.errors import DocumentWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DocumentWarning)
        try:
            yield
        finally:
            lines = [str(w.message) for w in caught if documents or not issubclass(w.category, DocumentWarning)]
            for line in dict.fromkeys(lines):  # (once each: inspect reads a document once per strategy)
                say(line)


def usage_error(msg: str) -> typer.Exit:
    """Print a usage error line and return the exit (code 2) to raise."""
    print_line("error", msg)
    return typer.Exit(EXIT_USAGE)


class Console:
    """One-line messages on stderr, through the live progress display when there is one."""

    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.live: Any = None
        self._rich: Any = None

    @property
    def rich(self) -> Any:
        if self._rich is None:
            from rich.console import Console as RichConsole

            self._rich = RichConsole(stderr=True, highlight=False)
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

    def say(self, kind: str, msg: str) -> None:
        """`error` or `warn` by kind ("error" or "warning")."""
        (self.error if kind == "error" else self.warn)(msg)


def warn_selection(con: Console, found: Any) -> None:
    """Say what the input selection left out (`pipeline.gather`'s result): files named on the
    command line that no loader reads, symbolic links that lead out of a folder, and patterns
    that matched nothing; one warning line each (`chunk` and `view` alike)."""
    from chunkctl.loaders import format_list
    from chunkctl.pipeline.inputs import source_name

    for source in found.unsupported_named:
        con.warn(f"{source}: skipped, no loader for its extension ({format_list('and')} are read)")
    for source in found.outside:
        con.warn(f"{source}: skipped, a symbolic link that leads out of the folder (--follow-links follows it)")
    for pattern in found.unmatched:
        con.warn(f"{pattern} matched no file")
    for given, n, earlier in found.repeated:  # (`docs docs/sub`: each file chunked once)
        files = "" if not os.path.isdir(given) else "1 file was " if n == 1 else f"{n} files were "
        con.warn(f"{source_name(given)}: {files}taken through {source_name(earlier)} already; chunked once, with the "
                 f"source {source_name(earlier)} gives {'it' if n == 1 else 'them'}")
