"""chunkctl: structure-aware, token-exact chunking of documents for retrieval-augmented generation.

Public API:
    load(path) -> Document
    chunk_file(path, **options) -> list[dict]   (contract records)
    chunk_text(text, format="txt", **options) -> list[dict]
    chunk_paths(paths, jobs=..., cache=..., **options) -> iterator of records (the CLI's job)
    Document, Block, Chunk, ChunkConfig, get_tokenizer
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from chunkctl.__about__ import __version__
from chunkctl.config import ChunkConfig
from chunkctl.errors import ChunkctlError, ConfigError, LoaderError, TokenizerError
from chunkctl.model import Block, BlockKind, Chunk, Document
from chunkctl.tokenizers import get_tokenizer

__all__ = [
    "__version__", "load", "chunk_file", "chunk_text", "chunk_paths", "Document", "Block", "BlockKind", "Chunk", "ChunkConfig",
    "ChunkctlError", "ConfigError", "LoaderError", "TokenizerError", "get_tokenizer",
]


def load(path: str | Path, **options: Any) -> Document:
    """Load a file into a Document (typed blocks with character spans), without chunking.

    Args:
        path: a .txt, .md, .pdf or .html file.
        **options: ChunkConfig fields that affect loading (encoding, password, main_content, ...).

    Raises:
        LoaderError: unsupported, unreadable or undecodable file.
        ConfigError: a bad option.
    """
    from chunkctl.pipeline import load as _load

    return _load(path, ChunkConfig(**options))


def chunk_file(path: str | Path, **options: Any) -> list[dict[str, Any]]:
    """Chunk one file and return its records (dicts exactly as the JSONL lines).

    The same path as `chunkctl chunk` (`chunkctl.pipeline.process_document`), so the
    same options give the same records, enrichment included.

    Args:
        path: the file; its `source` is the path as given.
        **options: ChunkConfig fields, e.g. strategy="recursive", chunk_size=256, overlap=32.

    Raises:
        LoaderError, ConfigError, TokenizerError.
    """
    from chunkctl.pipeline import chunk_records
    from chunkctl.pipeline import load as _load

    config = ChunkConfig(**options)
    return chunk_records(_load(path, config), config)


def chunk_text(text: str, format: str = "txt", source: str = "-", **options: Any) -> list[dict[str, Any]]:
    """Chunk a string as if it were a UTF-8 file of the given format.

    Args:
        text: the document (for txt and md, offsets index this string exactly).
        format: "txt", "md" or "html" ("pdf" needs bytes: use chunk_file).
        source: the `source` written in the records.
        **options: ChunkConfig fields.

    Raises:
        LoaderError, ConfigError, TokenizerError.
    """
    from chunkctl.loaders import load_bytes
    from chunkctl.pipeline import chunk_records

    config = ChunkConfig(**options)
    data = text.encode("utf-8", "surrogatepass")
    doc = load_bytes(data, source, format, config)
    return chunk_records(doc, config)


def chunk_paths(paths: Iterable[str | Path], *, jobs: int = 1, cache: str | Path | None = None,
                file_timeout: float | None = 300.0, flavour: str = "chunkctl", include: Iterable[str] = (),
                exclude: Iterable[str] = (), hidden: bool = False, max_file_size: int | None = None,
                errors: str = "raise", follow_links: bool = False, **options: Any) -> Iterator[dict[str, Any]]:
    """Chunk files and folders as `chunkctl chunk` does, yielding records in output order.

    The same job as the command line, for a Python caller: folders are walked in
    sorted order, `jobs` worker processes share the files (the records do not depend
    on it), a file slower than `file_timeout` seconds is stopped, and with a `cache`
    folder unchanged files are not parsed again.

    Args:
        paths: files and folders (a file's `source` is the path as given; a folder's
            files are relative to it).
        jobs: worker processes. Defaults to 1.
        cache: record cache folder. Defaults to `None` (no cache).
        file_timeout: seconds one file may take; None or 0: no limit. Defaults to 300.
        flavour: "chunkctl" (contract records), "langchain" or "llamaindex" dicts.
        include, exclude, hidden, max_file_size, follow_links: which files to take, as on
            the command line (links in folders that lead out of them are left out unless
            `follow_links`).
        errors: "raise" (LoaderError at the first file that fails; the workers are
            stopped) or "skip" (leave failed files out).
        **options: ChunkConfig fields, e.g. strategy="recursive", chunk_size=256.

    Yields:
        one dict per chunk, documents in input order.

    Raises:
        LoaderError: a path that is missing or a file that fails, with errors="raise".
        ConfigError, TokenizerError: bad options.
    """
    import orjson

    from chunkctl import pipeline
    from chunkctl.output.flavours import convert_lines
    from chunkctl.pipeline.cache import RecordCache

    if errors not in ("raise", "skip"):
        raise ConfigError(f"errors={errors!r}: use 'raise' or 'skip'")
    config = ChunkConfig(**options)
    found = pipeline.discover([str(p) for p in paths], include, exclude, hidden, follow_links)
    if found.problems and errors == "raise":
        p = found.problems[0]
        raise LoaderError(p.source, p.reason)
    results = pipeline.run(found.inputs, config, jobs, max_file_size, file_timeout,
                           RecordCache(cache) if cache is not None else None)
    try:
        for res in results:
            if res.error and errors == "raise":
                raise LoaderError(res.source, res.error.removeprefix(res.source + ": "))
            for line in convert_lines(res.lines, flavour).splitlines():
                yield orjson.loads(line)
    finally:
        results.close()
