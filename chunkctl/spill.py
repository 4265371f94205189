"""One document's JSONL bytes: in memory, or in a file once they pass `SPILL_AT` (so a document whose records
are many times its size never holds them all in memory); no chunking.

A document of one-word sections gives about 50 bytes of JSONL per byte of text (each
record carries its ids, offsets and metadata), so holding its records in memory is what
bounds a run's peak, not the document. `JsonlBuffer` keeps the first `SPILL_AT` bytes in
memory and writes the rest to a private file in the run's spill folder (`spill_folder`);
the result travels as a `SpilledLines` (a path and a size, cheap to send from a worker
process), and `line_blocks` reads it back in pieces of whole lines. The folder is the
run's: `remove_stale_spills` removes those of runs that were killed (SIGKILL), as
`chunkctl.atomic` does for temporary outputs.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Union

from chunkctl.atomic import TEMP_TAG, alive

SPILL_AT = 16 << 20
"""JSONL bytes of one document held in memory (16 MiB); past that they go to a file."""

BLOCK = 8 << 20
"""Bytes `line_blocks` reads at a time (8 MiB), then cut after the last whole line."""

_PREFIX = f"{TEMP_TAG}-spill-"
_FOLDER = re.compile("^" + re.escape(_PREFIX) + r"(?P<pid>\d+)-")


@dataclass(frozen=True)
class SpilledLines:
    """JSONL bytes kept in a file: `size` bytes from `offset` of `path`.

    Attributes:
        path: the file.
        size: length in bytes (whole lines).
        offset: where the lines start in the file (bytes; a cache entry has a header line first).
        owned: the file is a spill of this run, removed by `discard` once written out;
            False for a file that stays (a cache entry).
    """

    path: str
    size: int
    offset: int = 0
    owned: bool = True


Lines = Union[bytes, SpilledLines]
"""A document's records as JSONL: bytes, or a `SpilledLines`."""


def size_of(lines: Lines) -> int:
    """Length of `lines` in bytes."""
    return lines.size if isinstance(lines, SpilledLines) else len(lines)


def line_blocks(lines: Lines, block: int = BLOCK) -> Iterator[bytes]:
    """The bytes of `lines` in pieces of whole lines, each about `block` bytes (one piece for bytes).

    Raises:
        OSError: a spill file cannot be read (or is shorter than its `size`).
    """
    if not isinstance(lines, SpilledLines):
        if lines:
            yield lines
        return
    left = lines.size
    carry = b""
    with open(lines.path, "rb") as fh:
        fh.seek(lines.offset)
        while left > 0:
            data = fh.read(min(block, left))
            if not data:
                raise OSError(f"{lines.path}: ends {left} bytes early")
            left -= len(data)
            data = carry + data if carry else data
            cut = data.rfind(b"\n") + 1 if left else len(data)
            if cut:
                yield data[:cut]
            carry = data[cut:]
    if carry:
        yield carry


def read_all(lines: Lines) -> bytes:
    """All of `lines` as one bytes object (for consumers that need a whole document at once).

    Raises:
        OSError: a spill file cannot be read.
    """
    return lines if not isinstance(lines, SpilledLines) else b"".join(line_blocks(lines))


def discard(lines: Lines) -> None:
    """Remove the file of owned spilled lines (nothing for bytes or a file that stays); never raises."""
    if isinstance(lines, SpilledLines) and lines.owned:
        with contextlib.suppress(OSError):
            os.unlink(lines.path)


class JsonlBuffer:
    """Collects one document's JSONL lines: in memory up to `limit` bytes, then in a file of `folder`.

    Args:
        folder: where a spill file may go (the run's spill folder); None: always in memory.
        limit: bytes kept in memory before spilling. Defaults to `SPILL_AT` (read when
            the buffer is made).

    Raises:
        OSError: from `write` or `result`, when the spill file cannot be written (full disk).
    """

    def __init__(self, folder: str | None, limit: int | None = None):
        self.folder = folder
        self.limit = SPILL_AT if limit is None else limit
        self._buf = io.BytesIO()
        self._fh: BinaryIO | None = None
        self._path: str | None = None
        self._size = 0

    def write(self, data: bytes) -> None:
        """Append whole lines."""
        self._size += len(data)
        if self._fh is not None:
            self._fh.write(data)
            return
        self._buf.write(data)
        if self.folder is not None and self._size > self.limit:
            fd, self._path = tempfile.mkstemp(suffix=".jsonl", dir=self.folder)
            try:
                self._fh = os.fdopen(fd, "wb", buffering=1 << 20)
                self._fh.write(self._buf.getbuffer())
            except BaseException:
                self.close()
                raise
            self._buf = io.BytesIO()

    def result(self) -> Lines:
        """The lines written: bytes (`BytesIO.getvalue()` hands its buffer over without a copy), or a
        `SpilledLines` the caller now owns (see `discard`)."""
        if self._fh is None:
            return self._buf.getvalue()
        assert self._path is not None
        try:
            self._fh.close()
        except BaseException:
            self.close()
            raise
        self._fh = None
        return SpilledLines(self._path, self._size)

    def close(self) -> None:
        """Drop what was written (a spill file is removed); for a failure before `result`."""
        fh, self._fh = self._fh, None
        if fh is not None:
            with contextlib.suppress(OSError):
                fh.close()
        if self._path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._path)
        self._buf = io.BytesIO()


def make_spill_folder() -> str | None:
    """A new private folder for this run's spill files (in the system's temporary folder), after
    removing those of killed runs; None when none can be made (then records stay in memory)."""
    base = tempfile.gettempdir()
    remove_stale_spills(base)
    try:
        return tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=base)
    except OSError:
        return None


def remove_spill_folder(folder: str | None) -> None:
    """Remove a run's spill folder and what is left in it; never raises."""
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


def remove_stale_spills(base: str) -> list[str]:
    """Remove the spill folders in `base` of runs whose process is gone (killed by SIGKILL); never raises.

    Returns:
        the folders removed.
    """
    removed: list[str] = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        m = _FOLDER.match(name)
        if m is None or alive(int(m["pid"])):
            continue
        path = os.path.join(base, name)
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path):
            removed.append(path)
    return removed
