"""Every table chunk parses back, with markdown-it-py, into all of its rows (issue 17, item 8).

A row is a line of a pipe table: the header, then every line after the delimiter row
up to the first blank line or line without a pipe. Lines are cut the way Python cuts
them (`str.splitlines`), so a form feed between two rows counts as a line end: a
Markdown parser does not read it as one, and used to drop the row after it. A form
feed that opens a line (a page break after a line end) is part of that line.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import CORPUS, needs_shared, parse_jsonl, run_cli

_DELIM = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")


def expected_rows(text: str) -> list[int]:
    """Rows per pipe table in `text` (header included), counted from its lines."""
    lines = text.replace("\n\f", "\n").splitlines()
    out = []
    i = 1
    while i < len(lines):
        if _DELIM.match(lines[i]) and "|" in lines[i] and "|" in lines[i - 1] and "-" in lines[i]:
            n = 1
            j = i + 1
            while j < len(lines) and lines[j].strip() and "|" in lines[j]:
                n += 1
                j += 1
            out.append(n)
            i = j
        else:
            i += 1
    return out


def parsed_rows(text: str) -> list[int]:
    """Rows per table that markdown-it-py (CommonMark + tables) finds in `text`."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    out = []
    for t in md.parse(text):
        if t.type == "table_open":
            out.append(0)
        elif t.type == "tr_open" and out:
            out[-1] += 1
    return out


def test_form_feed_between_rows_is_counted_as_a_line_end():
    text = "| a | b |\n| --- | --- |\n| 1 | 2 |\n\f| 3 | 4 |"
    assert expected_rows(text) == [3] == parsed_rows(text)
    broken = "| a | b |\n| --- | --- |\n| 1 | 2 |\f| 3 | 4 |\n| 5 | 6 |"
    assert expected_rows(broken) == [4] and parsed_rows(broken) == [3]  # the defect this file guards against


@pytest.mark.slow
@needs_shared()
@pytest.mark.parametrize("size,overlap", [("512", "15%"), ("128", "16")])
def test_every_table_chunk_of_the_corpus_parses_into_all_its_rows(tmp_path, size, overlap):
    out = tmp_path / "corpus.jsonl"
    res = run_cli("chunk", str(CORPUS), "--chunk-size", size, "--overlap", overlap, "-o", str(out), "-q")
    assert res.returncode in (0, 1), res.stderr
    recs = [r for r in parse_jsonl(out.read_bytes()) if r["kind"] == "table"]
    formats = {r["format"] for r in recs}
    assert {"md", "pdf", "html"} <= formats
    bad = []
    rows = 0
    for r in recs:
        want = expected_rows(r["text"])
        rows += sum(want)
        if parsed_rows(r["text"]) != want:
            bad.append((r["source"], r["chunk_index"], want, parsed_rows(r["text"])))
    assert not bad, bad[:5]
    assert rows > 1000
    # Tables that cross a PDF page are among them.
    assert any("\f" in r["text"] and r["format"] == "pdf" for r in recs)


def _table(header, rows, continues=False):
    from chunkctl.loaders.pdf.tables import Table

    t = Table(0, 0, 100, 100, header, rows, col_x=[0.0, 50.0])
    t.continues = continues
    return t


def test_pdf_table_across_a_page_break_keeps_every_row():
    from chunkctl.loaders.pdf.loader import _Writer
    from chunkctl.model import BlockKind

    w = _Writer()
    w.table_block(_table(["Name", "Qty"], [["a", "1"], ["b", "2"]]), (), 0)
    w.new_page()
    w.table_block(_table(["Name", "Qty"], [["c", "3"], ["d", "4"]], continues=True), (), 1)
    w.new_page()
    w.table_block(_table(["Other", "Col"], [["x", "9"]]), (), 2)
    w.new_page()
    w.block(BlockKind.PARAGRAPH, "After the tables.", ())
    w.close_table()
    text = w.text()
    assert text.count("\f") == 3  # one form feed per page break
    assert parsed_rows(text) == expected_rows(text) == [5, 2]
    first, second = [b for b in w.blocks if b.kind == BlockKind.TABLE]
    assert text[first.rows[-1][0]:first.rows[-1][1]] == "| d | 4 |"
    assert 1 + text[:first.rows[2][0]].count("\f") == 2  # row c is on page 2
    assert text[second.start:].startswith("| Other | Col |")
    assert "| x | 9 |\n\n\fAfter the tables." in text


def test_pdf_table_opening_a_page_after_text_keeps_its_header_row():
    from chunkctl.loaders.pdf.loader import _Writer
    from chunkctl.model import BlockKind

    w = _Writer()
    w.block(BlockKind.PARAGRAPH, "A paragraph that runs to the page end", ())
    w.new_page()
    w.table_block(_table(["Name", "Qty"], [["a", "1"], ["b", "2"]]), (), 1)
    w.close_table()
    text = w.text()
    assert text.count("\f") == 1 and "page end\n\n\f| Name | Qty |" in text
    assert parsed_rows(text) == expected_rows(text) == [3]
    (table,) = [b for b in w.blocks if b.kind == BlockKind.TABLE]
    assert text[table.start:table.header[1]].startswith("| Name | Qty |")
