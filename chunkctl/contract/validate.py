"""Contract checks on chunk records that need no document text (fields, types, spans, budgets, ids, order); no I/O.

The full contract (offsets against the document text, token recounts, grapheme
edges, coverage) needs the documents: `chunkctl extract` prints their text for an
independent checker. What is checked here holds for any JSONL stream alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from chunkctl.loaders import LOADERS

_STR, _INT, _BOOL, _LIST, _DICT = (str,), (int,), (bool,), (list,), (dict,)
_OPT_INT, _OPT_STR = (int, type(None)), (str, type(None))
FIELDS: dict[str, tuple[type, ...]] = {
    "id": _STR, "doc_id": _STR, "source": _STR, "format": _STR, "chunk_index": _INT, "n_chunks": _INT,
    "text": _STR, "prefix": _STR, "start": _INT, "end": _INT, "n_tokens": _INT, "headings": _LIST, "kind": _STR,
    "page_start": _OPT_INT, "page_end": _OPT_INT, "oversize": _BOOL, "parent_id": _OPT_STR, "meta": _DICT,
}
"""The contract's record fields (v1) and their JSON types."""

META: dict[str, tuple[type, ...]] = {
    "title": _STR, "encoding": _STR, "sha256": _STR, "tokenizer": _STR, "strategy": _STR, "chunk_size": _INT,
    "overlap": _INT, "version": _STR,
}
KINDS = ("text", "table", "code", "mixed", "summary")


@dataclass(frozen=True)
class Violation:
    """One broken rule.

    Attributes:
        line: 1-based line of the record in the JSONL stream (0: the stream as a whole).
        source: the record's document, when known.
        rule: the contract rule: "G1" fields and types, "G2" non-empty spans, "G3" text =
            prefix + body (length), "G4" order and parents, "G5" budget, "ids", "index".
        message: what is wrong, one line.
    """

    line: int
    source: str | None
    rule: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" + (f" ({self.source})" if self.source else "")
        return f"{where}: {self.rule}: {self.message}"


