"""The main job as a stream: discover inputs -> load -> chunk -> finalize -> JSONL bytes, one file at a time.

`process_file` is the per-file function every engine maps (the local worker pool,
Dask, or a user's Ray/Spark job): it takes picklable inputs and returns picklable
results, and never raises for a bad file. `run` maps it over a run's inputs in
order, with a per-file time limit and an optional record cache.
"""

from __future__ import annotations

import errno
import fnmatch
import functools
import io
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Iterable, Iterator

import orjson

from .config import ChunkConfig
from .errors import ChunkctlError, LoaderError
from .finalize import iter_records, records
from .loaders import LOADERS, format_for, load_bytes
from .model import Document

if TYPE_CHECKING:
    from .cache import RecordCache

DEFAULT_FILE_TIMEOUT = 300.0
"""Seconds one file may take by default before its worker is stopped (generous: a slow PDF, not a hang)."""


@dataclass
class InputFile:
    """One input of a run.

    Attributes:
        path: file path to read (None for stdin, whose bytes are in `data`).
        source: the record's `source` (relative to the directory given, `/` separators).
        format: loader format, or None when no loader handles the extension (skipped).
        size: file size in bytes (0 when unknown).
        data: the bytes when already read (stdin).
    """

    path: str | None
    source: str
    format: str | None
    size: int = 0
    data: bytes | None = None


@dataclass
class FileResult:
    """What processing one input produced (picklable; sent back from worker processes).

    Attributes:
        source, format: as in the records.
        lines: the document's records as JSONL bytes (empty on failure).
        n_chunks, n_tokens: records written and their total `n_tokens`.
        nbytes: input size in bytes.
        warnings: non-fatal problems, one line each.
        error: one-line reason when the file failed, else None.
        error_type: short class of the failure ("LoaderError", "Timeout", "internal", ...).
        seconds: wall time spent on the file.
        skipped: not processed (no loader for the extension, or over the size limit).
        sha256: sha256 of the file's bytes when it was read (the cache key needs it).
        cached: the lines came from the record cache.
        problems: failures that did not stop the file (model calls: the records are
            written without their contexts or summaries), one line each; they make the
            run exit 1 and go to `--errors`.
        llm_plan: with `--llm-dry-run`, (calls, prompt tokens, cached answers) of the file.
    """

    source: str
    format: str | None
    lines: bytes = b""
    n_chunks: int = 0
    n_tokens: int = 0
    nbytes: int = 0
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    error_type: str | None = None
    seconds: float = 0.0
    skipped: bool = False
    sha256: str | None = None
    cached: bool = False
    problems: list[str] = field(default_factory=list)
    llm_plan: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class Problem:
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
    problems: list[Problem]
    unsupported: list[str]


