"""The 27 PDFs of ../shared/corpus/pdf: each one's outcome (0 contract violations or its documented error), and exact facts of a few."""

from __future__ import annotations

import sys
from functools import cache

import pytest

from chunkctl.config import ChunkConfig
from chunkctl.loaders.pdf import ocr
from chunkctl.model import BlockKind
from chunkctl.pipeline import chunk_records, load
from tests.conftest import CORPUS, needs_shared, parse_jsonl, run_checker, run_cli

PDF = CORPUS / "pdf"
OK, EMPTY = "ok", "empty"
# File -> outcome: "ok" (chunks, 0 violations), "empty" (no chunks, a warning, exit 0) or the error reason.
OUTCOMES = {
    "arabic-rotated-0-90-180-270.pdf": OK,
    "ca-warn-report-16p-table.pdf": OK,
    "chinese-prospectus-tables.pdf": OK,
    "chinese-quarterly-report-22p.pdf": OK,
    "encrypted-aes256-empty-password.pdf": OK,
    "encrypted-password-test.pdf": "encrypted PDF: a password is needed (give it with --password)",
    "freeculture-book-352p.pdf": OK,
    "japanese-math-notes.pdf": OK,
    "japanese-vertical-text.pdf": OK,
    "latex-multicolumn.pdf": OK,
    "latex-outline-bookmarks.pdf": OK,
    "ligatures-ff-fi-fl.pdf": OK,
    "multilang-hello-world.pdf": OK,
    "nics-firearm-checks-table.pdf": OK,
    "nist-sp800-223-34p.pdf": OK,
    "pymupdf-1.8-docs-47p.pdf": OK,
    "roman-page-labels.pdf": OK,
    # A scan without a text layer: read with OCR when the extra chunkctl[ocr] is installed (--ocr auto).
    "scanned-jbig2-no-text-rot270.pdf": OK if ocr.available() else EMPTY,
    "thai-exam-question.pdf": OK,
    "tracemonkey-two-column-paper.pdf": OK,
    "trailing-garbage-no-startxref.pdf": OK,
    "truncated-mid-stream.pdf": "unreadable PDF: damaged beyond repair (truncated or corrupt structure)",
    "vicksburg-scan-ocr-layer.pdf": OK,
    "word-styled-table-de.pdf": OK,
    "xref-keyword-missing.pdf": OK,
    "zen-of-python-corrupt-zlib.pdf": OK,
    "zero-bytes.pdf": "unreadable PDF: the file is empty (0 bytes)",
}

pytestmark = needs_shared()


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory):
    """Chunk the whole PDF folder once (256 tokens, 32 overlap) and check it against the contract."""
    out = tmp_path_factory.mktemp("pdf") / "pdf.jsonl"
    res = run_cli("chunk", str(PDF), "--chunk-size", "256", "--overlap", "32", "-o", str(out))
    missing = [name for name, outcome in OUTCOMES.items() if outcome != OK]
    code, summary = run_checker(out, PDF, "--expect-all", "--phrases", str(CORPUS / "encodings.json"),
                                "--allow-missing", *missing)
    return res, parse_jsonl(out.read_bytes()), code, summary


@cache
def _doc(name: str):
    return load(PDF / name)


def test_every_corpus_file_has_an_expected_outcome():
    assert sorted(p.name for p in PDF.glob("*.pdf")) == sorted(OUTCOMES)


def test_corpus_chunks_with_zero_violations(corpus_run):
    res, recs, code, summary = corpus_run
    assert code == 0, summary
    assert summary.splitlines()[-1].startswith("OK:")
    assert res.returncode == 1  # three files fail, each with a one-line error
    assert b"Traceback" not in res.stderr


@pytest.mark.parametrize("name", sorted(OUTCOMES))
def test_corpus_file_outcome(corpus_run, name):
    res, recs, _, _ = corpus_run
    stderr = res.stderr.decode("utf-8")
    mine = [r for r in recs if r["source"] == name]
    outcome = OUTCOMES[name]
    if outcome == OK:
        assert mine, f"{name} gave no records"
        assert all(r["format"] == "pdf" and r["meta"]["encoding"] == "utf-8" for r in mine)
        assert f"chunkctl: error: {name}" not in stderr
    elif outcome == EMPTY:
        assert not mine
        assert f"chunkctl: warning: {name}: page 1 has no text layer; OCR needs the optional package" in stderr
        assert f"chunkctl: warning: {name}: no text to chunk" in stderr
    else:
        assert not mine
        assert f"chunkctl: error: {name}: {outcome}\n" in stderr


