"""What the HTML view shows of one document: its text, its records with their roles, offsets for the browser; no HTML.

Offsets: records count code points (Python string indices); a browser's strings
count UTF-16 code units, so every offset handed to the page is converted
(`Utf16`). A character outside the Basic Multilingual Plane (an emoji) counts 1
here and 2 there.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkctl.pipeline.inspection import split_prefix

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class Utf16:
    """Code-point offsets of one text converted to UTF-16 code-unit offsets.

    Args:
        text: the document text.
    """

    def __init__(self, text: str):
        self._astral = [m.start() for m in _ASTRAL.finditer(text)]

    def __call__(self, offset: int) -> int:
        """The UTF-16 offset of code-point `offset` (0 <= offset <= len(text))."""
        return offset + bisect.bisect_left(self._astral, offset)


def clean_text(text: str) -> str:
    """`text` with lone surrogates (undecodable bytes kept by `surrogateescape`) as U+FFFD.

    Each replaced character stays one code point, so record offsets still index it,
    and the result can be encoded as UTF-8 and JSON.
    """
    return _SURROGATE.sub("\ufffd", text)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(str(k)): _clean(v) for k, v in value.items()}
    return value


@dataclass
class DocumentView:
    """One document of a view: its text and records, or why it cannot be shown.

    Attributes:
        source: the records' `source` (or the input's, when it has none).
        format: the loader's format (None when unknown).
        title: the document title.
        text: the document text that `start`/`end` index (None when it could not be read).
        records: the document's records in output order (contract records).
        error: why the document is not shown, one line without the source (None: shown).
        nbytes: the file's size in bytes (0 when unknown).
        warnings: non-fatal problems found while loading (one line each).
    """

    source: str
    format: str | None = None
    title: str = ""
    text: str | None = None
    records: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    nbytes: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def shown(self) -> bool:
        """True when the text and the records can be drawn."""
        return self.error is None and self.text is not None

    @property
    def sizes(self) -> list[int]:
        """`n_tokens` of the records that are not summaries, in order."""
        return [int(r["n_tokens"]) for r in self.records if r.get("kind") != "summary"]

    @property
    def budget(self) -> int:
        """The largest `meta.chunk_size` of the records (0 when none)."""
        return max((int((r.get("meta") or {}).get("chunk_size") or 0) for r in self.records), default=0)

    @property
    def pages(self) -> int | None:
        """Number of pages (form feeds + 1) of a paged document, else None."""
        if self.text is None or not any(r.get("page_start") for r in self.records):
            return None
        return self.text.count("\f") + 1


def mismatch(text: str, records: Sequence[dict[str, Any]]) -> str | None:
    """Why `records` are not the chunks of `text`, or None when every body is its slice.

    Checks each record other than a summary: `text[len(prefix):] == doc_text[start:end]`
    (the contract's slice rule) with the span inside the text.

    Returns:
        one line naming the first record that does not match, or None.
    """
    for r in records:
        if r.get("kind") == "summary":
            continue
        try:
            start, end, prefix, body = int(r["start"]), int(r["end"]), str(r["prefix"]), str(r["text"])
        except (KeyError, TypeError, ValueError):
            return f"record {r.get('chunk_index', '?')} lacks start, end, prefix or text"
        if not 0 <= start < end <= len(text):
            return f"record {r.get('chunk_index', '?')}: span [{start}:{end}) is outside the text ({len(text)} characters)"
        if body[len(prefix):] != text[start:end]:
            return (f"record {r.get('chunk_index', '?')}: its body is not the document's characters "
                    f"[{start}:{end})")
    return None


def roles(records: Sequence[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """Each record's role in the drawing, its depth and its parent's position.

    A leaf is a chunk with no child: leaves colour the text, and two leaves that share
    characters are an overlap. A parent holds other records (hierarchical output); a
    summary (`kind` "summary") is model-written and only points at its section.

    Returns:
        (role, depth, parent position or -1) per record: role "leaf", "parent" or "summary";
        depth = `parent_id` links to a record without one.
    """
    pos = {r.get("id"): k for k, r in enumerate(records)}
    parent = [pos.get(r.get("parent_id"), -1) if r.get("kind") != "summary" else -1 for r in records]
    has_child = {p for p in parent if p >= 0}
    out = []
    for k, r in enumerate(records):
        depth, p, seen = 0, parent[k], 0
        while p >= 0 and seen < 64:
            depth, p, seen = depth + 1, parent[p], seen + 1
        if r.get("kind") == "summary":
            role = "summary"
        else:
            role = "parent" if k in has_child else "leaf"
        out.append((role, depth, pos.get(r.get("parent_id"), -1)))
    return out


def payload(view: DocumentView) -> dict[str, Any]:
    """The JSON-ready data the page's script draws one document from.

    Returns:
        {"source", "format", "title", "text", "budget", "pages": [UTF-16 offset of each
        page start] or None, "chunks": [{"s", "e" (UTF-16 offsets of the body), "role",
        "depth", "parent", "overlap" (characters shared with the previous leaf),
        "parts": [[role, text], ...] (the prefix cut as `inspect` cuts it), "rec": the
        record with `text` left out (null) unless it is a summary}]}.

    Raises:
        ValueError: the view is not `shown`.
    """
    if view.text is None or view.error is not None:
        raise ValueError(f"{view.source}: not shown ({view.error})")
    text = clean_text(view.text)
    u16 = Utf16(text)
    chunks = []
    prev_end: int | None = None
    for r, (role, depth, parent) in zip(view.records, roles(view.records)):
        rec = _clean(dict(r))
        overlap = 0
        if role == "leaf":
            if prev_end is not None:
                overlap = max(0, min(prev_end, r["end"]) - r["start"])
            prev_end = r["end"]
        if role != "summary":
            rec["text"] = None  # prefix + the slice: rebuilt by the page, not stored twice
        chunks.append({"s": u16(r["start"]), "e": u16(r["end"]), "role": role, "depth": depth, "parent": parent,
                       "overlap": overlap, "parts": [list(p) for p in split_prefix(rec["prefix"], r["kind"])],
                       "rec": rec})
    pages = None
    if view.pages:
        pages = [0] + [u16(m.end()) for m in re.finditer("\f", text)]
    return {"source": view.source, "format": view.format, "title": view.title, "text": text,
            "budget": view.budget, "pages": pages, "chunks": chunks}
