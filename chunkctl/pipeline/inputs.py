"""Inputs of a run: files and folders expanded into InputFiles in a deterministic order, list files, standard input; no parsing."""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from chunkctl.errors import ConfigError, LoaderError
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
        source: the record's `source` (relative to the directory given, or to the source
            root when there is one, `/` separators; undecodable bytes of the name written
            as `\\xNN`, see `source_name`).
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
    """A named input that could not be taken (missing, broken link, not a file, unreadable folder, outside the root).

    Attributes:
        source: the path as given or found.
        error_type: short class: "NotFound", "BrokenLink", "NotAFile", "FolderUnreadable", "LinkLoop",
            "OutsideSourceRoot", "NameClash".
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
    unmatched: list[str] = field(default_factory=list)
    """`--include`/`--exclude` patterns that matched no file, e.g. "--include '*.rst'" (see `Selection`)."""
    left_out: list[tuple[str, str]] = field(default_factory=list)
    """(source, why) of the files `--include`/`--exclude` left out."""


def _pattern_of_bytes(pattern: str) -> str:
    """A pattern given with bytes that are not UTF-8 (a shell's `$'caf\\xe9.md'`, which Python
    holds as lone surrogates) in the form `source_name` gives such bytes in a `source`: each byte
    as `\\xNN`, its backslash escaped for the pattern (helper-114: such a pattern matched
    nothing, so `--exclude $'d\\xff/'` left the folder in). A UTF-8 pattern is returned as it is."""
    if not any("\udc80" <= ch <= "\udcff" for ch in pattern):
        return pattern
    return "".join(f"\\\\x{ord(ch) - 0xdc00:02x}" if "\udc80" <= ch <= "\udcff" else ch for ch in pattern)


class Selection:
    """Which files a run takes: `--include` and `--exclude` as gitignore-style patterns, matched against `source`.

    The rules are git's (the `pathspec` package): `*` and `?` do not cross `/`; `**`
    crosses folders (`docs/**/*.md`); a pattern without a `/` (other than a trailing
    one) matches the name at any depth (`*.md`, `drafts` takes or leaves a folder
    named drafts anywhere, with all it holds); one with a `/` is anchored to the start
    of `source` (`drafts/*`, `/index.md`); a trailing `/` matches folders only; `!`
    negates an earlier pattern of the same list. A file is taken when it matches some
    include pattern (or there are none) and no exclude pattern.

    The selection remembers which patterns matched some file (`unmatched`), so a run
    can say which ones are likely mistyped, and the files it left out and why
    (`left_out`, for `--dry-run`).

    Raises:
        ConfigError: a pattern git would refuse (e.g. `!` alone), naming the option.
    """

    def __init__(self, include: Iterable[str] = (), exclude: Iterable[str] = ()):
        self._lists: list[tuple[str, Any, list[tuple[str, Any]]]] = []
        for flag, patterns in (("--include", [_pattern_of_bytes(p) for p in include]),
                               ("--exclude", [_pattern_of_bytes(p) for p in exclude])):
            if not patterns:
                continue
            import pathspec  # (only when there are patterns: 15 ms of start-up otherwise)

            singles = []
            for p in patterns:
                try:
                    singles.append((p, pathspec.GitIgnoreSpec.from_lines([p]).patterns))
                except (ValueError, TypeError, re.error) as exc:  # GitIgnorePatternError is a ValueError;
                    # a bracket range backwards, `[z-a]`, fails as the pattern's regular expression is made
                    raise ConfigError(f"{flag} {p!r}: not a valid pattern ({exc})") from None
            self._lists.append((flag, pathspec.GitIgnoreSpec.from_lines(patterns), singles))
        self._hit: set[tuple[str, str]] = set()
        self.left_out: list[tuple[str, str]] = []
        """(source, why) of each file not taken, e.g. ("drafts/a.md", "matches --exclude 'drafts/'")."""

    def takes(self, source: str) -> bool:
        """Whether a file with this `source` is taken (and note which patterns match it)."""
        if not self._lists:
            return True
        from pathspec.util import normalize_file

        path = normalize_file(source)
        why = ""
        for flag, spec, singles in self._lists:
            hits = [p for p, compiled in singles if any(c.match_file(path) is not None for c in compiled)]
            self._hit.update((flag, p) for p in hits)
            matched = spec.match_file(path)
            if flag == "--include" and not matched:
                why = "matches no --include pattern"
            elif flag == "--exclude" and matched and not why:
                why = f"matches --exclude {[p for p in hits if not p.startswith('!')][-1]!r}"
        if why:
            self.left_out.append((source, why))
        return not why

    def unmatched(self) -> list[str]:
        """The patterns that matched no file so far, as "--include '*.rst'", in the order given."""
        return [f"{flag} {p!r}" for flag, _, singles in self._lists for p, _ in singles if (flag, p) not in self._hit]


def rooted(path: str, root: str) -> str | None:
    """`path` relative to the folder `root`, with `/` separators ("" for the root itself), or None when outside.

    Lexical first (`a/../b` is `b`; a symbolic link inside the root keeps its own
    name); when that leads out of the root, the real paths of the folder holding
    `path` and of `root` are compared, so a root or a path reached through a link
    to the same folder still counts as inside.
    """
    def up(rel: str) -> bool:
        return rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel)

    ab = os.path.abspath(path)
    rel = os.path.relpath(ab, os.path.abspath(root))
    if up(rel):
        parent, name = os.path.split(ab)
        rel = os.path.relpath(os.path.join(os.path.realpath(parent), name), os.path.realpath(root))
        if up(rel):
            return None
    return "" if rel == os.curdir else rel.replace(os.sep, "/")


def check_source_root(source_root: str | None) -> None:
    """Raise ConfigError unless `source_root` is None or an existing folder."""
    if source_root is not None and not os.path.isdir(source_root):
        what = "not a folder" if os.path.exists(source_root) else "no such folder"
        raise ConfigError(f"--source-root {source_root}: {what}")


def _inside(path: str, folder: str) -> bool:
    """Whether the real path `path` is `folder` (a real path) or lies under it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _dangling(name: str, path: str) -> InputProblem:
    """The problem of a symbolic link that leads nowhere: a loop of links, or a missing target."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return InputProblem(name, "LinkLoop", "symbolic-link loop; not followed")
    return InputProblem(name, "BrokenLink", "broken symbolic link")


def discover(paths: Iterable[str], include: Iterable[str] = (), exclude: Iterable[str] = (),
             hidden: bool = False, follow_links: bool = False, *, source_root: str | None = None,
             selection: Selection | None = None) -> Discovery:
    """Expand files and directories into inputs, in a deterministic order.

    Without `source_root`, a file is taken as given (its `source` is the path as
    given) and a directory's files get their path relative to that directory. With
    `source_root`, every `source` is the file's path relative to that folder,
    however the file or its folder was named (`docs/x.md`, `./docs/x.md` and a
    walk of `docs/` all give `x.md` for `--source-root docs`), so ids do not depend
    on how a path was given; a file or folder outside it is a problem
    ("OutsideSourceRoot"), not an input.

    A directory is walked recursively and its files sorted by relative path; hidden
    files and folders are skipped unless `hidden`; symbolic-link loops and
    unreadable folders are reported, not fatal. `include`/`exclude` are
    gitignore-style patterns matched against `source` (see `Selection`).

    A symbolic link inside a walked folder is followed when it leads to a place inside
    that folder. One that leads outside it (`notes.txt -> /etc/passwd`, a link to a
    folder elsewhere) is not followed unless `follow_links`: its source goes to
    `Discovery.outside`, so a run over a folder reads only what the folder holds.
    A file named on its own is read even when it is a link: it was asked for.

    Args:
        paths: files and folders, in the order to take them.
        include, exclude: gitignore-style patterns (ignored when `selection` is given).
        hidden, follow_links: see above.
        source_root: the folder sources are relative to (None: as described above).
        selection: a `Selection` shared by several calls (`gather`), so that
            `unmatched` covers them all.

    Returns:
        the inputs (unsupported extensions included with `format=None`), problems,
        the sources of unsupported files and of links not followed, and the patterns
        that matched no file.

    Raises:
        ConfigError: `source_root` is not a folder, or a pattern is not valid.
    """
    check_source_root(source_root)
    select = selection if selection is not None else Selection(include, exclude)
    inputs: list[InputFile] = []
    problems: list[InputProblem] = []
    unsupported: list[str] = []
    outside: list[str] = []

    def add(path: str, source: str) -> None:
        source = source_name(source)
        if not select.takes(source):
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

    def out_of_root(raw: str) -> InputProblem:
        return InputProblem(source_name(raw), "OutsideSourceRoot",
                            f"outside --source-root {source_name(str(source_root))}; not chunked")

    for raw in paths:
        p = Path(raw)
        base = rooted(raw, source_root) if source_root is not None else None
        if source_root is not None and base is None and (p.is_dir() or p.is_file()):
            problems.append(out_of_root(raw))
            continue
        if p.is_dir():
            prefix = f"{base}/" if base else ""
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
                        # the same folder elsewhere are just two views of it. Both are
                        # named like the files beside them (relative, as their sources).
                        target = os.path.realpath(full)
                        rel = d if rel_dir == "." else f"{rel_dir}/{d}"
                        rel = source_name(prefix + rel.replace(os.sep, "/"))
                        if not follow_links and not _inside(target, real_root):
                            # (before the loop test: a link to a folder above the tree, "/" or
                            # "..", leads out of it, and is skipped as such, not failed as a loop;
                            # helper-114)
                            outside.append(rel)
                            continue
                        if _inside(real, target):
                            problems.append(InputProblem(rel, "LinkLoop", "symbolic-link loop; not followed"))
                            continue
                    keep.append(d)
                dirnames[:] = keep
                for f in filenames:
                    if not hidden and f.startswith("."):
                        continue
                    rel = f if rel_dir == "." else f"{rel_dir}/{f}"
                    rel = prefix + rel.replace(os.sep, "/")
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
            add(str(p), base if base is not None else raw.replace(os.sep, "/"))
        elif p.exists():
            problems.append(InputProblem(source_name(raw), "NotAFile", "not a regular file or folder"))
        elif p.is_symlink():
            problems.append(_dangling(source_name(raw), str(p)))
        else:
            problems.append(InputProblem(source_name(raw), "NotFound", "no such file or folder"))
    if selection is not None:  # the caller reads what it shares
        return Discovery(inputs, problems, unsupported, outside)
    return Discovery(inputs, problems, unsupported, outside, select.unmatched(), select.left_out)


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


def _spelt_alike(inputs: list[InputFile], found: Iterable[InputProblem] = ()) -> tuple[list[InputFile],
                                                                                      list[InputProblem]]:
    """(inputs, problems): two files whose paths are written alike by the `\\xNN` rule
    (`caf<E9>.md` beside a file named `caf\\xe9.md`, or a folder `s<E9>` beside `s\\xe9`)
    would share `source` and ids. Of the paths written alike, the one that is UTF-8 is kept
    (it is what `source` says; of paths none of which is, the first found); each other path
    fails once with a "NameClash" problem (however many times it was named), and the run
    goes on. A path that is not UTF-8 and is written as a path that failed already (`found`:
    a broken link named `caf\\xe9.md`, say) fails too, so that one `source` is never both
    written and failed. Two paths not written alike (one relative path under two folders
    given) are left for `gather` to refuse.
    """
    clash = duplicate_sources(inputs)
    drop: set[str] = set()
    problems: list[InputProblem] = []
    for src, where in clash.items():
        paths = list(dict.fromkeys(where))  # a path named twice is one path here
        keep = next((w for w in paths if source_name(w) == w), paths[0])
        for w in paths:
            if w != keep and source_name(w) == source_name(keep):
                drop.add(w)
                problems.append(InputProblem(src, "NameClash", f"its path {source_name(w)} is not UTF-8, and written "
                                                               f"with \\xNN escapes it is spelt as another file's path "
                                                               f"is; rename one"))
    failed = {problem.source for problem in found}
    for item in inputs:
        if item.path and item.source in failed and source_name(item.path) != item.path and item.path not in drop:
            drop.add(item.path)
            problems.append(InputProblem(item.source, "NameClash", f"its path {source_name(item.path)} is not UTF-8, "
                                                                   f"and written with \\xNN escapes it is spelt as "
                                                                   f"another path is, which failed; rename one"))
    return [item for item in inputs if item.path not in drop], problems


def read_list(stream: IO[str]) -> list[str]:
    """Paths from a list file, one per line, as `find` or `git ls-files` print them.

    Blank lines and lines starting with `#` are ignored; surrounding white space
    (a trailing carriage return included) and a byte order mark before the first line
    (as Windows tools write one) are dropped. Relative paths stay relative,
    so they are read from the current folder, and each one's `source` is the path as
    listed, or its path relative to the source root when there is one (`discover`).
    """
    out = []
    for n, line in enumerate(stream):
        path = (line.removeprefix("\ufeff") if n == 0 else line).strip()
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
        unmatched: `--include`/`--exclude` patterns that matched no file of the whole
            run, e.g. "--include '*.rst'"; a caller warns about each.
        left_out: (source, why) of the files `--include`/`--exclude` left out.
        folders: real paths of the folders given (walked for their files).
        repeated: (input as given, files left out, the earlier input) for an input whose
            files were all or partly taken already through an earlier one (`docs docs/sub`):
            each file is chunked once, with the `source` the earlier input gives it.
    """

    inputs: list[InputFile]
    problems: list[InputProblem]
    unsupported_named: list[str]
    outside: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    repeated: list[tuple[str, int, str]] = field(default_factory=list)