def test_encrypted_file_chunks_with_its_password(tmp_path):
    out = tmp_path / "enc.jsonl"
    pdf = PDF / "encrypted-password-test.pdf"
    res = run_cli("chunk", str(pdf), "--password", "test", "--chunk-size", "128", "--overlap", "16", "-o", str(out))
    assert res.returncode == 0, res.stderr
    code, summary = run_checker(out, PDF, "--extract-cmd", f"{sys.executable} -m chunkctl extract --password test")
    assert code == 0, summary
    recs = parse_jsonl(out.read_bytes())
    assert {p for r in recs for p in range(r["page_start"], r["page_end"] + 1)} == {1, 2, 3, 4}
    assert recs[-1]["page_end"] == 4


def test_form_feeds_keep_physical_pages():
    for name, outcome in OUTCOMES.items():
        if outcome in (OK, EMPTY) and name != "encrypted-password-test.pdf":
            doc = _doc(name)
            assert doc.text.count("\f") == doc.meta["n_pages"] - 1, name


# -- exact expectations -----------------------------------------------------------------

NICS_HEADER = [
    "State / Territory", "Permit", "Handgun", "Long Gun", "*Other", "**Multiple", "Admin",
    "Pre-Pawn Handgun", "Pre-Pawn Long Gun", "Pre-Pawn *Other",
    "Redemption Handgun", "Redemption Long Gun", "Redemption *Other",
    "Returned/Disposition Handgun", "Returned/Disposition Long Gun", "Returned/Disposition *Other",
    "Rentals Handgun", "Rentals Long Gun",
    "Private Sale Handgun", "Private Sale Long Gun", "Private Sale *Other",
    "Return to Seller - Private Sale Handgun", "Return to Seller - Private Sale Long Gun",
    "Return to Seller - Private Sale *Other", "Totals",
]


def test_nics_table_header_and_rows():
    doc = _doc("nics-firearm-checks-table.pdf")
    tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 1
    t = tables[0]
    assert t.meta["header_cells"] == NICS_HEADER
    hs, he = t.header
    assert doc.text[hs:he].splitlines() == ["| " + " | ".join(NICS_HEADER) + " |", "| " + " | ".join(["---"] * 25) + " |"]
    rows = [doc.text[a:b] for a, b in t.rows]
    # five states per ruled band in the PDF: each becomes its own row
    assert len(rows) == 56
    assert rows[0].startswith("| Alabama | 18,870 | 23,022 | 22,650 | 859 | 1,178 | 0 |")
    assert rows[4].startswith("| California | 98 452 | 41 181 |")
    assert rows[-1].startswith("| Totals | 804,006 | 671,330 |") and rows[-1].endswith("| 2,236,457 |")
    # the title row above and the notes row below the grid are paragraphs, not rows
    assert doc.text.startswith("NICS Firearm Background Checks November - 2015\n\n| State / Territory |")
    assert "NOTES: *Refers to frames, receivers" in doc.text[t.end:]


def test_table_continued_over_fifteen_pages_is_one_block(tmp_path):
    doc = _doc("ca-warn-report-16p-table.pdf")
    tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 2
    big, summary = tables
    assert big.meta["header_cells"] == ["Notice Date", "Effective", "Received", "Company", "City", "No. Of",
                                        "Layoff/Closure"]
    assert big.meta["pages"] == list(range(1, 16))
    assert doc.text[big.start:big.end].count("\f") == 14
    # 36 rows on page 1, 43 on each of pages 2-14, 38 on page 15
    assert len(big.rows) == 36 + 13 * 43 + 38
    assert summary.meta["pages"] == [15, 16]
    assert len(summary.rows) == 2 + 8
    assert doc.text[summary.rows[-1][0]:summary.rows[-1][1]].startswith("| Total | 632 | 53,454 |")
    # the shared packer repeats the header in the prefix of every later chunk of the table
    recs = chunk_records(doc, ChunkConfig(chunk_size=256, overlap=32))
    head = doc.text[big.header[0]:big.header[1]]
    table_recs = [r for r in recs if big.start <= r["start"] < big.end]
    assert len(table_recs) > 20
    assert all(r["kind"] == "table" for r in table_recs)
    assert all(r["prefix"].endswith(head + "\n") for r in table_recs[1:])
    assert {r["page_start"] for r in table_recs} == set(range(1, 16))


