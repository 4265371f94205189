"""PDF strings longer than pdfium reads (issue 14: never drop text without a word).

pdfium keeps the first 32,767 bytes of a string in a content stream and drops the
rest silently (helper-58: 65% of one 94,000-character `Tj` was missing from the
records). Such pages are read again by pdfminer; when it cannot read them either, a
warning names the page. Every PDF here is drawn in the test (pdf_drawing.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkctl
import chunkctl.loaders.pdf.fallback as fallback
import chunkctl.loaders.pdf.page as page_mod
from tests.conftest import pdf_file
from tests.loaders.pdf_drawing import GB1_CIDS, pdf_bytes

pytestmark = pytest.mark.usefixtures("pdf_pages_both_ways")  # objects and packed pages

WIDE = (0, 0, 14400, 800)  # the largest page a PDF allows: long lines stay on it


def _words(n_chars: int, start: int = 0) -> str:
    out, i, size = [], start, 0
    while size < n_chars:
        w = f"w{i}"
        out.append(w)
        size += len(w) + 1
        i += 1
    return " ".join(out)


def _show(s: str, hexa: bool, size: float = 0.25) -> bytes:
    raw = s.encode("cp1252")
    shown = b"<" + raw.hex().encode() + b">" if hexa else b"(" + raw + b")"
    return b"BT /F1 %g Tf 10 400 Td %s Tj ET" % (size, shown)


def _read(tmp_path, data: bytes, **kw) -> tuple[str, list[str]]:
    path = tmp_path / "long.pdf"
    path.write_bytes(data)
    doc = chunkctl.load(path, **kw)
    return doc.text, list(doc.warnings)


@settings(max_examples=6, deadline=None)
@given(n=st.integers(32_000, 70_000), hexa=st.booleans(), after=st.booleans())
def test_every_word_of_a_long_string_is_read(tmp_path_factory, n, hexa, after):
    s = _words(n)
    ops = [_show(s, hexa)] + ([b"BT /F1 8 Tf 10 300 Td (ENDMARK after it) Tj ET"] if after else [])
    text, warnings = _read(tmp_path_factory.mktemp("p"), pdf_bytes([ops], media=WIDE))
    assert text.split()[:len(s.split())] == s.split()
    assert ("ENDMARK after it" in text) == after
    assert not [w for w in warnings if "32,767" in w]


def test_a_long_cid_string_of_two_byte_codes_is_read(tmp_path):
    # 20,000 two-byte codes: pdfium keeps 16,383 of them (32,767 bytes).
    han = "".join(GB1_CIDS)
    chars = (han * (20_000 // len(han) + 1))[:20_000]
    codes = b"".join(b"%04X" % GB1_CIDS[c] for c in chars)
    ops = [b"BT /C1 0.5 Tf 10 400 Td <" + codes + b"> Tj ET"]
    text, _ = _read(tmp_path, pdf_bytes([ops], media=WIDE))
    assert "".join(text.split()) == chars


def test_a_long_line_of_short_strings_keeps_pdfiums_reading(tmp_path, monkeypatch):
    # One TJ of 40 strings of 1,000 characters: no string is cut, so pdfminer's reading
    # (asked because the text object is long) must not replace pdfium's.
    s = _words(40_000)
    parts = b" ".join(b"(" + s[i:i + 1000].encode() + b")" for i in range(0, len(s), 1000))
    data = pdf_bytes([[b"BT /F1 0.3 Tf 10 400 Td [" + parts + b"] TJ ET", b"BT /F1 9 Tf 10 200 Td (Tail) Tj ET"]],
                     media=WIDE)
    asked = []
    real = fallback._read_with_pdfminer

    def spy(data, wanted, password):
        asked.append(list(wanted))
        return real(data, wanted, password)

    monkeypatch.setattr(fallback, "_read_with_pdfminer", spy)
    text, warnings = _read(tmp_path, data)
    assert asked == [[0]] and not warnings
    monkeypatch.setattr(page_mod, "LONG_STRING", 1 << 30)  # never asked: pdfium's reading alone
    assert _read(tmp_path, data)[0] == text


def test_a_cut_string_pdfminer_cannot_read_is_named_in_a_warning(tmp_path, monkeypatch):
    monkeypatch.setattr(fallback, "_read_with_pdfminer", lambda data, wanted, password: {})
    ops = [b"BT /F1 8 Tf 10 600 Td (First line.) Tj ET", _show(_words(40_000), hexa=False)]
    text, warnings = _read(tmp_path, pdf_bytes([[b"BT /F1 8 Tf 10 600 Td (Cover.) Tj ET"], ops], media=WIDE))
    assert warnings == ["page 2: a text string longer than pdfium reads (32,767 bytes) that pdfminer could not "
                        "read either; its text may be incomplete"]
    assert "First line." in text


def test_long_objects_that_no_cut_can_explain_are_not_read_twice(tmp_path, monkeypatch):
    # helper-59: 40 text objects of 9,000 one-byte characters (none can be cut: 9,000
    # bytes) sent the page to pdfminer, 18 s instead of 1.5 s; 200 of them timed out.
    asked = []
    monkeypatch.setattr(fallback, "_read_with_pdfminer", lambda data, wanted, password: asked.append(wanted) or {})
    ops = [b"BT /F1 0.3 Tf 10 %d Td (%s) Tj ET" % (790 - 19 * k, _words(9_000, k * 2_000).encode()) for k in range(40)]
    text, warnings = _read(tmp_path, pdf_bytes([ops], media=WIDE))
    assert asked == [] and not warnings and len(text.split()) > 40 * 1_000


@pytest.mark.parametrize("n", [1_000, 8_000])
def test_ordinary_pages_are_not_read_twice(tmp_path, monkeypatch, n):
    asked = []
    monkeypatch.setattr(fallback, "_read_with_pdfminer", lambda data, wanted, password: asked.append(wanted) or {})
    lines = [b"BT /F1 9 Tf 10 %d Td (%s) Tj ET" % (780 - 10 * k, _words(100, k * 20).encode())
             for k in range(n // 100)]
    text, warnings = _read(tmp_path, pdf_bytes([lines], media=WIDE))
    assert asked == [] and not warnings and len(text) > n // 2


def _page_with(content: bytes, page_keys: bytes, form: bytes, box: bytes, width: int = 600) -> list[bytes]:
    """The objects of one page (Helvetica as /F1) drawing `content`, with `page_keys` in its
    dictionary and a form XObject (object 6, bounding box `box`) drawing `form`."""
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d 800] /Resources << /Font << /F1 5 0 R >>"
        b" /XObject << /Fm1 6 0 R >> >> /Contents 4 0 R%s >>" % (width, page_keys),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /XObject /Subtype /Form /BBox [%s] /Resources << /Font << /F1 5 0 R >> >>"
        b" /Length %d >>\nstream\n%s\nendstream" % (box, len(form), form),
    ]


def test_a_long_string_inside_a_form_xobject_is_read(tmp_path):
    s = _words(40_000)
    form = b"BT /F1 0.25 Tf 10 400 Td (" + s.encode() + b") Tj ET"
    text, warnings = _read(tmp_path, pdf_file(_page_with(b"/Fm1 Do", b"", form, b"0 0 14400 800", width=14400)))
    assert text.split() == s.split() and not warnings


def _form_pdf(shown: bytes) -> bytes:
    return pdf_file(_page_with(b"/Fm1 Do", b"", b"BT /F1 9 Tf 10 400 Td " + shown + b" Tj ET", b"0 0 600 800"))


def test_pdfminer_reads_the_text_of_form_xobjects(monkeypatch):
    # pdfminer's layout left the characters of a form XObject outside any text line
    # (an LTFigure), so its reading of such a page was empty: a page pdfium refused
    # lost that text without a word.
    import chunkctl.loaders.pdf.loader as pdf_loader
    from chunkctl.config import ChunkConfig
    from chunkctl.errors import LoaderError

    def refuse(data, source, password):
        raise LoaderError(source, "unreadable PDF: damaged beyond repair (truncated or corrupt structure)")

    monkeypatch.setattr(pdf_loader, "_open", refuse)
    doc = pdf_loader.load_pdf(_form_pdf(b"(Text drawn by a form.)"), "f.pdf", ChunkConfig(ocr="never"))
    assert doc.text.strip() == "Text drawn by a form."


def test_a_tall_page_of_many_short_strings_asks_no_object_for_its_text(monkeypatch):
    """helper-114: on a page of 16,383 characters or more, every text object was asked for its
    text to find the long ones, and pdfium searches the page's characters for each: 8,000 lines
    of one tall page took 21 s (60,000 passed the time limit). The characters are counted by
    their object in one pass now (1.9 s), with the same records as the object-by-object way."""
    import pypdfium2.raw as pdfium_c

    from chunkctl.config import ChunkConfig
    from chunkctl.loaders import load_bytes
    from tests.loaders.pdf_drawing import pdf_bytes

    n = 2000
    ops = [b"BT /F1 10 Tf 20 %d Td (line %d of the tall page with words) Tj ET" % (14 * (n - i), i) for i in range(n)]
    data = pdf_bytes([ops], media=(0, 0, 612, 14 * n + 28))
    asked = [0]
    real = pdfium_c.FPDFTextObj_GetText

    def counting(*args):
        asked[0] += 1
        return real(*args)

    monkeypatch.setattr(pdfium_c, "FPDFTextObj_GetText", counting)
    doc = load_bytes(data, "tall.pdf", "pdf", ChunkConfig())
    assert asked[0] < 50 and doc.text.count("of the tall page") == n
    monkeypatch.delattr(pdfium_c, "FPDFText_GetTextObject")  # (an older pdfium: each object asked)
    old = load_bytes(data, "tall.pdf", "pdf", ChunkConfig())
    assert asked[0] >= n and (old.text, list(old.blocks)) == (doc.text, list(doc.blocks))
