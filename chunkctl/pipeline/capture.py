"""What libraries say while one file is processed (logging, Python warnings, native writes to stderr), kept as that file's warnings."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from typing import IO

MAX_LINES = 20
"""At most this many distinct library messages are kept per file; a last line says how many more there were."""

_FD_LOCK = threading.Lock()
_tmp: IO[bytes] | None = None  # one scratch file per process for native stderr


class _Collect(logging.Handler):
    def __init__(self, out: list[str]):
        super().__init__(logging.WARNING)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.out.append(f"{record.name}: {record.getMessage()}")
        except Exception:  # a library's broken format string must not break the file
            self.out.append(f"{record.name}: {record.msg!r}")


@contextlib.contextmanager
def _native_stderr(out: list[str]) -> Iterator[None]:
    """Send writes to file descriptor 2 (C libraries) to a scratch file, then into `out`, line by line.

    Python's own `sys.stderr` keeps going to the real stderr meanwhile, so a progress
    display drawn by another thread is not swallowed. Only one capture at a time in a
    process: a second thread (a multi-threaded Dask worker) runs without it rather
    than take the other file's messages.
    """
    global _tmp
    if not _FD_LOCK.acquire(blocking=False):
        yield
        return
    saved = old_stderr = None
    try:
        try:
            if _tmp is None:
                _tmp = tempfile.TemporaryFile()
                atexit.register(_tmp.close)
            sys.stderr.flush()
            saved = os.dup(2)
            if threading.active_count() > 1:  # e.g. a progress display drawn by another thread
                old_stderr = sys.stderr
                sys.stderr = open(saved, "w", closefd=False, buffering=1, errors="backslashreplace",
                                  encoding=getattr(old_stderr, "encoding", None) or "utf-8")
            os.dup2(_tmp.fileno(), 2)
        except (OSError, ValueError, AttributeError):  # no fd 2 (a service), or it cannot be duplicated
            if saved is not None:
                os.close(saved)
                saved = None
            if old_stderr is not None:
                sys.stderr = old_stderr
            yield
            return
        try:
            yield
        finally:
            if old_stderr is not None:
                with contextlib.suppress(OSError, ValueError):
                    sys.stderr.flush()
                sys.stderr = old_stderr
            os.dup2(saved, 2)
            os.close(saved)
            if os.fstat(_tmp.fileno()).st_size:
                _tmp.seek(0)
                data = _tmp.read(1 << 16)
                _tmp.seek(0)
                _tmp.truncate()
                out.extend(line.strip() for line in data.decode("utf-8", "backslashreplace").splitlines()
                           if line.strip())
    finally:
        _FD_LOCK.release()


@contextlib.contextmanager
def library_messages(out: list[str]) -> Iterator[None]:
    """Collect what libraries report while the block runs, instead of letting it reach stderr unnamed.

    Three channels are caught: `logging` records of level WARNING and above (e.g.
    pypdfium2's "A circular bookmark reference was detected ..."), Python warnings
    (`warnings.warn`), and bytes C libraries write to file descriptor 2. Each message
    becomes one line appended to `out` (`"<logger>: <message>"`, `"<Warning class>:
    <message>"` or the native line as written); the caller names the file.

    Args:
        out: the list the lines are appended to (duplicates removed, at most
            MAX_LINES kept, see `tidy`).
    """
    handler = _Collect(out)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught, _native_stderr(out):
            warnings.simplefilter("always")
            yield
        for w in caught:
            out.append(f"{w.category.__name__}: {w.message}")
    finally:
        root.removeHandler(handler)
    out[:] = tidy(out)


def tidy(lines: list[str]) -> list[str]:
    """Distinct lines in first-seen order, at most MAX_LINES, with a last line counting the rest."""
    seen = dict.fromkeys(lines)
    kept = list(seen)[:MAX_LINES]
    if len(seen) > MAX_LINES:
        kept.append(f"... and {len(seen) - MAX_LINES} more library messages")
    return kept
