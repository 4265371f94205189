"""Strategy `hierarchical`: parent chunks for the generator, child chunks inside them for retrieval."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from chunkctl.chunking.packer import Packer
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.section import merge_small, pack_merged
from chunkctl.chunking.sections import sections
from chunkctl.model import Block, BlockKind, BlockList, Chunk
from chunkctl.text.segment import Graphemes


def span_index(blocks: Sequence[Block]) -> tuple[Sequence[int], Sequence[int]] | None:
    """(starts, ends) of `blocks` (characters) for `clip_blocks` to find a span's blocks by
    binary search, or None when the blocks are not in document order (both non-decreasing)."""
    if isinstance(blocks, BlockList):
        starts, ends = blocks.starts(), blocks.ends()
    else:
        starts, ends = [b.start for b in blocks], [b.end for b in blocks]
    if all(a <= b for a, b in pairwise(starts)) and all(a <= b for a, b in pairwise(ends)):
        return starts, ends
    return None


def clip_blocks(blocks: Sequence[Block], start: int, end: int, text: str,
                index: tuple[Sequence[int], Sequence[int]] | None = None,
                clusters: Graphemes | None = None) -> list[Block]:
    """The blocks of `[start, end)`, cut to it (a table keeps its header span and the rows inside).

    With `index` (`span_index(blocks)`), only the blocks that overlap the span are read:
    a document of thousands of sections made every parent chunk read every block (a
    parent per section: quadratic, minutes for 200 KB of one-word sections). `clusters`:
    the grapheme boundaries of `text` already found (a new `Graphemes` per parent
    segmented a text of emoji again for each: quadratic).
    """
    out = []
    clusters = clusters or Graphemes(text)  # cut edges stay on grapheme-cluster boundaries
    if index is not None:
        starts, ends = index
        blocks = blocks[bisect.bisect_right(ends, start):bisect.bisect_left(starts, end)]
    for b in blocks:
        if b.end <= start or b.start >= end or b.kind == BlockKind.FRONT_MATTER:
            continue
        if b.start >= start and b.end <= end:
            out.append(b)
            continue
        s, e = max(b.start, start), min(b.end, end)
        s, e = clusters.lstrip_start(s, e), clusters.rstrip_end(s, e)
        if e <= s:
            continue
        if b.kind == BlockKind.TABLE:
            rows = tuple((rs, re_) for rs, re_ in b.rows if rs >= s and re_ <= e)
            out.append(replace(b, start=s, end=e, rows=rows))
        elif b.kind == BlockKind.HEADING:
            out.append(replace(b, start=s, end=e))
        else:
            out.append(replace(b, start=s, end=e, rows=tuple((max(rs, s), min(re_, e)) for rs, re_ in b.rows
                                                            if re_ > s and rs < e)))
    return out


def levels_of(config) -> list[int]:
    """Budgets from the outermost level to the innermost (tokens)."""
    if config.levels:
        return list(config.levels)
    parent = config.parent_chunk_size or 4 * config.chunk_size
    return [parent, config.chunk_size]


@register("hierarchical", "parent/child (small-to-big): children of --chunk-size for retrieval inside parents of "
                          "--parent-chunk-size (default 4x) for the generator; --levels for more levels")
def chunk_hierarchical(doc, tokenizer, config, table) -> Chunked:
    """Parent/child chunking ("small-to-big" retrieval, as in LlamaIndex's HierarchicalNodeParser).

    The outermost level packs whole heading sections, merging adjacent small sections
    under a shared heading up to its budget, without overlap. Each chunk of a level is
    chunked again at the next level's budget by the recursive rules, restricted to its
    span, so every child lies inside its parent (`parent` set, `depth` = level index).
    Overlap applies between consecutive children of the same parent only. Records come
    depth-first: a parent, then its children.
    """
    levels = _Levels(doc, tokenizer, config, table)
    levels.emit(doc.blocks, 0, None)
    return Chunked(levels.out)


class _Levels:
    """The chunks of one document, level by level (`chunk_hierarchical`).

    One packer a level, shared by its parents: a packer's grapheme boundaries and sentence
    splits are found once per text (a packer per parent chunk found them again for each:
    quadratic in a text of emoji, where no boundary is sure at once). A class, not closures
    that call themselves: such a closure is a reference cycle, and it held the document, its
    packers and token table past the chunking until the cyclic collector ran (a file of
    one-letter pages: 1.2x its size more at the run's peak, while its records were written).
    """

    def __init__(self, doc, tokenizer, config, table):
        self.doc, self.tokenizer, self.config, self.table = doc, tokenizer, config, table
        self.budgets = levels_of(config)
        self.out: list[Chunk] = []
        self.packers: dict[int, Packer] = {}
        self.index = span_index(doc.blocks)

    def packer_of(self, level: int) -> Packer:
        """The packer of `level` (0: the outermost)."""
        packers = self.packers
        if level not in packers:
            budget = self.budgets[level]
            overlap = 0 if level < len(self.budgets) - 1 else min(self.config.overlap_tokens, budget - 1)
            packers[level] = Packer(self.doc, self.tokenizer, self.config, self.table, budget=budget, overlap=overlap)
            if level:
                packers[level].graphemes = packers[0].graphemes
        return packers[level]

    def emit(self, blocks: Sequence[Block], level: int, parent: int | None) -> None:
        """Append the chunks of `blocks` at `level`, each followed by its children, to `out`."""
        budgets, out = self.budgets, self.out
        budget = budgets[level]
        packer = self.packer_of(level)
        secs = sections(blocks)
        if level < len(budgets) - 1:
            secs = merge_small(packer, secs, budget, budget)
        for c in pack_merged(packer, secs):
            c.parent = parent
            c.depth = level
            c.meta["parent_chunk_size"] = budgets[0]
            out.append(c)
            if level + 1 < len(budgets):
                me = len(out) - 1
                self.emit(clip_blocks(blocks, c.start, c.end, self.doc.text, self.index if level == 0 else None,
                                      packer.graphemes), level + 1, me)
