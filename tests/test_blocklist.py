"""`BlockList` (issue 14, point 7): a document's blocks as columns read back as the blocks appended.

A document of one-word paragraphs held about 240 bytes of `Block` objects per paragraph
(42x the file); from `BlockList.COMPACT_FROM` blocks on they are kept as columns. Every
reader must see the same blocks either way, and every strategy must give the same chunks.
"""

from __future__ import annotations

import pickle
import random
import tracemalloc
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkctl
import chunkctl.chunking.sections as sections_mod
from chunkctl.chunking.sections import BlockIndex, iter_sections, sections, split_sections
from chunkctl.model import Block, BlockKind, BlockList, Spans, compact_spans, kind_code

KINDS = [BlockKind.PARAGRAPH, BlockKind.HEADING, BlockKind.LIST, BlockKind.CODE, BlockKind.TABLE,
         BlockKind.QUOTE, BlockKind.RULE]


@st.composite
def block_runs(draw, front_matter: bool = True) -> list[Block]:
    """Blocks in order: plain ones, headings with paths, and some with extras (kept whole)."""
    n = draw(st.integers(0, 40))
    out: list[Block] = []
    pos = 0
    path: tuple[str, ...] = ()
    if front_matter and draw(st.booleans()):
        out.append(Block(BlockKind.FRONT_MATTER, 0, 5))
        pos = 7
    for _ in range(n):
        kind = draw(st.sampled_from(KINDS))
        length = draw(st.integers(1, 30))
        s, e = pos, pos + length
        pos = e + draw(st.integers(1, 3))
        if kind == BlockKind.HEADING:
            level = draw(st.integers(1, 4))
            path = (*path[:level - 1], draw(st.sampled_from(["A", "B", "Warranty", "Returns"])))
            out.append(Block(kind, s, e, level=level, headings=path))
        elif kind == BlockKind.TABLE:
            # the metas a table may carry: header cells (kept in columns, with a pipe table's
            # `delimiter_row` False), or more (kept whole); a header span or none
            meta = draw(st.sampled_from([{"header_cells": ["a"]}, {"header_cells": []},
                                         {"header_cells": ["", "b\nc", "\u00e9t\u00e9"], "delimiter_row": False},
                                         {"header_cells": ["a"], "delimiter_row": True},
                                         {"header_cells": ["a"], "columns": 1}, {"header_cells": ("a",)}, {}]))
            header = draw(st.sampled_from([(s, s + 1), None]))
            out.append(Block(kind, s, e, headings=path, header=header, rows=((s + 1, e),) if header else (),
                             meta=meta))
        elif kind == BlockKind.CODE and draw(st.booleans()):
            out.append(Block(kind, s, e, headings=path, language=draw(st.sampled_from(["python", "c", "rust"]))))
        elif kind == BlockKind.LIST and draw(st.booleans()):
            out.append(Block(kind, s, e, headings=path, meta={"atomic": [(s, s + 1)]}))
        elif kind in (BlockKind.LIST, BlockKind.QUOTE) and draw(st.booleans()):
            # item spans only (kept flat), a few or more than FEW_SPANS (a `Spans`, kept whole)
            items = draw(st.sampled_from([1, 2, 5, 70]))
            rows = compact_spans((s + k * length // items, s + (k + 1) * length // items) for k in range(items))
            out.append(Block(kind, s, e, headings=path, rows=rows))
        else:
            # the path in force, an equal copy (a loader that makes a tuple a block), or another
            # one (a path id made for a block that is no heading: a prefix, a longer path)
            own = draw(st.sampled_from([path, tuple(list(path)), path[:-1], (*path, "Warranty"), ("B",)]))
            out.append(Block(kind, s, e, headings=own))
    return out


@pytest.fixture
def compact_early(monkeypatch):
    monkeypatch.setattr(BlockList, "COMPACT_FROM", 3)


def _section_view(secs) -> list[tuple]:
    return [(s.path, list(s.blocks), s.level, s.merged) for s in secs]


@settings(max_examples=150, deadline=None)
@given(blocks=block_runs(), data=st.data())
def test_a_compact_list_reads_back_the_blocks_appended(blocks, data):
    BlockList.COMPACT_FROM = 3
    try:
        bl = BlockList(blocks)
        assert bl.compact == (len(blocks) >= 3)
        assert len(bl) == len(blocks)
        assert list(bl) == blocks
        assert [x.meta for x in bl] == [x.meta for x in blocks]  # (a block's `==` leaves meta out)
        assert [type(x.meta.get("header_cells")) for x in bl] == [type(x.meta.get("header_cells")) for x in blocks]
        assert bl == blocks and blocks == bl
        for i in range(-len(blocks), len(blocks)):
            assert bl[i] == blocks[i]
        a = data.draw(st.integers(-50, 50))
        b = data.draw(st.integers(-50, 50))
        view = bl[a:b]
        assert list(view) == blocks[a:b]
        assert isinstance(view, BlockList) == bl.compact  # a view of columns, else a list slice
        for got in (bl, view) if bl.compact else (bl,):
            want = blocks[a:b] if got is view else blocks
            assert list(got.starts()) == [x.start for x in want]
            assert list(got.ends()) == [x.end for x in want]
            assert list(got.kinds()) == [x.kind for x in want]
            assert got.kind_codes() == bytes(kind_code(x.kind) for x in want)
        c = data.draw(st.integers(-20, 20))
        assert list(view[c:]) == blocks[a:b][c:]
        assert list(bl[::2]) == blocks[::2]
        assert list(pickle.loads(pickle.dumps(bl))) == blocks
        with pytest.raises(IndexError):
            bl[len(blocks)]
    finally:
        BlockList.COMPACT_FROM = 4096


def test_plain_blocks_share_columns_and_rich_ones_are_kept_whole(compact_early):
    path = ("Warranty", "Returns")
    table = Block(BlockKind.TABLE, 30, 40, headings=path, header=(30, 33), rows=((34, 40),), meta={"x": 1})
    blocks = [Block(BlockKind.HEADING, 0, 10, level=2, headings=path),
              Block(BlockKind.PARAGRAPH, 12, 20, headings=path), table,
              Block(BlockKind.PARAGRAPH, 42, 50, headings=path)]
    bl = BlockList(blocks)
    assert bl.compact
    assert bl[2] is table  # kept whole: its rows, header and meta
    assert bl[1] == Block(BlockKind.PARAGRAPH, 12, 20, headings=path)
    assert bl[0].level == 2 and bl[3].headings == path
    assert list(bl._title) == ["", "Warranty", "Returns"]  # one path stored once, as a tree of titles
    view = bl[1:3]
    with pytest.raises(TypeError):
        view.append(blocks[0])  # type: ignore[attr-defined]


def test_offsets_past_four_giga_characters_widen_the_columns(compact_early):
    big = 1 << 33
    blocks = [Block(BlockKind.PARAGRAPH, i * 10, i * 10 + 5) for i in range(4)]
    blocks.append(Block(BlockKind.PARAGRAPH, big, big + 7))
    bl = BlockList(blocks)
    assert list(bl) == blocks
    assert bl.ends()[-1] == big + 7


@settings(max_examples=150, deadline=None)
@given(blocks=block_runs(), cuts=st.lists(st.integers(0, 400), max_size=6))
def test_sections_of_a_compact_list_are_those_of_the_list(blocks, cuts):
    BlockList.COMPACT_FROM = 3
    try:
        bl = BlockList(blocks)
        assert _section_view(sections(bl)) == _section_view(sections(blocks))
        starts = [b.start for b in blocks if b.start in cuts] + cuts
        assert (_section_view(split_sections(sections(bl), starts))
                == _section_view(split_sections(sections(blocks), starts)))
        a, b = BlockIndex(bl), BlockIndex(blocks)
        assert list(a.blocks) == list(b.blocks)
        text = "x\n" * ((blocks[-1].end + 40) if blocks else 40)
        for pos in range(0, (blocks[-1].end + 2) if blocks else 2, 7):
            assert a.headings_at(pos) == b.headings_at(pos)
            assert a.headings_at(pos, pos + 20) == b.headings_at(pos, pos + 20)
            assert a.kind_of(pos, pos + 25) == b.kind_of(pos, pos + 25)
            assert a.overlap_floor(pos, pos + 25, text) == b.overlap_floor(pos, pos + 25, text)
            path = a.headings_at(pos)
            assert a.heading_levels_within(pos, pos + 30, path) == b.heading_levels_within(pos, pos + 30, path)
    finally:
        BlockList.COMPACT_FROM = 4096


def _reference_sections(blocks):
    """Sections as the loop over every block's kind found them (0.1.23), for comparison."""
    body = [b for b in blocks if b.kind != BlockKind.FRONT_MATTER]
    out, path, level, first, prev_heading = [], (), 0, -1, False
    for i, b in enumerate(body):
        if b.kind == BlockKind.HEADING:
            if first >= 0 and prev_heading:
                path = b.headings
            else:
                if first >= 0:
                    out.append((path, body[first:i], level, False))
                path, level, first = b.headings, b.level, i
            prev_heading = True
            continue
        if first < 0:
            path, level, first = b.headings, 0, i
        prev_heading = False
    if first >= 0:
        out.append((path, body[first:], level, False))
    return out


@settings(max_examples=300, deadline=None)
@given(blocks=block_runs(), window=st.integers(1, 9), more_matter=st.lists(st.integers(0, 40), max_size=3))
def test_sections_read_in_windows_of_kinds_are_those_of_every_block(blocks, window, more_matter):
    # kind codes are read CODES_WINDOW blocks at a time (a document's at once: 1 byte a block
    # at the peak of a file of one-letter pages); front matter anywhere, headings at any window edge
    for at in sorted(more_matter, reverse=True):
        blocks.insert(min(at, len(blocks)), Block(BlockKind.FRONT_MATTER, 0, 1))
    saved, BlockList.COMPACT_FROM = BlockList.COMPACT_FROM, 3
    saved_window, sections_mod.CODES_WINDOW = sections_mod.CODES_WINDOW, window
    try:
        want = _reference_sections(blocks)
        assert _section_view(sections(blocks)) == want
        assert _section_view(sections(BlockList(blocks))) == want
    finally:
        BlockList.COMPACT_FROM, sections_mod.CODES_WINDOW = saved, saved_window


def test_front_matter_anywhere_is_left_out_of_sections():
    blocks = [Block(BlockKind.PARAGRAPH, 0, 5), Block(BlockKind.FRONT_MATTER, 6, 9),
              Block(BlockKind.PARAGRAPH, 10, 12)]
    secs = sections(BlockList(blocks))
    assert _section_view(secs) == [((), [blocks[0], blocks[2]], 0, False)]


def test_sections_of_many_short_blocks_trace_a_byte_a_block():
    """Finding the sections reads the kinds as a byte a block: a list of kinds took 8 bytes
    a block, a third of a run's peak on a text of one-word paragraphs (issue 14, point 7)."""
    import tracemalloc

    n = 200_000
    blocks = BlockList(Block(BlockKind.HEADING if i % 50 == 0 else BlockKind.PARAGRAPH, 7 * i, 7 * i + 5,
                             level=1 if i % 50 == 0 else 0, headings=("Part",)) for i in range(n))
    assert blocks.compact
    tracemalloc.start()
    try:
        count = sum(1 for _ in iter_sections(blocks))
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == n // 50
    assert peak < 3 * n, f"{peak / n:.1f} bytes a block"


def test_a_block_index_reads_the_columns_without_copying_them():
    """`BlockIndex` (`fixed`, summaries) reads kinds and offsets from the blocks' own
    columns: it held a copy of every kind code (1 byte a block, `fixed` at 8.3x a file of
    one-letter pages), and of the offsets too (8 bytes a block) when front matter first
    made its blocks a view (issue 14, point 7)."""
    import tracemalloc

    n = 300_000
    blocks = BlockList([Block(BlockKind.FRONT_MATTER, 0, 5)])
    blocks.extend(Block(BlockKind.HEADING if i % 1000 == 0 else BlockKind.PARAGRAPH, 10 + 2 * i, 11 + 2 * i,
                        level=1 if i % 1000 == 0 else 0, headings=(f"h{i // 1000}",)) for i in range(n))
    assert blocks.compact
    tracemalloc.start()
    try:
        index = BlockIndex(blocks)
        found = index.headings_at(10 + 2 * 1500), index.kind_of(10, 10 + 2 * n)
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found == (("h1",), "text")
    assert index.headings_at(12, 13) == ("h0",) and index.heading_levels_within(10, 2000, ("h0",)) == [0]
    assert peak < 4 * sections_mod.CODES_WINDOW, f"{peak / n:.2f} bytes a block"  # (`_body` reads kinds in windows)


def test_heading_titles_are_kept_packed_in_strings():
    """A heading's title is kept as text in strings of 4,096 titles, not as a string object
    each (some 57 bytes beside the text): a Markdown file of one-word sections held 39 MB of
    titles at 10 MB (issue 14, point 7)."""
    import tracemalloc

    n = 100_000
    path = ("Guide",)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        blocks = BlockList()
        for i in range(n):
            blocks.append(Block(BlockKind.HEADING, 20 * i, 20 * i + 9, level=2, headings=(*path, f"part {i}")))
            blocks.append(Block(BlockKind.PARAGRAPH, 20 * i + 10, 20 * i + 19, headings=(*path, f"part {i}")))
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert blocks.compact and blocks[2 * n - 1].headings == ("Guide", f"part {n - 1}")
    assert blocks[1001].headings == ("Guide", "part 500") and list(blocks._title)[:3] == ["", "Guide", "part 0"]
    assert held < 64 * n, f"{held / n:.0f} bytes a section"  # (2 blocks 28, a title 12 + its text: 55; was 102)


def _word_paragraphs(n: int, seed: int = 14) -> str:
    rng = random.Random(seed)
    words = "warranty returns enterprise backup restore policy chunk token".split()
    return "\n\n".join(rng.choice(words) for _ in range(n)) + "\n"


def _records(text: str, fmt: str, strategy: str) -> list[dict]:
    return chunkctl.chunk_text(text, format=fmt, strategy=strategy, chunk_size=64, overlap=16)


@pytest.mark.parametrize("strategy", ["recursive", "section", "sentence", "fixed", "hierarchical", "auto"])
@pytest.mark.parametrize("fmt", ["txt", "md"])
def test_every_strategy_gives_the_same_chunks_from_compact_blocks(strategy, fmt, monkeypatch):
    heads = {"txt": "== Part {} ==", "md": "## Part {}"}[fmt]
    text = "\n\n".join(heads.format(i) + "\n\n" + _word_paragraphs(60, i) for i in range(8))
    if fmt == "md":
        text += "\n- a list\n- of words\n\n```python\ndef f():\n    return 1\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |\n"
    monkeypatch.setattr(BlockList, "COMPACT_FROM", 1 << 30)
    expected = _records(text, fmt, strategy)
    monkeypatch.setattr(BlockList, "COMPACT_FROM", 2)
    assert _records(text, fmt, strategy) == expected


def test_long_blocks_stay_a_list(compact_early):
    """Columns only pay where blocks are short: paragraphs of 200 characters stay Block objects."""
    long = BlockList(Block(BlockKind.PARAGRAPH, i * 202, i * 202 + 200) for i in range(12))
    short = BlockList(Block(BlockKind.PARAGRAPH, i * 12, i * 12 + 10) for i in range(12))
    assert not long.compact and short.compact
    assert list(long) == [Block(BlockKind.PARAGRAPH, i * 202, i * 202 + 200) for i in range(12)]


def test_many_long_blocks_turn_into_columns():
    """Past `MANY` blocks the list turns into columns however long they are: an 8,000-page PDF
    book's 282,000 paragraphs of 166 characters held 67 MB of `Block` objects (3.4x its file)."""
    n = 65_536  # BlockList.MANY
    blocks = BlockList()
    for i in range(n - 1):
        blocks.append(Block(BlockKind.PARAGRAPH, i * 202, i * 202 + 200, headings=("Book", f"part {i // 1000}")))
    assert not blocks.compact
    blocks.append(Block(BlockKind.PARAGRAPH, (n - 1) * 202, (n - 1) * 202 + 200, headings=("Book", "end")))
    assert blocks.compact and len(blocks) == n
    assert blocks[1234] == Block(BlockKind.PARAGRAPH, 1234 * 202, 1234 * 202 + 200, headings=("Book", "part 1"))
    assert blocks[n - 1].headings == ("Book", "end")


def _traced_build(pairs: Iterable[tuple[Block, Block]]) -> tuple[BlockList, int]:
    """A `BlockList` of the blocks of `pairs`, and the bytes tracemalloc saw it hold."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        blocks = BlockList()
        for a, b in pairs:
            blocks.append(a)
            blocks.append(b)
        return blocks, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_short_lists_keep_their_item_spans_in_one_flat_column():
    """A document of short lists between paragraphs (Markdown of a paragraph and a two-item list,
    repeated: 18x its size at 5 MB) kept each list as a `Block` object with a tuple of item
    pairs, some 400 bytes; their spans now go into one array."""
    n = 50_000
    blocks, held = _traced_build((Block(BlockKind.PARAGRAPH, s, s + 20),
                                  Block(BlockKind.LIST, s + 22, s + 38, rows=((s + 22, s + 29), (s + 31, s + 38))))
                                 for s in range(0, 40 * n, 40))
    assert blocks.compact and not blocks._rich
    assert blocks[1] == Block(BlockKind.LIST, 22, 38, rows=((22, 29), (31, 38)))
    assert blocks[2 * n - 1].rows == ((40 * n - 18, 40 * n - 11), (40 * n - 9, 40 * n - 2))
    assert held < 64 * n, f"{held / n:.0f} bytes a paragraph and a list"  # (14 + 14 + 16 + 8: 56; was some 440)


def test_tables_and_code_blocks_keep_their_extras_in_columns():
    """helper-105: a Markdown file of tiny tables (`|a|` `|-|` `|b|`, one every 14 characters)
    took 70x its size: each table was a `Block` kept whole with its header span, rows and a meta
    dict of header cells (some 450 bytes). Those, and code blocks' languages, now go into columns."""
    n = 50_000
    blocks, held = _traced_build((Block(BlockKind.TABLE, s, s + 11, header=(s, s + 7), rows=((s + 8, s + 11),),
                                        meta={"header_cells": ["a"]}),
                                  Block(BlockKind.CODE, s + 12, s + 13, language="python" if s % 28 else "c"))
                                 for s in range(0, 14 * n, 14))
    assert blocks.compact and not blocks._rich
    got = blocks[2 * n - 2]
    s = 14 * (n - 1)
    assert got == Block(BlockKind.TABLE, s, s + 11, header=(s, s + 7), rows=((s + 8, s + 11),))
    assert got.meta == {"header_cells": ["a"]}
    assert [b.language for b in blocks[1:5:2]] == ["c", "python"]
    assert held < 100 * n, f"{held / n:.0f} bytes a table and a code block"  # (about 85; some 700 as objects)


def test_fixed_windows_make_each_compact_block_about_once(monkeypatch):
    """`BlockIndex` reads kinds and offsets from the columns and makes a block only for its
    heading path or meta, keeping the last ones made: `--strategy fixed` made each block of a
    compact list about ten times (helper-69: 3.8 -> 5.6 s on 87,812 blocks)."""
    text = "\n\n".join(f"## Part {i}\n\n" + "\n\n".join(
        f"Paragraph {i}.{k} tells of the river board and its annual report, the water level, "
        "the dikes, the boats and the men who keep them in order through the long winter months."
        for k in range(8)) for i in range(40))
    monkeypatch.setattr(BlockList, "COMPACT_FROM", 2)
    monkeypatch.setattr(BlockList, "MANY", 2)
    made = []
    real = BlockList._make
    monkeypatch.setattr(BlockList, "_make", lambda self, i: made.append(i) or real(self, i))
    records = chunkctl.chunk_text(text, format="md", strategy="fixed", chunk_size=64, overlap=16)
    assert len(records) > 100
    n_blocks = 40 * 9
    # (once to pack them, once for the windows' lookups: 7,212 before)
    assert len(made) <= 2 * n_blocks, f"{len(made)} blocks made for {n_blocks}"
    monkeypatch.setattr(BlockList, "MANY", 1 << 30)
    monkeypatch.setattr(BlockList, "COMPACT_FROM", 1 << 30)
    assert chunkctl.chunk_text(text, format="md", strategy="fixed", chunk_size=64, overlap=16) == records


@pytest.mark.parametrize("changes, typecode", [(1, "B"), (255, "B"), (300, "H"), (70_000, "I")])
def test_path_ids_are_as_narrow_as_the_paths_allow(changes, typecode):
    # a file of `# h` lines: a block every 4 bytes, whose path id took 4 bytes (0.1.23)
    n = 140_000
    blocks = [Block(BlockKind.HEADING if i % 2 else BlockKind.PARAGRAPH, 4 * i, 4 * i + 3, level=1 if i % 2 else 0,
                    headings=(f"h{i * changes // n}",)) for i in range(n)]
    bl = BlockList(blocks)
    assert bl.compact and bl._path.typecode == typecode
    assert [(b.kind, b.start, b.end, b.level, b.headings) for b in bl] == \
        [(b.kind, b.start, b.end, b.level, b.headings) for b in blocks]
    assert pickle.loads(pickle.dumps(bl))[n - 1].headings == blocks[-1].headings


def test_kind_and_level_share_a_byte(compact_early):
    # a file of one-letter paragraphs or `# h` lines: the level took a byte of its own (0.1.23:
    # 11 bytes of columns a block, 10 now)
    levels = [0, 1, 6, 15, 16, 255, -1]
    kinds = list(BlockKind)
    blocks = [Block(kinds[i % len(kinds)], 3 * i, 3 * i + 2, level=lv) for i, lv in enumerate(levels * 3)]
    bl = BlockList(blocks)
    assert bl.compact
    assert list(bl) == blocks
    assert bl.kind_codes() == bytes(kind_code(b.kind) for b in blocks)
    assert bl[1:5].kind_codes() == bytes(kind_code(b.kind) for b in blocks[1:5])
    assert sorted(bl._rich) == [i for i, b in enumerate(blocks) if not 0 <= b.level < 16]  # kept whole
    assert list(pickle.loads(pickle.dumps(bl))) == blocks
    columns = (bl._kind, bl._start, bl._end)
    assert sum(c.itemsize for c in columns) == 9
    assert all(len(c) == len(blocks) for c in columns)
    assert not bl._path  # no heading path: no path column


@pytest.mark.parametrize("first", [0, 1, 4095, 4096, 5000])
def test_the_path_column_starts_at_the_first_heading_path(compact_early, first):
    # a file of one-letter pages without headings paid a path byte a block (0.1.23); the column
    # is made, zeros for the blocks before, when the first block with a heading path comes
    n = 6000
    blocks = [Block(BlockKind.PARAGRAPH, 2 * i, 2 * i + 1, headings=("Intro", f"s{i // 700}") if i >= first else ())
              for i in range(n)]
    bl = BlockList(blocks)
    assert bl.compact
    assert list(bl) == blocks
    assert len(bl._path) == n
    assert list(bl[first - 1 if first else 0:first + 3]) == blocks[first - 1 if first else 0:first + 3]
    assert list(pickle.loads(pickle.dumps(bl))) == blocks
    plain = [Block(BlockKind.PARAGRAPH, 2 * i, 2 * i + 1) for i in range(first + 10)]
    without = BlockList(plain)
    assert without.compact and not without._path and list(without) == plain


def test_sections_of_a_document_without_headings_trace_a_fraction_of_a_byte_a_block():
    # one-letter pages: the kind codes of every block at once were 1 byte a block (0.5x the file)
    import tracemalloc

    n = 8 * sections_mod.CODES_WINDOW
    blocks = BlockList(Block(BlockKind.PARAGRAPH, 2 * i, 2 * i + 1) for i in range(n))
    assert blocks.compact
    tracemalloc.start()
    try:
        secs = list(iter_sections(blocks))
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [(s.path, len(s.blocks)) for s in secs] == [((), n)]
    assert peak < 4 * sections_mod.CODES_WINDOW, f"{peak / n:.2f} bytes a block"  # (a few windows of codes)


def test_spans_shift_in_place_and_widen_past_four_billion():
    """`Spans.shift` moves a block's item spans into the document's offsets without a second
    array beside them (the HTML loader's list of 4 M items held its 32 MB of spans twice)."""
    spans = Spans((2 * i, 2 * i + 1) for i in range(70_000))  # (over one slice of 65,536 numbers)
    flat = spans._flat
    assert spans.shift(10) is spans and spans._flat is flat
    assert spans[0] == (10, 11) and spans[69_999] == (140_008, 140_009) and len(spans) == 70_000
    assert spans.shift(-10) == Spans((2 * i, 2 * i + 1) for i in range(70_000))
    assert list(Spans([(0, 5)]).shift(1 << 32)) == [(1 << 32, (1 << 32) + 5)]
    assert Spans().shift(7) == () and Spans([(3, 4)]).shift(0) == ((3, 4),)
    with pytest.raises(ValueError):
        Spans([(3, 4)]).shift(-4)
