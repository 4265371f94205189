"""Output flavours: a document's contract records as LangChain Documents or LlamaIndex TextNodes (plain dicts), and back; no I/O.

Neither library is needed: the dicts are what `Document(**obj)` and
`TextNode.model_validate(obj)` accept, and `to_records` turns them back into the
contract records without loss. Both flavours carry their metadata in the flat,
store-safe form of `flat_metadata` (docs/records.md#flat-metadata).
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterable, Iterator
from typing import IO, Any

import orjson

from chunkctl.fields import HEADINGS_SEPARATOR, META_KEYS, RECORD_FIELDS, RECORD_KEYS
from chunkctl.spill import Lines, line_blocks, read_all

FLAVOURS = ("chunkctl", "langchain", "llamaindex")
"""Record flavours `--flavour` accepts: the contract's records, LangChain Documents, LlamaIndex TextNodes."""


def check_flavour(name: str) -> None:
    """Raise ConfigError unless `name` is a known record flavour."""
    from chunkctl.errors import ConfigError

    if name not in FLAVOURS:
        hint = ""
        if name in ("txt", "md", "markdown", "pdf", "html"):  # --format is --flavour's former name
            hint = " (the record shape; input formats come from file extensions, --stdin-format for stdin)"
        raise ConfigError(f"--flavour {name!r} is not one of: {', '.join(FLAVOURS)}{hint}")


# The contract's record fields (docs/records.md, v1) other than `text` and `meta`, in order.
_FIELDS = tuple(f.name for f in RECORD_FIELDS if f.name not in ("text", "meta"))
_NULLABLE = tuple(f.name for f in RECORD_FIELDS if f.nullable)

Scalar = str | int | float | bool
"""A value every vector store takes as metadata."""


def _joinable(headings: list[str]) -> bool:
    """The joined string gives exactly these headings back (no heading holds the separator or is empty)."""
    return all(h and HEADINGS_SEPARATOR not in h for h in headings)


def flat_metadata(record: dict[str, Any], leave_out: Iterable[str] = ("text",)) -> dict[str, Scalar]:
    """A record's facts as flat, store-safe metadata: str, int, float and bool values only.

    Stores such as Chroma take no null, no list and no nested object as a metadata
    value. This form: the record's fields (but `leave_out`), then its `meta` keys at the
    same level (no name is shared); `headings` joined with " > " into one string ("" for
    none); nulls dropped. A heading that itself holds " > " (or is empty) would not
    split back, so then the list also travels as JSON text in `headings_json`.
    `to_records` reverses it exactly.

    Args:
        record: one contract record (docs/records.md).
        leave_out: record fields not to copy (`text`: the store keeps it as the document).

    Returns:
        a new dict, keys in record order then `meta` order.
    """
    skip = set(leave_out) | {"text", "meta"}
    out: dict[str, Any] = {k: record[k] for k in _FIELDS if k in record and k not in skip}
    if "headings" in out:
        heads = list(out["headings"])
        out["headings"] = HEADINGS_SEPARATOR.join(heads)
        if not _joinable(heads):
            out["headings_json"] = orjson.dumps(heads).decode("utf-8")
    out.update(record.get("meta") or {})
    return {k: v for k, v in out.items() if v is not None}


def _record_from_flat(md: dict[str, Any], text: str) -> dict[str, Any]:
    """The contract record back from `flat_metadata` (and the older list-and-null form)."""
    md = dict(md)
    heads = md.pop("headings", [])
    heads_json = md.pop("headings_json", None)
    if isinstance(heads_json, str):
        heads = orjson.loads(heads_json)
    elif isinstance(heads, str):
        heads = heads.split(HEADINGS_SEPARATOR) if heads else []
    rec: dict[str, Any] = {k: md.pop(k) for k in _FIELDS if k in md}
    rec["headings"] = heads
    for k in _NULLABLE:
        rec.setdefault(k, None)
    rec["text"] = text
    # `meta` in its own order: every known key (null where dropped), then any others.
    meta = {k: md.pop(k, None) for k in META_KEYS}
    meta.update(md)
    rec["meta"] = meta
    return {k: rec[k] for k in RECORD_KEYS if k in rec} | rec


# llama-index-core's enum values (NodeRelationship, ObjectType), written as the JSON it reads.
_SOURCE, _PREVIOUS, _NEXT, _PARENT, _CHILD = "1", "2", "3", "4", "5"
_TEXT_NODE, _DOCUMENT = "1", "4"


def _langchain(rec: dict[str, Any]) -> dict[str, Any]:
    return {"id": rec["id"], "page_content": rec["text"], "metadata": flat_metadata(rec), "type": "Document"}


def _related(node_id: str, node_type: str = _TEXT_NODE) -> dict[str, Any]:
    return {"node_id": node_id, "node_type": node_type, "metadata": {}, "hash": None, "class_name": "RelatedNodeInfo"}


