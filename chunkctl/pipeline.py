"""The main job as a stream: discover inputs -> load -> chunk -> finalize -> JSONL bytes, one file at a time.

`process_file` is the per-file function every engine maps (the local process pool,
Dask, or a user's Ray/Spark job): it takes picklable inputs and returns picklable
results, and never raises for a bad file.
"""

from __future__ import annotations

import fnmatch
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import orjson

from .config import ChunkConfig
from .errors import ChunkctlError, LoaderError
from .finalize import records
from .loaders import LOADERS, format_for, load_bytes
from .model import Document


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
        error_type: short class of the failure ("LoaderError", "internal", ...).
        seconds: wall time spent on the file.
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


@dataclass
class Discovery:
    """Inputs found for a run, and the problems met while looking (one line each)."""

    inputs: list[InputFile]
    problems: list[str]
    unsupported: list[str]


def _is_hidden(rel: str) -> bool:
    return any(part.startswith(".") and part not in (".", "..") for part in Path(rel).parts)


def _matches(rel: str, patterns: Iterable[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)


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
    problems: list[str] = []
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
            seen: set[str] = set()
            root = str(p)

            def onerror(err: OSError) -> None:
                problems.append(f"{err.filename}: cannot read folder ({err.strerror or err})")

            for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
                real = os.path.realpath(dirpath)
                if real in seen:
                    problems.append(f"{dirpath}: symbolic-link loop; not followed again")
                    dirnames[:] = []
                    continue
                seen.add(real)
                rel_dir = os.path.relpath(dirpath, root)
                keep = []
                for d in sorted(dirnames):
                    if not hidden and d.startswith("."):
                        continue
                    full = os.path.join(dirpath, d)
                    if os.path.islink(full) and os.path.realpath(full) in seen:
                        problems.append(f"{full}: symbolic-link loop; not followed")
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
                    problems.append(f"{full}: broken symbolic link")
        elif p.is_file():
            add(str(p), raw.replace(os.sep, "/"))
        elif p.exists():
            problems.append(f"{raw}: not a regular file or folder")
        else:
            problems.append(f"{raw}: no such file or folder")
    return Discovery(inputs, problems, unsupported)


def load(path: str | os.PathLike, config: ChunkConfig | None = None, source: str | None = None,
         data: bytes | None = None, format: str | None = None) -> Document:
    """Load one file into a Document (no chunking).

    Raises:
        LoaderError: unsupported extension, unreadable or undecodable file.
    """
    config = config or ChunkConfig()
    path = str(path)
    source = source or path.replace(os.sep, "/")
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
        recs = chunk_records(doc, config)
        if not recs:
            res.warnings.append(f"{item.source}: no text to chunk (empty or whitespace only)")
        dumps = orjson.dumps
        res.lines = b"".join([dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in recs])
        res.n_chunks = len(recs)
        res.n_tokens = sum(r["n_tokens"] for r in recs)
    except ChunkctlError as exc:
        res.error = str(exc) if isinstance(exc, LoaderError) else f"{item.source}: {exc}"
        res.error_type = exc.__class__.__name__
    except RecursionError:
        res.error = f"{item.source}: structure nested too deeply to process"
        res.error_type = "RecursionError"
    except MemoryError:
        res.error = f"{item.source}: out of memory"
        res.error_type = "MemoryError"
    except Exception as exc:  # a bug: report it as one line, keep the run going
        res.error = f"{item.source}: internal error: {exc.__class__.__name__}: {exc}"
        res.error_type = "internal"
    res.seconds = time.perf_counter() - t0
    return res


def _process_star(args: tuple) -> FileResult:
    return process_file(*args)


def run(inputs: list[InputFile], config: ChunkConfig, jobs: int = 1, max_file_size: int | None = None
        ) -> Iterator[FileResult]:
    """Process inputs and yield their results in input order.

    With `jobs > 1` files are processed by a pool of worker processes; results are
    still yielded in input order, so the output is byte-identical to `jobs=1`. At most
    `4 * jobs` files are in flight, so memory stays bounded by a few documents.
    """
    if jobs <= 1 or len(inputs) <= 1:
        for item in inputs:
            yield process_file(item, config, max_file_size)
        return
    import concurrent.futures as cf
    import multiprocessing as mp

    ctx = mp.get_context("forkserver") if hasattr(os, "fork") else mp.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        pending: list[cf.Future] = []
        it = iter(inputs)
        window = 4 * jobs
        try:
            for item in it:
                pending.append(pool.submit(process_file, item, config, max_file_size))
                if len(pending) >= window:
                    yield pending.pop(0).result()
            while pending:
                yield pending.pop(0).result()
        except BaseException:
            for f in pending:
                f.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
