"""Heading sections of a document's blocks: the unit every structure-aware strategy packs within."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from chunkctl.model import Block, BlockKind, BlockList, kind_code


@dataclass
class Section:
    """Consecutive blocks opened by heading lines (none for text before the first heading).

    Attributes:
        path: the heading path in force at the section's first non-heading block.
        blocks: the heading blocks that open it, then its body blocks (a slice of the
            document's blocks: a view when they are a compact `BlockList`).
        level: the level of its first heading (0 when it has none).
        merged: several sections merged into one (their heading lines in the body).
    """

    path: tuple[str, ...]
    blocks: Sequence[Block] = field(default_factory=list)
    level: int = 0
    merged: bool = False

    @property
    def start(self) -> int:
        return self.blocks[0].start

    @property
    def end(self) -> int:
        return self.blocks[-1].end


_HEADING = kind_code(BlockKind.HEADING)
_FRONT_MATTER = kind_code(BlockKind.FRONT_MATTER)


def kind_codes(blocks: Sequence[Block]) -> bytes:
    """The blocks' kinds, a byte each (`kind_code`): a list of kinds would take 8 bytes a
    block, as much as the compact blocks themselves in a document of one-word paragraphs."""
    if isinstance(blocks, BlockList):
        return blocks.kind_codes()
    return bytes(kind_code(b.kind) for b in blocks)


def block_spans(blocks: Sequence[Block]) -> tuple[Sequence[int], Sequence[int]]:
    """(starts, ends) of `blocks`, in characters: a `BlockList`'s own columns (no block made),
    else read from the blocks."""
    if isinstance(blocks, BlockList):
        return blocks.starts(), blocks.ends()
    return [b.start for b in blocks], [b.end for b in blocks]


def block_columns(blocks: Sequence[Block]) -> tuple[Sequence[int], Sequence[int], Sequence[int], int]:
    """(kinds, starts, ends, first) of `blocks`, as `BlockList.columns` gives them (no copy of a
    compact list's columns): block `i` is at index `first + i` of each, its `kind_code` is
    `kinds[first + i] & 15`, its offsets are in characters. Made for a list of blocks."""
    if isinstance(blocks, BlockList):
        return blocks.columns()
    return (kind_codes(blocks), *block_spans(blocks), 0)


CODES_WINDOW = 1 << 16
"""Blocks whose kind codes `iter_sections` reads at a time: a document's codes at once were
1 byte a block beside the blocks (0.5x a file of one-letter pages, at its run's peak)."""


def _body(blocks: Sequence[Block]) -> Sequence[Block]:
    """`blocks` less front matter (metadata, not chunk text): a slice (a view of a compact
    `BlockList`) when it comes first only, as loaders put it, else a list. Reads the kind
    codes CODES_WINDOW blocks at a time."""
    lo, leading = 0, True
    for w in range(0, len(blocks), CODES_WINDOW):
        codes = kind_codes(blocks[w:w + CODES_WINDOW])
        j = 0
        if leading:
            while j < len(codes) and codes[j] == _FRONT_MATTER:
                j += 1
            lo = w + j
            leading = j == len(codes)
        if codes.find(_FRONT_MATTER, j) >= 0:
            return [b for b in blocks if b.kind != BlockKind.FRONT_MATTER]
    return blocks[lo:] if lo else blocks


def sections(blocks: Sequence[Block]) -> list[Section]:
    """Group blocks into sections; consecutive headings open one section (docs/records.md#structure-and-headings).

    Front matter is left out (it is metadata, not chunk text). Each section's blocks are
    a slice of `blocks`, so a compact `BlockList` stays compact.
    """
    return list(iter_sections(blocks))


def iter_sections(blocks: Sequence[Block]) -> Iterator[Section]:
    """`sections` one at a time, each when its last block is known (a strategy that packs
    sections one by one never holds them all: a document of a heading and a word per
    section has as many sections as blocks). Kind codes are read CODES_WINDOW blocks at a
    time, from one heading to the next."""
    blocks = _body(blocks)
    n = len(blocks)
    path: tuple[str, ...] = ()
    level = 0
    first = -1  # first block of the open section (-1: none open)
    prev_heading = False
    for w in range(0, n, CODES_WINDOW):
        codes = kind_codes(blocks[w:w + CODES_WINDOW])
        j = 0
        while j < len(codes):
            h = codes.find(_HEADING, j)
            if h != j:  # blocks j .. h - 1 (to the window's end when h < 0) are no headings
                if first < 0:
                    path, level, first = blocks[w + j].headings, 0, w + j
                prev_heading = False
                if h < 0:
                    break
            i = w + h
            b = blocks[i]
            if first >= 0 and prev_heading:
                path = b.headings
            else:
                if first >= 0:
                    yield Section(path, blocks[first:i], level)
                path, level, first = b.headings, b.level, i
            prev_heading = True
            j = h + 1
    if first >= 0:
        yield Section(path, blocks[first:n], level)


_CODE = kind_code(BlockKind.CODE)
_TABLE = kind_code(BlockKind.TABLE)
_MATH = kind_code(BlockKind.MATH)
_WHOLE = frozenset((_CODE, _TABLE, _MATH))
_MADE = 1024  # blocks a BlockIndex keeps made (windows that follow each other read the same blocks)


class BlockIndex:
    """Position lookups over a document's blocks (for strategies that cut regardless of blocks).

    Kinds and offsets are read from the blocks' columns as they are kept (`BlockList.columns`:
    no copy, so a file of one-letter pages does not pay 1 byte a block for a copy of its kind
    codes, nor 8 for its offsets when front matter is left out); a `Block` is made only where
    its heading path or `meta` is needed, and the last `_MADE` made are kept: a compact
    `BlockList` makes a block afresh at each reading, and `--strategy fixed` read each block
    about ten times (helper-69: 14.9 MB of Markdown, 87,812 blocks, 3.8 -> 5.6 s when they
    turned into columns)."""

    def __init__(self, blocks: Sequence[Block]):
        body = _body(blocks)
        self.blocks: Sequence[Block] = body
        self._kinds, self._starts, self._ends, self._lo = block_columns(body)
        self._hi = self._lo + len(body)  # (indices below are into the columns: lo .. hi - 1)
        self._made: dict[int, Block] = {}

    def _block(self, i: int) -> Block:
        """The block at column index `i`."""
        b = self._made.get(i)
        if b is None:
            if len(self._made) >= _MADE:
                self._made.clear()
            b = self._made[i] = self.blocks[i - self._lo]
        return b

    def _first_ending_after(self, pos: int) -> int:
        """Column index of the first block that ends after character `pos` (`_hi`: none)."""
        return bisect.bisect_right(self._ends, pos, self._lo, self._hi)

    def headings_at(self, pos: int, end: int | None = None) -> tuple[str, ...]:
        """Heading path of a chunk that starts at character `pos` (and ends at `end`).

        The path in force at the first non-heading block that ends after `pos`, looking
        no further than `end` when given: a heading that starts at or after `end` is
        after the chunk and never gives its path. A chunk of heading lines only gets the
        path of its first heading (issue 17, point 4; the contract leaves this open).
        """
        i = self._first_ending_after(pos)
        first = -1
        lo, n, kinds, starts = self._lo, self._hi, self._kinds, self._starts
        while i < n:
            if end is not None and starts[i] >= end:
                break
            if kinds[i] & 15 != _HEADING:
                return self._block(i).headings
            if first < 0:
                first = i
            i += 1
        if first >= 0:
            return self._block(first).headings
        if end is None and n > lo:
            return self._block(n - 1).headings
        return self._block(i - 1).headings if lo < i <= n else ()

    def heading_levels_within(self, start: int, end: int, path: tuple[str, ...]) -> list[int]:
        """Indices in `path` of its headings whose own lines start inside `[start, end)`."""
        n, kinds, starts = self._hi, self._kinds, self._starts
        i = bisect.bisect_left(starts, start, self._lo, n)
        out = []
        while i < n and starts[i] < end:
            if kinds[i] & 15 == _HEADING:
                b = self._block(i)
                if b.headings and tuple(path[:len(b.headings)]) == b.headings:
                    out.append(len(b.headings) - 1)
            i += 1
        return out

    def overlap_floor(self, start: int, end: int, text: str) -> int:
        """The earliest character at which a window following the window `[start, end)` may
        start, so that the text the two share crosses no heading and repeats no line of a
        code block, table or display formula (docs/records.md, "Overlap": overlap never
        crosses a heading boundary nor repeats rows or code lines).

        That is the latest of: the start of a heading that begins inside the window after
        its start; the end of a code block, table or formula (or one nested in a list item
        or quote) that the window holds; and, when the window ends inside one, the start
        of the line it ends in (that line, cut by the window, can then come whole in the
        next one, as far as `--overlap` allows; no whole line is repeated). Returns `start`
        when nothing limits the overlap.
        """
        floor = start
        i = self._first_ending_after(start)
        n, kinds, starts, ends = self._hi, self._kinds, self._starts, self._ends
        while i < n and starts[i] < end:
            code, b_start = kinds[i] & 15, starts[i]
            i += 1
            if code == _HEADING:
                if b_start > start:
                    floor = max(floor, b_start)
                continue
            if code in _WHOLE:
                spans: list[tuple[int, int]] = [(b_start, ends[i - 1])]
            else:
                spans = [tuple(x) for x in self._block(i - 1).meta.get("atomic", ())]
            for s, e in spans:
                if s < end and e > start:
                    floor = max(floor, e if e <= end else max(s, text.rfind("\n", s, end) + 1))
        return floor

    def kind_of(self, start: int, end: int) -> str:
        """`text`, `table`, `code` or `mixed` from the blocks a span touches (headings count as text)."""
        i = self._first_ending_after(start)
        kinds = set()
        n, codes, starts = self._hi, self._kinds, self._starts
        while i < n and starts[i] < end:
            k = codes[i] & 15
            if k == _TABLE:
                kinds.add("table")
            elif k == _CODE:
                kinds.add("code")
            elif k != _HEADING:
                kinds.add("text")
            i += 1
        if not kinds:
            return "text"
        return kinds.pop() if len(kinds) == 1 else "mixed"


def split_sections(secs: list[Section], starts: list[int]) -> list[Section]:
    """Cut heading sections further at the given block starts.

    A start only cuts before a body block that follows another body block, so heading
    lines always open the body under them (docs/records.md#structure-and-headings). The new
    sections keep the heading path in force (their `headings` and breadcrumb).

    Args:
        secs: heading sections in document order.
        starts: character offsets of block starts where a thematic section begins.

    Returns:
        the sections, in document order, covering the same blocks.
    """
    cut = set(starts)
    out: list[Section] = []
    for sec in secs:
        blocks, first, level = sec.blocks, 0, sec.level
        prev: BlockKind | None = None
        for j, b in enumerate(blocks):
            if j > first and b.start in cut and b.kind != BlockKind.HEADING and prev != BlockKind.HEADING:
                out.append(Section(sec.path, blocks[first:j], level))
                first, level = j, 0
            prev = b.kind
        out.append(Section(sec.path, blocks[first:], level))
    return out
