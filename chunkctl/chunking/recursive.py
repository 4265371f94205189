"""Strategy `recursive`: headings start chunks; inside a section cut at the strongest boundary that fits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from chunkctl.chunking.packer import Atom, Packer
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import Section, iter_sections
from chunkctl.model import BlockKind, Chunk, ChunkList
from chunkctl.text.segment import Level

# Blocks kept whole when they fit (split only when they do not, between rows or lines).
ATOMIC_BLOCKS = (BlockKind.CODE, BlockKind.TABLE, BlockKind.MATH)
LEAD_IN_MARKS = ":："
"""Last characters of a block that introduces the next one (a lead-in: "For example:")."""


def section_atoms(packer: Packer, sec: Section, budget: int | None = None, split_to: Level | None = None,
                  levels=None) -> list[Atom]:
    """Atoms of one section: heading lines glued to what follows, then each block (split when too big).

    Args:
        packer: the document's packer.
        sec: the section.
        budget: token budget (default: the packer's).
        split_to: split every text block down to this level even when it fits (sentence packing).
        levels: split levels for text blocks (default: by block kind).
    """
    return list(iter_section_atoms(packer, sec, budget, split_to, levels))


def iter_section_atoms(packer: Packer, sec: Section, budget: int | None = None, split_to: Level | None = None,
                       levels=None) -> Iterator[Atom]:
    """`section_atoms` one at a time, as `Packer.pack` takes them (a huge block is split as it is packed)."""
    budget = budget if budget is not None else packer.budget
    _, ptoks = packer.breadcrumb(packer.breadcrumb_parts(sec.path))
    body_budget = max(1, budget - ptoks)
    prev_heading = False
    prev_lead_in = False
    text = packer.text
    blocks = sec.blocks
    for lo in range(0, len(blocks), 4096):  # table estimates a batch of blocks at a time
        batch = list(blocks[lo:lo + 4096])  # (made once: a compact BlockList makes a Block per read)
        estimates = packer.estimate_many([(b.start, b.end) for b in batch])
        for b, est in zip(batch, estimates):
            # A block after one that ends with a colon ("Examples:", "- List the contents:") is what
            # that one introduces: the boundary between them is weaker than between blocks (a line's),
            # so the lead-in goes with it when the two fit a chunk (helper-115: at 512 tokens all ten
            # chunks of a PowerShell page that ended in ":" had their block in the next one).
            strength = Level.GLUE if prev_heading else Level.LINE if prev_lead_in else Level.BLOCK
            if b.kind == BlockKind.HEADING:
                yield from packer.iter_heading_atoms(b, strength, budget)
                prev_heading = True
                prev_lead_in = False
                continue
            text_block = b.kind not in ATOMIC_BLOCKS
            if split_to is not None and text_block:
                yield from packer.iter_block_atoms(b, strength, body_budget, levels=levels, split_to=split_to)
            elif text_block:
                yield from packer.iter_block_atoms(b, strength, body_budget, estimate=est)
            else:
                # A table, code block or formula that fits the budget without the breadcrumb
                # stays whole: the breadcrumb yields first (issue 17, item 6).
                yield from packer.iter_block_atoms(b, strength, budget, estimate=est)
            prev_heading = False
            prev_lead_in = b.end > b.start and text[b.end - 1] in LEAD_IN_MARKS


def pack_sections(packer: Packer, secs: Iterable[Section], budget: int | None = None, *, compact: bool = False,
                  **kw) -> list[Chunk] | ChunkList:
    """Pack each section on its own (a heading always starts a new chunk).

    Args:
        compact: collect the chunks in a `ChunkList` (columns for many tiny chunks), for a
            strategy that returns them as they are; else a list (chunks that will change).
    """
    out: list[Chunk] | ChunkList = ChunkList() if compact else []
    plain = not any(v is not None for v in kw.values())  # (atoms cut finer than blocks: no shortcut)
    for sec in secs:
        one = packer.whole_section(sec.blocks, sec.path, budget) if plain else None
        if one is not None:
            out.append(one)
            continue
        out.extend(packer.iter_pack(iter_section_atoms(packer, sec, budget, **kw), sec.path, budget))
    return out


@register("recursive", "headings start chunks; cut at blocks > paragraphs > lines > sentences > clauses > "
                       "words > graphemes, whichever is the strongest boundary that fits (default)")
def chunk_recursive(doc, tokenizer, config, table) -> Chunked:
    """Structure-aware recursive chunking (the default strategy).

    A heading starts a new chunk; inside a section, blocks that fit stay whole and a
    chunk ends at the strongest boundary within its budget (section > block >
    paragraph > line > sentence > clause > word > grapheme cluster). Tables and code
    are atomic; a table too big for a chunk is split between rows with its header
    repeated in `prefix`, code between lines (Python between top-level definitions
    first). Overlap: whole trailing sentences of the previous chunk, up to
    `config.overlap` tokens. Idea: LangChain's RecursiveCharacterTextSplitter and
    text-splitter's semantic levels, counted in real tokens with offsets.
    """
    packer = Packer(doc, tokenizer, config, table)
    return Chunked(pack_sections(packer, iter_sections(doc.blocks), compact=True))
