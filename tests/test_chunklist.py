"""`ChunkList` (issue 14, point 7): a document's chunks as columns read back as the chunks appended.

A document of one-word sections held about 300 bytes of `Chunk` objects per chunk (20x
the file and more); from `ChunkList.COMPACT_FROM` chunks on they are kept as columns.
Every reader must see the same chunks either way, and every strategy (and the model
stage, which changes chunks after packing) must give the same records.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkctl
from chunkctl.model import BlockList, Chunk, ChunkList


@st.composite
def chunk_runs(draw) -> list[Chunk]:
    """Chunks in order: plain ones (shared kinds, prefixes, paths) and some with extras (kept whole)."""
    n = draw(st.integers(0, 40))
    out: list[Chunk] = []
    pos = 0
    for i in range(n):
        length = draw(st.integers(0, 30))
        s, e = pos, pos + length
        pos = e + draw(st.integers(0, 3))
        extra = draw(st.sampled_from(["", "", "", "meta", "text", "depth", "huge"]))
        c = Chunk(s, e, prefix=draw(st.sampled_from(["", "A\n\n", "A > B\n\n", "text"])),
                  headings=draw(st.sampled_from([(), ("A",), ("A", "B"), ("text",)])),
                  kind=draw(st.sampled_from(["text", "table", "code", "mixed"])),
                  n_tokens=draw(st.integers(0, 600) | st.sampled_from([255, 256, 65535, 65536, 1 << 31])),
                  budget=draw(st.sampled_from([0, 64, 512, 65536])),
                  oversize=draw(st.booleans()),
                  parent=draw(st.none() | st.integers(0, i - 1)) if i else None,
                  depth=draw(st.integers(0, 3)))
        if extra == "meta":
            c.meta["content_type"] = "code"
        elif extra == "text":
            c.text, c.kind = "a summary", "summary"
        elif extra == "depth":
            c.depth = 300
        elif extra == "huge":
            c.n_tokens = 1 << 33
        out.append(c)
    return out


@pytest.fixture
def compact_early(monkeypatch):
    monkeypatch.setattr(ChunkList, "COMPACT_FROM", 3)


@settings(max_examples=200, deadline=None)
@given(chunks=chunk_runs(), data=st.data())
def test_a_compact_list_reads_back_the_chunks_appended(chunks, data):
    ChunkList.COMPACT_FROM = 3
    try:
        cl = ChunkList(chunks)
        assert cl.compact == (len(chunks) >= 3)
        assert len(cl) == len(chunks)
        assert list(cl) == chunks and cl == chunks
        for i in range(-len(chunks), len(chunks)):
            assert cl[i] == chunks[i]
        a = data.draw(st.integers(-45, 45))
        b = data.draw(st.integers(-45, 45))
        step = data.draw(st.sampled_from([None, 1, 2, -1]))
        assert cl[a:b:step] == chunks[a:b:step]
        with pytest.raises(IndexError):
            cl[len(chunks)]
        rich = [c for c in chunks if c.meta or c.text is not None]
        assert all(any(x is c for x in cl) for c in rich)  # kept whole, not copied
    finally:
        ChunkList.COMPACT_FROM = 4096


def test_offsets_past_four_giga_characters_widen_the_columns(compact_early):
    big = 1 << 33
    chunks = [Chunk(i, i + 1) for i in range(4)] + [Chunk(big, big + 5, kind="code"), Chunk(big + 5, big + 9)]
    cl = ChunkList(chunks)
    assert cl.compact and list(cl) == chunks


def test_narrow_columns_widen_for_values_that_do_not_fit(compact_early):
    """Counts, budgets, parents and the indices of kinds, prefixes and paths start 1-2 bytes
    wide; 300 kinds, 70,000 prefixes and paths, a parent past 32,767 and counts past 65,535
    widen them, and every chunk reads back as appended."""
    chunks = [Chunk(i, i + 1, prefix=f"P{i}\n\n", headings=(f"H{i}",), kind=f"k{i % 300}",
                    n_tokens=i, budget=2 * i, parent=i - 1 if i else None, depth=i % 4) for i in range(70_000)]
    cl = ChunkList(chunks)
    assert cl.compact and not cl._rich
    assert {cl._ntok.typecode, cl._budget.typecode, cl._prefix.typecode, cl._heads.typecode} == {"I"}
    assert (cl._parent.typecode, cl._kind.typecode) == ("i", "H")
    assert list(cl) == chunks
    small = ChunkList(chunks[:4])
    assert (small._ntok.itemsize, small._kind.itemsize, small._parent.itemsize) == (2, 1, 2)


def test_long_chunks_stay_a_list(compact_early):
    """Columns only pay where chunks are short: chunks of 2,000 characters stay Chunk objects."""
    long = ChunkList(Chunk(i * 2000, i * 2000 + 1990) for i in range(12))
    short = ChunkList(Chunk(i * 12, i * 12 + 10) for i in range(12))
    assert not long.compact and short.compact


def _sections(n: int, fmt: str) -> str:
    head = {"txt": "== Part {} ==", "md": "## Part {}"}[fmt]
    return "\n\n".join(head.format(i) + "\n\n" + f"word{i} and another word." for i in range(n)) + "\n"


@pytest.mark.parametrize("strategy", ["recursive", "section", "sentence", "semantic", "fixed", "hierarchical",
                                      "auto"])
@pytest.mark.parametrize("fmt", ["txt", "md"])
def test_every_strategy_gives_the_same_records_from_compact_chunks(strategy, fmt, monkeypatch):
    text = _sections(40, fmt)
    kw = {"chunk_size": 32, "overlap": 8}
    if strategy == "semantic":
        pytest.importorskip("model2vec")
    expected = chunkctl.chunk_text(text, format=fmt, strategy=strategy, **kw)
    monkeypatch.setattr(ChunkList, "COMPACT_FROM", 2)
    monkeypatch.setattr(BlockList, "COMPACT_FROM", 2)
    assert chunkctl.chunk_text(text, format=fmt, strategy=strategy, **kw) == expected
    assert len(expected) >= 20


def test_auto_keeps_its_metadata_with_compact_chunks(monkeypatch):
    """`auto` used to write `content_type` (and `overlap` for `other`) into each chunk, which a compact
    list would not keep: both now come from the document's facts."""
    monkeypatch.setattr(ChunkList, "COMPACT_FROM", 2)
    text = _sections(30, "md")
    recs = chunkctl.chunk_text(text, format="md", strategy="auto", chunk_size=600, overlap=0, content_type="other")
    assert {r["meta"]["content_type"] for r in recs} == {"other"}
    assert {r["meta"]["overlap"] for r in recs} == {100}
    for ctype in ("legal", "narrative", "code"):
        recs = chunkctl.chunk_text(text, format="md", strategy="auto", chunk_size=32, overlap=4, content_type=ctype)
        assert {r["meta"]["content_type"] for r in recs} == {ctype} and {r["meta"]["overlap"] for r in recs} == {4}
