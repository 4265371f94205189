"""The document model: Document, Block and Chunk as plain data; no I/O, no tokenization here."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class BlockKind(str, Enum):
    """Type of a block; the value is what `chunkctl extract --blocks` prints."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    CODE = "code"
    MATH = "math"
    TABLE = "table"
    QUOTE = "quote"
    HTML = "html"
    FRONT_MATTER = "front_matter"
    RULE = "rule"


@dataclass(frozen=True, slots=True)
class Block:
    """One typed block of a document: a span `[start, end)` of `Document.text`.

    Offsets are in characters (Python `str` indices, Unicode code points), end
    exclusive, and never include the block's surrounding blank lines.

    Attributes:
        kind: the block type.
        start: first character of the block in the document text.
        end: one past the last character.
        level: heading level 1..6 (0 for other blocks).
        headings: heading path in force at this block, outermost first; for a
            heading block, the path *including* the heading itself.
        language: fenced-code language tag ("" when unknown).
        header: for tables, the `[start, end)` span of the header lines (header
            row and, in Markdown, the delimiter row); `None` for other blocks.
        rows: for tables, the `[start, end)` span of each body row, in order.
        meta: loader-specific extras (e.g. a table's header cells; for lists and block
            quotes, `atomic`: the `[start, end)` character spans of code, tables and
            display math nested in them, which the packer keeps whole).
    """

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    headings: tuple[str, ...] = ()
    language: str = ""
    header: tuple[int, int] | None = None
    rows: tuple[tuple[int, int], ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (the shape `chunkctl extract --blocks` prints)."""
        out: dict[str, Any] = {"kind": self.kind.value, "start": self.start, "end": self.end}
        if self.level:
            out["level"] = self.level
        out["headings"] = list(self.headings)
        if self.language:
            out["language"] = self.language
        if self.header is not None:
            out["header"] = list(self.header)
            out["rows"] = [list(r) for r in self.rows]
        if self.meta:
            out["meta"] = self.meta
        return out


@dataclass(slots=True)
class Document:
    """A loaded document: its canonical text and the typed blocks that are spans of it.

    Attributes:
        source: path relative to the input root, `/` separators (`-` for stdin).
        format: `txt`, `md`, `pdf` or `html`.
        text: the document text that chunk offsets index (characters). For txt and
            md it is the decoded file with one leading BOM removed and no newline
            translation; for pdf and html it is what the loader extracted.
        blocks: typed blocks in document order, non-overlapping.
        meta: document facts: `title`, `encoding`, `sha256` and loader extras
            (e.g. `lang`, `page_labels`, `front_matter`, `skipped_spans`: the
            `[start, end)` character spans no chunk may hold, such as data-URI payloads).
        warnings: non-fatal problems found while loading (one line each).
        protected: the file could be read only with a password (an encrypted PDF):
            its text must not be kept where a run without the password could read it
            (the record cache does not store it).
    """

    source: str
    format: str
    text: str
    blocks: list[Block]
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    protected: bool = False

    @property
    def title(self) -> str:
        """The document title (from metadata, else the first h1, else the file name)."""
        return str(self.meta.get("title") or "")


@dataclass(slots=True)
class Chunk:
    """One chunk produced by a strategy, before ids and metadata are attached.

    Attributes:
        start: body start in the document text (characters).
        end: body end, exclusive (characters).
        prefix: text placed before the body in the emitted `text` (breadcrumb,
            model-written context, repeated table header); "" when none.
        headings: heading path in force at the body's first non-heading block.
        kind: `text`, `table`, `code`, `mixed` or `summary`.
        n_tokens: tokens of `prefix + body` (exact, by the run's tokenizer).
        budget: the token budget this chunk was packed to (its level's chunk size).
        oversize: the body is one grapheme cluster larger than the budget.
        parent: index (in the strategy's output list) of the parent chunk, or None.
        depth: number of parent hops (0 for top-level chunks).
        text: for summary records only, the model-written text (else None).
        meta: per-chunk extras merged into the record's `meta`.
    """

    start: int
    end: int
    prefix: str = ""
    headings: tuple[str, ...] = ()
    kind: str = "text"
    n_tokens: int = 0
    budget: int = 0
    oversize: bool = False
    parent: int | None = None
    depth: int = 0
    text: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
