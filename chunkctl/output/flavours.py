"""Output flavours: a document's contract records as LangChain Documents or LlamaIndex TextNodes (plain dicts), and back; no I/O.

Neither library is needed: the dicts are what `Document(**obj)` and
`TextNode.model_validate(obj)` accept, and `to_records` turns them back into the
contract records without loss.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

import orjson

FLAVOURS = ("chunkctl", "langchain", "llamaindex")
"""Record flavours `--flavour` accepts: the contract's records, LangChain Documents, LlamaIndex TextNodes."""


def check_flavour(name: str) -> None:
    """Raise ConfigError unless `name` is a known record flavour."""
    from chunkctl.errors import ConfigError

    if name not in FLAVOURS:
        raise ConfigError(f"--flavour {name!r} is not one of: {', '.join(FLAVOURS)}")

# The contract's record fields (docs/records.md, v1) other than `text` and `meta`, in order.
_FIELDS = ("id", "doc_id", "source", "format", "chunk_index", "n_chunks", "prefix", "start", "end", "n_tokens",
           "headings", "kind", "page_start", "page_end", "oversize", "parent_id")

# llama-index-core's enum values (NodeRelationship, ObjectType), written as the JSON it reads.
_SOURCE, _PREVIOUS, _NEXT, _PARENT, _CHILD = "1", "2", "3", "4", "5"
_TEXT_NODE, _DOCUMENT = "1", "4"


def _langchain(rec: dict[str, Any]) -> dict[str, Any]:
    # Vector stores want flat metadata: the record's `meta` facts join the record
    # fields at the top level (no name is shared).
    metadata = {k: rec[k] for k in _FIELDS if k in rec}
    metadata.update(rec.get("meta") or {})
    return {"id": rec["id"], "page_content": rec["text"], "metadata": metadata, "type": "Document"}


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
        metadata = {k: r[k] for k in _FIELDS if k not in ("id", "start", "end") and k in r}
        metadata.update(r.get("meta") or {})
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
            metadata = the record fields but `text`, plus the `meta` facts) or
            "llamaindex" (TextNode JSON: `id_`, `text`, `metadata`, `start_char_idx`,
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


def to_records(objs: Iterable[dict[str, Any]], flavour: str) -> list[dict[str, Any]]:
    """The contract records back from flavoured objects (the inverse of `convert`).

    Raises:
        ValueError: an unknown flavour.
    """
    out = []
    for o in objs:
        if flavour == "chunkctl":
            out.append(o)
            continue
        if flavour == "langchain":
            md = dict(o["metadata"])
            text = o["page_content"]
        elif flavour == "llamaindex":
            md = dict(o["metadata"])
            md.update(id=o["id_"], start=o["start_char_idx"], end=o["end_char_idx"])
            text = o["text"]
        else:
            raise ValueError(f"unknown output format {flavour!r} (known: {', '.join(FLAVOURS)})")
        rec = {k: md.pop(k) for k in _FIELDS if k in md}
        rec["text"] = text
        rec["meta"] = md
        out.append({k: rec[k] for k in ("id", "doc_id", "source", "format", "chunk_index", "n_chunks", "text")
                    if k in rec} | rec)
    return out
