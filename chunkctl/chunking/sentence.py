"""Strategy `sentence`: pack whole sentences up to the budget within heading sections."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from chunkctl.chunking.packer import SENTENCE_LEVELS, Atom, Packer
from chunkctl.chunking.recursive import iter_section_atoms
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import iter_sections
from chunkctl.model import ChunkList
from chunkctl.text.segment import Level


@register("sentence", "sentence packing: whole sentences (blingfire, or pySBD) up to the budget; a sentence "
                      "longer than the budget is split by clauses, words, graphemes")
def chunk_sentence(doc, tokenizer, config, table) -> Chunked:
    """Sentence packing within heading sections.

    Every text block is segmented into sentences (blingfire by default, pySBD with
    `--sentence-splitter pysbd`, plus the fix-ups of `SentenceSplitter`); sentences are
    packed greedily up to the budget, all sentence boundaries equal (paragraph breaks
    do not weigh more). Tables and code stay atomic. A sentence longer than the budget
    is split by clauses, then words, then grapheme clusters. Overlap: whole trailing
    sentences up to `--overlap` tokens.
    """
    packer = Packer(doc, tokenizer, config, table)
    out = ChunkList()
    for sec in iter_sections(doc.blocks):
        atoms = iter_section_atoms(packer, sec, split_to=Level.SENTENCE, levels=SENTENCE_LEVELS)
        out.extend(packer.iter_pack(_flatten(atoms), sec.path))
    return Chunked(out)


def _flatten(atoms: Iterable[Atom]) -> Iterator[Atom]:
    """Make every boundary between two text atoms a plain sentence boundary (as the atoms pass)."""
    prev = None
    for a in atoms:
        if prev is not None and a.kind == "text" and prev.kind == "text" and a.strength > Level.SENTENCE:
            a.strength = Level.SENTENCE
        prev = a
        yield a
