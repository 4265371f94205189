"""Memory of the PDF loader (issue 14, point 7): what it holds per line and per character, traced.

A PDF's text may be several times the file (compressed content streams), so what the
loader holds per character of its text is what bounds a run on a large PDF.
"""

from __future__ import annotations

import random
import tracemalloc
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkctl.loaders.pdf import furniture, packed
from chunkctl.loaders.pdf.furniture import drop_furniture
from chunkctl.loaders.pdf.groups import Group
from chunkctl.loaders.pdf.loader import load_pdf
from chunkctl.loaders.pdf.page import Frame, Line, PageData
from tests.conftest import CORPUS, needs_shared
from tests.test_pdf_text_tables import pdf_of

_WORDS = ["river", "model", "chunk", "table", "value", "system", "north", "data", "rapid", "under", "across",
          "paper", "token"]


class _Config:
    password = None
    ocr = "never"


def _traced_peak(fn):
    tracemalloc.start()
    try:
        result = fn()
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def _book(n_pages: int, per_page: int) -> list[PageData]:
    """Pages of distinct body lines between a running header and a page number."""
    rng = random.Random(3)
    pages = []
    for i in range(n_pages):
        p = PageData(i, Frame(0, width=612.0, height=792.0))
        p.lines.append(Line("Annual report of the river board", 72.0, 30.0, 300.0, 40.0, 9.0))
        for k in range(per_page):
            text = " ".join(rng.choice(_WORDS) for _ in range(12)) + f" {i}.{k}"
            p.lines.append(Line(text, 72.0, 100.0 + 10 * k, 540.0, 108.0 + 10 * k, 10.0))
        p.lines.append(Line(str(i + 1), 300.0, 760.0, 306.0, 770.0, 9.0))
        pages.append(p)
    return pages


def test_furniture_keeps_no_copy_of_every_line():
    # 0.1.18 kept each line's lower-cased text, a tuple of facts and a set of pages per line
    # while looking for running headers: 564 bytes a line (87 MB of a 2,000-page book's
    # 140,000 lines), the loader's peak. 0.1.19 kept a hash and a page number in a dict: 97
    # bytes a line here (109 at 2,000 pages; 81 MB of an 8,000-page book's 780,000 lines,
    # again the peak). Now two hashes and a page number in arrays, and the dict only for
    # lines whose text repeats: 56 (50 at 1,000 pages).
    pages = _book(300, 60)
    n_lines = sum(len(p.lines) for p in pages)
    dropped, peak = _traced_peak(lambda: drop_furniture(pages))
    assert dropped == 600  # the running header and the page number of every page
    assert all(len(p.lines) == 60 and not p.lines[0].text.startswith("Annual") for p in pages)
    assert peak / n_lines < 70, peak / n_lines


def _every_key(keys, texts, pages, least):
    """The page sets of every line key, as 0.1.19 kept them (the reference for `_repeated`)."""
    keyed: dict = {}
    for k, page in zip(keys, pages):
        furniture._add(keyed, k, page)
    return keyed


_POOL = ["Annual report", "Confidential draft", "7", "Page 3", "Chapter 2 Rivers", "river model chunk",
         "table value system", "iv", "- 12 -", "north data"]


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_furniture_drops_the_same_lines_keying_only_texts_that_repeat(data):
    # Only texts on `repeat_min` lines or more are keyed (the others cannot reach that many
    # pages over three height buckets): the lines dropped are those of keying every line,
    # margins, page numbers, neighbouring heights and the rule (a) gate included.
    n_pages = data.draw(st.integers(2, 12))
    layout: list[list[tuple[str, float]]] = [[] for _ in range(n_pages)]
    for text in _POOL:  # each text on a set of pages, about one height (margins included)
        y = data.draw(st.sampled_from([24.0, 100.0, 300.0, 500.0, 760.0]))
        for page in data.draw(st.sets(st.integers(0, n_pages - 1))):
            layout[page].append((text, y + data.draw(st.sampled_from([-4.0, 0.0, 0.0, 4.0]))))

    def pages():
        return [PageData(i, Frame(0, width=612.0, height=792.0),
                         lines=[Line(t, 72.0, y, 300.0, y + 8.0, 10.0) for t, y in rows])
                for i, rows in enumerate(layout)]

    got, want = pages(), pages()
    n_got = drop_furniture(got)
    with mock.patch.object(furniture, "_repeated", _every_key):
        n_want = drop_furniture(want)
    assert n_got == n_want
    assert [[ln.text for ln in p.lines] for p in got] == [[ln.text for ln in p.lines] for p in want]


