"""Inputs of a run: files and folders expanded into InputFiles in a deterministic order, list files, standard input; no parsing."""

from __future__ import annotations

import errno
import fnmatch
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from chunkctl.errors import LoaderError
from chunkctl.loaders import LOADERS, format_for, format_list


def source_name(path: str) -> str:
    """The text of a file name for `source`, ids and messages: undecodable bytes written as `\\xNN`.

    Linux file names are bytes; Python gives the bytes that are not UTF-8 as lone
    surrogates ("surrogateescape"), which no JSON encoder accepts. This writes each
    such byte as the four characters `\\xNN` (lower-case hex), so `b"caf\\xe9.txt"`
    (Latin-1) becomes `caf\\xe9.txt`. A valid UTF-8 name is returned unchanged, and
    the same bytes always give the same text, so ids stay stable from run to run.
    The file itself is still read through its real name (`InputFile.path`).
    """
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@dataclass
class InputFile:
    """One input of a run.

    Attributes:
        path: file path to read (None for stdin, whose bytes are in `data`).
        source: the record's `source` (relative to the directory given, `/` separators;
            undecodable bytes of the name written as `\\xNN`, see `source_name`).
        format: loader format, or None when no loader handles the extension (skipped).
        size: file size in bytes (0 when unknown).
        data: the bytes when already read (stdin).
    """

    path: str | None
    source: str
    format: str | None
    size: int = 0
    data: bytes | None = None


@dataclass(frozen=True)
class InputProblem:
    """A named input that could not be taken (missing, broken link, not a file, unreadable folder).

    Attributes:
        source: the path as given or found.
        error_type: short class: "NotFound", "BrokenLink", "NotAFile", "FolderUnreadable", "LinkLoop".
        reason: what is wrong, without the path.
    """

    source: str
    error_type: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: {self.reason}"


@dataclass
class Discovery:
    """Inputs found for a run, and the problems met while looking (`str(problem)` is one line)."""

    inputs: list[InputFile]
    problems: list[InputProblem]
    unsupported: list[str]
    outside: list[str] = field(default_factory=list)
    """Symbolic links in folders that lead out of the folder given, not followed (sources)."""


def _inside(path: str, folder: str) -> bool:
    """Whether the real path `path` is `folder` (a real path) or lies under it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _matches(rel: str, patterns: Iterable[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)


def _dangling(name: str, path: str) -> InputProblem:
    """The problem of a symbolic link that leads nowhere: a loop of links, or a missing target."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return InputProblem(name, "LinkLoop", "symbolic-link loop; not followed")
    return InputProblem(name, "BrokenLink", "broken symbolic link")


def discover(paths: Iterable[str], include: Iterable[str] = (), exclude: Iterable[str] = (),
             hidden: bool = False, follow_links: bool = False) -> Discovery:
    """Expand files and directories into inputs, in a deterministic order.

    A file is taken as given (its `source` is the path as given). A directory is
    walked recursively and its files sorted by relative path (their `source`);
    hidden files and folders are skipped unless `hidden`; symbolic-link loops and
    unreadable folders are reported, not fatal. `include`/`exclude` are glob patterns
    matched against the relative path and the file name.

    A symbolic link inside a walked folder is followed when it leads to a place inside
    that folder. One that leads outside it (`notes.txt -> /etc/passwd`, a link to a
    folder elsewhere) is not followed unless `follow_links`: its source goes to
    `Discovery.outside`, so a run over a folder reads only what the folder holds.
    A file named on its own is read even when it is a link: it was asked for.

    Returns:
        the inputs (unsupported extensions included with `format=None`), problems,
        the sources of unsupported files and of links not followed.
    """
    include = list(include)
    exclude = list(exclude)
    inputs: list[InputFile] = []
    problems: list[InputProblem] = []
    unsupported: list[str] = []
    outside: list[str] = []

    def add(path: str, source: str) -> None:
        source = source_name(source)
        if include and not _matches(source, include):
            return
        if exclude and _matches(source, exclude):
            return
        fmt = format_for(path)
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0
        if fmt is None or fmt not in LOADERS:
            unsupported.append(source)
            inputs.append(InputFile(path, source, None, size))
            return
        inputs.append(InputFile(path, source, fmt, size))

    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found: list[tuple[str, str]] = []
            root = str(p)
            real_root = os.path.realpath(root)

            def onerror(err: OSError) -> None:
                problems.append(InputProblem(source_name(str(err.filename)), "FolderUnreadable",
                                        f"cannot read folder ({err.strerror or err})"))

            for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
                real = os.path.realpath(dirpath)
                rel_dir = os.path.relpath(dirpath, root)
                keep = []
                for d in sorted(dirnames):
                    if not hidden and d.startswith("."):
                        continue
                    full = os.path.join(dirpath, d)
                    if os.path.islink(full):
                        # A loop links back to this folder or one above it; two links to
                        # the same folder elsewhere are just two views of it.
                        target = os.path.realpath(full)
                        if _inside(real, target):
                            problems.append(InputProblem(source_name(full), "LinkLoop",
                                                        "symbolic-link loop; not followed"))
                            continue
                        if not follow_links and not _inside(target, real_root):
                            rel = d if rel_dir == "." else f"{rel_dir}/{d}"
                            outside.append(source_name(rel.replace(os.sep, "/")))
                            continue
                    keep.append(d)
                dirnames[:] = keep
                for f in filenames:
                    if not hidden and f.startswith("."):
                        continue
                    rel = f if rel_dir == "." else f"{rel_dir}/{f}"
                    rel = rel.replace(os.sep, "/")
                    found.append((rel, os.path.join(dirpath, f)))
            for rel, full in sorted(found):
                if not follow_links and os.path.islink(full) and os.path.exists(full) \
                        and not _inside(os.path.realpath(full), real_root):
                    outside.append(source_name(rel))
                elif os.path.isfile(full):
                    add(full, rel)
                elif os.path.islink(full) and not os.path.exists(full):
                    problems.append(_dangling(source_name(rel), full))
                elif os.path.exists(full) and not os.path.isdir(full):
                    problems.append(InputProblem(source_name(rel), "NotAFile", "not a regular file (a pipe, socket or device)"))
        elif p.is_file():
            add(str(p), raw.replace(os.sep, "/"))
        elif p.exists():
            problems.append(InputProblem(source_name(raw), "NotAFile", "not a regular file or folder"))
        elif p.is_symlink():
            problems.append(_dangling(source_name(raw), str(p)))
        else:
            problems.append(InputProblem(source_name(raw), "NotFound", "no such file or folder"))
    return Discovery(inputs, problems, unsupported, outside)


