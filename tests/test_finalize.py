"""Finalize: page numbers from form feeds (`PageIndex`), checked against counting in the text."""

from __future__ import annotations

import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st

import chunkctl.pipeline.finalize as finalize
from chunkctl.config import ChunkConfig
from chunkctl.model import Block, BlockKind, Chunk, Document
from chunkctl.pipeline.finalize import PageIndex, iter_records


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="ab\f\n", max_size=300), stride=st.integers(1, 40), data=st.data())
def test_page_of_an_offset_is_one_plus_the_form_feeds_before_it(text, stride, data):
    saved = finalize.PAGE_STRIDE
    finalize.PAGE_STRIDE = stride
    try:
        pages = PageIndex(text)
        for pos in data.draw(st.lists(st.integers(0, len(text)), max_size=20)):
            assert pages.page(pos) == 1 + text[:pos].count("\f")
        assert pages.page(len(text)) == 1 + text.count("\f")
    finally:
        finalize.PAGE_STRIDE = saved


def test_records_give_the_pages_of_their_first_and_last_characters():
    text = "one\ftwo\f\fthree\f"
    doc = Document("p.txt", "txt", text, [Block(BlockKind.PARAGRAPH, 0, len(text))], meta={"sha256": "0"})
    chunks = [Chunk(0, 3), Chunk(4, 8), Chunk(2, 10), Chunk(9, 15), Chunk(0, 0), Chunk(8, 8)]
    got = [(r["page_start"], r["page_end"]) for r in iter_records(doc, chunks, ChunkConfig(), "cl100k_base")]
    # a chunk's trailing form feeds do not put it on the next page; an empty chunk at 0 is on page 1
    assert got == [(1, 1), (2, 2), (1, 4), (4, 4), (1, 1), (3, 2)]


def test_a_text_without_form_feeds_is_one_page():
    doc = Document("p.txt", "txt", "no breaks", [Block(BlockKind.PARAGRAPH, 0, 9)], meta={"sha256": "0"})
    got = [(r["page_start"], r["page_end"]) for r in iter_records(doc, [Chunk(0, 9)], ChunkConfig(), "x")]
    assert got == [(1, 1)]


def test_page_index_of_one_letter_pages_holds_a_fraction_of_a_byte_a_page():
    text = "a\f" * 500_000
    tracemalloc.start()
    try:
        pages = PageIndex(text)
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pages.page(len(text)) == 500_001
    # an array of every form feed's offset took 4 bytes a page (2 MB here)
    assert peak < 500_000 * 0.01
