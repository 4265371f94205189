"""JSON Schema of one output record (docs/records.md, contract v1); data only."""

from __future__ import annotations

from typing import Any

from chunkctl.loaders import formats


def record_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a chunk record as chunkctl writes it."""
    nullable_int = {"type": ["integer", "null"], "minimum": 1}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://chunkctl.dev/schema/chunk-record-v1.json",
        "title": "chunkctl chunk record (contract v1)",
        "type": "object",
        "required": ["id", "doc_id", "source", "format", "chunk_index", "n_chunks", "text", "prefix", "start",
                     "end", "n_tokens", "headings", "kind", "page_start", "page_end", "oversize", "parent_id",
                     "meta"],
        "properties": {
            "id": {"type": "string", "description": "chunk id: same file bytes + same options = same id"},
            "doc_id": {"type": "string", "description": "document id derived from source"},
            "source": {"type": "string", "description": "path relative to the folder given ('/' separators); '-' for stdin"},
            "format": {"enum": formats(), "description": "the loader that read the file (registered formats)"},
            "chunk_index": {"type": "integer", "minimum": 0},
            "n_chunks": {"type": "integer", "minimum": 1},
            "text": {"type": "string", "description": "prefix + body: what to embed"},
            "prefix": {"type": "string", "description": "breadcrumb, model context and/or repeated table header"},
            "start": {"type": "integer", "minimum": 0, "description": "body start in the document text (code points)"},
            "end": {"type": "integer", "minimum": 1, "description": "body end, exclusive (code points)"},
            "n_tokens": {"type": "integer", "minimum": 1, "description": "tokens of text, prefix included"},
            "headings": {"type": "array", "items": {"type": "string"}},
            "kind": {"enum": ["text", "table", "code", "mixed", "summary"]},
            "page_start": nullable_int,
            "page_end": nullable_int,
            "oversize": {"type": "boolean"},
            "parent_id": {"type": ["string", "null"]},
            "meta": {
                "type": "object",
                "required": ["title", "encoding", "sha256", "tokenizer", "strategy", "chunk_size", "overlap",
                             "version"],
                "properties": {
                    "title": {"type": "string"},
                    "encoding": {"type": "string"},
                    "sha256": {"type": "string"},
                    "tokenizer": {"type": "string"},
                    "strategy": {"type": "string"},
                    "chunk_size": {"type": "integer", "minimum": 1},
                    "overlap": {"type": "integer", "minimum": 0},
                    "version": {"type": "string"},
                },
            },
        },
        "additionalProperties": True,
    }