def gather(paths: Iterable[str], *, read_stdin: Callable[[], bytes] | None = None, stdin_format: str | None = None,
           stdin_name: str | None = None, include: Iterable[str] = (), exclude: Iterable[str] = (),
           hidden: bool = False, follow_links: bool = False, source_root: str | None = None) -> Gathered:
    """Turn the paths of a run (files, folders, `-` for standard input) into its inputs.

    Args:
        paths: in the order given (a path given again is left out); `-` stands for one
            document read by `read_stdin`.
        read_stdin: returns the bytes of standard input (called once, only for `-`).
        stdin_format: the format of that document; default: from `stdin_name`'s extension.
        stdin_name: its `source` (default `-`), written as given: it names no file, so
            `source_root` does not change it (give it as a run over the root would).
        include, exclude, hidden, follow_links: which files of folders to take (see `discover`).
        source_root: the folder every file's `source` is relative to (see `discover`);
            files and folders outside it are problems ("OutsideSourceRoot").

    Raises:
        ConfigError: `-` without a known format, two inputs that would get the same
            `source` (a document's records must be one contiguous run with one id), a
            `source_root` that is not a folder, or a pattern that is not valid.
    """
    # the same path given twice (a list with a repeated line, `chunk docs docs`) is one input
    given: dict[str, str] = {}
    for p in paths:  # (a folder by its real path: "docs", "$PWD/docs" and a link to it are one)
        given.setdefault(p if p == "-" else os.path.realpath(p) if os.path.isdir(p) else os.path.normpath(p), p)
    paths = list(given.values())
    check_source_root(source_root)
    selection = Selection(include, exclude)
    if "-" in paths and not stdin_format and stdin_name:
        stdin_format = format_for(stdin_name)
    if "-" in paths and not stdin_format:
        raise ConfigError(f"'-' reads a document from standard input: say its format with --stdin-format "
                          f"({format_list()})")
    inputs: list[InputFile] = []
    problems: list[InputProblem] = []
    named: list[str] = []
    outside: list[str] = []
    folders: list[str] = []
    taken: dict[tuple[str, str], str] = {}  # a file's directory entry (real folder, name) -> the input that took it
    real_dirs: dict[str, str] = {}
    repeated: list[tuple[str, int, str]] = []
    for p in paths:
        if p == "-":
            data = read_stdin() if read_stdin is not None else b""
            try:
                inputs.append(stdin_input(data, stdin_format or "", source_name(stdin_name or "-")))
            except LoaderError as exc:
                raise ConfigError(f"--stdin-format: {exc.reason}") from None
            continue
        found = discover([p], hidden=hidden, follow_links=follow_links, source_root=source_root,
                         selection=selection)
        if os.path.isdir(p):
            folders.append(os.path.realpath(p))
        if len(paths) > 1:
            found.inputs, again = _taken_once(found.inputs, p, taken, real_dirs)
            repeated += [(p, n, earlier) for earlier, n in again.items()]
        inputs += found.inputs
        problems += found.problems
        outside += found.outside
        if not os.path.isdir(p):
            named += [item.source for item in found.inputs if item.format is None]
    inputs, clashed = _spelt_alike(inputs, problems)
    problems += clashed
    clash = duplicate_sources(inputs)
    if clash:
        src, where = next(iter(clash.items()))
        shown = ", ".join(source_name(w) for w in where[:2])
        raise ConfigError(f"two inputs would both be recorded as source {src} ({shown}): chunk them in separate "
                          f"runs, or give their common parent folder instead")
    return Gathered(inputs, problems, named, outside, selection.unmatched(), selection.left_out, folders, repeated)