def test_furniture_finds_a_header_that_moves_between_neighbouring_heights():
    # Rule (a) (a line repeated at one height on 40% of the pages, off the margins) counts
    # a line's pages over its height bucket (4 points) and the two next to it: here a line
    # between body lines moves over three buckets, a third of the pages each (under 40%).
    pages = _book(12, 8)
    for p in pages:
        y = 130.0 + (p.index % 3) * 4
        p.lines.insert(4, Line("Confidential draft", 72.0, y, 200.0, y + 8, 10.0))
    drop_furniture(pages)
    assert not any(ln.text == "Confidential draft" for p in pages for ln in p.lines)
    assert all(len(p.lines) == 8 for p in pages)


def _prose_pdf(n_pages: int = 80) -> bytes:
    """Pages of 60 lines of twelve random words (80 pages: 356,000 characters)."""
    rng = random.Random(4)
    return pdf_of([[(72, 60 + 11 * k, " ".join(rng.choice(_WORDS) for _ in range(12)).capitalize() + ".")
                    for k in range(60)] for _ in range(n_pages)])


def test_pdf_loader_holds_under_eight_bytes_a_character():
    # 80 pages of 60 prose lines (356,000 characters): 12.6 bytes a character traced in
    # 0.1.18 (every line's float coordinates its own objects, the furniture search's copies,
    # every page's lines kept while the text was written); 5.7 now.
    data = _prose_pdf()
    doc, peak = _traced_peak(lambda: load_pdf(data, "book.pdf", _Config()))
    assert doc.text.count("\f") == 79 and len(doc.text) > 350_000
    assert peak / len(doc.text) < 8, peak / len(doc.text)


def _table_pdf() -> bytes:
    """One 4-column table without rulings over 40 pages of 56 rows, its header on the first."""
    rng = random.Random(5)
    pages = []
    for i in range(40):
        items = [(72, 50, "n"), (130, 50, "word"), (220, 50, "other"), (310, 50, "text")] if i == 0 else []
        for k in range(56):
            n = i * 56 + k
            items += [(72, 64 + 12 * k, str(n)), (130, 64 + 12 * k, rng.choice(_WORDS)),
                      (220, 64 + 12 * k, rng.choice(_WORDS)), (310, 64 + 12 * k, " ".join(rng.sample(_WORDS, 5)))]
        pages.append(items)
    return pdf_of(pages)


def test_pdf_table_over_many_pages_is_one_block_of_packed_row_spans():
    # One 4-column table without rulings over 40 pages: one table block, its header once,
    # whose 2,240 row spans are packed (16 bytes a row, where a tuple of two ints took some
    # 120): the document held 3.96 bytes a character of its text in 0.1.18, 1.92 now.
    data = _table_pdf()
    tracemalloc.start()
    try:
        doc = load_pdf(data, "table.pdf", _Config())
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    [table] = doc.blocks
    assert table.kind.value == "table" and len(table.rows) == 40 * 56
    assert doc.text[slice(*table.header)] == "| n | word | other | text |\n| --- | --- | --- | --- |"
    first, last = table.rows[0], table.rows[-1]
    assert doc.text[first[0]:first[1]].startswith("| 0 | ") and doc.text[last[0]:last[1]].startswith("| 2239 | ")
    assert held / len(doc.text) < 2.5, held / len(doc.text)


def test_furniture_keeps_heights_just_above_the_page_apart():
    # helper-64: a title centred 9.7 points above the top edge on pages 1-2 (height bucket
    # -3) and 2.7 above on page 3 (bucket -1) is on two pages within its reach, not three:
    # kept. Keyed by hash((text, bucket)), CPython's hash(-1) == hash(-2) merged buckets
    # -1 and -2 and dropped it as a running header on pages 1-2.
    pages = _book(3, 8)
    for p in pages:
        cy = -2.7 if p.index == 2 else -9.7
        p.lines.insert(0, Line("Running Title Here", 72.0, cy - 12, 300.0, cy + 12, 24.0))
    drop_furniture(pages)
    assert [sum(ln.text == "Running Title Here" for ln in p.lines) for p in pages] == [1, 1, 1]



