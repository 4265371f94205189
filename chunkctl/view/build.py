"""The documents of a view: inputs loaded, then chunked here or matched with records read from a JSONL file; no HTML, no terminal output."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO, Any

import orjson

from chunkctl.config import ChunkConfig
from chunkctl.errors import ChunkctlError, LoaderError
from chunkctl.model import Document
from chunkctl.output.flavours import jsonl_lines, to_records
from chunkctl.pipeline.document import chunk_records, load
from chunkctl.pipeline.inputs import InputFile
from chunkctl.view.data import DocumentView, mismatch


@dataclass
class RecordFile:
    """Records read from a JSONL file, grouped by document.

    Attributes:
        by_source: `source` -> its records, in file order; sources in first-seen order.
        bad_lines: 1-based numbers of lines that are not a JSON record.
    """

    by_source: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    bad_lines: list[int] = field(default_factory=list)

    @property
    def records(self) -> int:
        """Number of records read."""
        return sum(len(v) for v in self.by_source.values())


def read_records(stream: IO[bytes]) -> RecordFile:
    """Read JSONL records (gzip-compressed or not; any `--flavour`) and group them by `source`.

    Args:
        stream: a binary stream (a buffered file or stdin's buffer).

    Raises:
        OSError, EOFError: the stream cannot be read (a truncated gzip file).
    """
    out = RecordFile()
    for i, line in enumerate(jsonl_lines(stream), 1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
            if isinstance(rec, dict) and ("page_content" in rec or "id_" in rec):
                rec = to_records([rec], "langchain" if "page_content" in rec else "llamaindex")[0]
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            out.bad_lines.append(i)
            continue
        if not _drawable(rec):
            out.bad_lines.append(i)
            continue
        out.by_source.setdefault(rec["source"], []).append(rec)
    return out


def _drawable(rec: Any) -> bool:
    """True when a record has what a view draws, with the contract's types: a string `id`, `source` and `text`,
    a string or null `parent_id`, a list of `headings`,
    integer `start`, `end`, `n_tokens` and `chunk_index`, and a `meta` object (when present) whose
    `chunk_size` (when present) is an integer."""
    def integer(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not isinstance(rec, dict) or not all(isinstance(rec.get(k), str) for k in ("id", "source", "text")):
        return False
    if not isinstance(rec.get("parent_id"), (str, type(None))) or not isinstance(rec.get("headings", []), list):
        return False
    if not all(integer(rec.get(k)) for k in ("start", "end", "n_tokens", "chunk_index")):
        return False
    if not isinstance(rec.get("prefix", ""), str):
        return False
    meta = rec.get("meta", {})
    return isinstance(meta, dict) and (meta.get("chunk_size") is None or integer(meta["chunk_size"]))


def _load(item: InputFile, config: ChunkConfig) -> tuple[DocumentView, Document | None]:
    """The input loaded: its view (text, title) and Document, or the view of its failure and None."""
    view = DocumentView(item.source, item.format, nbytes=item.size or len(item.data or b""))
    try:
        doc = load(item.path or item.source, config, source=item.source, data=item.data, format=item.format)
    except LoaderError as exc:
        view.error = exc.reason
        return view, None
    except ChunkctlError as exc:
        view.error = str(exc)
        return view, None
    view.text, view.title, view.format, view.warnings = doc.text, doc.title, doc.format, list(doc.warnings)
    return view, doc


def chunk_views(inputs: Iterable[InputFile], config: ChunkConfig,
                done: Callable[[DocumentView], None] | None = None) -> list[DocumentView]:
    """Load and chunk each input with `config`, one at a time, through `process_document` as `chunkctl chunk` does.

    A file that cannot be read or chunked becomes a view with `error` set; the others
    go on. Inputs no loader reads (`format` None) are left out.

    Args:
        inputs: the run's inputs (`chunkctl.pipeline.gather`).
        config: the chunking options.
        done: called with each view as it is made (progress, warnings).

    Returns:
        one view per input read, in input order.
    """
    out = []
    for item in inputs:
        if item.format is None:
            continue
        view, doc = _load(item, config)
        if doc is not None:
            try:
                view.records = chunk_records(doc, config)
            except ChunkctlError as exc:
                view.error, view.text = str(exc), None
        if done is not None:
            done(view)
        out.append(view)
    return out


def record_views(inputs: Iterable[InputFile], records: RecordFile, config: ChunkConfig,
                 done: Callable[[DocumentView], None] | None = None) -> list[DocumentView]:
    """Load each input and give it the records whose `source` is its source.

    A document whose records do not match its text (other loading options: `--encoding`,
    `--keep-boilerplate`, `--main-content`) is a failure naming the first record that
    differs; so is one whose file changed since (`meta.sha256` differs), and a source in
    the records that no input has. An input without records is shown with none.

    Args:
        inputs: the documents (`chunkctl.pipeline.gather`), with the sources the records were made with.
        records: from `read_records`.
        config: options that affect loading.
        done: called with each view as it is made.

    Returns:
        one view per input read, in input order, then one per unmatched source.
    """
    out = []
    seen = set()
    for item in inputs:
        if item.format is None:
            continue
        view, doc = _load(item, config)
        recs = records.by_source.get(item.source, [])
        seen.add(item.source)
        if doc is not None and recs:
            sha = (recs[0].get("meta") or {}).get("sha256")
            if sha and doc.meta.get("sha256") and sha != doc.meta.get("sha256"):
                # (even when the old spans still match: text added after them has no records,
                # helper-102 appended a section and the view drew the old records as current)
                problem: str | None = "the file changed since its records were written (its sha256 differs)"
            else:
                problem = mismatch(doc.text, recs)
            if problem:
                view.error, view.text = f"the records do not match the document: {problem}", None
            view.records = recs
        if done is not None:
            done(view)
        out.append(view)
    for source, recs in records.by_source.items():
        if source not in seen:
            view = DocumentView(source, str(recs[0].get("format") or "") or None, records=recs,
                                error="no such document among the inputs (give the folder the records were made from)")
            if done is not None:
                done(view)
            out.append(view)
    return out
