"""JSON Schema of one output record (docs/records.md, contract v1), made from `chunkctl.fields`; data only."""

from __future__ import annotations

from typing import Any

from chunkctl.fields import META_FIELDS, RECORD_FIELDS, Field
from chunkctl.loaders import formats

_JSON_TYPE = {"string": "string", "integer": "integer", "boolean": "boolean", "strings": "array", "object": "object"}
_MINIMUM = {"chunk_index": 0, "n_chunks": 1, "start": 0, "end": 1, "n_tokens": 1, "page_start": 1, "page_end": 1,
            "chunk_size": 1, "overlap": 0, "n_pages": 1, "parent_chunk_size": 1}


def _property(f: Field) -> dict[str, Any]:
    json_type = _JSON_TYPE[f.type]
    prop: dict[str, Any] = {"type": [json_type, "null"] if f.nullable else json_type, "description": f.doc}
    if f.type == "strings":
        prop["items"] = {"type": "string"}
    if f.name in _MINIMUM:
        prop["minimum"] = _MINIMUM[f.name]
    return prop


def record_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a chunk record as chunkctl writes it.

    Every field and every `meta` key is required: a fact that does not apply is null,
    never a missing key, so one table schema holds records of every format. Keys that
    a plugin strategy adds to `meta` are allowed beyond these (`additionalProperties`).
    """
    props = {f.name: _property(f) for f in RECORD_FIELDS if f.name != "meta"}
    props["format"] = {"enum": formats(), "description": "the loader that read the file (registered formats)"}
    props["kind"] = {"enum": ["text", "table", "code", "mixed", "summary"]}
    props["meta"] = {
        "type": "object",
        "description": "document and run facts; a key that does not apply is null",
        "required": [f.name for f in META_FIELDS],
        "properties": {f.name: _property(f) for f in META_FIELDS},
        "additionalProperties": True,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://chunkctl.dev/schema/chunk-record-v1.json",
        "title": "chunkctl chunk record (contract v1)",
        "type": "object",
        "required": [f.name for f in RECORD_FIELDS],
        "properties": props,
        "additionalProperties": True,
    }
