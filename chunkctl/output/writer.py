"""JSONL output: stdout, or a file written atomically (temporary file, then rename), optionally gzip-compressed."""

from __future__ import annotations

import contextlib
import gzip
import os
import stat
import sys
import tempfile
from typing import BinaryIO

from chunkctl.errors import OutputError


def _reason(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


def _target_mode(path: str) -> int:
    """The permission bits for a new output file: the replaced file's, else 0666 minus the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


class Output:
    """Where records go.

    `path` None or "-" writes to stdout as the records come. A file path is written to
    a temporary file in the same folder and renamed over the target only by
    `commit()`, so an interrupted or failed run never leaves a half-written file and
    never replaces a previous good one. A path ending in `.gz` is gzip-compressed
    (deterministically: no name or time stamp in the gzip header).

    A symbolic link is followed: the file it points to is replaced, the link stays. A
    path that is not a regular file (/dev/null, a named pipe, a terminal) is written
    to directly, as a stream. Raises OutputError (one line naming the path) when the
    output cannot be opened or written: a folder, a missing parent that cannot be
    made, no permission, a full disk.
    """

    def __init__(self, path: str | None):
        self.path = None if path in (None, "-") else path
        self._tmp: str | None = None
        self._raw: BinaryIO | None = None
        self._fh: BinaryIO
        self._target = self.path
        if self.path is None:
            self._fh = sys.stdout.buffer
            return
        if not self.path:
            raise OutputError("the output file name is empty")
        target = self._target = os.path.realpath(self.path)
        try:
            st = os.stat(target)
        except OSError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{self.path}: is a folder, not a file")
        try:
            if st is not None and not stat.S_ISREG(st.st_mode):
                self._raw = open(target, "wb")  # a device or a pipe: nothing to replace atomically
            else:
                folder = os.path.dirname(target) or "."
                os.makedirs(folder, exist_ok=True)
                fd, self._tmp = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", suffix=".tmp",
                                                 dir=folder)
                # mkstemp makes the file private (0600); the output gets the mode a plain
                # open() would give it, or keeps the mode of the file it replaces.
                with contextlib.suppress(OSError):
                    os.chmod(fd, _target_mode(target))
                self._raw = os.fdopen(fd, "wb")
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {_reason(exc)}") from None
        if self.path.endswith(".gz"):
            self._fh = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0)  # type: ignore[assignment]
        else:
            self._fh = self._raw

    def write(self, data: bytes) -> None:
        """Append bytes (whole JSONL lines).

        Raises:
            OutputError: the bytes cannot be written (full disk, closed device);
                BrokenPipeError passes through (the reader of stdout went away).
        """
        if data:
            try:
                self._fh.write(data)
                if self.path is None:
                    self._fh.flush()
            except BrokenPipeError:
                raise
            except OSError as exc:
                raise OutputError(f"cannot write {self.path or 'standard output'}: {_reason(exc)}") from None

    def commit(self) -> None:
        """Finish the output: flush, and for a file, atomically replace the target."""
        if self.path is None:
            try:
                self._fh.flush()
            except BrokenPipeError:
                pass
            except OSError as exc:
                raise OutputError(f"cannot write standard output: {_reason(exc)}") from None
            return
        assert self._raw is not None
        try:
            if self._fh is not self._raw:
                self._fh.close()
            self._raw.flush()
            if self._tmp is None:  # a device or a pipe, written in place
                self._raw.close()
                return
            os.fsync(self._raw.fileno())
            self._raw.close()
            os.replace(self._tmp, self._target or "")
        except OSError as exc:
            self.abort()
            raise OutputError(f"cannot write {self.path}: {_reason(exc)}") from None
        self._tmp = None

    def abort(self) -> None:
        """Drop a file output: remove the temporary file, leave any previous target untouched."""
        if self.path is None:
            return
        try:
            if self._fh is not self._raw:
                self._fh.close()
        except Exception:
            pass
        try:
            if self._raw is not None:
                self._raw.close()
        except Exception:
            pass
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)
        self._tmp = None


def mirror_path(source: str, suffix: str = ".jsonl") -> str:
    """The relative path under an output folder for a document's records: its `source` plus `suffix`.

    `a/b.md` becomes `a/b.md.jsonl`. The result never leaves the folder: a leading `/`
    is dropped, `.` parts are dropped and `..` parts become `__`; stdin (`-`) becomes
    `stdin.jsonl`.
    """
    parts = [("__" if p == ".." else p) for p in source.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or parts == ["-"]:
        parts = ["stdin"]
    return "/".join(parts) + suffix


class OutputDir:
    """One JSONL file per source document under a folder, mirroring the input tree.

    Each file is written atomically (see `Output`): a reader never sees half a file,
    and a run stopped half-way leaves every earlier file complete and the current
    one untouched. A document with no chunks gets an empty file.

    Args:
        folder: the output folder (created when needed).
    """

    def __init__(self, folder: str | os.PathLike):
        self.folder = os.fspath(folder)
        self._current: Output | None = None
        if not self.folder:
            raise OutputError("the output folder name is empty")
        try:
            os.makedirs(self.folder, exist_ok=True)
        except FileExistsError:
            raise OutputError(f"{self.folder}: is a file, not a folder") from None
        except OSError as exc:
            raise OutputError(f"cannot make the output folder {self.folder}: {_reason(exc)}") from None

    def write_document(self, source: str, lines: bytes) -> str:
        """Write one document's records to `folder/<source>.jsonl`; returns that path."""
        path = os.path.join(self.folder, *mirror_path(source).split("/"))
        self._current = Output(path)
        self._current.write(lines)
        self._current.commit()
        self._current = None
        return path

    def commit(self) -> None:
        """Nothing left to do: each document's file is committed as it is written."""

    def abort(self) -> None:
        """Drop the document file being written, if any."""
        if self._current is not None:
            self._current.abort()
            self._current = None


class ErrorLog:
    """`--errors FILE`: one JSON object per failed input, written atomically at the end.

    Each line is `{"source": ..., "error_type": ..., "message": ...}`, where `message`
    is the reason without the leading source.

    Args:
        path: the file (None: collect nothing).
    """

    def __init__(self, path: str | None):
        self.path = path
        self.lines: list[bytes] = []

    def add(self, source: str, error_type: str | None, message: str) -> None:
        """Record one failure (a one-line message such as "a.txt: binary file")."""
        if self.path is None:
            return
        import orjson

        if message.startswith(source + ": "):
            message = message[len(source) + 2:]
        self.lines.append(orjson.dumps({"source": source, "error_type": error_type or "error", "message": message},
                                       option=orjson.OPT_APPEND_NEWLINE))

    def commit(self) -> None:
        """Write the file (empty when nothing failed, so a CI step can always upload it)."""
        if self.path is None:
            return
        out = Output(self.path)
        try:
            out.write(b"".join(self.lines))
            out.commit()
        except BaseException:
            out.abort()
            raise