def _llamaindex(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Previous/next link chunks of the same depth (so parents link to parents), in
    # document order; parent/child follow `parent_id`.
    children: dict[str, list[str]] = {}
    for r in recs:
        if r.get("parent_id"):
            children.setdefault(r["parent_id"], []).append(r["id"])
    by_id = {r["id"]: r for r in recs}

    def depth(r: dict[str, Any]) -> int:
        d = 0
        while r.get("parent_id") in by_id and d < 64:
            r = by_id[r["parent_id"]]
            d += 1
        return d

    levels: dict[int, list[str]] = {}
    for r in recs:
        levels.setdefault(depth(r), []).append(r["id"])
    prev: dict[str, str] = {}
    nxt: dict[str, str] = {}
    for ids in levels.values():
        for a, b in zip(ids, ids[1:]):
            nxt[a], prev[b] = b, a
    out = []
    for r in recs:
        metadata = flat_metadata(r, leave_out=("text", "id", "start", "end"))
        rel: dict[str, Any] = {_SOURCE: _related(r["doc_id"], _DOCUMENT)}
        if r["id"] in prev:
            rel[_PREVIOUS] = _related(prev[r["id"]])
        if r["id"] in nxt:
            rel[_NEXT] = _related(nxt[r["id"]])
        if r.get("parent_id"):
            rel[_PARENT] = _related(r["parent_id"])
        if r["id"] in children:
            rel[_CHILD] = [_related(c) for c in children[r["id"]]]
        keys = list(metadata)
        out.append({
            "id_": r["id"],
            "text": r["text"],
            "metadata": metadata,
            # The text to embed is `text` exactly (its n_tokens are counted): keep
            # LlamaIndex from prepending the metadata to it.
            "excluded_embed_metadata_keys": keys,
            "excluded_llm_metadata_keys": keys,
            "relationships": rel,
            "start_char_idx": r["start"],
            "end_char_idx": r["end"],
            "mimetype": "text/plain",
            "class_name": "TextNode",
        })
    return out


def convert(records: list[dict[str, Any]], flavour: str) -> list[dict[str, Any]]:
    """One document's records in an output flavour.

    Args:
        records: all records of one document, in output order (previous/next links
            need the neighbours).
        flavour: "chunkctl" (the records themselves), "langchain" (`{"id", "page_content",
            "metadata", "type"}`, loadable as `langchain_core.documents.Document(**obj)`;
            metadata = `flat_metadata`: the record fields but `text`, plus the `meta`
            facts, scalars only) or "llamaindex" (TextNode JSON: `id_`, `text`,
            `metadata` = `flat_metadata` without `id`, `start`, `end`; `start_char_idx`,
            `end_char_idx` = the body's span, relationships SOURCE = the document,
            PREVIOUS/NEXT = neighbours of the same depth, PARENT/CHILD).

    Raises:
        ValueError: an unknown flavour.
    """
    if flavour == "chunkctl":
        return records
    if flavour == "langchain":
        return [_langchain(r) for r in records]
    if flavour == "llamaindex":
        return _llamaindex(records)
    raise ValueError(f"unknown output format {flavour!r} (known: {', '.join(FLAVOURS)})")


def convert_lines(lines: bytes, flavour: str) -> bytes:
    """JSONL bytes of one document's records, converted to `flavour` (unchanged for "chunkctl")."""
    if flavour == "chunkctl" or not lines:
        return lines
    recs = [orjson.loads(line) for line in lines.splitlines() if line]
    buf = io.BytesIO()  # not a list of orjson results: each keeps a 16 KiB+ buffer
    for o in convert(recs, flavour):
        buf.write(orjson.dumps(o, option=orjson.OPT_APPEND_NEWLINE))
    return buf.getvalue()


def flavoured_blocks(lines: Lines, flavour: str) -> Iterator[bytes]:
    """One document's JSONL converted to `flavour`, in pieces of whole lines (see `line_blocks`).

    A `SpilledLines` document is read and converted a piece at a time, so it is never
    all in memory, except for "llamaindex", whose previous/next links need the whole
    document at once.

    Raises:
        ValueError: an unknown flavour.
        OSError: a spill file cannot be read.
    """
    if flavour == "chunkctl":
        yield from line_blocks(lines)
    elif flavour == "llamaindex":
        yield convert_lines(read_all(lines), flavour)
    else:
        for block in line_blocks(lines):
            yield convert_lines(block, flavour)


def to_records(objs: Iterable[dict[str, Any]], flavour: str) -> list[dict[str, Any]]:
    """The contract records back from flavoured objects (the inverse of `convert`).

    Flat metadata is read back exactly: `headings` split at " > " (or read from
    `headings_json`), dropped nulls restored, `meta` keys in their order. Objects written
    by chunkctl 0.1.1 and earlier (lists and nulls in the metadata) are read too.

    Raises:
        ValueError: an unknown flavour.
    """
    out = []
    for o in objs:
        if flavour == "chunkctl":
            out.append(o)
            continue
        if flavour == "langchain":
            out.append(_record_from_flat(o["metadata"], o["page_content"]))
        elif flavour == "llamaindex":
            md = dict(o["metadata"])
            md.update(id=o["id_"], start=o["start_char_idx"], end=o["end_char_idx"])
            out.append(_record_from_flat(md, o["text"]))
        else:
            raise ValueError(f"unknown output format {flavour!r} (known: {', '.join(FLAVOURS)})")
    return out


def jsonl_lines(stream: IO[bytes]) -> Iterator[bytes]:
    """The lines of a JSONL run as written (bytes), gunzipped when the stream starts with gzip's magic bytes.

    For readers of a run's output (`stats`, `view --records`): a `.gz` name is not
    needed, standard input works too.
    """
    head = stream.peek(2)[:2] if hasattr(stream, "peek") else b""
    if head == b"\x1f\x8b":
        stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
    yield from stream
