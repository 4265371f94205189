"""The one shared packer: fits pieces ("atoms") to the token budget, adds prefixes and overlap, falls back to graphemes.

Strategies only say where text may be cut (atoms and the strength of the boundary
before each); everything about budgets, breadcrumbs, table headers, overlap and
the grapheme fallback lives here. Strategies never read files.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chunkctl.model import Block, BlockKind, Chunk
from chunkctl.text.segment import (
    ITER_SPAN,
    Graphemes,
    Level,
    Splitters,
    hard_line_starts,
    line_wrap,
    split_words,
)
from chunkctl.text.sentences import SentenceSplitter

if TYPE_CHECKING:
    from chunkctl.config import ChunkConfig
    from chunkctl.model import Document
    from chunkctl.tokenizers import Tokenizer, TokenTable

# A chunk ends at the strongest boundary within reach, unless that leaves it less
# than this fraction of its body budget full; then the strongest among the fuller
# candidates wins (ties: the latest).
MIN_FILL = 0.25
# Tokens by which the table estimate may miss the exact count of a span.
SLACK = 3
# Heading atoms in a row (a section's lead) held before its early chunks are packed (`Packer.pack`).
LEAD_CAP = 4096

PROSE_LEVELS = (Level.PARAGRAPH, Level.LINE, Level.SENTENCE, Level.CLAUSE, Level.WORD)
LIST_LEVELS = (Level.BLOCK, Level.PARAGRAPH, Level.LINE, Level.SENTENCE, Level.CLAUSE, Level.WORD)
CODE_LEVELS = (Level.PARAGRAPH, Level.OUTLINE, Level.LINE, Level.WORD)
PYTHON_LEVELS = (Level.DEFINITION, Level.PARAGRAPH, Level.OUTLINE, Level.LINE, Level.WORD)
ROW_LEVELS = (Level.SENTENCE, Level.CLAUSE, Level.WORD)
REPLACEMENT = "\ufffd"
"""U+FFFD, what a decoder or a parser put for what it could not read: never in a prefix
(CONTRACT G6), which is text injected before the body, not the document's own."""


def without_replacement(text: str, collapse: bool = True) -> str:
    """`text` for a prefix: without U+FFFD (a heading "Caf\ufffd menu" reads "Caf menu"; a
    NUL in a Markdown heading comes from the parsers as U+FFFD), and, with `collapse`,
    its runs of white space made single spaces (a breadcrumb entry). Characters, not tokens."""
    if REPLACEMENT not in text:
        return text
    text = text.replace(REPLACEMENT, "")
    return " ".join(text.split()) if collapse else text


# Table header and rows at tiny budgets: lines, then cells (CLAUSE stands for cells in a
# table, see `_split`), then words; never inside a delimiter row when a line fits.
TABLE_LINE_LEVELS = (Level.LINE, Level.CLAUSE, Level.WORD)
SENTENCE_LEVELS = (Level.PARAGRAPH, Level.LINE, Level.SENTENCE, Level.CLAUSE, Level.WORD)
# An atom too big alone (a heading line): its split levels (`_split_atom`, `iter_heading_atoms`).
ATOM_SPLIT_LEVELS = (Level.SENTENCE, Level.CLAUSE, Level.WORD)

_KIND_OF_BLOCK = {
    BlockKind.CODE: "code",
    BlockKind.MATH: "math",
    BlockKind.TABLE: "table",
    BlockKind.HEADING: "heading",
}
# Atom kinds overlap never reaches back into.
BARRIER_KINDS = ("code", "table", "heading", "math")
# Atom kinds whose lines keep their indentation when a block is cut between lines.
_INDENTED_KINDS = ("code", "math")
_TABLE_CELL = re.compile(r"(?<!\\)\|")


def _same_name(heading: str, title: str) -> bool:
    """Whether a document's `title` names what its first heading does, so the breadcrumb of
    `--context title+headings` leaves it out: their letters and digits (case folded) are the same,
    or one's start the other's ("On-call Runbook – Inventory Service" and "On-call Runbook:
    Inventory Service"; "Tutorial — Python 3.12 docs" and "Tutorial"). helper-99: an HTML page's
    `<title>` and `<h1>` stood side by side in every prefix."""
    a = "".join(ch for ch in heading.casefold() if ch.isalnum())
    b = "".join(ch for ch in title.casefold() if ch.isalnum())
    return bool(a and b) and (a.startswith(b) or b.startswith(a))


@dataclass(slots=True)
class Atom:
    """A piece of a section that the packer never cuts.

    Attributes:
        start, end: character span in the document text.
        strength: `Level` of the boundary before this atom (between it and the previous one).
        kind: "heading", "text", "table", "code", "math" (display math, kept whole like
            code; its records say "text"), or "bigtable" (a table to split by rows).
        level: the `Level` at which this atom was cut out (BLOCK for a whole block).
        barrier: overlap may not reach back into this atom (headings, tables, code).
        oversize: a single grapheme cluster larger than the budget.
        block: the block it comes from.
    """

    start: int
    end: int
    strength: int
    kind: str
    level: int = Level.BLOCK
    barrier: bool = False
    oversize: bool = False
    block: Block | None = None


def _line_break_at(text: str, i: int) -> str:
    """The line break that starts at character `i` of `text` ("\\r\\n", "\\r" or "\\n"); "\\n" for
    anything else (the end of the text, or a table header rendered from HTML or PDF)."""
    if text.startswith("\r", i):
        return "\r\n" if text.startswith("\r\n", i) else "\r"
    return "\n"


def _unbarred(atoms: Iterable[Atom]) -> Iterator[Atom]:
    """`atoms` with overlap allowed into each (the pieces of a table row split like text)."""
    for x in atoms:
        x.barrier = False
        yield x


def _whole_kind(block: Block, kind: str) -> str:
    """The kind of an atom that is a whole block: "mixed" for text that holds a nested code block,
    table or formula (a list item's or quote's `meta["atomic"]`), else `kind`."""
    return "mixed" if kind == "text" and block.meta and block.meta.get("atomic") else kind


def _chunk_kind(kinds: set[str]) -> str:
    """A chunk's `kind` from the kinds of its body atoms (math reads as text): the one kind, "mixed", or "text"."""
    kinds = {"text" if k == "math" else k for k in kinds}
    if not kinds:
        return "text"
    return kinds.pop() if len(kinds) == 1 else "mixed"


def continued_table(block: Block) -> bool:
    """Whether `block` is the rest of a table whose header lines lie before it (a span of rows
    cut out of the table, as `hierarchical` gives a child level): its chunks repeat the header
    in their prefix, as the later row groups of a split table do, even when the rows fit one
    chunk. Until 0.1.34 such rows were packed as text: a child chunk of a parent that starts
    inside a table had no header row, unless the header lay inside its own span."""
    header = block.header
    return block.kind == BlockKind.TABLE and header is not None and header[0] < block.start and bool(block.rows)


def _crosses(starts: list[int], a: int, b: int) -> bool:
    """Whether one of `starts` lies in `[a, b)` (a skipped span between two atoms)."""
    idx = bisect.bisect_left(starts, a)
    return idx < len(starts) and starts[idx] < b


