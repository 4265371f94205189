"""Checks of a run's output paths before any work: nothing overwrites an input or another output; no I/O but stat."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Protocol

from chunkctl.atomic import is_special
from chunkctl.errors import ConfigError
from chunkctl.output.writer import mirror_path


class _Input(Protocol):
    path: str | None
    source: str
    format: str | None


def check_output_flags(output: str | None, output_dir: str | None, errors: str | None) -> None:
    """Refuse output options that cannot go together, before any input is read.

    Raises:
        ConfigError: `-o` with `--output-dir`, an empty `--output-dir` or `--errors`, `--errors` on standard output
            or named `.parquet`, or a
            Parquet `-o` (`.parquet`) without pyarrow installed (the message names the
            extra to install).
    """
    if output and output_dir:
        raise ConfigError("give -o FILE or --output-dir DIR, not both")
    # An empty name is a mistake (an unset shell variable: `--errors "$ERRORS"`), never "not given":
    # `--errors ''` ran the whole job, then failed it for its errors file (helper-117)
    if output_dir == "":
        raise ConfigError("--output-dir needs a folder name: it is empty")
    if errors == "":
        raise ConfigError("--errors needs a file name: it is empty")
    if errors == "-":
        raise ConfigError("--errors needs a file name: standard output carries the records")
    from chunkctl.errors import MissingExtraError
    from chunkctl.output.parquet import is_parquet, require_pyarrow

    if is_parquet(errors):  # (helper-117: JSON Lines were written under the Parquet name)
        raise ConfigError(f"--errors {errors}: the errors file is JSON Lines (.jsonl, or .jsonl.gz), not Parquet")

    if is_parquet(output):
        try:
            require_pyarrow()
        except MissingExtraError as exc:
            raise ConfigError(f"-o {output}: {exc}") from None


def check_outputs(output: str | None, output_dir: str | None, errors: str | None, inputs: Iterable[_Input]) -> None:
    """Refuse outputs that would overwrite an input or each other, or collide under `output_dir`.

    Args:
        output: the `-o` file (`-` or None: standard output).
        output_dir: the `--output-dir` folder, or None.
        errors: the `--errors` file, or None.
        inputs: the run's inputs (`path`, `source`).

    Raises:
        ConfigError: the conflict, in one line naming both sides.
    """
    inputs = list(inputs)
    check_output_flags(output, output_dir, errors)
    real = os.path.realpath
    named = [(flag, p) for flag, p in (("-o", output), ("--errors", errors)) if p and p != "-"]
    existing = [(flag, p) for flag, p in named if os.path.exists(p)]  # a new file cannot be an input
    # (a file no loader reads is skipped, not read: an output there overwrites no input)
    reads = {real(i.path) for i in inputs if i.path and i.format is not None} if existing else set()
    for flag, p in existing:
        if real(p) in reads:
            raise ConfigError(f"{flag} {p} is also an input: it would be overwritten")
    for flag, p in named:
        if os.path.isdir(p):
            raise ConfigError(f"{flag} {p}: is a folder, not a file")
    if len(named) == 2 and real(named[0][1]) == real(named[1][1]):
        raise ConfigError(f"-o and --errors name the same file {output}")
    if output_dir:
        seen: dict[str, str] = {}
        for i in inputs:
            key = mirror_path(i.source)
            if key in seen:
                raise ConfigError(f"--output-dir: {seen[key]} and {i.source} would both be written to "
                                  f"{os.path.join(output_dir, key)}")
            seen[key] = i.source
        _check_layout(output_dir, seen)
        if errors and errors != "-":
            for key in seen:
                if real(os.path.join(output_dir, key)) == real(errors):
                    raise ConfigError(f"--errors {errors} is also where --output-dir writes {key}")


def _check_layout(output_dir: str, files: dict[str, str]) -> None:
    """Refuse, before any work, an `--output-dir` layout that cannot be written: a document's file
    where another document's folder goes (`d.md` beside a folder `d.md.jsonl/`), or a path of
    the folder already taken by what the run must write over (a file where a folder goes, a
    folder where a file goes).

    Args:
        output_dir: the folder.
        files: {relative path to write: the source it is for}.

    Raises:
        ConfigError: one line naming the path and the documents.
    """
    folders: dict[str, str] = {}
    for key, source in files.items():
        parts = key.split("/")
        for k in range(1, len(parts)):
            folders.setdefault("/".join(parts[:k]), source)
    for key, source in files.items():
        if key in folders:
            raise ConfigError(f"--output-dir: {os.path.join(output_dir, key)} would be the file of {source} "
                              f"and a folder for {folders[key]}")
    for folder, source in folders.items():
        path = os.path.join(output_dir, folder)
        if os.path.lexists(path) and not os.path.isdir(path):
            raise ConfigError(f"--output-dir: {path} is a file where the folder for {source} must go")
    for key, source in files.items():
        path = os.path.join(output_dir, key)
        if os.path.isdir(path):
            raise ConfigError(f"--output-dir: {path} is a folder where the file of {source} must go")


def check_not_read_back(outputs: Iterable[tuple[str, str | None]], folders: Iterable[str], hidden: bool,
                        readable: Callable[[str], bool]) -> None:
    """Refuse an output file that a later run over the same folders would read as a document: one in
    (or below) an input folder whose extension a loader reads (`-o docs/out.txt`, `--summary-json
    docs/run.html`). Without this, the first run succeeded and every later one failed (or read it).

    Args:
        outputs: (flag, path) of the run's output files (None or `-`: none).
        folders: real paths of the input folders.
        hidden: hidden files are walked (`--hidden`); else an output whose name starts with "." is never read.
        readable: whether a loader reads a file of this name (by its extension).

    Raises:
        ConfigError: the output, the folder and the reason, in one line.
    """
    folders = list(folders)
    for flag, path in outputs:
        if not path or path == "-" or not readable(path):
            continue
        if not hidden and os.path.basename(path).startswith("."):
            continue
        real = os.path.realpath(path)
        for folder in folders:
            if real.startswith(folder.rstrip(os.sep) + os.sep):
                raise ConfigError(f"{flag} {path} is inside the input folder {folder}: the next run would read it "
                                  f"as a document (write it elsewhere, or under a name no loader reads, "
                                  f"such as .jsonl)")


def probe_folder(flag: str, path: str, folder: str) -> None:
    """Raise ConfigError unless a file can be created in `folder` or, when it is missing, its nearest parent.

    A temporary file is created there and removed (a real write, so a read-only file
    system or a full quota shows, which permission bits alone would not tell).

    Raises:
        ConfigError: one line naming `flag`, `path` and the reason.
    """
    import contextlib

    from chunkctl.atomic import temp_file

    probe = os.path.abspath(folder or ".")
    while not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if not os.path.isdir(probe):
        raise ConfigError(f"{flag} {path}: {probe} is not a folder")
    try:
        fd, tmp = temp_file(probe, "probe")
    except OSError as exc:
        raise ConfigError(f"{flag} {path}: cannot write in {probe} ({exc.strerror or exc})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def check_file_writable(flag: str, path: str) -> None:
    """Raise ConfigError unless the output file `path` can be written: a device or a pipe
    (`/dev/stderr` to a CI log) must be open for writing, else its folder must accept a new
    file (`probe_folder`).

    Raises:
        ConfigError: one line naming `flag`, `path` and the reason.
    """
    if is_special(path):
        if not os.access(path, os.W_OK):
            raise ConfigError(f"{flag} {path}: not writable")
        return
    probe_folder(flag, path, os.path.dirname(os.path.realpath(path)))


def check_writable(output: str | None, output_dir: str | None, errors: str | None) -> None:
    """Refuse, before any work, outputs that could not be written at the end of the run.

    Each file output's folder (or, when it does not exist yet, its nearest existing
    parent) must accept a new file: a temporary file is created there and removed. An
    existing device or pipe (`/dev/null`) must be open for writing.

    Raises:
        ConfigError: one line naming the option, the path and the reason.
    """
    for flag, path in (("-o", output), ("--errors", errors)):
        if not path or path == "-":
            continue
        check_file_writable(flag, path)
    if output_dir:
        if os.path.exists(output_dir) and not os.path.isdir(output_dir):
            raise ConfigError(f"--output-dir {output_dir}: is a file, not a folder")
        probe_folder("--output-dir", output_dir, output_dir)
