"""What `chunkctl inspect` shows: each chunk of a file cut into labelled parts (breadcrumb, repeated header, overlap, body); no rendering."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chunkctl.config import ChunkConfig

PART_ROLES = ("breadcrumb", "header", "context", "overlap", "body")
"""Roles of a chunk's parts: prefix parts (breadcrumb, repeated table header, other
context) and body parts (the overlap with the previous chunk, then the rest)."""


@dataclass
class ChunkView:
    """One record and its text cut into labelled parts.

    Attributes:
        record: the contract record.
        parts: (role, text) pairs whose texts joined give `record["text"]`.
        overlap: characters of the body shared with the previous chunk of the same depth.
    """

    record: dict[str, Any]
    parts: list[tuple[str, str]]
    overlap: int = 0


def split_prefix(prefix: str, kind: str) -> list[tuple[str, str]]:
    """Label the parts of a prefix: a leading one-line breadcrumb ("A > B\\n\\n"), then a
    repeated table header (table chunks) or other context."""
    parts: list[tuple[str, str]] = []
    rest = prefix
    head, sep, tail = prefix.partition("\n\n")
    if sep and "\n" not in head and not head.lstrip().startswith("|"):
        parts.append(("breadcrumb", head + sep))
        rest = tail
    if rest:
        parts.append(("header" if kind == "table" else "context", rest))
    return parts


def views(records: list[dict[str, Any]]) -> list[ChunkView]:
    """Cut each record of one document into labelled parts.

    The overlap of a chunk is the start of its body that the previous chunk of the
    same depth (parent hops) already covers: `[start, previous end)`.
    """
    by_id = {r["id"]: r for r in records}
    last_end: dict[int, int] = {}
    out = []
    for r in records:
        depth, p = 0, r
        while p.get("parent_id") in by_id and depth < 64:
            p = by_id[p["parent_id"]]
            depth += 1
        prefix = r["prefix"]
        body = r["text"][len(prefix):]
        parts = split_prefix(prefix, r["kind"])
        shared = 0
        if r["kind"] != "summary" and depth in last_end:
            shared = max(0, min(last_end[depth], r["end"]) - r["start"])
        if shared:
            parts.append(("overlap", body[:shared]))
        if body[shared:]:
            parts.append(("body", body[shared:]))
        if r["kind"] != "summary":
            last_end[depth] = r["end"]
        out.append(ChunkView(r, parts, shared))
    return out


def inspect_file(path: str, config: ChunkConfig | None = None) -> list[ChunkView]:
    """Chunk one file with `config` and return its chunks cut into labelled parts.

    Raises:
        LoaderError, ConfigError, TokenizerError: as `chunkctl.chunk_file`.
    """
    from chunkctl.pipeline.document import chunk_records, load

    config = config or ChunkConfig()
    return views(chunk_records(load(path, config), config))
