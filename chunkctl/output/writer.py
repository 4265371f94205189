"""JSONL output: stdout, or a file written atomically (temporary file, then rename), optionally gzip-compressed."""

from __future__ import annotations

import contextlib
import gzip
import os
import stat
import sys
from collections.abc import Iterable
from typing import BinaryIO

from chunkctl.atomic import is_special, output_mode, remove_stale, temp_file
from chunkctl.errors import OutputError


def _reason(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


class Output:
    """Where records go.

    `path` None or "-" writes to stdout as the records come. A file path is written to
    a temporary file in the same folder and renamed over the target only by
    `commit()`, so an interrupted or failed run never leaves a half-written file and
    never replaces a previous good one. A path ending in `.gz` (any case) is gzip-compressed
    (deterministically: no name or time stamp in the gzip header).

    A symbolic link is followed: the file it points to is replaced, the link stays. A
    path that is not a regular file (/dev/null, a named pipe, a terminal) is written
    to directly, as a stream. Temporary files of this target left by a killed run
    (SIGKILL cannot be caught) are removed first (see `chunkctl.atomic`). Raises OutputError (one line naming the path) when the
    output cannot be opened or written: a folder, a missing parent that cannot be
    made, no permission, a full disk.
    """

    def __init__(self, path: str | None):
        self.path = None if path in (None, "-") else path
        self.done = False
        self.wrote = False  # any bytes handed to the stream (standard output: what `state` reports)
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
            if is_special(self.path):  # a device or a pipe (/dev/stdout on a pipe): nothing to replace
                self._target = self.path
                self._raw = open(self.path, "wb")
            else:
                folder = os.path.dirname(target) or "."
                os.makedirs(folder, exist_ok=True)
                remove_stale(folder, os.path.basename(target))  # left by a killed run
                fd, self._tmp = temp_file(folder, os.path.basename(target))
                # mkstemp makes the file private (0600); the output gets the mode a plain
                # open() would give it, or keeps the mode of the file it replaces.
                with contextlib.suppress(OSError):
                    os.chmod(fd, output_mode(target))
                self._raw = os.fdopen(fd, "wb")
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {_reason(exc)}") from None
        if self.path.lower().endswith(".gz"):
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
            self.wrote = True
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
                self.done = True
                return
            os.fsync(self._raw.fileno())
            self._raw.close()
            os.replace(self._tmp, self._target or "")
        except OSError as exc:
            self.abort()
            raise OutputError(f"cannot write {self.path}: {_reason(exc)}") from None
        self._tmp = None
        self.done = True

    def state(self) -> str:
        """What this output left on disk, for the last line of a stopped or failed run."""
        if self.path is None:
            return ("the records written so far went to standard output" if self.wrote
                    else "nothing was written to standard output")
        if self._tmp is None and self.done:
            return f"{self.path} was written"
        return "no output file was written or replaced"

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
    `stdin.jsonl`. Only `/` separates folders (a `source` always uses it): a backslash,
    such as the `\\xNN` of an undecodable byte in a name, stays part of the name.
    """
    parts = [("__" if p == ".." else p) for p in source.split("/") if p not in ("", ".")]
    if not parts or parts == ["-"]:
        parts = ["stdin"]
    return "/".join(parts) + suffix


STAGING_PREFIX = ".chunkctl-staging-"
"""`--output-dir` writes a run's files under `<folder>/.chunkctl-staging-<pid>/` first, and moves them into place
only when the run completes."""


class OutputDir:
    """One JSONL file per source document under a folder, mirroring the input tree; the run lands whole.

    Documents are written under a hidden staging folder inside `folder` as they come,
    and `commit()` moves them all into place at the end (a rename each, on the same
    file system). A run that fails, is stopped (Ctrl-C, SIGTERM) or meets a full disk
    before `commit()` leaves the folder exactly as it was: every file old. A file is
    replaced atomically (a reader never sees half a file); a document that failed in
    this run keeps its previous file. Staging folders of killed runs (SIGKILL) are
    removed by the next run.

    Args:
        folder: the output folder (created when needed).
        prune: on commit, also delete the `.jsonl` files under `folder` that belong to no
            document of this run (documents deleted since an earlier run), given as the
            set of relative paths to keep (`mirror_path` of each source).

    Raises:
        OutputError: the folder cannot be made or written (one line naming it).
    """

    def __init__(self, folder: str | os.PathLike, prune: set[str] | None = None):
        self.folder = os.fspath(folder)
        self.prune = prune
        self.written: list[str] = []
        self.pruned: list[str] = []
        self.committed = 0
        self._staged: list[tuple[str, str]] = []  # (staged path, final path)
        if not self.folder:
            raise OutputError("the output folder name is empty")
        self._made = not os.path.isdir(self.folder)  # (made by this run: gone again when it lands nothing)
        try:
            os.makedirs(self.folder, exist_ok=True)
        except FileExistsError:
            raise OutputError(f"{self.folder}: is a file, not a folder") from None
        except OSError as exc:
            raise OutputError(f"cannot make the output folder {self.folder}: {_reason(exc)}") from None
        _remove_stale_staging(self.folder)
        self.staging = os.path.join(self.folder, f"{STAGING_PREFIX}{os.getpid()}")
        try:
            os.makedirs(self.staging, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot write in the output folder {self.folder}: {_reason(exc)}") from None

    def earlier(self, source: str) -> str | None:
        """The path of `source`'s file when one is in the folder already (an earlier run's), else None."""
        final = os.path.join(self.folder, *mirror_path(source).split("/"))
        return final if os.path.isfile(final) else None

    def write_document(self, source: str, lines: bytes | Iterable[bytes]) -> str:
        """Stage one document's records (JSONL bytes, or pieces of whole lines written in turn) for
        `folder/<source>.jsonl`; returns that final path.

        Raises:
            OutputError: the bytes cannot be written (full disk, ...).
        """
        rel = mirror_path(source)
        final = os.path.join(self.folder, *rel.split("/"))
        staged = os.path.join(self.staging, f"{len(self._staged)}.jsonl")
        try:
            with open(staged, "wb") as fh:
                for piece in (lines,) if isinstance(lines, bytes) else lines:
                    fh.write(piece)
        except OSError as exc:
            raise OutputError(f"cannot write {final}: {_reason(exc)}") from None
        self._staged.append((staged, final))
        return final

    def commit(self) -> None:
        """Move every staged file into place, prune when asked, and remove the staging folder.

        Raises:
            OutputError: a file could not be moved into place; the message says how many
                were and `state()` tells the caller what is on disk.
        """
        failure = None
        for staged, final in self._staged:
            try:
                folder = os.path.dirname(final)
                if not os.path.isdir(folder):
                    os.makedirs(folder, exist_ok=True)
                if os.path.isdir(final):
                    raise IsADirectoryError(21, "is a folder")
                os.replace(staged, final)
                self.written.append(final)
            except OSError as exc:
                failure = failure or f"cannot write {final}: {_reason(exc)}"
        self.committed = len(self.written)
        if self.prune is not None and failure is None:
            self.pruned = _prune(self.folder, self.prune)
        self._remove_staging()
        if failure:
            raise OutputError(f"{failure} ({len(self.written)} of {len(self._staged)} files written)")

    def abort(self) -> None:
        """Drop everything staged: the folder stays as it was before the run (one this run made, and
        nothing was moved into, is removed again: helper-117 found such empty folders left)."""
        self._remove_staging()
        if self._made and not self.written:
            with contextlib.suppress(OSError):  # (only when empty: rmdir, not rmtree)
                os.rmdir(self.folder)

    def _remove_staging(self) -> None:
        import shutil

        shutil.rmtree(self.staging, ignore_errors=True)

    def state(self) -> str:
        """What this run left in the folder, for the last line of a stopped or failed run."""
        if not self.written:
            return f"no file in {self.folder} was written or replaced"
        return (f"{len(self.written)} of {len(self._staged)} files in {self.folder} were written; the others "
                f"were left as they were")


def _remove_stale_staging(folder: str) -> None:
    """Remove the staging folders that runs killed by SIGKILL left in `folder`."""
    import shutil

    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.startswith(STAGING_PREFIX) and name[len(STAGING_PREFIX):].isdigit():
            pid = int(name[len(STAGING_PREFIX):])
            if pid == os.getpid():
                continue
            try:
                os.kill(pid, 0)
                continue  # a run that still goes on
            except ProcessLookupError:
                pass
            except OSError:
                continue
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)


def _prune(folder: str, keep: set[str]) -> list[str]:
    """Delete the record files under `folder` whose relative path is not in `keep`, then empty folders; returns them.

    A file is a record file only when `_holds_records_of` says chunkctl wrote it there:
    any other `.jsonl` (the user's own, another run's combined output) stays.
    """
    removed: list[str] = []
    for dirpath, _dirnames, filenames in os.walk(folder, topdown=False):
        rel_dir = os.path.relpath(dirpath, folder)
        if rel_dir.split(os.sep)[0].startswith(STAGING_PREFIX):
            continue
        for name in filenames:
            if not name.endswith(".jsonl"):
                continue
            rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
            if rel not in keep and _holds_records_of(os.path.join(dirpath, name), rel):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(dirpath, name))
                    removed.append(rel)
        if dirpath != folder:
            with contextlib.suppress(OSError):
                os.rmdir(dirpath)  # only when empty
    return sorted(removed)


def _holds_records_of(path: str, rel: str) -> bool:
    """True when the first line of the file at `path` is a chunk record (any flavour) of the
    document whose `mirror_path` is `rel`: a file `--output-dir` wrote for that document.

    Reads one line (at most 1 MiB); unreadable, empty or foreign files give False.
    """
    import orjson

    try:
        with open(path, "rb") as fh:
            rec = orjson.loads(fh.readline(1 << 20))
    except (OSError, ValueError):
        return False
    if not isinstance(rec, dict):
        return False
    fields = rec if "source" in rec else rec.get("metadata")  # chunkctl, or langchain/llamaindex flavours
    if not isinstance(fields, dict):
        return False
    source = fields.get("source")
    return isinstance(source, str) and "chunk_index" in fields and mirror_path(source) == rel


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
        # A lone surrogate (an undecodable byte of a name that reached here unescaped) is
        # written as \xNN, the rule of `source`, instead of failing the whole log.
        source, message = (s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                           for s in (source, message))
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