def duplicate_sources(inputs: Iterable[InputFile]) -> dict[str, list[str]]:
    """Sources that more than one input would get ({source: [paths]}).

    Two folders given together may hold the same relative path; their records would
    share `source` and `doc_id`, which the contract forbids (a document's records are
    one contiguous run).
    """
    seen: dict[str, list[str]] = {}
    for item in inputs:
        if item.format is not None:
            seen.setdefault(item.source, []).append(item.path or "-")
    return {src: paths for src, paths in seen.items() if len(paths) > 1}


def read_list(stream: IO[str]) -> list[str]:
    """Paths from a list file, one per line, as `find` or `git ls-files` print them.

    Blank lines and lines starting with `#` are ignored; surrounding white space
    (a trailing carriage return included) is dropped. Relative paths stay relative,
    so they are read from the current folder, and each one's `source` is the path as
    listed.
    """
    out = []
    for line in stream:
        path = line.strip()
        if path and not path.startswith("#"):
            out.append(path)
    return out


def stdin_input(data: bytes, format: str, name: str = "-") -> InputFile:
    """An input holding a document read from standard input.

    Args:
        data: the document's bytes.
        format: its format (a registered format name: `chunkctl.loaders.formats()`):
            there is no extension to go by.
        name: the records' `source`. Defaults to "-".

    Raises:
        LoaderError: no loader for `format`.
    """
    if format not in LOADERS:
        raise LoaderError(name, f"no loader for format {format!r} (known: {', '.join(sorted(LOADERS))})")
    return InputFile(None, name, format, len(data), data)


@dataclass
class Gathered:
    """The inputs of a run in command-line order, and what was found wrong on the way.

    Attributes:
        inputs: InputFiles (files with no loader included, `format=None`: skipped).
        problems: inputs that cannot be taken (missing, broken links, loops, ...).
        unsupported_named: files named explicitly (not found in a folder) that no
            loader reads; a caller warns about each.
        outside: links in folders leading out of them, not followed (see `discover`).
    """

    inputs: list[InputFile]
    problems: list[InputProblem]
    unsupported_named: list[str]
    outside: list[str] = field(default_factory=list)


def gather(paths: Iterable[str], *, read_stdin: Callable[[], bytes] | None = None, stdin_format: str | None = None,
           stdin_name: str | None = None, include: Iterable[str] = (), exclude: Iterable[str] = (),
           hidden: bool = False, follow_links: bool = False) -> Gathered:
    """Turn the paths of a run (files, folders, `-` for standard input) into its inputs.

    Args:
        paths: in the order given; `-` stands for one document read by `read_stdin`.
        read_stdin: returns the bytes of standard input (called once, only for `-`).
        stdin_format: the format of that document; default: from `stdin_name`'s extension.
        stdin_name: its `source` (default `-`).
        include, exclude, hidden, follow_links: which files of folders to take (see `discover`).

    Raises:
        ConfigError: `-` without a known format, or two inputs that would get the same
            `source` (a document's records must be one contiguous run with one id).
    """
    from chunkctl.errors import ConfigError

    paths = list(paths)
    if "-" in paths and not stdin_format and stdin_name:
        stdin_format = format_for(stdin_name)
    if "-" in paths and not stdin_format:
        raise ConfigError(f"'-' reads a document from standard input: say its format with --stdin-format "
                          f"({format_list()})")
    inputs: list[InputFile] = []
    problems: list[InputProblem] = []
    named: list[str] = []
    outside: list[str] = []
    for p in paths:
        if p == "-":
            data = read_stdin() if read_stdin is not None else b""
            try:
                inputs.append(stdin_input(data, stdin_format or "", source_name(stdin_name or "-")))
            except LoaderError as exc:
                raise ConfigError(f"--stdin-format: {exc.reason}") from None
            continue
        found = discover([p], include, exclude, hidden, follow_links)
        inputs += found.inputs
        problems += found.problems
        outside += found.outside
        if not os.path.isdir(p):
            named += [item.source for item in found.inputs if item.format is None]
    clash = duplicate_sources(inputs)
    if clash:
        src, where = next(iter(clash.items()))
        raise ConfigError(f"two inputs would both be recorded as source {src!r} ({', '.join(where[:2])}): chunk "
                          f"them in separate runs, or give their common parent folder instead")
    return Gathered(inputs, problems, named, outside)
