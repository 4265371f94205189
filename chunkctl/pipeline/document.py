"""One document -> records: load, then `process_document` (strategy -> enrich -> finalize), the only way records are made.

The command line, the library calls (`chunk_file`, `chunk_text`, `chunk_paths`)
and every engine (local workers, Dask) go through `process_document`, so the same
options give the same records everywhere.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from chunkctl.chunking import chunk_document, get_strategy
from chunkctl.config import ChunkConfig
from chunkctl.errors import ChunkctlError, ConfigError, LoaderError, MissingExtraError
from chunkctl.loaders import LOADERS, format_for, load_bytes
from chunkctl.model import Document
from chunkctl.pipeline.finalize import iter_records
from chunkctl.pipeline.inputs import source_name
from chunkctl.spill import JsonlBuffer, Lines
from chunkctl.tokenizers import Tokenizer, TokenTable, get_tokenizer

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


def make_config(options: dict[str, Any], cache: str | os.PathLike | None = None) -> ChunkConfig:
    """The ChunkConfig of a run from flat options: what the command line and the library calls both build.

    The same options give the same config (so the same fingerprint, ids and
    records) whether they come from `chunkctl chunk`'s flags, a configuration file,
    `chunk_file(..., contextualize=True)` or `chunk_file(..., extras={"contextualize": True})`.

    Args:
        options: ChunkConfig fields (`strategy`, `chunk_size`, ...), model-assisted
            options under their extras names (`contextualize`, `summaries`,
            `llm_base_url`, `llm_model`, ...: `chunkctl.llm.options.EXTRAS_DEFAULTS`),
            and `extras` (a dict of the same model-assisted options). An option at its
            default value is the same as an option not given.
        cache: the run's record cache folder; model answers are kept there too
            (`cache_dir`) unless `cache_dir` is given.

    Returns:
        the checked ChunkConfig (model-assisted options in `extras`).

    Raises:
        TypeError: an unknown option (the message names the closest known one), as
            for any unknown keyword argument.
        ConfigError: a bad value; an unknown key in `extras`; a model-assisted option
            given both as a keyword and in `extras` with different values.
    """
    import difflib

    from chunkctl.llm.options import EXTRAS_DEFAULTS

    fields = set(ChunkConfig.field_names()) - {"extras"}
    kw: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    given_extras = options.get("extras") or {}
    if not isinstance(given_extras, dict):
        raise ConfigError(f"extras must be a dict of model-assisted options, got {type(given_extras).__name__}")
    for key, value in given_extras.items():
        if key not in EXTRAS_DEFAULTS:
            near = difflib.get_close_matches(str(key), EXTRAS_DEFAULTS, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise ConfigError(f"unknown key {key!r} in extras{hint} (known: {', '.join(EXTRAS_DEFAULTS)})")
        extras[key] = value
    for key, value in options.items():
        if key == "extras":
            continue
        if key in fields:
            kw[key] = value
        elif key in EXTRAS_DEFAULTS:
            if key in extras and extras[key] != value:
                raise ConfigError(f"{key} is given twice, as a keyword ({value!r}) and in extras ({extras[key]!r})")
            extras[key] = value
        else:
            known = sorted(fields | set(EXTRAS_DEFAULTS))
            near = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise TypeError(f"unknown option {key!r}{hint} (options: {', '.join(known)})")
    extras = {k: v for k, v in extras.items() if v is not None and v != EXTRAS_DEFAULTS[k]}
    if extras and cache is not None and "cache_dir" not in extras:
        extras["cache_dir"] = os.fspath(cache)
    if extras:
        kw["extras"] = extras
    return ChunkConfig(**kw)


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


def process_document(doc: Document, config: ChunkConfig, tokenizer: Tokenizer | None = None,
                     table: TokenTable | None = None) -> DocumentRecords:
    """Turn a loaded document into its records: strategy -> enrich -> finalize.

    The strategy chunks the document (`chunkctl.chunking`); with model-assisted
    options the enrich stage adds contexts and summary records (`chunkctl.enrich`);
    finalize gives ids, pages and metadata (`chunkctl.pipeline.finalize`). The
    document is not changed.

    Args:
        doc: a loaded document.
        config: the run's options.
        tokenizer: the run's tokenizer; default: the one `config` names.
        table: `doc.text`'s token table from that tokenizer, if already built.

    Returns:
        DocumentRecords (records made lazily; model failures; dry-run plan).

    Raises:
        ConfigError: unknown strategy or bad model options.
        TokenizerError: the tokenizer cannot be loaded.
        LLMError: a model call failed and `llm_required` is set.
    """
    tok = tokenizer or get_tokenizer(config.tokenizer, config.tokenizer_pattern)
    if not model_assisted(config):
        chunked = chunk_document(doc, tok, config, table)
        return DocumentRecords(iter_records(_without_blocks(doc), chunked.chunks, config, tok.name, chunked.doc_meta))
    from chunkctl.enrich import apply_llm, plan_llm
    from chunkctl.llm import llm_chunk_config

    if table is None:
        table = tok.table(doc.text)
    chunked = chunk_document(doc, tok, llm_chunk_config(config), table)
    if config.extras.get("llm_dry_run"):
        return DocumentRecords(iter(()), plan=plan_llm(doc, chunked, tok, config, table))
    chunks, failures = apply_llm(doc, chunked, tok, config, table)
    return DocumentRecords(iter_records(_without_blocks(doc), chunks, config, tok.name, chunked.doc_meta), failures)


def _without_blocks(doc: Document) -> Document:
    """`doc` without its blocks, for the records (which read its text and facts only): once
    the caller lets go of `doc`, its blocks are freed before the records are made (a file of
    one-letter pages held 4.5x its size in block columns while its records were written)."""
    return dataclasses.replace(doc, blocks=())


def serialize(records: Iterator[dict[str, Any]], spill: str | None = None) -> tuple[Lines, int, int]:
    """Records as JSONL, serialized one at a time.

    Args:
        records: the records, in output order.
        spill: the run's spill folder (`chunkctl.spill`): past `SPILL_AT` bytes the
            JSONL goes to a file there, so a document whose records are many times its
            size is not held in memory. None: all in memory.

    Returns:
        (JSONL bytes or `SpilledLines`, number of records, sum of their `n_tokens`).

    Raises:
        OSError: the spill file cannot be written (nothing is left behind then).
    """
    dumps, opt = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    # Written to one buffer: orjson's result keeps its whole working buffer (16 KiB or
    # more), so a list of them held ~8x the JSONL size of a big document.
    buf = JsonlBuffer(spill)
    write = buf.write
    n = tokens = 0
    try:
        for rec in records:
            tokens += rec["n_tokens"]
            write(dumps(rec, option=opt))
            n += 1
        return buf.result(), n, tokens
    except BaseException:
        buf.close()
        raise


def prepare(config: ChunkConfig) -> None:
    """Check, before any file is read, that a run with `config` can go: the strategy
    exists and its extras are installed, the tokenizer loads, the sentence splitter
    and the model options are usable, trafilatura is there for `main_content`.

    Raises:
        ConfigError, TokenizerError, MissingExtraError: what is wrong, in one line.
    """
    get_strategy(config.strategy).ready(config)
    get_tokenizer(config.tokenizer, config.tokenizer_pattern)
    check_loader_extras(config)
    if config.sentence_splitter != "blingfire":
        from chunkctl.text.sentences import SentenceSplitter

        SentenceSplitter(config.sentence_splitter)
    if config.extras.get("contextualize") or config.extras.get("summaries"):
        from chunkctl.llm import check_llm

        check_llm(config)


def check_loader_extras(config: ChunkConfig) -> None:
    """Check that the optional packages the loaders need for `config` are installed (`--ocr
    always`: an OCR engine; `main_content`: trafilatura), as `prepare` does before a run and
    `extract` before its file.

    Raises:
        MissingExtraError: naming the pip command.
    """
    if config.ocr == "always":
        from chunkctl.loaders.pdf import ocr

        if not ocr.available():
            raise MissingExtraError("--ocr always", "ocr", ocr.PACKAGE)
    if config.main_content:
        import importlib.util

        if importlib.util.find_spec("trafilatura") is None:  # (found, not imported: it takes a second)
            raise MissingExtraError("--main-content", "html-main", "trafilatura")


def warm(config: ChunkConfig, formats: Iterable[str] | None = None) -> None:
    """Get a worker ready outside the per-file time limit: load the tokenizer and chunk
    the small sample of each of `formats` (default: every registered format) once, so
    lazy set-up (parsers, compiled patterns, imports) is not charged to the first real
    file. Nothing is enriched, and nothing is sent to a model: the `llm` strategy warms
    up as a dry run (cached answers only), so a worker costs no model call."""
    tok = get_tokenizer(config.tokenizer, config.tokenizer_pattern)
    get_strategy(config.strategy).ready(config)
    if config.strategy == "llm":
        config = config.replace(extras={**config.extras, "llm_dry_run": True})
    for fmt in list(LOADERS) if formats is None else formats:
        loader = LOADERS.get(fmt)
        if loader is not None and loader.sample is not None:
            try:
                doc = load_bytes(loader.sample, "warm-up", fmt, config)
                chunked = chunk_document(doc, tok, config)
                for _ in iter_records(doc, chunked.chunks, config, tok.name, chunked.doc_meta):
                    pass
            except ChunkctlError:
                pass


def chunk_records(doc: Document, config: ChunkConfig) -> list[dict[str, Any]]:
    """A loaded document's records as a list, through `process_document`.

    Model calls that failed without failing the document, and parts of the file that could
    not be read (`doc.lost`), are reported as Python warnings (RuntimeWarning), one each,
    since a list has nowhere to hold them;
    the document's own warnings (`doc.warnings`, e.g. an encoding guessed rather than
    declared) as `DocumentWarning`, "<source>: <warning>", as the command line prints them.

    Raises:
        as `process_document`.
    """
    import warnings

    from chunkctl.errors import DocumentWarning

    for line in doc.warnings:
        warnings.warn(f"{doc.source}: {line}", DocumentWarning, stacklevel=3)
    for line in doc.lost:
        warnings.warn(f"{doc.source}: {line}", RuntimeWarning, stacklevel=3)
    out = process_document(doc, config)
    records = list(out.records)
    for failure in out.failures:
        warnings.warn(str(failure), RuntimeWarning, stacklevel=2)
    return records
