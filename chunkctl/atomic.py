"""Atomic file replacement (temporary file in the same folder, then rename): the one place files are replaced whole."""

from __future__ import annotations

import contextlib
import os
import tempfile


def replace_atomically(path: str | os.PathLike, *parts: bytes) -> None:
    """Write `parts` to `path` through a temporary file in its folder, then rename it over `path`.

    A reader sees the old file or the whole new one, never a part. The folder is made
    when missing; the temporary file is removed on any failure.

    Raises:
        OSError: the folder or the file cannot be written (callers that only cache may ignore it).
    """
    folder = os.path.dirname(os.fspath(path)) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(os.fspath(path)) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            for part in parts:
                fh.write(part)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
