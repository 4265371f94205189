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
from chunkctl.errors import ChunkctlError, ConfigError, DocumentWarning, LoaderError, TokenizerError
from chunkctl.model import Block, BlockKind, Chunk, Document
from chunkctl.tokenizers import get_tokenizer

__all__ = [
    "__version__", "load", "chunk_file", "chunk_text", "chunk_paths", "Document", "Block", "BlockKind", "Chunk", "ChunkConfig",
    "ChunkctlError", "ConfigError", "DocumentWarning", "LoaderError", "TokenizerError", "get_tokenizer",
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
    from chunkctl.pipeline.document import make_config

    return _load(path, make_config(options))


def chunk_file(path: str | Path, source: str | None = None, **options: Any) -> list[dict[str, Any]]:
    """Chunk one file and return its records (dicts exactly as the JSONL lines).

    The same path as `chunkctl chunk` (`chunkctl.pipeline.process_document`, options
    turned into a config by `chunkctl.pipeline.document.make_config`), so the same
    options give the same records, byte for byte, model-written contexts and
    summaries included.

    Args:
        path: the file; its `source` is the path as given (or `source=`).
        source: the records' `source`. Defaults to the path as given.
        **options: ChunkConfig fields, e.g. strategy="recursive", chunk_size=256, overlap=32;
            the model-assisted options of the command line under their Python names
            (contextualize=True, summaries=True, llm_base_url=..., llm_model=...), or
            the same in extras={...}.

    Raises:
        LoaderError: the file cannot be read or parsed.
        ConfigError: a bad option value (a model feature without an endpoint included).
        TypeError: an unknown option.
        TokenizerError: the tokenizer cannot be loaded.
        LLMError: a model call failed and llm_required=True (otherwise a failed call is a
            RuntimeWarning and the record is made without its context or summary).

    A part of the file that could not be read (a damaged PDF's pages) is a RuntimeWarning
    too: the records are made without it.

    Warns:
        DocumentWarning: what the command line prints as a warning about the file, e.g.
            "notes.txt: encoding not declared; decoded as cp1252 (detected)".
    """
    from chunkctl.pipeline import chunk_records
    from chunkctl.pipeline import load as _load
    from chunkctl.pipeline.document import make_config

    config = make_config(options)
    return chunk_records(_load(path, config, source=source), config)


def chunk_text(text: str, format: str = "txt", source: str = "-", **options: Any) -> list[dict[str, Any]]:
    """Chunk a string as if it were a UTF-8 file of the given format.

    Args:
        text: the document (for txt and md, offsets index this string exactly).
        format: "txt", "md" or "html" ("pdf" needs bytes: use chunk_file).
        source: the `source` written in the records.
        **options: as for `chunk_file` (model-assisted options included).

    Raises:
        as `chunk_file`.
    """
    from chunkctl.loaders import load_bytes
    from chunkctl.pipeline import chunk_records
    from chunkctl.pipeline.document import make_config

    config = make_config(options)
    data = text.encode("utf-8", "surrogatepass")
    doc = load_bytes(data, source, format, config)
    return chunk_records(doc, config)


def chunk_paths(paths: Iterable[str | Path], *, jobs: int = 1, cache: str | Path | None = None,
                file_timeout: float | None = 300.0, flavour: str = "chunkctl", include: Iterable[str] = (),
                exclude: Iterable[str] = (), hidden: bool = False, max_file_size: int | str | None = None,
                errors: str = "raise", follow_links: bool = False, source_root: str | Path | None = None,
                **options: Any) -> Iterator[dict[str, Any]]:
    """Chunk files and folders as `chunkctl chunk` does, yielding records in output order.

    The same job as the command line, for a Python caller: folders are walked in
    sorted order, `jobs` worker processes share the files (the records do not depend
    on it), a file slower than `file_timeout` seconds is stopped, and with a `cache`
    folder unchanged files are not parsed again (model answers are kept there too).

    With `jobs` > 1 the files go to worker processes, which import the caller's main
    module where processes start by spawning (Windows, any platform without `fork`):
    a script must call this under `if __name__ == "__main__":`, as for any
    `multiprocessing` use.

    Args:
        paths: files and folders (a file's `source` is the path as given; a folder's
            files are relative to it; with `source_root`, every source is relative to
            that folder).
        jobs: worker processes. Defaults to 1.
        cache: record cache folder. Defaults to `None` (no cache).
        file_timeout: seconds one file may take; None or 0: no limit. Defaults to 300.
        flavour: "chunkctl" (contract records), "langchain" or "llamaindex" dicts.
        include, exclude, hidden, follow_links: which files to take, as on the command
            line (gitignore-style patterns matched against `source`; links in folders
            that lead out of them are left out unless `follow_links`).
        max_file_size: skip larger files: bytes, or a size such as "10MB" or "1.5GiB".
        errors: "raise" (LoaderError at the first file that fails; the workers are
            stopped) or "skip" (leave failed files out).
        source_root: the folder every `source` is relative to (`--source-root`); a
            file outside it fails ("OutsideSourceRoot").
        **options: as for `chunk_file` (model-assisted options included).

    Yields:
        one dict per chunk, documents in input order. A model call that failed without
        failing its file, or a part of it that could not be read, is a RuntimeWarning, as in `chunk_file`; each warning the
        command line prints about a file ("<source>: encoding not declared; decoded as
        cp1252 (detected)", ...) is a `DocumentWarning`.

    Raises:
        LoaderError: a path that is missing or outside `source_root`, or a file that
            fails, with errors="raise".
        ConfigError, TokenizerError, MissingExtraError: bad options, before any file
            is read.
        TypeError: an unknown option.
    """
    import warnings

    import orjson

    from chunkctl import pipeline
    from chunkctl.configfile import parse_size
    from chunkctl.output.flavours import check_flavour, flavoured_blocks
    from chunkctl.pipeline.cache import RecordCache
    from chunkctl.pipeline.document import make_config
    from chunkctl.spill import discard

    if errors not in ("raise", "skip"):
        raise ConfigError(f"errors={errors!r}: use 'raise' or 'skip'")
    check_flavour(flavour)
    config = make_config(options, cache=cache)
    size_limit = parse_size(max_file_size, "max_file_size")
    found = pipeline.discover([str(p) for p in paths], include, exclude, hidden, follow_links,
                              source_root=str(source_root) if source_root is not None else None)
    if found.problems and errors == "raise":
        p = found.problems[0]
        raise LoaderError(p.source, p.reason)
    record_cache = RecordCache(cache) if cache is not None else None
    known = pipeline.plan(found.inputs, config, size_limit, record_cache)
    if any(r is None for r in known):
        pipeline.prepare(config)  # a bad option fails here once, not as a failure of every file
    results = pipeline.run(found.inputs, config, jobs, size_limit, file_timeout, record_cache, known, spill=True)
    try:
        for res in results:
            if res.error and errors == "raise":
                raise LoaderError(res.source, res.error.removeprefix(res.source + ": "))
            for warning in res.warnings:
                warnings.warn(warning, DocumentWarning, stacklevel=2)
            for failure in [*res.model_failures, *res.lost]:  # (records written without them)
                warnings.warn(failure, RuntimeWarning, stacklevel=2)
            try:
                for block in flavoured_blocks(res.lines, flavour):
                    for line in block.splitlines():
                        yield orjson.loads(line)
            finally:
                discard(res.lines)
    finally:
        results.close()
