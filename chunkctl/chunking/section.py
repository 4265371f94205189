"""Strategy `section`: one chunk per heading section when it fits; optional merging of small sibling sections."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from chunkctl.chunking.packer import Atom, Packer
from chunkctl.chunking.recursive import iter_section_atoms
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import Section, sections
from chunkctl.model import Chunk
from chunkctl.text.segment import Level


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return a[:n]


def merge_small(packer: Packer, secs: list[Section], min_tokens: int, budget: int) -> list[Section]:
    """Merge runs of small adjacent sections that share a parent heading.

    A group keeps growing while its estimated size is below `min_tokens` and the next
    section shares at least the outermost heading with it (so a merge never crosses a
    top-level heading) and the merged text still fits one chunk. The merged section's
    path is the heading path its parts share; their heading lines stay in the body.
    """
    if min_tokens <= 0 or not secs:
        return secs
    sizes = packer.estimate_many([(s.start, s.end) for s in secs]).tolist()
    out: list[Section] = []
    group: list[int] = []
    group_path: tuple[str, ...] = ()
    group_size = 0
    for i, sec in enumerate(secs):
        if group:
            common = _common(group_path, sec.path)
            joinable = (group_size < min_tokens and (common or (not group_path and not sec.path))
                        and group_size + sizes[i] + 8 <= budget - packer.breadcrumb(packer.breadcrumb_parts(common))[1])
            if joinable:
                group.append(i)
                group_path = common
                group_size += sizes[i]
                continue
            out.append(_merged(secs, group, group_path))
        group, group_path, group_size = [i], sec.path, sizes[i]
    if group:
        out.append(_merged(secs, group, group_path))
    return out


def _merged(secs: list[Section], idx: list[int], path: tuple[str, ...]) -> Section:
    if len(idx) == 1:
        return secs[idx[0]]
    blocks = [b for i in idx for b in secs[i].blocks]
    merged = Section(path, blocks, secs[idx[0]].level)
    merged.merged = True  # type: ignore[attr-defined]
    return merged


@register("section", "one chunk per heading section when it fits, a larger section split by the recursive "
                     "rules; --min-chunk-tokens merges small sibling sections")
def chunk_section(doc, tokenizer, config, table) -> Chunked:
    """Heading-section chunking.

    Each section (its heading lines and the blocks up to the next heading) is one
    chunk when it fits the budget; a larger one is split by the recursive rules. With
    `--min-chunk-tokens N`, runs of adjacent sections smaller than N tokens under the
    same parent heading are merged into one chunk, keeping their heading lines in the
    body; the chunk's `headings` is then the path they share. Numbered clauses of legal
    texts ("4.2", "§ 3", "Article IV") are sections (the txt loader makes them headings).
    """
    packer = Packer(doc, tokenizer, config, table)
    secs = merge_small(packer, sections(doc.blocks), config.min_chunk_tokens, packer.budget)
    return Chunked(pack_merged(packer, secs))


def pack_merged(packer: Packer, secs: list[Section]) -> list[Chunk]:
    """Pack sections, some of them merged: inside a merged one, a heading is the strongest cut."""
    out: list[Chunk] = []
    for sec in secs:
        atoms = iter_section_atoms(packer, sec)
        if getattr(sec, "merged", False):
            atoms = _headings_cut(atoms)
        out.extend(packer.pack(atoms, sec.path))
    return out


def _headings_cut(atoms: Iterable[Atom]) -> Iterator[Atom]:
    """A heading after body text is the strongest boundary (as the atoms pass)."""
    seen_body = False
    for a in atoms:
        if a.kind == "heading" and seen_body:
            a.strength = Level.SECTION
        if a.kind != "heading":
            seen_body = True
        yield a