def test_a_big_pdf_holds_its_pages_packed(monkeypatch):
    # Past PACK_AT characters each read page's lines, and then its groups, are held packed
    # (chunkctl.loaders.pdf.packed) and unpacked a page at a time by each pass: the 80-page
    # book's traced peak went from 5.8 bytes a character (every page's objects held until the
    # text was written) to 3.2. (A 20 MB text-only PDF: 14.1x the file -> 7.1x, bench/memory.py.)
    monkeypatch.setattr(packed, "PACK_AT", -1)
    data = _prose_pdf()
    doc, peak = _traced_peak(lambda: load_pdf(data, "book.pdf", _Config()))
    monkeypatch.setattr(packed, "PACK_AT", 1 << 60)
    assert load_pdf(data, "book.pdf", _Config()).text == doc.text
    assert doc.text.count("\f") == 79 and len(doc.text) > 350_000
    assert peak / len(doc.text) < 4, peak / len(doc.text)


def test_a_big_pdf_table_is_packed_with_its_page(monkeypatch):
    # The 40-page table of the test above, packed: 7.9 -> 3.4 bytes a character at the peak.
    monkeypatch.setattr(packed, "PACK_AT", -1)
    data = _table_pdf()
    doc, peak = _traced_peak(lambda: load_pdf(data, "table.pdf", _Config()))
    [table] = doc.blocks
    assert len(table.rows) == 40 * 56 and doc.text.count("\f") == 39
    assert peak / len(doc.text) < 4.5, peak / len(doc.text)


@needs_shared()
@pytest.mark.parametrize("name", ["freeculture-book-352p.pdf", "latex-outline-bookmarks.pdf", "roman-page-labels.pdf",
                                  "ca-warn-report-16p-table.pdf", "chinese-quarterly-report-22p.pdf",
                                  "pymupdf-1.8-docs-47p.pdf", "tracemonkey-two-column-paper.pdf"])
def test_packed_pages_read_as_the_same_document(name, monkeypatch):
    # Real documents with running headers, outlines, page labels, tables over pages and two
    # columns: packed from the first page, the same text, blocks, metadata and warnings.
    data = (CORPUS / "pdf" / name).read_bytes()

    def read():
        doc = load_pdf(data, name, _Config())
        return doc.text, [(b.kind, b.start, b.end, b.level, b.headings, list(b.rows)) for b in doc.blocks], \
            doc.meta, doc.warnings

    whole = read()
    monkeypatch.setattr(packed, "PACK_AT", -1)
    assert read() == whole


def _groups(page: int, texts: list[str]) -> list[Group]:
    return [Group("para", [Line(t, 72.0, 100.0 + 12 * k, 300.0, 110.0 + 12 * k, 10.0)], page=page)
            for k, t in enumerate(texts)]


def test_page_groups_keep_changes_and_only_changes(monkeypatch):
    monkeypatch.setattr(packed, "LIVE_PAGES", 2)
    pages = packed.PageGroups(packed=True)
    for i in range(5):
        pages.append(_groups(i, [f"page {i} first", f"page {i} second"]))
    assert [g.plain() for g in pages[3]] == ["page 3 first", "page 3 second"]
    pages[0][0].lines[0].text = "changed"  # a page to change: kept when it leaves the live ones
    pages[0].pop()
    pages.read(1)[0].lines[0].text = "looked at"  # a page to look at: its change is not kept
    for i in (2, 3, 4):
        pages[i]  # noqa: B018 (three other pages: 0 and 1 are packed again, or dropped)
    assert [g.plain() for g in pages.read(0)] == ["changed"]
    assert [g.plain() for g in pages.read(1)] == ["page 1 first", "page 1 second"]
    assert [len(gs) for gs in pages.reading()] == [1, 2, 2, 2, 2]
    assert [g.plain() for g in pages.take(0)] == ["changed"] and pages.read(0) == []
    assert len(pages) == 5
    plain = packed.PageGroups(packed=False)
    plain.append(_groups(0, ["a"]))
    assert plain.read(0) is plain[0] is plain.take(0)