def _matches(rel: str, patterns: Iterable[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)


def _dangling(name: str, path: str) -> "Problem":
    """The problem of a symbolic link that leads nowhere: a loop of links, or a missing target."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Problem(name, "LinkLoop", "symbolic-link loop; not followed")
    return Problem(name, "BrokenLink", "broken symbolic link")


def discover(paths: Iterable[str], include: Iterable[str] = (), exclude: Iterable[str] = (),
             hidden: bool = False) -> Discovery:
    """Expand files and directories into inputs, in a deterministic order.

    A file is taken as given (its `source` is the path as given). A directory is
    walked recursively and its files sorted by relative path (their `source`);
    hidden files and folders are skipped unless `hidden`; symbolic-link loops and
    unreadable folders are reported, not fatal. `include`/`exclude` are glob patterns
    matched against the relative path and the file name.

    Returns:
        the inputs (unsupported extensions included with `format=None`), problems and
        the sources of unsupported files.
    """
    include = list(include)
    exclude = list(exclude)
    inputs: list[InputFile] = []
    problems: list[Problem] = []
    unsupported: list[str] = []

    def add(path: str, source: str) -> None:
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

            def onerror(err: OSError) -> None:
                problems.append(Problem(str(err.filename), "FolderUnreadable",
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
                        if real == target or real.startswith(target.rstrip(os.sep) + os.sep):
                            problems.append(Problem(full, "LinkLoop", "symbolic-link loop; not followed"))
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
                if os.path.isfile(full):
                    add(full, rel)
                elif os.path.islink(full) and not os.path.exists(full):
                    problems.append(_dangling(rel, full))
                elif os.path.exists(full) and not os.path.isdir(full):
                    problems.append(Problem(rel, "NotAFile", "not a regular file (a pipe, socket or device)"))
        elif p.is_file():
            add(str(p), raw.replace(os.sep, "/"))
        elif p.exists():
            problems.append(Problem(raw, "NotAFile", "not a regular file or folder"))
        elif p.is_symlink():
            problems.append(_dangling(raw, str(p)))
        else:
            problems.append(Problem(raw, "NotFound", "no such file or folder"))
    return Discovery(inputs, problems, unsupported)


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


def load(path: str | os.PathLike, config: ChunkConfig | None = None, source: str | None = None,
         data: bytes | None = None, format: str | None = None) -> Document:
    """Load one file into a Document (no chunking).

    Raises:
        LoaderError: unsupported extension, unreadable or undecodable file.
    """
    config = config or ChunkConfig()
    path = str(path)
    source = source or path.replace(os.sep, "/")
    if data is None:
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            raise LoaderError(source, f"cannot read file ({exc.strerror or exc})") from None
        if stat.S_ISDIR(mode):
            raise LoaderError(source, "is a folder, not a file")
        if not stat.S_ISREG(mode):  # a pipe or a device would block or never end
            raise LoaderError(source, "not a regular file")
    fmt = format or format_for(path)
    if fmt is None:
        raise LoaderError(source, f"no loader for the extension {Path(path).suffix or '(none)'!r}")
    if data is None:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise LoaderError(source, f"cannot read file ({exc.strerror or exc})") from None
    return load_bytes(data, source, fmt, config)


def chunk_records(doc: Document, config: ChunkConfig) -> list[dict[str, Any]]:
    """Chunk a loaded document and return its contract records."""
    from .chunking import chunk_document
    from .tokenizers import get_tokenizer

    tok = get_tokenizer(config.tokenizer, config.tokenizer_pattern)
    chunks = chunk_document(doc, tok, config)
    return records(doc, chunks, config, tok.name)


def _llm_active(config: ChunkConfig) -> bool:
    """True when model-assisted options are on (contexts, summaries, the llm strategy)."""
    x = config.extras
    return bool(x.get("contextualize") or x.get("summaries") or config.strategy == "llm")


def record_lines(doc: Document, config: ChunkConfig, problems: list | None = None) -> tuple[bytes, int, int]:
    """Chunk a loaded document and serialize its records as JSONL.

    Records are made and serialized one at a time, so only their bytes are held.
    With model-assisted options, contexts and summaries are added (`chunkctl.llm`);
    failed model calls are appended to `problems` as LLMFailure objects (the records
    are written without them), and a dry run appends its LLMPlan and writes nothing.

    Returns:
        (JSONL bytes, number of records, sum of their n_tokens).
    """
    from .chunking import chunk_document
    from .tokenizers import get_tokenizer

    tok = get_tokenizer(config.tokenizer, config.tokenizer_pattern)
    if _llm_active(config):
        from .llm import apply_llm, llm_chunk_config, plan_llm

        table = tok.table(doc.text)
        chunks = chunk_document(doc, tok, llm_chunk_config(config), table)
        if config.extras.get("llm_dry_run"):
            plan = plan_llm(doc, chunks, tok, config, table)
            if problems is not None:
                problems.append(plan)
            return b"", 0, 0
        chunks, failures = apply_llm(doc, chunks, tok, config, table)
        if problems is not None:
            problems.extend(failures)
    else:
        chunks = chunk_document(doc, tok, config)
    dumps, opt = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    # Written to one buffer at once: orjson's result keeps its whole working buffer
    # (16 KiB or more), so a list of them held ~8x the JSONL size of a big document.
    # BytesIO.getvalue() hands over its buffer without a copy.
    buf = io.BytesIO()
    write = buf.write
    n = tokens = 0
    for rec in iter_records(doc, chunks, config, tok.name):
        tokens += rec["n_tokens"]
        write(dumps(rec, option=opt))
        n += 1
    return buf.getvalue(), n, tokens


def process_file(item: InputFile, config: ChunkConfig, max_file_size: int | None = None) -> FileResult:
    """Load, chunk and serialize one input; never raises for a bad file.

    Returns:
        a FileResult with the JSONL bytes of the document, or with `error` set.
    """
    t0 = time.perf_counter()
    res = FileResult(item.source, item.format, nbytes=item.size)
    if item.format is None:
        res.skipped = True
        return res
    try:
        if max_file_size is not None and item.size > max_file_size:
            res.skipped = True
            res.warnings.append(f"{item.source}: skipped, {item.size} bytes is over --max-file-size {max_file_size}")
            return res
        doc = load(item.path or item.source, config, source=item.source, data=item.data, format=item.format)
        res.nbytes = item.size or len(item.data or b"")
        res.warnings.extend(f"{item.source}: {w}" for w in doc.warnings)
        res.sha256 = str(doc.meta.get("sha256") or "") or None
        found: list = []
        res.lines, res.n_chunks, res.n_tokens = record_lines(doc, config, found)
        del doc
        for f in found:
            if isinstance(f, tuple):  # an LLMPlan (dry run)
                res.llm_plan = tuple(f)
            else:
                res.problems.append(str(f))
        if not res.n_chunks and res.llm_plan is None:
            res.warnings.append(f"{item.source}: no text to chunk (empty or whitespace only)")
    except ChunkctlError as exc:
        res.error = str(exc) if isinstance(exc, LoaderError) else f"{item.source}: {exc}"
        res.error_type = exc.__class__.__name__
    except RecursionError:
        res.error = f"{item.source}: structure nested too deeply to process"
        res.error_type = "RecursionError"
    except MemoryError:
        res.error = f"{item.source}: out of memory"
        res.error_type = "MemoryError"
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # a bug (or a panic in a native library): one line, the run goes on
        res.error = f"{item.source}: internal error: {exc.__class__.__name__}: {exc}"
        res.error_type = "internal"
    res.seconds = time.perf_counter() - t0
    return res


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
        format: its format (`txt`, `md`, `html`, `pdf`): there is no extension to go by.
        name: the records' `source`. Defaults to "-".

    Raises:
        LoaderError: no loader for `format`.
    """
    if format not in LOADERS:
        raise LoaderError(name, f"no loader for format {format!r} (known: {', '.join(sorted(LOADERS))})")
    return InputFile(None, name, format, len(data), data)


_WARM_UP = {"txt": b"Warm up.\n", "md": b"# Warm\n\nUp.\n", "html": b"<h1>Warm</h1><p>Up.</p>"}


def _warm(config: ChunkConfig) -> None:
    """Get a worker ready outside the per-file time limit: load the tokenizer and chunk
    a tiny document of each text format once, so lazy set-up (parsers, compiled
    patterns, imports) is not charged to the first real file."""
    from .chunking import STRATEGIES
    from .tokenizers import get_tokenizer

    get_tokenizer(config.tokenizer, config.tokenizer_pattern)
    STRATEGIES[config.strategy].ready(config)
    for fmt, data in _WARM_UP.items():
        if fmt in LOADERS:
            try:
                chunk_records(load_bytes(data, "warm-up", fmt, config), config)
            except ChunkctlError:
                pass


def _precheck(item: InputFile, max_file_size: int | None) -> FileResult | None:
    """The result of an input that needs no processing (unsupported, over the size limit), else None."""
    if item.format is None:
        return FileResult(item.source, None, nbytes=item.size, skipped=True)
    if max_file_size is not None and item.size > max_file_size:
        return FileResult(item.source, item.format, nbytes=item.size, skipped=True, warnings=[
            f"{item.source}: skipped, {item.size} bytes is over --max-file-size {max_file_size}"])
    return None


def _from_cache(item: InputFile, config: ChunkConfig, cache: "RecordCache") -> FileResult | None:
    """The cached result of an input whose bytes, source and options are unchanged, else None."""
    import hashlib

    from .cache import file_sha256

    try:
        sha = hashlib.sha256(item.data).hexdigest() if item.data is not None else file_sha256(item.path or item.source)
    except OSError:
        return None  # the worker reports why it cannot be read
    entry = cache.get(cache.key(sha, item.source, item.format or "", config))
    if entry is None:
        return None
    return FileResult(item.source, item.format, entry.lines, entry.n_chunks, entry.n_tokens, item.size,
                      list(entry.warnings), sha256=sha, cached=True)


def _failure(item: InputFile, failure: Any) -> FileResult:
    kind = {"timeout": "Timeout", "crashed": "WorkerCrashed"}.get(failure.kind, "internal")
    return FileResult(item.source, item.format, nbytes=item.size, error=f"{item.source}: {failure.message}",
                      error_type=kind)


def _compute(items: list[InputFile], config: ChunkConfig, jobs: int, file_timeout: float | None,
             engine: str = "local", scheduler: str | None = None) -> Iterator[FileResult]:
    """Process inputs (in worker processes unless jobs is 1 and there is no time limit), in order."""
    if not items:
        return
    if engine == "dask":
        from . import dask_engine

        yield from dask_engine.compute(items, config, scheduler, jobs)
        return
    if jobs <= 1 and not file_timeout:
        for item in items:
            yield process_file(item, config)
        return
    from .workers import TaskFailure, imap_ordered

    # Look ahead up to 64 MB of input past the next file to write, so one slow big
    # file does not leave the other workers idle; memory stays bounded by that.
    results = imap_ordered(functools.partial(process_file, config=config), items, jobs, file_timeout,
                           weight=lambda it: it.size, init=functools.partial(_warm, config), ahead=64e6)
    try:
        for i, res in results:
            yield _failure(items[i], res) if isinstance(res, TaskFailure) else res
    finally:
        results.close()


def plan(inputs: list[InputFile], config: ChunkConfig, max_file_size: int | None = None,
         cache: "RecordCache | None" = None) -> list[FileResult | None]:
    """The results known without processing: skipped inputs and, with a cache, unchanged files.

    Returns:
        one entry per input: its FileResult when known, else None (to be processed).
    """
    known: list[FileResult | None] = []
    for item in inputs:
        res = _precheck(item, max_file_size)
        if res is None and cache is not None:
            res = _from_cache(item, config, cache)
        known.append(res)
    return known


def run(inputs: list[InputFile], config: ChunkConfig, jobs: int = 1, max_file_size: int | None = None,
        file_timeout: float | None = DEFAULT_FILE_TIMEOUT, cache: "RecordCache | None" = None,
        known: list[FileResult | None] | None = None, engine: str = "local", scheduler: str | None = None
        ) -> Iterator[FileResult]:
    """Process a run's inputs and yield their results in input order.

    Files are processed by `jobs` worker processes (see `chunkctl.workers`); the
    results come back in input order, so the output is byte-identical whatever
    `jobs` is. A file still running after `file_timeout` seconds has its worker
    stopped and replaced, and its result is a failure ("took longer than N s"); the
    run goes on. With `jobs=1` and no time limit, files are processed in this process.

    With a `cache`, a file whose bytes, source and options are unchanged is not
    parsed again: its records come from the cache, byte for byte what processing it
    would give; newly processed files are stored in it. Close the generator (or let
    an exception run through it) to stop the workers early.

    Args:
        inputs: from `discover` (and `stdin_input`).
        config: the chunking options.
        jobs: worker processes. Defaults to 1.
        max_file_size: skip (with a warning) files larger than this many bytes.
        file_timeout: seconds one file may take; None or 0: no limit. Defaults to
            DEFAULT_FILE_TIMEOUT (300).
        cache: record cache, or None.
        known: `plan(inputs, config, max_file_size, cache)` when the caller already
            made it (e.g. to load the tokenizer only when some file needs processing).
        engine: "local" (worker processes of this machine) or "dask" (a Dask cluster:
            `scheduler`'s address, or a local cluster of `jobs` processes; no per-file
            time limit there).
        scheduler: Dask scheduler address for engine "dask".

    Yields:
        one FileResult per input, in input order.
    """
    if known is None:
        known = plan(inputs, config, max_file_size, cache)
    todo = [item for item, res in zip(inputs, known) if res is None]
    computed = _compute(todo, config, jobs, file_timeout, engine, scheduler)
    try:
        for res in known:
            if res is None:
                res = next(computed)
                if cache is not None and res.error is None and res.sha256 and not res.problems \
                        and res.llm_plan is None:
                    from .cache import CacheEntry

                    key = cache.key(res.sha256, res.source, res.format or "", config)
                    cache.put(key, CacheEntry(res.lines, res.n_chunks, res.n_tokens, res.warnings))
            yield res
    finally:
        computed.close()