def _glue(pieces: Iterable[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Pieces (in order) with each cut that falls inside one of `spans` (any order) undone: the
    neighbours are joined. One piece at a time, so a lazily split block can use it too."""
    merged: list[list[int]] = []  # the spans, sorted, strict overlaps joined (a cut inside one is inside the union)
    for ss, se in sorted(spans):
        if merged and ss < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], se)
        else:
            merged.append([ss, se])
    k = 0
    cur: tuple[int, int] | None = None
    for s, e in pieces:
        if cur is not None:
            while k < len(merged) and merged[k][1] <= s:  # ends before the next piece: holds no later cut either
                k += 1
            if k < len(merged) and merged[k][0] < cur[1]:
                cur = (cur[0], e)
                continue
            yield cur
        cur = (s, e)
    if cur is not None:
        yield cur


class Packer:
    """Packs atoms into chunks of one document within `config.chunk_size` tokens.

    Args:
        doc: the document (its text is what offsets index).
        tokenizer: the run's tokenizer; the document is tokenized once here.
        config: sizes (tokens), overlap (tokens), context mode, sentence splitter.
        table: an existing token table of `doc.text`, to share between packers.
    """

    def __init__(self, doc: Document, tokenizer: Tokenizer, config: ChunkConfig,
                 table: TokenTable | None = None, sentence_splitter: SentenceSplitter | None = None,
                 budget: int | None = None, overlap: int | None = None):
        self.doc = doc
        self.text = doc.text
        self.tok = tokenizer
        self.config = config
        self.table = table if table is not None else tokenizer.table(doc.text)
        self.budget = budget if budget is not None else config.chunk_size
        self.overlap = overlap if overlap is not None else config.overlap_tokens
        self.context = config.context
        self.graphemes = Graphemes(doc.text)
        self.sentences = sentence_splitter or SentenceSplitter(config.sentence_splitter)
        self.splitters = Splitters(doc.text, self.sentences)
        self._prefix_cache: dict[tuple, tuple[str, int]] = {}
        self.min_fill = MIN_FILL
        # starts of the spans no chunk may hold (data-URI payloads), in order
        self.skipped_starts = [s for s, _e in sorted(doc.meta.get("skipped_spans", ()))]
        self._wrap_cache: dict[tuple[int, int], int | None] = {}

    # ------------------------------------------------------------------ counting
    def tokens_before(self, pos: int) -> int:
        """Number of document tokens that start before character `pos` (`TokenTable.tokens_before`)."""
        return self.table.tokens_before(pos)

    def estimate(self, a: int, b: int) -> int:
        """Table estimate of the tokens of `text[a:b]`: the tokens that start in `[a, b)`
        (`TokenTable.estimate`; exact counts: `count`)."""
        return self.table.estimate(a, b)

    def estimate_many(self, spans: Sequence[tuple[int, int]]) -> list[int]:
        """Table estimates of the tokens of many spans at once (`TokenTable.estimate_many`)."""
        return self.table.estimate_many(spans)

    def count(self, a: int, b: int, prefix: str = "") -> int:
        """Exact tokens of `prefix + text[a:b]`."""
        return self.table.count(a, b, prefix)

    def fits(self, a: int, b: int, budget: int) -> bool:
        """True when `text[a:b]` alone has at most `budget` tokens (exact near the limit)."""
        est = self.estimate(a, b)
        if est <= budget - SLACK:
            return True
        if est > budget + 2 * SLACK + 8:
            return False
        return self.count(a, b) <= budget

    def snap_start(self, pos: int) -> int:
        """`pos`, or the cluster boundary before it when a piece starts on a combining mark.

        Pieces start after white space; a mark that follows a space belongs to the
        space's cluster (UAX #29), so the chunk then starts at the space.
        """
        g = self.graphemes
        return pos if g.is_boundary(pos) else g.floor(pos)

    # ------------------------------------------------------------------ prefixes
    def breadcrumb_parts(self, path: Sequence[str], skip: Iterable[int] = ()) -> list[str]:
        """Heading path entries for the breadcrumb, without those at indices in `skip`."""
        if self.context == "none":
            return []
        skip = set(skip)
        parts = [h for i, h in enumerate(path) if i not in skip and h]
        if self.context == "title+headings":
            title = self.doc.title
            if title and (not path or not _same_name(path[0], title)):
                parts.insert(0, title)
        if any(REPLACEMENT in h for h in parts):
            parts = [h for h in map(without_replacement, parts) if h]
        return parts

    def breadcrumb(self, parts: Sequence[str], cap: int | None = None) -> tuple[str, int]:
        """Render a breadcrumb "A > B > C\\n\\n" within `cap` tokens (default: a quarter of the budget).

        Shortened by dropping the outermost headings first, then by cutting the
        innermost heading at a word (docs/records.md#breadcrumb).

        Returns:
            (prefix text, its tokens); ("", 0) when nothing fits.
        """
        if cap is None:
            cap = self.budget // 4
        key = (tuple(parts), cap)
        hit = self._prefix_cache.get(key)
        if hit is not None:
            return hit
        result = ("", 0)
        parts = list(parts)
        while parts:
            s = " > ".join(parts) + "\n\n"
            n = self.tok.count(s)
            if n <= cap:
                result = (s, n)
                break
            if len(parts) > 1:
                parts.pop(0)
                continue
            words = parts[0].split()
            while len(words) > 1:
                words.pop()
                while len(words) > 1 and not any(ch.isalnum() for ch in words[-1]):
                    words.pop()  # no trailing "-" or "/"
                s = " ".join(words) + "\n\n"
                n = self.tok.count(s)
                if n <= cap:
                    result = (s, n)
                    break
            break
        self._prefix_cache[key] = result
        return result

    # ------------------------------------------------------------------ atoms
    def block_atoms(self, block: Block, strength: int, body_budget: int, levels: Sequence[Level] | None = None,
                    kind: str | None = None, split_to: Level | None = None, estimate: int | None = None
                    ) -> list[Atom]:
        """Atoms of one block: the whole block when it fits `body_budget`, else its pieces.

        Args:
            block: the block.
            strength: boundary strength before the block.
            body_budget: tokens available for the body (budget minus the largest prefix).
            levels: split levels to try in order (default by block kind).
            kind: atom kind (default from the block kind).
            split_to: keep splitting down to this level even where pieces fit (sentence
                packing splits every block into sentences).
            estimate: the block's table estimate, when already known (see `estimate_many`).
        """
        return list(self.iter_block_atoms(block, strength, body_budget, levels, kind, split_to, estimate))

    def iter_block_atoms(self, block: Block, strength: int, body_budget: int, levels: Sequence[Level] | None = None,
                         kind: str | None = None, split_to: Level | None = None, estimate: int | None = None
                         ) -> Iterator[Atom]:
        """`block_atoms` one atom at a time: a block over ITER_SPAN characters is split as its
        atoms are taken (`_refine_iter`), so a huge block never has all its atoms at once."""
        kind = kind or _KIND_OF_BLOCK.get(block.kind, "text")
        barrier = kind in BARRIER_KINDS
        if levels is None:
            levels = self.levels_for(block)
        if split_to is None and continued_table(block):  # (its chunks repeat the header: `_pack_table`)
            return iter([Atom(block.start, block.end, strength, "bigtable", Level.BLOCK, True, block=block)])
        if split_to is None and ((estimate is not None and estimate <= body_budget - SLACK)
                                 or self.fits(block.start, block.end, body_budget)):
            return iter([Atom(block.start, block.end, strength, _whole_kind(block, kind), Level.BLOCK, barrier,
                              block=block)])
        if block.kind == BlockKind.TABLE and block.rows and split_to is None:
            return iter([Atom(block.start, block.end, strength, "bigtable", Level.BLOCK, True, block=block)])
        if block.end - block.start > ITER_SPAN:
            return self._refine_iter(block.start, block.end, list(levels), 0, strength, kind, body_budget, barrier,
                                     block, split_to)
        out: list[Atom] = []
        self._refine(block.start, block.end, list(levels), 0, strength, kind, body_budget, barrier, block, out,
                     split_to)
        return iter(out)

    def iter_heading_atoms(self, block: Block, strength: int, budget: int) -> Iterator[Atom]:
        """The heading atoms of a heading `block`: the block whole when it fits `budget` tokens, else
        the pieces `_split_atom` cuts it into (sentences, clauses, words; else grapheme windows),
        split as they are taken. For a heading over ITER_SPAN characters (a paragraph above a
        setext underline, an `<h2>` never closed), which `_split_atom` cut all at once: a 4.6 MB
        heading's word atoms took 74x its text; taken one at a time, the lead packs them as it
        packs a long run of heading lines (`LEAD_CAP`)."""
        if block.end - block.start <= ITER_SPAN or self.fits(block.start, block.end, budget):
            yield Atom(block.start, block.end, strength, "heading", Level.BLOCK, True, block=block)
            return
        for x in self._refine_iter(block.start, block.end, list(ATOM_SPLIT_LEVELS), 0, strength, "text", max(1, budget),
                                   True, block):
            x.kind = "heading"
            yield x

    def levels_for(self, block: Block) -> Sequence[Level]:
        """Split levels of a block by its kind (prose, list, code, Python code, table row)."""
        if block.kind == BlockKind.CODE:
            return PYTHON_LEVELS if block.language in ("python", "py", "python3", "pycon") else CODE_LEVELS
        if block.kind == BlockKind.MATH:
            return CODE_LEVELS
        if block.kind == BlockKind.LIST and block.rows:
            return LIST_LEVELS
        return PROSE_LEVELS

    def _split(self, level: Level, a: int, b: int, block: Block | None, kind: str) -> list[tuple[int, int]]:
        if level == Level.BLOCK:  # list items
            return list(self._item_pieces(a, b, block))
        if kind == "table" and level == Level.CLAUSE:
            return self._split_cells(a, b)
        pieces = self.splitters.split(level, a, b, prose=(kind == "text"))
        if kind in _INDENTED_KINDS and level in (Level.PARAGRAPH, Level.OUTLINE, Level.LINE, Level.DEFINITION):
            return self._with_indent(pieces, a)
        return pieces

    def _item_pieces(self, a: int, b: int, block: Block | None) -> Iterator[tuple[int, int]]:
        """Pieces of `text[a:b]` at the list items of `block` (`rows`) that overlap it, one at a
        time: each piece runs from its item's start (`a` for the first) to the next item's
        start (`b` for the last), trailing white space left out; `(a, b)` when fewer than
        two items overlap it."""
        items = ((max(a, s), min(b, e)) for s, e in (block.rows if block is not None else ()) if e > a and s < b)
        first = next(items, None)
        second = next(items, None)
        if first is None or second is None:
            yield a, b
            return
        pos = a
        for nxt, _e in itertools.chain((second,), items):
            seg_end = self.graphemes.rstrip_end(pos, nxt)
            if seg_end > pos:
                yield pos, seg_end
            pos = nxt
        seg_end = self.graphemes.rstrip_end(pos, b)
        if seg_end > pos:
            yield pos, seg_end

    def _split_cells(self, a: int, b: int) -> list[tuple[int, int]]:
        """Cells of a table line `text[a:b]`: each piece starts at a cell's `|` (escaped `\\|`
        is text), so a cut falls before a separator and every piece keeps the pipes around
        its cells."""
        text = self.text
        cuts = [m.start() for m in _TABLE_CELL.finditer(text, a, b)
                if m.start() > a and not text[m.end():b].isspace() and m.end() < b]
        out = []
        pos = a
        for c in [*cuts, b]:
            seg_end = self.graphemes.rstrip_end(pos, c)
            if seg_end > pos:
                out.append((pos, seg_end))
            pos = c
        return out or [(a, b)]

    def _with_indent(self, pieces: Sequence[tuple[int, int]], a: int) -> list[tuple[int, int]]:
        """Code pieces started at their line starts: the indentation belongs to the code."""
        text = self.text
        out = []
        lo = a
        for s, e in pieces:
            s2 = s
            while s2 > lo and text[s2 - 1] in " \t":
                s2 -= 1
            if s2 > lo and text[s2 - 1] not in "\r\n\f\v\u2028\u2029":
                s2 = s  # not at a line start: keep the trimmed start
            out.append((s2, e))
            lo = e
        return out

    def _refine(self, a: int, b: int, levels: list[Level], li: int, strength: int, kind: str, budget: int,
                barrier: bool, block: Block | None, out: list[Atom], split_to: Level | None = None) -> None:
        pieces: list[tuple[int, int]] = [(a, b)]
        atomic = self._atomic_in(block, a, b, budget)
        while li < len(levels):
            pieces = self._on_clusters(self._split(levels[li], a, b, block, kind), a, b)
            if atomic:
                pieces = list(_glue(pieces, atomic))
            if len(pieces) > 1:
                break
            if split_to is not None and levels[li] <= split_to and pieces:
                break  # a single piece at the target level (one sentence) is an atom of that level
            li += 1
        if li >= len(levels):
            self._windows_into(a, b, budget, strength, kind, barrier, block, out)
            return
        level = levels[li]
        atom_level = Level.PARAGRAPH if level == Level.BLOCK else level
        deeper = split_to is not None and level > split_to
        for idx, (s, e) in enumerate(pieces):
            st = strength if idx == 0 else atom_level
            # (a nested code block or table that fits stays whole, even when text is cut finer)
            if (not deeper or (s, e) in atomic) and self.fits(s, e, budget):
                out.append(Atom(s, e, st, self._piece_kind(s, e, kind, block), atom_level, barrier, block=block))
            else:
                self._refine(s, e, levels, li + 1, st, kind, budget, barrier, block, out,
                             split_to if deeper else None)

    def _piece_kind(self, s: int, e: int, kind: str, block: Block | None) -> str:
        """The kind of an atom `[s, e)` of a text block with nested atomic spans (`meta["atomic"]`):
        the span's own (`_nested_kind`) when the atom lies inside one (the span whole, or a piece of
        one too big for a chunk), "mixed" when it holds one beside text, else `kind`."""
        if kind != "text" or block is None or not block.meta:
            return kind
        spans = block.meta.get("atomic")
        if not spans:
            return kind
        for a, b in spans:
            if a <= s and e <= b:
                return self._nested_kind(a, kind)
            if s <= a and b <= e:
                return "mixed"
        return kind

    def _nested_kind(self, s: int, kind: str) -> str:
        """The kind of a nested atomic span of a list item or quote starting at character `s`
        (`Block.meta["atomic"]`): "code" after a fence, "table" at a pipe, "math" at display
        math, else `kind`. Chunks of a list item's code block said "text" (helper-115:
        about_Arithmetic_Operators.md, a chunk of one fenced block); now "code", or "mixed" with
        the item's text."""
        head = self.text[s:s + 16].lstrip(" \t>")
        if head.startswith(("```", "~~~")):
            return "code"
        if head.startswith("|"):
            return "table"
        if head.startswith(("$$", "\\[", "\\begin")):
            return "math"
        return kind

    def _atomic_in(self, block: Block | None, a: int, b: int, budget: int) -> list[tuple[int, int]]:
        """The block's nested atomic spans (code, tables, display math in a list item or
        quote: `Block.meta["atomic"]`) inside `[a, b)` that fit `budget` tokens alone."""
        if block is None or not block.meta.get("atomic"):
            return []
        return [(s, e) for s, e in block.meta["atomic"] if a <= s and e <= b and (s, e) != (a, b)
                and self.fits(s, e, budget)]

    def _on_clusters(self, pieces: list[tuple[int, int]], a: int, b: int) -> list[tuple[int, int]]:
        """Pieces of `[a, b)` moved onto grapheme-cluster boundaries (a splitter may cut "。" from
        a ZWJ after it)."""
        return list(self._on_clusters_iter(pieces, a, b))

    def _refine_iter(self, a: int, b: int, levels: list[Level], li: int, strength: int, kind: str, budget: int,
                     barrier: bool, block: Block | None, split_to: Level | None = None) -> Iterator[Atom]:
        """`_refine` of a long span, yielding its atoms as its pieces are split (same atoms)."""
        pieces: Iterable[tuple[int, int]] = ()
        atomic = self._atomic_in(block, a, b, budget)
        while li < len(levels):
            found = self._on_clusters_iter(self._split_iter(levels[li], a, b, block, kind), a, b)
            if atomic:
                found = _glue(found, atomic)
            head = list(itertools.islice(found, 2))
            if len(head) > 1:
                pieces = itertools.chain(head, found)
                break
            if split_to is not None and levels[li] <= split_to and head:
                pieces = head
                break
            li += 1
        if li >= len(levels):
            out: list[Atom] = []
            self._windows_into(a, b, budget, strength, kind, barrier, block, out)
            yield from out
            return
        level = levels[li]
        atom_level = Level.PARAGRAPH if level == Level.BLOCK else level
        deeper = split_to is not None and level > split_to
        whole = set(atomic)
        src = iter(pieces)
        idx = -1
        while batch := list(itertools.islice(src, 512)):
            # `fits`, with the table estimates of a batch of pieces taken at once
            estimates = self.estimate_many(batch)
            for (s, e), est in zip(batch, estimates):
                idx += 1
                st = strength if idx == 0 else atom_level
                if (not deeper or (s, e) in whole) and (est <= budget - SLACK or (
                        est <= budget + 2 * SLACK + 8 and self.count(s, e) <= budget)):
                    yield Atom(s, e, st, self._piece_kind(s, e, kind, block), atom_level, barrier, block=block)
                    continue
                yield from self._refine_from(s, e, levels, li + 1, st, kind, budget, barrier, block,
                                             split_to if deeper else None)

    def _refine_from(self, a: int, b: int, levels: list[Level], li: int, strength: int, kind: str, budget: int,
                     barrier: bool, block: Block | None, split_to: Level | None = None) -> Iterator[Atom]:
        """`_refine` of `[a, b)` (characters) from `levels[li]` on, its atoms yielded as they are
        made when the span is over ITER_SPAN characters (`_refine_iter`): a piece of a long
        block that needs splitting further, or a table row longer than a chunk (a row of 20 MB
        held 4 M word atoms, some 1 GB, where the packer takes 256 at a time)."""
        if b - a > ITER_SPAN:
            yield from self._refine_iter(a, b, levels, li, strength, kind, budget, barrier, block, split_to)
            return
        out: list[Atom] = []
        self._refine(a, b, levels, li, strength, kind, budget, barrier, block, out, split_to)
        yield from out

    def _split_iter(self, level: Level, a: int, b: int, block: Block | None, kind: str
                    ) -> Iterator[tuple[int, int]]:
        if level == Level.BLOCK:
            return self._item_pieces(a, b, block)
        if kind == "table" and level == Level.CLAUSE:
            return iter(self._split(level, a, b, block, kind))
        if kind in _INDENTED_KINDS and level in (Level.PARAGRAPH, Level.OUTLINE, Level.LINE):
            return self._with_indent_iter(self.splitters.iter(level, a, b, prose=False), a)
        return self.splitters.iter(level, a, b, prose=(kind == "text"))

    def _with_indent_iter(self, pieces: Iterable[tuple[int, int]], a: int) -> Iterator[tuple[int, int]]:
        """`_with_indent` one piece at a time."""
        lo = a
        for s, e in pieces:
            (s2, _e), = self._with_indent([(s, e)], lo)
            yield s2, e
            lo = e

    def _on_clusters_iter(self, pieces: Iterable[tuple[int, int]], a: int, b: int) -> Iterator[tuple[int, int]]:
        """`_on_clusters` one piece at a time.

        The pieces of a splitter lie in `[a, b)` in order, none empty; where `[a - 1, b + 1)`
        holds only characters below U+0300 and no CR, every offset in it is a cluster
        boundary (`Graphemes.all_boundaries`) and the pieces are passed on as they are (no
        work a piece: a sentence without punctuation is packed word by word).
        """
        g = self.graphemes
        if g.all_boundaries(a - 1, b + 1):
            yield from pieces
            return
        prev_end = -1
        for s, e in pieces:
            if not g.is_boundary(s):
                s = g.floor(s)
            if not g.is_boundary(e):
                e = min(g.ceil(e), max(b, e))
            if s < prev_end:
                s = prev_end
            if e <= s:
                continue
            yield s, e
            prev_end = e

    def _windows_into(self, a: int, b: int, budget: int, strength: int, kind: str, barrier: bool,
                      block: Block | None, out: list[Atom]) -> None:
        for idx, (s, e, over) in enumerate(self.windows(a, b, budget)):
            out.append(Atom(s, e, strength if idx == 0 else Level.GRAPHEME, kind, Level.GRAPHEME, barrier,
                            oversize=over, block=block))

    def window_end(self, s: int, b: int, budget: int, prefix: str = "", target: int | None = None
                   ) -> tuple[int, bool, int]:
        """End of a window of at most `budget` tokens (prefix included) starting at boundary `s`.

        Args:
            s: window start (a grapheme-cluster boundary).
            b: the window may not pass this offset.
            budget: token budget including `prefix`.
            prefix: text counted before the window.
            target: a character offset to aim for (default: `budget` table tokens on).

        Returns:
            (end, oversize, tokens): end on a cluster boundary; oversize when a single
            cluster alone is over the budget (then end closes that cluster).
        """
        g = self.graphemes
        if target is None:
            room = budget - (self.tok.count(prefix) if prefix else 0)
            target = self.table.char(self.tokens_before(s) + max(1, room))
        e = g.floor(min(b, max(target, s + 1)))
        if e <= s:
            e = g.next(s)
        n = self.count(s, e, prefix)
        while n > budget:
            excess = n - budget
            e2 = g.floor(min(self.table.char(self.tokens_before(e) - max(1, excess)), e - 1))
            if e2 <= s:
                e = g.next(s)
                n = self.count(s, e, prefix)
                return e, n > budget, n
            e = e2
            n = self.count(s, e, prefix)
        return e, False, n

    def windows(self, a: int, b: int, budget: int) -> list[tuple[int, int, bool]]:
        """Cut `text[a:b]` into consecutive windows of at most `budget` tokens each.

        Edges fall on grapheme-cluster boundaries; a window holding a single cluster
        larger than the budget is returned with oversize=True. White space between
        windows is skipped.

        Returns:
            [(start, end, oversize)] in order, covering every non-white-space character.
        """
        text = self.text
        out = []
        pos = a
        while pos < b:
            while pos < b and text[pos].isspace():
                pos += 1
            if pos >= b:
                break
            pos = self.graphemes.floor(pos)
            e, oversize, _n = self.window_end(pos, b, budget)
            body_end = self.graphemes.rstrip_end(pos, e)
            out.append((pos, body_end if body_end > pos else e, oversize))
            pos = e
        return out

    # ------------------------------------------------------------------ packing
    def pack(self, atoms: Iterable[Atom], path: tuple[str, ...], budget: int | None = None) -> list[Chunk]:
        """`iter_pack` as a list."""
        return list(self.iter_pack(atoms, path, budget))

    def iter_pack(self, atoms: Iterable[Atom], path: tuple[str, ...], budget: int | None = None) -> Iterator[Chunk]:
        """Pack one section's atoms into chunks, given as they are made (a strategy that collects
        them in a `ChunkList` holds no more than its columns: a list of the chunks of a section of
        one-word paragraphs at 16 tokens took some 200 bytes a chunk, 5x the text).

        A chunk ends at the strongest boundary within its budget (see MIN_FILL); the
        next one starts with up to `overlap` tokens of whole trailing sentences (or
        words) of the previous one, never reaching back into a heading, table or code
        atom. Tables too big for one chunk ("bigtable" atoms) are split by rows with
        the header repeated in the prefix.

        Args:
            atoms: the section's atoms in order (a list, or an iterator: they are taken
                as the packing reaches them, see `_iter_run`).
            path: the section's heading path (the `headings` of its chunks).
            budget: token budget (default: the packer's).

        Yields:
            chunks in document order.
        """
        budget = budget if budget is not None else self.budget
        atoms_in = iter(atoms)
        back: list[Atom] = []  # an atom a run ended before (at a skipped span)

        def take() -> Atom | None:
            return back.pop() if back else next(atoms_in, None)

        def source() -> Iterator[Atom]:
            while (x := take()) is not None:
                yield x

        src = source()
        table: list[tuple[Atom, bool]] = []  # a big table met at the end of a run, its header lines in the run or not
        gaps = self.skipped_starts
        while True:
            # Heading atoms before a big table go with it; otherwise they open a run of
            # atoms, packed up to the next big table or skipped span.
            lead: list[Atom] = []
            a = take()
            cap = LEAD_CAP
            while a is not None and a.kind == "heading":
                lead.append(a)
                if len(lead) >= cap:
                    # A run of thousands of heading lines: the lead is held whole (here and in
                    # `_iter_run`) until its first body atom, so its early chunks, which no chunk
                    # of that body or table could reach, are packed now.
                    done, m = self._pack_lead_start(lead, path, budget)
                    yield from done
                    del lead[:m]
                    cap = len(lead) + LEAD_CAP
                a = take()
            if a is None:
                if lead:
                    yield from self._iter_run(lead, path, budget)
                return
            if a.kind == "bigtable":
                assert a.block is not None  # a big table atom carries its table block
                yield from self._pack_table(a.block, lead, path, budget)
                continue

            def run(first: Atom = a, lead: list[Atom] = lead) -> Iterator[Atom]:
                yield from lead
                yield first
                prev_end = first.end
                for x in src:
                    if x.kind == "bigtable":
                        header = self._lone_header(x.block, path, budget)
                        table.append((x, header is not None))
                        if header is not None:
                            yield header
                        return
                    if gaps and _crosses(gaps, prev_end, x.start):
                        back.append(x)  # no chunk may hold the skipped span: a new run
                        return
                    yield x
                    prev_end = x.end

            yield from self._iter_run(run(), path, budget)
            if table:
                big, placed = table.pop()
                assert big.block is not None
                yield from self._pack_table(big.block, [], path, budget, header_placed=placed)

    def _pack_lead_start(self, lead: list[Atom], path: tuple[str, ...], budget: int) -> tuple[list[Chunk], int]:
        """The first chunks of a run that opens with the heading atoms `lead`, whatever follows
        them, and the number of lead atoms they hold: (chunks, m).

        The packing goes left to right and chooses a chunk's end among the atoms within its
        budget, looking one more chunk ahead (`rebalance`): a chunk that starts more than 3 x
        `budget` tokens before the lead's end (by the table estimate) is the one packing the
        whole run makes, and so is the rest when packed from the next chunk's first atom (no
        overlap reaches back into a heading). The chunks kept end where a later one starts at
        an atom of the lead; (``[]``, 0) when none does.
        """
        reach = self.tokens_before(lead[-1].end) - 3 * budget - 2 * SLACK
        chunks = list(self._iter_run(lead, path, budget))
        starts = [x.start for x in lead]
        keep = m = 0
        for q, chunk in enumerate(chunks):
            if self.tokens_before(chunk.start) > reach:
                break
            j = bisect.bisect_left(starts, chunk.start)
            if j < len(starts) and starts[j] == chunk.start:
                keep, m = q, j
        return chunks[:keep], m

    def whole_section(self, blocks: Sequence[Block], path: tuple[str, ...], budget: int | None = None) -> Chunk | None:
        """The one chunk `pack` makes of a section that fits in one, without atoms; None when it may not.

        A shortcut with `pack`'s result (`pack(iter_section_atoms(...))`, compared by
        tests/chunking/test_whole_section.py), for a section of heading lines and body blocks
        (`blocks`, in order) whose table estimate is within the body budget less SLACK (so
        every block is one atom and the whole section is the first candidate end), with no
        skipped span inside, and whose exact count with its breadcrumb fits `budget` tokens.
        Most sections of documentation fit their chunk; packing them atom by atom cost about
        as much per section as a tokenizer pass over its text.
        """
        budget = budget if budget is not None else self.budget
        start, end = blocks[0].start, blocks[-1].end
        gaps = self.skipped_starts
        if gaps and _crosses(gaps, start, end):
            return None
        if self.estimate(start, end) > max(1, budget - self.breadcrumb(self.breadcrumb_parts(path))[1]) - SLACK:
            return None
        skip: list[int] = []
        kinds: set[str] = set()
        for b in blocks:
            if b.kind == BlockKind.HEADING:
                if not kinds:  # the heading lines that open the chunk are not repeated in its breadcrumb
                    skip.append(len(b.headings) - 1)
                continue
            kinds.add(_whole_kind(b, _KIND_OF_BLOCK.get(b.kind, "text")))
        if not kinds:
            return None  # heading lines only: their own paths (`pack`)
        if any(continued_table(b) for b in blocks):
            return None  # (its chunks repeat the table's header: `pack`)
        cs = self.snap_start(start)
        pre, ptoks = self.breadcrumb(self.breadcrumb_parts(path, skip))
        if self.tokens_before(end) > self.tokens_before(cs) + budget - ptoks + SLACK:
            return None
        cnt = self.count(cs, end, pre)
        if cnt > budget:
            return None
        return Chunk(cs, end, pre, path, _chunk_kind(kinds), cnt, budget)

    def _prefix(self, path: tuple[str, ...], atoms: Sequence[Atom], nhead: int, i: int, k: int) -> tuple[str, int]:
        """Breadcrumb for a chunk of atoms i..k; headings whose lines open the body are left out."""
        skip = [len(x.block.headings) - 1 for x in atoms[i:min(k + 1, nhead)] if x.block is not None]
        return self.breadcrumb(self.breadcrumb_parts(path, skip))

    @staticmethod
    def _kind(atoms: Sequence[Atom], i: int, k: int) -> str:
        return _chunk_kind({x.kind for x in atoms[i:k + 1] if x.kind != "heading"})

    def _iter_run(self, atoms: Iterable[Atom], path: tuple[str, ...], budget: int) -> Iterator[Chunk]:
        """Pack a run of atoms (no big table among them) into chunks, given as they are made.

        The atoms are taken as the packing reaches them and dropped once behind it: a
        chunk is chosen among the atoms within its budget from its start, so only those
        (and the chunk's own) are held, however many atoms the run has. Indices below
        are the run's (`base` is the run index of `win[0]`).
        """
        src = iter(atoms)
        win: list[Atom] = []  # the run's atoms base .. base + len(win)
        te: list[int] = []  # per atom of `win`: document tokens before its end
        after: list[int] = []  # per atom of `win`: strength of the boundary after it
        base = 0
        done = False
        search_many = self.table.search_many
        last = Level.SECTION + 1  # after the run's last atom
        spliced = [0]  # splices made inside the lead (its level masks follow them)

        def pull(count: int = 256) -> None:
            nonlocal done
            new = list(itertools.islice(src, count))
            if len(new) < count:
                done = True
            if not new:
                return
            if win:
                after[-1] = new[0].strength
            win.extend(new)
            te.extend(search_many([x.end for x in new]))
            after.extend(x.strength for x in new[1:])
            after.append(last)  # until the next atom arrives

        def splice(x: int, pieces: list[Atom], n: int = 1) -> None:
            """Put `pieces` in the place of window atoms x .. x + n - 1, with their token ends and
            the strengths of the boundaries around them (only theirs are computed)."""
            if x + base < nhead:
                spliced[0] += 1  # a lead atom cut in pieces: the lead's level masks are made again
            tail = after[x + n - 1]
            win[x:x + n] = pieces
            te[x:x + n] = search_many([y.end for y in pieces])
            if x > 0:
                after[x - 1] = pieces[0].strength
            after[x:x + n] = [y.strength for y in pieces[1:]] + [tail]

        def has(k: int) -> bool:  # atom k exists (taken from the source if needed)
            while k >= base + len(win) and not done:
                pull()
            return k < base + len(win)

        nhead = 0
        while True:
            while nhead < len(win) and win[nhead].kind == "heading":
                nhead += 1
            if nhead < len(win) or done:
                break
            pull()

        # the heading levels (a bit each) of the lead headings from atom j to the lead's end: a chunk that
        # runs to the end of a long lead (100,000 empty headings) finds them at once, not by a scan each.
        # Made again when the lead changes (a heading line cut in pieces: `splice`, a longer `nhead`).
        masks_key: tuple[int, int] | None = None
        masks_lo = 0
        masks: list[int] = []

        def levels_from(i: int) -> int:
            nonlocal masks_key, masks_lo, masks
            if masks_key != (nhead, spliced[0]):  # (atoms pulled after the lead, or dropped before it, change nothing)
                masks_key, masks_lo = (nhead, spliced[0]), base
                masks = [0] * (nhead - base + 1)
                for j in range(nhead - 1, base - 1, -1):
                    lead = win[j - base].block
                    masks[j - base] = masks[j - base + 1] | (1 << (len(lead.headings) - 1) if lead is not None
                                                             and lead.headings else 0)
            return masks[i - masks_lo]

        def prefix_parts(i: int, k: int | None = None) -> list[str]:
            """The breadcrumb entries of a chunk of atoms i..k (k None: the run's last), run indices."""
            stop = nhead if k is None else min(k + 1, nhead)
            if stop == nhead and base <= i < nhead:
                mask = levels_from(i)
                skip = [b for b in range(mask.bit_length()) if mask >> b & 1]
            else:
                skip = [len(x.block.headings) - 1 for x in win[i - base:max(i, stop) - base] if x.block is not None]
            return self.breadcrumb_parts(path, skip)

        def prefix(i: int, k: int | None = None) -> tuple[str, int]:
            """`_prefix` of a chunk of atoms i..k (k None: the run's last), run indices."""
            return self.breadcrumb(prefix_parts(i, k))

        def lead_path(i: int) -> tuple[str, ...]:
            """Heading path of atom i, a heading of the run's lead (its own path)."""
            x = win[i - base]
            return x.block.headings if x.block is not None and x.block.headings else path

        def lead_prefix(i: int) -> tuple[str, int]:
            """Breadcrumb of a chunk holding only lead headings from atom i on: the path above
            its first heading (a heading that starts after the chunk is never named)."""
            return self.breadcrumb(self.breadcrumb_parts(lead_path(i)[:-1]))

        path_ptoks = self.breadcrumb(self.breadcrumb_parts(path))[1]

        def window_budget(atom: Atom) -> int:
            """Tokens of a window cut again from `atom`: as `iter_section_atoms` cut it, the body's
            budget (the breadcrumb's tokens left out: a window of the whole budget was written
            without it) or, for a heading line, the whole budget."""
            return budget if atom.kind == "heading" else max(1, budget - path_ptoks)

        def recut(x: int, pieces: list[Atom], n: int = 1) -> None:
            """`splice`, for atoms x .. x + n - 1 that may be the lead's: then it has more atoms."""
            nonlocal nhead
            lead = x + base < nhead
            splice(x, pieces, n)
            if lead:
                while nhead - base < len(win) and win[nhead - base].kind == "heading":
                    nhead += 1

        def rebalance(r: int, k: int, tcs: int, body_budget: int) -> int | None:
            """An earlier end for the chunk of atoms r..k (window indices) when the next chunk
            would be a crumb (less than `min_fill` of its body budget, then a stronger
            boundary): the latest boundary as strong as k's that leaves both chunks filled
            to `min_fill`; None to keep k."""
            n1 = k + 1
            if not has(n1 + base):
                return None
            t2 = self.tokens_before(win[n1].start)
            bb2 = budget - path_ptoks
            reach2 = t2 + bb2 + SLACK
            while not done and te[-1] <= reach2:
                pull()
            j2 = bisect.bisect_right(te, reach2, n1) - 1
            if j2 < n1:
                return None
            thr2 = self.min_fill * bb2
            hi2 = j2
            while True:  # the next chunk's end, as the packing will choose it (exact count)
                k2 = self._choose(n1, hi2, after, te, t2 + thr2)
                if k2 == n1 or self.count(win[n1].start, win[k2].end) <= bb2:
                    break
                hi2 = k2 - 1
            if te[k2] - t2 >= thr2 or after[k2] <= after[k]:
                return None
            thr = tcs + self.min_fill * body_budget
            for c in range(k - 1, max(r, nhead - base) - 1, -1):
                if te[c] < thr:
                    break
                if after[c] >= after[k] and thr2 <= te[k2] - te[c] <= bb2 - SLACK:
                    return c
            x = win[k]
            if x.level == Level.GRAPHEME and not x.oversize:
                # The chunk ends inside a word cut anyway (a grapheme window), and what is left of it
                # would be a crumb: its last window is cut again where the two chunks get half each.
                e = self.graphemes.floor(self.table.char(tcs + (te[k2] - tcs) // 2))
                pieces = self._window_cut(x, e, x.end, window_budget(x))
                if pieces and self.tokens_before(pieces[0].end) >= thr \
                        and te[k2] - self.tokens_before(pieces[1].start) <= bb2 - SLACK:
                    recut(k, pieces)
                    return k
            return None

        recut_at: set[int] = set()  # run indices of atoms cut at a chunk's room by `fill_crumb`

        def fill_crumb(cs: int, x: int, pre: str) -> bool:
            """Cut window atom x, which is cut inside its words whatever happens (a grapheme
            window, or an atom over a chunk's budget alone), so that the chunk from `cs` to it
            (prefix `pre`), a crumb so far, takes its first piece: a lone "-", "|" or "#" before
            a 4 KB base64 word stood as a record of its own. True when spliced."""
            if not has(x + base) or x + base in recut_at:
                return False
            atom = win[x]
            if atom.oversize:
                return False
            if atom.level != Level.GRAPHEME:
                if atom.barrier or self.fits(atom.start, atom.end, budget - path_ptoks):
                    # (code, a table or a formula is cut at its own levels, never here; an atom
                    # that fits a chunk of its own keeps the boundary before it)
                    return False
                pieces = self._split_atom(atom, window_budget(atom))  # (finer pieces: tried again)
                if self.fits(atom.start, atom.end, budget) and any(y.level < Level.SENTENCE for y in pieces):
                    return False  # (it fits alone with a shortened breadcrumb: cut only between its sentences)
                n = 1
            else:
                # the windows of the same run after it, in the window already, are cut again from
                # the head's end, so that the next chunks are full too (not the rest of this one)
                n = 1
                while x + n < len(win) and (y := win[x + n]).level == Level.GRAPHEME and y.strength == Level.GRAPHEME \
                        and y.start == win[x + n - 1].end and not y.oversize and y.kind == atom.kind \
                        and y.barrier == atom.barrier and y.block is atom.block:
                    n += 1
                room = budget - self.count(cs, win[x - 1].end, pre) - SLACK
                end = win[x + n - 1].end
                e, over, _n = self.window_end(atom.start, end, room) if room >= 1 else (atom.start, True, 0)
                head = None if over else self._window_cut(atom, e, end, window_budget(atom))
                if head is None:
                    return False
                pieces = head
                recut_at.add(x + base)
            recut(x, pieces, n)
            return True

        i = 0
        carry: int | None = None
        opened: set[int] = set()  # run indices of body atoms cut finer to open a chunk with the lead
        while has(i):
            r = i - base
            atom = win[r]
            if atom.oversize:
                # One grapheme cluster over the body budget: alone, without prefix (it is
                # flagged only when it is over the whole budget too).
                a0 = self.snap_start(atom.start)
                cnt = self.count(a0, atom.end)
                yield Chunk(a0, atom.end, "", path, self._kind(win, r, r), cnt, budget, cnt > budget)
                carry = None
                i += 1
                continue
            cs = self.snap_start(carry if carry is not None else atom.start)
            prefix_text, ptoks = prefix(i)
            body_budget = budget - ptoks
            tcs = self.tokens_before(cs)
            reach = tcs + body_budget + SLACK
            while not done and te[-1] <= reach:
                pull()
            j = bisect.bisect_right(te, reach, r) - 1
            chosen = None
            if j >= r:
                hi = j
                while hi >= r:
                    k = self._choose(r, hi, after, te, tcs + self.min_fill * body_budget)
                    pre = lead_prefix(i)[0] if k + base < nhead else prefix_text
                    cnt = self.count(cs, win[k].end, pre)
                    if cnt <= budget:
                        chosen = (k, pre, cnt)
                        break
                    hi = k - 1
            if chosen is None:
                if carry is not None:
                    carry = None
                    continue
                # The atom does not fit with its prefix (the estimate was off by a few
                # tokens): emit it without prefix, or cut it finer when it is too big alone.
                # A table, code block or formula that fits without the breadcrumb keeps it
                # shortened from the outside in, or none (it is never cut for it).
                a0 = self.snap_start(atom.start)
                cnt = self.count(a0, atom.end)
                if cnt <= budget:
                    own = lead_path(i) if i < nhead else path
                    parts = self.breadcrumb_parts(own[:-1] if i < nhead else own)
                    pre, _p = self.breadcrumb(parts, cap=budget - cnt) if parts else ("", 0)
                    n_pre = self.count(a0, atom.end, pre) if pre else cnt
                    if n_pre > budget:
                        pre, n_pre = "", cnt
                    yield Chunk(a0, atom.end, pre, own, self._kind(win, r, r), n_pre, budget)
                    i += 1
                    continue
                recut(r, self._split_atom(atom, budget))  # (a heading line cut in pieces: the lead grows)
                continue
            k, pre, cnt = chosen
            if k + base == nhead - 1 and nhead not in opened and has(nhead):
                # Headings open the chunk of their body: cut the body's first atom finer
                # when only a piece of it fits after them.
                opened.add(nhead)
                pieces = self._open_body(win[nhead - base], budget - cnt - SLACK)
                if pieces:
                    splice(nhead - base, pieces)
                    continue
                # A body atom kept whole (code, a table, a formula) that fits after the headings
                # only with a shorter breadcrumb: the breadcrumb yields, outermost headings first,
                # so that the headings open its chunk (helper-115: "### The CSS components",
                # "#### In main.css" stood alone, 21 tokens, before their 76-token code block).
                kb = nhead - base
                body_cnt = self.count(cs, win[kb].end, "")
                if body_cnt <= budget:
                    parts = prefix_parts(i, nhead)
                    short, _n = self.breadcrumb(parts, cap=min(budget // 4, budget - body_cnt)) if parts else ("", 0)
                    short_cnt = self.count(cs, win[kb].end, short) if short else body_cnt
                    if short_cnt > budget:
                        short, short_cnt = "", body_cnt
                    k, pre, cnt = kb, short, short_cnt
                    prefix_text = short
            if k + base >= nhead and te[k] - tcs < self.min_fill * body_budget:
                # No candidate fills the chunk to MIN_FILL (a short paragraph, then a long
                # one cut only at lines): cut the first coarse atom after it that has
                # sentences at them, so the chunk can take its first sentences instead of
                # ending as a crumb.
                split = False
                for x in range(k + 1, j + 2):  # window indices; opened holds run indices
                    if not has(x + base):
                        break
                    if win[x].level <= Level.SENTENCE or win[x].barrier or x + base in opened:
                        continue
                    opened.add(x + base)
                    used = self.count(cs, win[x - 1].end, prefix_text)
                    pieces = self._open_at_sentences(win[x], budget - used - SLACK, budget)
                    if pieces:
                        splice(x, pieces)
                        split = True
                        break
                if split:
                    continue
            if te[k] - tcs < self.min_fill * body_budget:
                # A crumb so far: the first atom after it that does not fit (exact counts; the
                # chunk may have ended before atoms that fit at a stronger boundary) may be one
                # cut inside its words anyway, whose first piece then fills the chunk.
                lead_pre = lead_prefix(i)[0] if k + 1 + base < nhead else ""
                lo, hi = k + 1, max(k + 1, j + 1)
                while lo < hi:  # (bisect: the exact counts grow with the end)
                    mid = (lo + hi) // 2
                    if self.count(cs, win[mid].end, lead_pre if mid + base < nhead else prefix_text) <= budget - SLACK:
                        lo = mid + 1
                    else:
                        hi = mid
                if fill_crumb(cs, lo, lead_pre if lo + base < nhead else prefix_text):
                    continue
            own = path
            if k + base < nhead:
                own = lead_path(i)  # only headings: the path of its first heading
                c = rebalance(r, k, tcs, body_budget) if win[k].level == Level.GRAPHEME else None
                if c is not None:  # (a heading line cut in windows: its last two share what is left)
                    k, cnt = c, self.count(cs, win[c].end, pre)
            else:
                c = rebalance(r, k, tcs, body_budget)
                if c is not None:
                    k, cnt = c, self.count(cs, win[c].end, prefix_text)
                    pre = prefix_text
            yield Chunk(cs, win[k].end, pre, own, self._kind(win, r, k), cnt, budget)
            carry = self._overlap_start(win, r, k, cs) if (self.overlap and has(k + base + 1)) else None
            i = k + base + 1
            if i - base > 4096:  # drop the atoms behind
                d = i - base
                del win[:d], te[:d], after[:d]
                base = i

    def _open_body(self, atom: Atom, room: int) -> list[Atom] | None:
        """`atom` cut into finer atoms whose first fits `room` tokens (after heading lines),
        or None: for code, tables and formulas (kept whole), or when only a cut inside a
        word would fit."""
        if atom.barrier or atom.oversize or atom.block is None or room < 1:
            return None
        levels = [lv for lv in self.levels_for(atom.block) if Level.WORD <= lv < atom.level]
        if not levels:
            return None
        out: list[Atom] = []
        self._refine(atom.start, atom.end, levels, 0, atom.strength, atom.kind, room, False, atom.block, out)
        if len(out) < 2 or out[0].level == Level.GRAPHEME or not self.fits(out[0].start, out[0].end, room):
            return None
        return out

    def _open_at_sentences(self, atom: Atom, room: int, budget: int) -> list[Atom] | None:
        """`atom` (prose cut only at lines or paragraphs) cut at its sentences, each piece
        within `budget` tokens as usual, when its first sentence fits `room` tokens (what is
        left of a chunk that is too short so far); else None. Code, tables and formulas
        are kept whole, and a sentence is never cut for this."""
        if atom.barrier or atom.oversize or atom.block is None or room < 1 or atom.level <= Level.SENTENCE:
            return None
        levels = [lv for lv in self.levels_for(atom.block) if Level.WORD <= lv <= Level.SENTENCE]
        if Level.SENTENCE not in levels:
            return None
        out: list[Atom] = []
        self._refine(atom.start, atom.end, levels, 0, atom.strength, atom.kind, budget, False, atom.block, out)
        if len(out) < 2 or out[0].level != Level.SENTENCE or not self.fits(out[0].start, out[0].end, room):
            return None
        return out

    @staticmethod
    def _choose(lo: int, hi: int, after: list[int], te: list[int], thr: float) -> int:
        """The end atom among the window atoms lo..hi (both included): the strongest boundary
        after it among those filled to `thr` tokens (`te`, tokens before each atom's end, never
        falls), or among all when none is; the latest on ties."""
        full = bisect.bisect_left(te, thr, lo, hi + 1)
        strengths = after[full if full <= hi else lo:hi + 1]
        return hi - strengths[::-1].index(max(strengths))

    def _split_atom(self, atom: Atom, budget: int) -> list[Atom]:
        """Cut one atom too big for `budget` tokens alone (a heading line, or an estimate that
        was off): at sentences, clauses and words when it has them, else into grapheme
        windows (a last resort)."""
        levels = [lv for lv in ATOM_SPLIT_LEVELS if lv < atom.level]
        if levels:
            out: list[Atom] = []
            self._refine(atom.start, atom.end, levels, 0, atom.strength, "text" if atom.kind == "heading" else atom.kind,
                         max(1, budget), atom.barrier, atom.block, out)
            for x in out:
                x.kind = atom.kind
            if len(out) > 1:
                return out
        wins = self.windows(atom.start, atom.end, max(1, budget))
        return [Atom(s, e, atom.strength if n == 0 else Level.GRAPHEME, atom.kind, Level.GRAPHEME, atom.barrier,
                     over, atom.block) for n, (s, e, over) in enumerate(wins)]

    def _window_cut(self, atom: Atom, cut: int, end: int, budget: int) -> list[Atom] | None:
        """The text from grapheme window `atom`'s start to `end` (characters; the end of its run
        of windows) cut again at `cut` (a cluster boundary): a head atom up to it, then windows
        of `budget` tokens (`_windows_into`); None when the head or the rest would be empty."""
        head_end = self.graphemes.rstrip_end(atom.start, cut) if atom.start < cut < end else atom.start
        if head_end <= atom.start:
            return None
        out = [Atom(atom.start, head_end, atom.strength, atom.kind, Level.GRAPHEME, atom.barrier, False, atom.block)]
        self._windows_into(cut, end, budget, Level.GRAPHEME, atom.kind, atom.barrier, atom.block, out)
        return out if len(out) > 1 else None

    def _overlap_start(self, atoms: list[Atom], i: int, k: int, cs: int) -> int | None:
        """Start of the next chunk's overlap: whole trailing sentences (else words) within `overlap` tokens.

        Never before `cs + 1` (progress), never inside a heading, table or code atom.
        """
        ce = atoms[k].end
        lo = cs + 1
        for idx in range(k, i - 1, -1):
            x = atoms[idx]
            if x.barrier:
                lo = max(lo, x.end)
                break
            if x.block is not None and x.block.meta.get("atomic"):
                # never repeat lines of code, table rows or math nested in a list or quote
                lo = max(lo, max((e for s, e in x.block.meta["atomic"] if s < ce), default=lo))
        if atoms[k].barrier or lo >= ce:
            return None
        tce = self.tokens_before(ce)
        wlo = max(lo, self.table.char(tce - self.overlap - SLACK))
        cands: set[int] = set()
        multi = False  # an atom in the window may hold several sentences
        last_sentence = max(lo, atoms[k].start)
        blocks: list[Block] = []
        for idx in range(k, i - 1, -1):
            x = atoms[idx]
            if x.end <= wlo:
                break
            if x.start >= wlo and x.start > cs and x.strength >= Level.SENTENCE:
                cands.add(x.start)
            if x.level > Level.SENTENCE:
                multi = True
                if x.block is not None and (not blocks or blocks[-1] is not x.block):
                    blocks.append(x.block)
        if multi:
            # Sentence starts by rule (cheap: this runs once per chunk) and hard line
            # starts (list items, log lines, verse) inside the window. The earliest
            # candidate that fits wins, so hard line starts are read only up to the first
            # candidate that already fits (the same answer; most chunk ends then read a
            # line or two instead of the whole window).
            a = max(lo, wlo - 80)
            found = self.sentences.quick_starts(self.text, a, ce)
            for s in found:
                if s >= wlo:
                    cands.add(s)
            fitting = self._first_fitting(sorted(c for c in cands if cs < c < ce and c >= lo), cs, ce, tce)
            hi = ce if fitting is None else fitting[0]
            hard: list[int] = []
            for b in blocks:
                hard += self._hard_line_starts(b, a, hi)
            if fitting is not None:
                # only hard line starts before the fitting candidate can come first
                earlier = self._first_within_overlap(
                    sorted(c for c in set(hard) if c >= wlo and cs < c < ce and c >= lo and c not in cands),
                    cs, ce, tce)
                return fitting[1] if earlier is None else earlier
            found += hard
            cands.update(s for s in hard if s >= wlo)
            if found:
                last_sentence = max(last_sentence, max(found))
        text = self.text
        first = self._first_within_overlap(sorted(c for c in cands if cs < c < ce and c >= lo), cs, ce, tce)
        if first is not None:
            return first
        # The last sentence is longer than the overlap: take its trailing words.
        words = [s for s, _e in split_words(text, max(last_sentence, wlo, lo), ce)
                 if s > cs and (s == 0 or text[s - 1].isspace())]
        return self._first_within_overlap(words, cs, ce, tce)

    def _hard_line_starts(self, block: Block, lo: int, hi: int) -> list[int]:
        """Starts `s`, `lo < s < hi`, of the block's hard lines (soft wraps of prose left out:
        `split_lines`), reading only the lines near the window (`hard_line_starts`); the
        block's wrap width is computed once per block."""
        key = (block.start, block.end)
        prose = block.kind not in (BlockKind.CODE, BlockKind.MATH)
        if key in self._wrap_cache:
            wrap = self._wrap_cache[key]
        else:
            if len(self._wrap_cache) >= 256:  # the overlaps look back at the last few blocks only
                self._wrap_cache.clear()
            wrap = self._wrap_cache[key] = line_wrap(self.text, block.start, block.end) if prose else None
        return hard_line_starts(self.text, block.start, block.end, lo, hi, prose, wrap)

    def _first_within_overlap(self, starts: list[int], cs: int, ce: int, tce: int) -> int | None:
        """The earliest of `starts` (after `cs`) from which `text[start:ce]` has at most `overlap` tokens
        (the start moved back to a grapheme cluster boundary: `snap_start`)."""
        fitting = self._first_fitting(starts, cs, ce, tce)
        return None if fitting is None else fitting[1]

    def _first_fitting(self, starts: list[int], cs: int, ce: int, tce: int) -> tuple[int, int] | None:
        """(the first of the sorted `starts` that `_first_within_overlap` takes, the start it gives), or None."""
        for raw in starts:
            c = self.snap_start(raw)
            if c <= cs or tce - self.tokens_before(c) > self.overlap + SLACK:
                continue
            if self.count(c, ce) <= self.overlap:
                return raw, c
        return None

    def _lone_header(self, block: Block | None, path: tuple[str, ...], budget: int) -> Atom | None:
        """The header lines of a table to split, as an atom for the run before it, when they would
        make a chunk of their own (they fit `budget` tokens, but not with its first row; and when
        that row is cut inside, the packing of its pieces after them, which `_pack_table` does,
        leaves them alone); else None. A chunk of a table's header lines alone holds no data
        (helper-111: "| Champion | # | Goals |" and its delimiter row, 21 tokens, stood alone
        after a 12-token chunk of the paragraph introducing the table): packed with the text
        before the table, they go with it when they fit."""
        if block is None or not block.header or not block.rows or continued_table(block):
            return None
        hs, he = block.header
        row = next((x for x in block.rows if x[1] > x[0]), None)
        if row is None or not self.fits(hs, he, budget):
            return None
        if self.count(self.snap_start(block.start), row[1], "") <= budget:
            return None  # (they share a chunk)
        head = Atom(hs, he, Level.BLOCK, "table", Level.LINE, True, block=block)
        if not self.fits(row[0], row[1], budget):  # a row cut inside: alone unless its first piece joins them
            pieces = self._refine_from(row[0], row[1], list(TABLE_LINE_LEVELS), 0, Level.BLOCK, "table", budget,
                                       True, block)
            first = next(iter(self._iter_run(itertools.chain([head], _unbarred(pieces)), path, budget)), None)
            if first is None or first.end > he:
                return None
        return head

    def _pack_table(self, block: Block, lead: list[Atom], path: tuple[str, ...], budget: int,
                    header_placed: bool = False) -> list[Chunk]:
        """Split a table too big for one chunk between rows, repeating its header in the prefix.

        The first chunk holds the header lines in its body (after any heading lines that
        open the section); later chunks carry breadcrumb + header + its line break as prefix. When
        header and one row do not fit, the breadcrumb goes first, then the header; a row
        longer than the budget is cut inside by sentences, clauses, words and graphemes.
        The repeated header ends with the line break that follows it in the source ("\\r\\n" in
        a CRLF file, whose header lines are joined by it too), "\\n" where none does. When the
        first row is cut inside, the header lines share a chunk with its first pieces.
        `header_placed`: the header lines went with the run before the table (`_lone_header`),
        so no chunk here holds them in its body. A table whose header lies before `block`
        (`continued_table`) is packed as later row groups are, every chunk with the header in its
        prefix; heading atoms in `lead` then make chunks of their own.
        """
        text = self.text
        hs, he = block.header if block.header else (block.start, block.start)
        header_text = without_replacement(text[hs:he], collapse=False) + _line_break_at(text, he)
        skip = [len(x.block.headings) - 1 for x in lead if x.block is not None]
        first_start = self.snap_start(lead[0].start if lead else block.start)
        bc_first, _ = self.breadcrumb(self.breadcrumb_parts(path, skip))
        bc, _ = self.breadcrumb(self.breadcrumb_parts(path))
        out: list[Chunk] = []
        rows = block.rows  # (a tuple, or Spans for a huge table: read in place)
        r = 0
        first = not header_placed
        if continued_table(block):
            first = False
            out.extend(self._iter_run(lead, path, budget) if lead else ())
        # Tokens of each prefix, counted once: a header longer than the budget was counted again for
        # every row group, quadratic in the table (helper-56: 450 KB, one long header cell, 64 tokens:
        # 58 s). A prefix over the budget by more than what a merge at its end can save is never tried.
        prefix_tokens: dict[str, int] = {}
        while r < len(rows):
            if rows[r][1] <= rows[r][0]:  # (an empty row span: nothing to put in a chunk)
                r += 1
                continue
            if first:
                cs = first_start
                options = [bc_first, ""]
            else:
                cs = self.snap_start(rows[r][0])
                options = [bc + header_text, header_text, bc, ""]
            done = False
            for prefix in options:
                ptoks = prefix_tokens.get(prefix, -1)
                if ptoks < 0:
                    ptoks = prefix_tokens[prefix] = self.tok.count(prefix)
                if ptoks > budget + SLACK:
                    continue
                tcs = self.tokens_before(cs)
                k = r
                # grow while the estimate fits, then near the budget while the exact count does
                while k + 1 < len(rows) and self.tokens_before(rows[k + 1][1]) - tcs + ptoks <= budget - SLACK:
                    k += 1
                counted: dict[int, int] = {}  # exact counts already taken, by row
                while k + 1 < len(rows) and self.tokens_before(rows[k + 1][1]) - tcs + ptoks <= budget + 2 * SLACK:
                    counted[k + 1] = self.count(cs, rows[k + 1][1], prefix)
                    if counted[k + 1] > budget:
                        break
                    k += 1
                while k >= r:
                    cnt = counted[k] if k in counted else self.count(cs, rows[k][1], prefix)
                    if cnt <= budget:
                        out.append(Chunk(cs, rows[k][1], prefix, path, "table", cnt, budget))
                        r = k + 1
                        done = True
                        break
                    k -= 1
                if done:
                    break
            if not done:
                # A single row (with the header lines, for the first chunk) is over the budget.
                s, e = rows[r]
                head_atoms: list[Atom] = []
                if first and cs < s:
                    head_atoms = list(self._fit_atoms(list(lead) + [
                        Atom(hs, he, Level.GLUE if lead else Level.BLOCK, "table", Level.LINE, True, block=block)],
                        budget))
                    if self.fits(s, e, budget):  # (the row fits a chunk alone: it comes next, under the header)
                        out.extend(self._iter_run(head_atoms, path, budget))
                        first = False
                        continue
                # A row cut inside whatever happens: the first chunk's header lines share a chunk
                # with its first pieces (they stood alone: "| a | b |\n|---|---|", then "| <blob>").
                row_atoms = self._refine_from(s, e, list(TABLE_LINE_LEVELS), 0, Level.BLOCK, "table", budget, True,
                                              block)
                for c in self._iter_run(itertools.chain(head_atoms, _unbarred(row_atoms)), path, budget):
                    if c.end > s:  # (a chunk of heading lines alone keeps its kind)
                        c.kind = "table"
                    out.append(c)
                r += 1
            first = False
        return out

    def _fit_atoms(self, atoms: list[Atom], budget: int) -> Iterator[Atom]:
        """`atoms`, each that does not fit `budget` (tokens) split into atoms that do, as they are taken."""
        for x in atoms:
            if self.fits(x.start, x.end, budget):
                yield x
            else:
                levels = TABLE_LINE_LEVELS if x.kind == "table" else ROW_LEVELS
                yield from self._refine_from(x.start, x.end, list(levels), 0, x.strength, x.kind, budget,
                                             x.barrier, x.block)
