"""PDF tables without ruling lines, found from text alignment (issue 16, item 3), on pages drawn here."""

from __future__ import annotations

import pytest

from chunkctl.config import ChunkConfig
from chunkctl.model import BlockKind
from chunkctl.pipeline import chunk_records, load
from tests.conftest import pdf_file
from tests.test_table_roundtrip import expected_rows, parsed_rows

pytestmark = pytest.mark.usefixtures("pdf_pages_both_ways")  # objects and packed pages


def pdf_of(pages: list[list[tuple[float, float, str]]], size: float = 10.0) -> bytes:
    """A PDF (US letter, Helvetica) whose pages show text items (x, y from the top, text); no rulings at all."""
    objs: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b"",
                         b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for items in pages:
        ops = []
        for x, y, text in items:
            t = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"BT /F1 {size} Tf {x:.1f} {792 - y:.1f} Td ({t}) Tj ET")
        stream = "\n".join(ops).encode("latin-1")
        objs.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                    b"/Contents %d 0 R >>" % len(objs))
        kids.append(len(objs))
    objs[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    return pdf_file(objs)


PROSE = ("Passenger numbers fell sharply in the second quarter as most international routes were suspended, "
         "and the recovery that followed was uneven across the regions served by the airport group.")

AIRPORTS = [("Frankfurt", "70.6", "18.8", "-73.4%"), ("Munich", "47.9", "11.1", "-76.8%"),
            ("Vienna", "31.7", "7.8", "-75.3%"), ("Zurich", "31.5", "8.3", "-73.6%"),
            ("Brussels", "26.4", "6.7", "-74.7%"), ("Lisbon", "31.2", "9.3", "-70.2%")]


def table_page(title: bool = True) -> list[tuple[float, float, str]]:
    cut = PROSE.rindex(" ", 0, 95)
    items = [(72, 80, PROSE[:cut]), (72, 93, PROSE[cut + 1:])]
    y = 130.0
    if title:
        items.append((230, y, "Intl Pax Traffic"))  # a title row spanning every column
        y += 18
    for x, cell in zip((72, 230, 320, 410), ("Airport", "2019", "2020", "Change")):
        items.append((x, y, cell))
    for row in AIRPORTS:
        y += 14
        for x, cell in zip((72, 230, 320, 410), row):
            items.append((x, y, cell))
    items.append((72, y + 40, "Source: airport operators; millions of passengers."))
    return items


def write(tmp_path, data: bytes):
    path = tmp_path / "page.pdf"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("title", [True, False])
def test_a_table_without_rulings_is_a_table_and_its_title_is_not_the_header(tmp_path, title):
    doc = load(write(tmp_path, pdf_of([table_page(title)])), ChunkConfig())
    tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 1
    t = tables[0]
    assert t.meta["header_cells"] == ["Airport", "2019", "2020", "Change"]
    text = doc.text[t.start:t.end]
    assert text.splitlines()[0] == "| Airport | 2019 | 2020 | Change |"
    assert "| Vienna | 31.7 | 7.8 | -75.3% |" in text
    assert len(t.rows) == len(AIRPORTS)
    assert parsed_rows(text) == expected_rows(text) == [1 + len(AIRPORTS)]
    before = doc.text[:t.start]
    assert ("Intl Pax Traffic" in before) is title  # the title is text before the table, once
    assert doc.text.count("Intl Pax Traffic") == (1 if title else 0)
    assert "Source: airport operators" in doc.text[t.end:]
    # The repeated header of a split table is the row of column names.
    recs = chunk_records(doc, ChunkConfig(chunk_size=64, overlap=0))
    parts = [r for r in recs if r["kind"] == "table"]
    assert len(parts) >= 2
    assert all("| Airport | 2019 | 2020 | Change |" in r["text"] and "Intl Pax" not in r["prefix"] for r in parts)


def columns_of_prose(words_per_line: int = 9) -> list[tuple[float, float, str]]:
    words = (PROSE + " " + PROSE).split()
    items = []
    for col, x in enumerate((72, 320)):
        for i in range(30):
            start = (i * words_per_line + col * 7) % (len(words) - words_per_line)
            items.append((x, 80 + 13 * i, " ".join(words[start:start + words_per_line])[:44]))
    return items


def test_prose_in_two_columns_is_not_a_table(tmp_path):
    doc = load(write(tmp_path, pdf_of([columns_of_prose()])), ChunkConfig())
    assert not [b for b in doc.blocks if b.kind == BlockKind.TABLE]


def test_a_contents_page_is_not_a_table(tmp_path):
    items = [(72, 80, "Contents")]
    for i, (name, page) in enumerate([("Introduction", 1), ("Background", 4), ("Method", 9), ("Results", 15),
                                      ("Discussion", 22), ("References", 30)]):
        items.append((72, 110 + 16 * i, f"{i + 1}"))
        items.append((100, 110 + 16 * i, name))
        items.append((500, 110 + 16 * i, str(page)))
    doc = load(write(tmp_path, pdf_of([items])), ChunkConfig())
    assert not [b for b in doc.blocks if b.kind == BlockKind.TABLE]


def test_a_text_table_across_two_pages_is_one_table_that_parses_back(tmp_path):
    first = table_page(title=False)
    second = [(x, 60 + 14 * i, cell) for i, row in enumerate(AIRPORTS) for x, cell in
                     zip((72, 230, 320, 410), (row[0] + " II", row[1], row[2], row[3]))]
    doc = load(write(tmp_path, pdf_of([first[:-1], second])), ChunkConfig())
    tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 1 and tables[0].meta["pages"] == [1, 2]
    text = doc.text[tables[0].start:tables[0].end]
    assert parsed_rows(text) == expected_rows(text) == [1 + 2 * len(AIRPORTS)]
