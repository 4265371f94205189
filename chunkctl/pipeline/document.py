"""One document -> records: load, then `process_document` (strategy -> enrich -> finalize), the only way records are made.

The command line, the library calls (`chunk_file`, `chunk_text`, `chunk_paths`)
and every engine (local workers, Dask) go through `process_document`, so the same
options give the same records everywhere.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from chunkctl.chunking import chunk_document, get_strategy
from chunkctl.config import ChunkConfig
from chunkctl.errors import ChunkctlError, LoaderError
from chunkctl.loaders import LOADERS, format_for, load_bytes
from chunkctl.model import Document
from chunkctl.pipeline.finalize import iter_records
from chunkctl.pipeline.inputs import source_name
from chunkctl.tokenizers import Tokenizer, get_tokenizer

if TYPE_CHECKING:
    from chunkctl.enrich import LLMPlan
    from chunkctl.llm import LLMFailure


def load(path: str | os.PathLike, config: ChunkConfig | None = None, source: str | None = None,
         data: bytes | None = None, format: str | None = None) -> Document:
    """Load one file into a Document (no chunking).

    Args:
        path: the file to read (also used for its extension when `format` is None).
        config: options that affect loading (encoding, password, HTML options).
        source: the record's `source`; defaults to `path` with `/` separators (bytes
            of the name that are not UTF-8 written as `\\xNN`, see `inputs.source_name`).
        data: the file's bytes when already read (then `path` is not opened).
        format: a registered format name, instead of the extension's.

    Raises:
        LoaderError: unsupported extension, not a regular file, unreadable or
            undecodable file.
    """
    config = config or ChunkConfig()
    path = str(path)
    source = source_name(source or path.replace(os.sep, "/"))  # undecodable name bytes as \xNN
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


def model_assisted(config: ChunkConfig) -> bool:
    """True when the run asks a model (contexts, summaries, the `llm` strategy)."""
    x = config.extras
    return bool(x.get("contextualize") or x.get("summaries") or config.strategy == "llm")


@dataclass
class DocumentRecords:
    """What one document became.

    Attributes:
        records: the contract records, made lazily one at a time in output order
            (a caller that serializes each at once never holds every record of a
            big document).
        failures: model calls that failed without failing the document (the records
            are made without their contexts or summaries), `str()` one line each.
        plan: with `llm_dry_run`, what the run would ask the model (no records then).
    """

    records: Iterator[dict[str, Any]]
    failures: list[LLMFailure] = field(default_factory=list)
    plan: LLMPlan | None = None


def process_document(doc: Document, config: ChunkConfig, tokenizer: Tokenizer | None = None) -> DocumentRecords:
    """Turn a loaded document into its records: strategy -> enrich -> finalize.

    The strategy chunks the document (`chunkctl.chunking`); with model-assisted
    options the enrich stage adds contexts and summary records (`chunkctl.enrich`);
    finalize gives ids, pages and metadata (`chunkctl.pipeline.finalize`). The
    document is not changed.

    Args:
        doc: a loaded document.
        config: the run's options.
        tokenizer: the run's tokenizer; default: the one `config` names.

    Returns:
        DocumentRecords (records made lazily; model failures; dry-run plan).

    Raises:
        ConfigError: unknown strategy or bad model options.
        TokenizerError: the tokenizer cannot be loaded.
        LLMError: a model call failed and `llm_required` is set.
    """
    tok = tokenizer or get_tokenizer(config.tokenizer, config.tokenizer_pattern)
    if not model_assisted(config):
        chunked = chunk_document(doc, tok, config)
        return DocumentRecords(iter_records(doc, chunked.chunks, config, tok.name, chunked.doc_meta))
    from chunkctl.enrich import apply_llm, plan_llm
    from chunkctl.llm import llm_chunk_config

    table = tok.table(doc.text)
    chunked = chunk_document(doc, tok, llm_chunk_config(config), table)
    if config.extras.get("llm_dry_run"):
        return DocumentRecords(iter(()), plan=plan_llm(doc, chunked, tok, config, table))
    chunks, failures = apply_llm(doc, chunked, tok, config, table)
    return DocumentRecords(iter_records(doc, chunks, config, tok.name, chunked.doc_meta), failures)


def serialize(records: Iterator[dict[str, Any]]) -> tuple[bytes, int, int]:
    """Records as JSONL bytes, serialized one at a time.

    Returns:
        (JSONL bytes, number of records, sum of their `n_tokens`).
    """
    dumps, opt = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    # Written to one buffer at once: orjson's result keeps its whole working buffer
    # (16 KiB or more), so a list of them held ~8x the JSONL size of a big document.
    # BytesIO.getvalue() hands over its buffer without a copy.
    buf = io.BytesIO()
    write = buf.write
    n = tokens = 0
    for rec in records:
        tokens += rec["n_tokens"]
        write(dumps(rec, option=opt))
        n += 1
    return buf.getvalue(), n, tokens


def prepare(config: ChunkConfig) -> None:
    """Check, before any file is read, that a run with `config` can go: the strategy
    exists and its extras are installed, the tokenizer loads, the sentence splitter
    and the model options are usable.

    Raises:
        ConfigError, TokenizerError, MissingExtraError: what is wrong, in one line.
    """
    get_strategy(config.strategy).ready(config)
    get_tokenizer(config.tokenizer, config.tokenizer_pattern)
    if config.sentence_splitter != "blingfire":
        from chunkctl.text.sentences import SentenceSplitter

        SentenceSplitter(config.sentence_splitter)
    if config.extras.get("contextualize") or config.extras.get("summaries"):
        from chunkctl.llm import check_llm

        check_llm(config)


def warm(config: ChunkConfig) -> None:
    """Get a worker ready outside the per-file time limit: load the tokenizer and chunk
    each registered format's small sample once, so lazy set-up (parsers, compiled
    patterns, imports) is not charged to the first real file. Nothing is enriched."""
    tok = get_tokenizer(config.tokenizer, config.tokenizer_pattern)
    get_strategy(config.strategy).ready(config)
    for fmt, loader in LOADERS.items():
        if loader.sample is not None:
            try:
                doc = load_bytes(loader.sample, "warm-up", fmt, config)
                chunked = chunk_document(doc, tok, config)
                for _ in iter_records(doc, chunked.chunks, config, tok.name, chunked.doc_meta):
                    pass
            except ChunkctlError:
                pass


def chunk_records(doc: Document, config: ChunkConfig) -> list[dict[str, Any]]:
    """A loaded document's records as a list, through `process_document`.

    Model calls that failed without failing the document are reported as Python
    warnings (RuntimeWarning), one per failure, since a list has nowhere to hold them.

    Raises:
        as `process_document`.
    """
    import warnings

    out = process_document(doc, config)
    records = list(out.records)
    for failure in out.failures:
        warnings.warn(str(failure), RuntimeWarning, stacklevel=2)
    return records
