"""Atomic file replacement (temporary file in the same folder, then rename) and the clean-up of temporary files left by killed runs."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Iterable

TEMP_TAG = "chunkctl"
"""Temporary files are named `.<target name>.chunkctl-<pid>-<random>.tmp`: the pid tells a later run whether the
writer is still alive."""

_TEMP = re.compile(r"^\.(?P<base>.*)\." + TEMP_TAG + r"-(?P<pid>\d+)-[^.]*\.tmp$")


def temp_file(folder: str, base: str) -> tuple[int, str]:
    """Create a private temporary file in `folder` for the target named `base`; returns (fd, path).

    The name carries this process's id, so `remove_stale` can tell it from the temporary
    file of a run that still goes on.

    Raises:
        OSError: the folder cannot be written.
    """
    return tempfile.mkstemp(prefix=f".{base}.{TEMP_TAG}-{os.getpid()}-", suffix=".tmp", dir=folder)


def alive(pid: int) -> bool:
    """Whether process `pid` exists (this process counts; one owned by another user too)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def remove_stale(folder: str, base: str | None = None) -> list[str]:
    """Remove the temporary files of dead writers in `folder` (only those of target `base`, when given).

    A run killed by SIGKILL (or a power cut) cannot remove its temporary file; the next
    run that writes to the same folder calls this first. Files of a process that is
    still alive (another run writing there now) are left alone, and so is anything not
    named by `temp_file`. Never raises: what cannot be listed or removed stays.

    Returns:
        the paths removed.
    """
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        m = _TEMP.match(name)
        if m is None or (base is not None and m["base"] != base) or alive(int(m["pid"])):
            continue
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed.append(path)
    return removed


def remove_stale_shards(folder: str | os.PathLike) -> list[str]:
    """`remove_stale` in each two-character shard folder of a cache (`<folder>/<key[:2]>/`).

    Never raises. Returns the paths removed.
    """
    removed: list[str] = []
    try:
        shards = [e.path for e in os.scandir(os.fspath(folder)) if len(e.name) == 2 and e.is_dir(follow_symlinks=False)]
    except OSError:
        return removed
    for shard in shards:
        removed.extend(remove_stale(shard))
    return removed


def output_mode(path: str | os.PathLike) -> int:
    """The permission bits for a file written over `path` for the user to read: the replaced
    file's, else 0666 minus the umask (as `open` would give a new file; a temporary file
    is 0600)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def is_special(path: str | os.PathLike) -> bool:
    """True when `path` names (through any links) an existing file that is neither a regular file nor a
    folder: a device or a pipe (`/dev/null`, `/dev/full`, `/dev/stdout` on a pipe), written in place."""
    try:
        mode = os.stat(path).st_mode  # (follows /dev/stdout -> /proc/self/fd/1 -> the pipe itself)
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def replace_atomically(path: str | os.PathLike, *parts: bytes | Iterable[bytes], public: bool = False) -> None:
    """Write `parts` (each bytes, or an iterable of bytes written in turn) to `path` through a temporary
    file in its folder, then rename it over `path`.

    A reader sees the old file or the whole new one, never a part. The folder is made
    when missing; the temporary file is removed on any failure. `public`: the file gets
    `output_mode` (an output the user reads), else it stays private (0600: cache entries).
    A public output that exists and is no regular file (a device, a pipe) is written in
    place: renaming over it would replace the device node.

    Raises:
        OSError: the folder or the file cannot be written (callers that only cache may ignore it).
    """
    if public and is_special(path):  # (a rename would replace the device node: as root, /dev/full became a file)
        with open(path, "wb") as fh:
            for part in parts:
                fh.writelines([part] if isinstance(part, bytes) else part)
        return
    if public and os.path.islink(path):
        path = os.path.realpath(path)  # an output named by a link is written through it, as `-o` is
    folder = os.path.dirname(os.fspath(path)) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = temp_file(folder, os.path.basename(os.fspath(path)))
    try:
        if public:
            os.chmod(fd, output_mode(path))
        with os.fdopen(fd, "wb") as fh:
            for part in parts:
                if isinstance(part, bytes):
                    fh.write(part)
                else:
                    for piece in part:
                        fh.write(piece)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
