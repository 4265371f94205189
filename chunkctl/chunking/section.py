"""Strategy `section`: heading sections; with --min-chunk-tokens, small sibling sections merged."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from chunkctl.chunking.packer import Atom, Packer
from chunkctl.chunking.recursive import iter_section_atoms
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import Section, sections
from chunkctl.model import Block, BlockKind, Chunk, ChunkList
from chunkctl.text.segment import Level


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return a[:n]


def merge_small(packer: Packer, secs: list[Section], min_tokens: int, budget: int) -> list[Section]:
    """Merge runs of small adjacent sections that share a parent heading (`hierarchical` parents).

    `section` uses `merge_siblings`, which also stops at shallower headings.

    A group keeps growing while its estimated size is below `min_tokens` and the next
    section shares at least the outermost heading with it (so a merge never crosses a
    top-level heading), opens at the level of the group's first section or deeper (so a
    group of `###` sections does not take the next `##` one: since 0.1.34; helper-115, a
    parent holding two `###` sections of "Replacement operator" and "## Containment
    operators" had only the document's title for breadcrumb) and the merged text still
    fits one chunk. The merged section's path is the heading path its parts share; their
    heading lines stay in the body.
    """
    if min_tokens <= 0 or not secs:
        return secs
    sizes = packer.estimate_many([(s.start, s.end) for s in secs])
    out: list[Section] = []
    group: list[int] = []
    group_path: tuple[str, ...] = ()
    group_size = 0
    group_level = 0
    for i, sec in enumerate(secs):
        if group:
            common = _common(group_path, sec.path)
            level = _opening_level(sec)
            joinable = (group_size < min_tokens and (common or (not group_path and not sec.path))
                        and (level == 0 or level >= group_level)
                        and group_size + sizes[i] + 8 <= budget - packer.breadcrumb(packer.breadcrumb_parts(common))[1])
            if joinable:
                group.append(i)
                group_path = common
                group_size += sizes[i]
                continue
            out.append(_merged(secs, group, group_path))
        group, group_path, group_size, group_level = [i], sec.path, sizes[i], _opening_level(sec)
    if group:
        out.append(_merged(secs, group, group_path))
    return out


def _merged(secs: list[Section], idx: list[int], path: tuple[str, ...]) -> Section:
    if len(idx) == 1:
        return secs[idx[0]]
    blocks = [b for i in idx for b in secs[i].blocks]
    return Section(path, blocks, secs[idx[0]].level, merged=True)


def _opening_level(sec: Section) -> int:
    """The shallowest level among the heading lines that open a section (0: no heading)."""
    levels = [b.level for b in _opening_headings(sec)]
    return min(levels) if levels else 0


def _opening_headings(sec: Section) -> list[Block]:
    out = []
    for b in sec.blocks:
        if b.kind != BlockKind.HEADING:
            break
        out.append(b)
    return out


def merge_siblings(packer: Packer, secs: list[Section], limit: int) -> list[Section]:
    """Merge runs of adjacent small sections under one parent heading, up to the budget.

    A run is opened by a section with heading level L; a following section joins it
    while all of these hold:

    - its heading level is >= L and deeper than the document's top level (the
      shallowest heading level used): a merge never crosses a shallower heading, so
      a top-level heading always starts a new chunk and a run opened under `## A`
      stops at the next `#`, a run opened at `### A.1` at the next `##`;
    - it shares at least the outermost heading with the run (text before the first
      heading never merges);
    - the run so far has fewer than `limit` tokens (table estimate);
    - the merged text, with the breadcrumb of the shared path, fits the budget
      (exact count), so a merged section is always one chunk.

    The merged section's `path` is the heading path its parts share; their heading
    lines stay in the body (docs/records.md, "Structure and headings"). Sections that do not fit the budget
    stay alone and are split by the recursive rules when packed.

    Args:
        packer: the document's packer (its budget in tokens).
        secs: heading sections in document order.
        limit: tokens; a run stops growing once it has this many (the chunk size: up to the budget).

    Returns:
        sections in document order covering the same blocks; merged ones have `merged` set.
    """
    if not secs:
        return secs
    levels = [_opening_level(s) for s in secs]
    top = min((lv for lv in levels if lv > 0), default=0)
    sizes = packer.estimate_many([(s.start, s.end) for s in secs])
    budget = packer.budget
    skip = [len(b.headings) - 1 for b in _opening_headings(secs[0])]
    out: list[Section] = []
    group = [0]
    group_path, group_level, group_size = secs[0].path, levels[0], sizes[0]
    for i in range(1, len(secs)):
        sec = secs[i]
        common = _common(group_path, sec.path)
        joinable = (levels[i] > top and group_level > 0 and levels[i] >= group_level and bool(common)
                    and group_size < limit and group_size + sizes[i] <= budget + 8)
        if joinable:
            prefix, _ = packer.breadcrumb(packer.breadcrumb_parts(common, skip))
            joinable = packer.count(secs[group[0]].start, sec.end, prefix) <= budget
        if joinable:
            group.append(i)
            group_path, group_size = common, group_size + sizes[i]
            continue
        out.append(_merged(secs, group, group_path))
        group, group_path, group_level, group_size = [i], sec.path, levels[i], sizes[i]
        skip = [len(b.headings) - 1 for b in _opening_headings(sec)]
    out.append(_merged(secs, group, group_path))
    return out


@register("section", "one chunk per heading section when it fits (as recursive), a larger one split by the "
                     "recursive rules; --min-chunk-tokens N merges small sibling sections up to N tokens")
def chunk_section(doc, tokenizer, config, table) -> Chunked:
    """Heading-section chunking.

    Without `--min-chunk-tokens` this is `recursive` under another name, and gives the
    same records: every heading starts a chunk, a section that fits is one chunk, a
    larger one is split by the recursive rules (the shared bug-report cases BR-07, BR-21, BR-22,
    BR-25 and BR-38 require that a heading closes the previous chunk by default). With
    `--min-chunk-tokens N` (N up to the chunk size), runs of adjacent sections under one
    parent heading are merged while the run has fewer than N tokens and the merged text
    fits the budget (`merge_siblings`: never across a shallower or a top-level heading;
    the chunk's `headings` is the path its parts share; their heading lines stay in the
    body). Numbered clauses of legal texts ("4.2", "§ 3", "Article IV") are sections
    (the txt loader makes them headings). Idea of merging undersized neighbours that
    share headings: Docling's hybrid chunker; here the merge stops at heading levels.
    """
    packer = Packer(doc, tokenizer, config, table)
    secs = sections(doc.blocks)
    if config.min_chunk_tokens:
        secs = merge_siblings(packer, secs, config.min_chunk_tokens)
    return Chunked(pack_merged(packer, secs, compact=True))


def pack_merged(packer: Packer, secs: list[Section], compact: bool = False) -> list[Chunk] | ChunkList:
    """Pack sections, some of them merged: inside a merged one, a heading is the strongest cut.

    Args:
        compact: collect the chunks in a `ChunkList` (see `pack_sections`); else a list.
    """
    out: list[Chunk] | ChunkList = ChunkList() if compact else []
    for sec in secs:
        one = None if sec.merged else packer.whole_section(sec.blocks, sec.path)
        if one is not None:
            out.append(one)
            continue
        atoms = iter_section_atoms(packer, sec)
        if sec.merged:
            atoms = _headings_cut(atoms)
        out.extend(packer.iter_pack(atoms, sec.path))
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