def _taken_once(found: list[InputFile], given: str, taken: dict[tuple[str, str], str],
                real_dirs: dict[str, str]) -> tuple[list[InputFile], dict[str, int]]:
    """(the inputs of `given` not taken by an earlier input, {earlier input: files of `given`
    it took}). A file is known by its directory entry: its folder's real path and its name,
    so `docs` and `docs/sub` (or `docs` and `docs/a.md`) reach `sub/b.md` once, while a
    symbolic link to a file is a name of its own, chunked as before. `taken` and `real_dirs`
    (a cache of real paths) are shared by the calls of one run."""
    keep: list[InputFile] = []
    again: dict[str, int] = {}
    for item in found:
        if item.path is None or item.format is None:  # (a file no loader reads is skipped, and warned of if named)
            keep.append(item)
            continue
        folder, name = os.path.split(item.path)
        real = real_dirs.get(folder)
        if real is None:
            real = real_dirs[folder] = os.path.realpath(folder or ".")
        earlier = taken.setdefault((real, name), given)
        if earlier == given:
            keep.append(item)
        else:
            again[earlier] = again.get(earlier, 0) + 1
    return keep, again


@dataclass(frozen=True)
class Planned:
    """What a run would do with one input (`--dry-run`).

    Attributes:
        action: "take" (it would be chunked), "skip" (no loader for its extension, over
            the size limit, a link out of its folder) or "fail" (missing, broken link,
            outside the source root, ...).
        format: the detected format ("md", ...), or None when there is none.
        source: the `source` its records would have (or the path as given, for a problem).
        reason: why it would be skipped or fail ("" for "take").
    """

    action: str
    format: str | None
    source: str
    reason: str = ""


def preview(found: Gathered, max_file_size: int | None = None) -> list[Planned]:
    """What a run over `found` would do with each input, without reading any file.

    Returns:
        the inputs in run order ("take" or "skip"), then the files `--include`/`--exclude`
        left out and the links not followed ("skip"), then the problems ("fail").
    """
    out: list[Planned] = []
    for item in found.inputs:
        if item.format is None:
            ext = os.path.splitext(item.source)[1]
            out.append(Planned("skip", None, item.source, f"no loader for {ext or 'a name without an extension'} "
                               f"({format_list('and')} are read)"))
        elif max_file_size is not None and item.size > max_file_size:
            out.append(Planned("skip", item.format, item.source,
                               f"{item.size} bytes is over --max-file-size {max_file_size}"))
        else:
            out.append(Planned("take", item.format, item.source))
    out += [Planned("skip", format_for(s), s, why) for s, why in found.left_out]
    out += [Planned("skip", None, s, "a symbolic link that leads out of the folder (--follow-links follows it)")
            for s in found.outside]
    out += [Planned("fail", None, p.source, p.reason) for p in found.problems]
    return out
