"""JSONL output: stdout, or a file written atomically (temporary file, then rename), optionally gzip-compressed."""

from __future__ import annotations

import gzip
import os
import sys
import tempfile
from typing import BinaryIO


class Output:
    """Where records go.

    `path` None or "-" writes to stdout as the records come. A file path is written to
    a temporary file in the same folder and renamed over the target only by
    `commit()`, so an interrupted or failed run never leaves a half-written file and
    never replaces a previous good one. A path ending in `.gz` is gzip-compressed
    (deterministically: no name or time stamp in the gzip header).
    """

    def __init__(self, path: str | None):
        self.path = None if path in (None, "-") else path
        self._tmp: str | None = None
        self._raw: BinaryIO | None = None
        self._fh: BinaryIO
        if self.path is None:
            self._fh = sys.stdout.buffer
            return
        folder = os.path.dirname(os.path.abspath(self.path)) or "."
        os.makedirs(folder, exist_ok=True)
        fd, self._tmp = tempfile.mkstemp(prefix="." + os.path.basename(self.path) + ".", suffix=".tmp", dir=folder)
        self._raw = os.fdopen(fd, "wb")
        if self.path.endswith(".gz"):
            self._fh = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, mtime=0)  # type: ignore[assignment]
        else:
            self._fh = self._raw

    def write(self, data: bytes) -> None:
        """Append bytes (whole JSONL lines)."""
        if data:
            self._fh.write(data)
            if self.path is None:
                self._fh.flush()

    def commit(self) -> None:
        """Finish the output: flush, and for a file, atomically replace the target."""
        if self.path is None:
            try:
                self._fh.flush()
            except BrokenPipeError:
                pass
            return
        if self._fh is not self._raw:
            self._fh.close()
        assert self._raw is not None and self._tmp is not None
        self._raw.flush()
        os.fsync(self._raw.fileno())
        self._raw.close()
        os.replace(self._tmp, self.path)
        self._tmp = None

    def abort(self) -> None:
        """Drop a file output: remove the temporary file, leave any previous target untouched."""
        if self.path is None or self._tmp is None:
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
        try:
            os.unlink(self._tmp)
        except OSError:
            pass
        self._tmp = None