def _is(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


class RecordChecker:
    """Checks a stream of records one at a time, keeping only the current document's state.

    Call `check(record, line)` for each record in order, then `finish()`.
    """

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.done_docs: set[str] = set()
        self.doc: str | None = None
        self.doc_recs: list[tuple[int, dict[str, Any]]] = []

    def check(self, rec: Any, line: int) -> list[Violation]:
        """Violations of one record (and of the document it closes, when it starts a new one)."""
        if not isinstance(rec, dict):
            return [Violation(line, None, "G1", "not a JSON object")]
        src = rec.get("source") if isinstance(rec.get("source"), str) else None
        out: list[Violation] = []

        def bad(rule: str, msg: str) -> None:
            out.append(Violation(line, src, rule, msg))

        for name, types in FIELDS.items():
            if name not in rec:
                bad("G1", f"missing field {name!r}")
            elif not _is(rec[name], types):
                bad("G1", f"{name} has the wrong type ({type(rec[name]).__name__})")
        raw_meta = rec.get("meta")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        for name, types in META.items():
            if name not in meta:
                bad("G1", f"meta.{name} is missing")
            elif not _is(meta[name], types):
                bad("G1", f"meta.{name} has the wrong type ({type(meta[name]).__name__})")
        if out:
            return out + self._next_doc(rec, line)
        summary = rec["kind"] == "summary"
        if rec["kind"] not in KINDS:
            bad("G1", f"kind {rec['kind']!r} is not one of {', '.join(KINDS)}")
        if rec["format"] not in LOADERS:
            bad("G1", f"format {rec['format']!r} is not one of {', '.join(LOADERS)}")
        if not all(isinstance(h, str) for h in rec["headings"]):
            bad("G1", "headings must be strings")
        if rec["end"] <= rec["start"] or rec["start"] < 0:
            bad("G2", f"empty or reversed span [{rec['start']}, {rec['end']})")
        text, prefix = rec["text"], rec["prefix"]
        if not text.startswith(prefix):
            bad("G3", "text does not start with prefix")
        elif not summary:
            body = text[len(prefix):]
            if not body.strip():
                bad("G2", "the body is empty or only white space")
            if len(body) != rec["end"] - rec["start"]:
                bad("G3", f"the body has {len(body)} characters but the span [{rec['start']}, {rec['end']}) "
                          f"has {rec['end'] - rec['start']}")
        if rec["n_tokens"] < 1:
            bad("G5", "n_tokens must be at least 1")
        if rec["n_tokens"] > meta["chunk_size"] and not rec["oversize"]:
            bad("G5", f"{rec['n_tokens']} tokens is over meta.chunk_size {meta['chunk_size']} (not oversize)")
        if rec["oversize"] and prefix:
            bad("G5", "an oversize chunk must have no prefix")
        ps, pe = rec["page_start"], rec["page_end"]
        if (ps is None) != (pe is None) or (ps is not None and not 1 <= ps <= pe):
            bad("G1", f"pages {ps}..{pe} are not a 1-based range")
        if rec["id"] in self.ids:
            bad("ids", f"id {rec['id']} is not unique")
        self.ids.add(rec["id"])
        return out + self._next_doc(rec, line)

    def _next_doc(self, rec: dict[str, Any], line: int) -> list[Violation]:
        src = rec.get("source")
        if not isinstance(src, str):  # (already a G1 violation) grouped as a document of no name
            src = None
        out: list[Violation] = []
        if src != self.doc:
            out = self._close_doc()
            if src in self.done_docs:
                out.append(Violation(line, src, "index", "the document's records are not contiguous"))
            self.doc = src
        self.doc_recs.append((line, rec))
        return out

    def _close_doc(self) -> list[Violation]:
        """Document-level rules: chunk_index 0..n-1, n_chunks, starts rising per depth, parents."""
        recs, self.doc_recs = self.doc_recs, []
        if self.doc is None or not recs:
            return []
        self.done_docs.add(self.doc)
        out: list[Violation] = []
        src = self.doc
        n = len(recs)
        for i, (line, r) in enumerate(recs):
            if r.get("chunk_index") != i:
                out.append(Violation(line, src, "index", f"chunk_index {r.get('chunk_index')} where {i} was due"))
            if r.get("n_chunks") != n:
                out.append(Violation(line, src, "index", f"n_chunks {r.get('n_chunks')} but the document has {n}"))
        by_id = {r["id"]: r for _, r in recs if isinstance(r.get("id"), str)}  # (other ids: a G1 violation)
        last: dict[int, int] = {}
        for line, r in recs:
            depth, p, seen = 0, r, set()
            while isinstance(p.get("parent_id"), str) and depth < 64:
                parent = by_id.get(p["parent_id"])
                if parent is None or p["parent_id"] in seen:
                    if p is r:
                        out.append(Violation(line, src, "G4", f"parent_id {p['parent_id']} is not a chunk of this "
                                                               "document"))
                    break
                seen.add(p["parent_id"])
                if p is r and r.get("kind") != "summary" and not (
                        parent.get("start", 0) <= r.get("start", 0) and r.get("end", 0) <= parent.get("end", 0)):
                    out.append(Violation(line, src, "G4", "the span is not inside its parent's span"))
                p = parent
                depth += 1
            if r.get("kind") == "summary" or not isinstance(r.get("start"), int):
                continue
            if depth in last and r["start"] <= last[depth]:
                out.append(Violation(line, src, "G4", f"start {r['start']} does not rise (previous {last[depth]})"))
            last[depth] = r["start"]
        return out

    def finish(self) -> list[Violation]:
        """Violations of the last document."""
        out = self._close_doc()
        self.doc = None
        return out


def check_records(records: Iterable[Any]) -> list[Violation]:
    """Check records in stream order; returns every violation found (empty: none).

    Args:
        records: parsed JSONL lines (dicts), in file order.
    """
    checker = RecordChecker()
    out: list[Violation] = []
    for i, rec in enumerate(records, 1):
        out.extend(checker.check(rec, i))
    out.extend(checker.finish())
    return out