def test_freeculture_sentence_across_a_page_break():
    doc = _doc("freeculture-book-352p.pdf")
    # page 22 ends inside the sentence: the form feed stands where the line break was
    sentence = ("Ideas that were as solid as rock in one age, but that, left to themselves, would crumble in\f"
                "another, are sustained through this subtle corruption of our political process.")
    start = doc.text.index(sentence)
    end = start + len(sentence)
    # in the document text the sentence's characters run from page 22 to page 23
    assert doc.text[start:end].count("\f") == 1
    assert 1 + doc.text.count("\f", 0, start) == 22
    assert 1 + doc.text.count("\f", 0, end - 1) == 23
    assert doc.meta["n_pages"] == 352 and doc.meta["title"] == "Free Culture"
    recs = chunk_records(doc, ChunkConfig(chunk_size=512, overlap=0))
    first = next(r for r in recs if r["start"] <= start < r["end"])
    last = next(r for r in recs if r["start"] < end <= r["end"])
    assert first["page_start"] <= 22 <= first["page_end"]
    assert last["page_end"] == 23
    # spaces the typesetter left out are restored from the glyph gaps
    assert "spread generally. The idea that knowledge should be free" in doc.text
    assert "generally.The" not in doc.text
    # running heads, page numbers and the printer's line numbers are gone
    assert "FREE CULTURE\n" not in doc.text.split("\f")[40]
    assert "4TH PASS PAGES" not in doc.text


def test_tracemonkey_reads_column_by_column():
    text = _doc("tracemonkey-two-column-paper.pdf").text
    page1 = text.split("\f")[0]
    order = [
        "Trace-based Just-in-Time Type Specialization for Dynamic Languages",  # title across both columns
        "Abstract",
        "Dynamic languages such as JavaScript are more difficult to compile than statically typed ones.",
        "Keywords JavaScript, just-in-time compilation, trace trees.",
        "1. Introduction",
        "example, is the de facto standard for client-side web programming",  # foot of the left column
        "and is used for the application logic of browser-based productivity",  # top of the right column
        "Compilers for statically typed languages rely on type information",
    ]
    positions = [page1.index(s) for s in order]
    assert positions == sorted(positions)
    # a word hyphenated at a line end of the left column is joined
    assert "more difficult to compile than" in page1


def test_roman_page_labels():
    doc = _doc("roman-page-labels.pdf")
    assert doc.meta["page_labels"] == ["iii", "iv", "1", "2", "1"]
    recs = chunk_records(doc, ChunkConfig(chunk_size=16, overlap=0))
    for r in recs:
        assert r["meta"]["page_label"] == doc.meta["page_labels"][r["page_start"] - 1]
        if r["page_end"] != r["page_start"]:
            assert r["meta"]["page_label_end"] == doc.meta["page_labels"][r["page_end"] - 1]
    last = next(r for r in recs if "More text here..." in r["text"])
    assert (last["page_start"], last["meta"]["page_label"]) == (5, "1")
    assert {r["meta"]["page_label"] for r in recs} >= {"iii", "iv", "1"}


def test_headings_from_the_outline():
    doc = _doc("latex-outline-bookmarks.pdf")
    heads = [(b.level, doc.text[b.start:b.end], b.headings) for b in doc.blocks if b.kind == BlockKind.HEADING]
    names = ["Foo", "Bar", "Baz"] * 3
    # the table of contents on page 1 is a section of its own, its entries are not headings
    assert heads == [(1, "Contents", ("Contents",))] + [(1, f"{i + 1} {n}", (n,)) for i, n in enumerate(names)]
    assert doc.text.startswith("Contents\n\n1 Foo 2\n\n2 Bar 2")
    assert doc.title == "Foo"  # not "Contents"


def test_headings_from_fonts_when_there_is_no_outline():
    doc = _doc("tracemonkey-two-column-paper.pdf")
    heads = [(b.level, doc.text[b.start:b.end]) for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads[0] == (1, "Trace-based Just-in-Time Type Specialization for Dynamic Languages")
    assert (2, "Abstract") in heads and (2, "1. Introduction") in heads and (2, "References") in heads
    assert doc.title == "Trace-based Just-in-Time Type Specialization for Dynamic Languages"
