"""OCR of PDF pages without a text layer (issue 16, item 2): a page drawn here, put in a PDF as an image, read back."""

from __future__ import annotations

import io
import re

import pytest

from chunkctl.config import ChunkConfig
from chunkctl.errors import ConfigError, MissingExtraError
from chunkctl.loaders.pdf import ocr
from chunkctl.pipeline import chunk_records, load
from chunkctl.pipeline.document import prepare
from tests.conftest import pdf_file

needs_ocr = pytest.mark.skipif(not ocr.available(), reason="the OCR extra is not installed: pip install 'chunkctl[ocr]'")

LINES = [
    "Harbour Office Annual Report",
    "Ships arrived in March: 1234, of which 87 were tankers.",
    "The quick brown fox jumps over the lazy dog.",
    "Dredging of the north basin ends in October.",
]


def scanned_pdf(lines: list[str], pages: int = 1) -> bytes:
    """A PDF whose pages are images of text (200 dpi, A5-like): no text layer at all."""
    from PIL import Image, ImageDraw, ImageFont

    try:
        font = ImageFont.truetype("DejaVuSans.ttf", 34)
    except OSError:
        font = ImageFont.load_default(size=34)
    images = []
    for p in range(pages):
        img = Image.new("L", (1240, 1000), 255)
        draw = ImageDraw.Draw(img)
        for i, line in enumerate(lines):
            draw.text((90, 100 + 90 * i), line if p == 0 else f"{line} (page {p + 1})", fill=0, font=font)
        images.append(img)
    buf = io.BytesIO()
    images[0].save(buf, format="PDF", resolution=200.0, save_all=True, append_images=images[1:])
    return buf.getvalue()


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def write(tmp_path, data: bytes, name: str = "scan.pdf"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@needs_ocr
def test_a_drawn_scanned_page_is_read_with_ocr(tmp_path):
    path = write(tmp_path, scanned_pdf(LINES))
    doc = load(path, ChunkConfig())
    # (said once: the text may hold recognition errors, and OCR is what takes the memory; helper-88)
    assert doc.warnings == ["page 1 read with OCR, having no text layer: the text may hold recognition errors, "
                            "and OCR takes some 300-1,000 MB of memory (--ocr never turns it off)"]
    want = words(" ".join(LINES))
    got = words(doc.text)
    hits = sum(1 for w in want if w in got)
    assert hits / len(want) >= 0.95, doc.text
    assert "1234" in doc.text and "tankers" in doc.text
    # Ordinary blocks in reading order.
    assert doc.text.index("Harbour") < doc.text.index("Ships") < doc.text.index("quick") < doc.text.index("Dredging")
    assert doc.blocks and all(doc.text[b.start:b.end].strip() for b in doc.blocks)
    recs = chunk_records(doc, ChunkConfig(chunk_size=64, overlap=0))
    assert recs and all(r["meta"]["ocr"] is True for r in recs)
    assert all(80 <= r["meta"]["ocr_confidence"] <= 100 for r in recs)
    assert all(r["page_start"] == r["page_end"] == 1 for r in recs)


def text_pdf(text: str) -> bytes:
    """A one-page PDF with one line of real text (Helvetica), written by hand."""
    stream = f"BT /F1 12 Tf 50 500 Td ({text}) Tj ET".encode("latin-1")
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 595] /Resources << /Font << /F1 4 0 R >> >> "
            b"/Contents 5 0 R >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"]
    return pdf_file(objs)


@needs_ocr
def test_only_pages_without_text_are_read_in_auto_mode(tmp_path):
    import pypdfium2 as pdfium

    # Page 1: a real text layer; page 2: a scan.
    pdf = pdfium.PdfDocument(text_pdf("Typed text on the first page."))
    pdf.import_pages(pdfium.PdfDocument(scanned_pdf(LINES[:2])))
    buf = io.BytesIO()
    pdf.save(buf)
    path = write(tmp_path, buf.getvalue(), "mixed.pdf")
    doc = load(path, ChunkConfig())
    first, second = doc.text.split("\f")
    assert first == "Typed text on the first page."
    assert "Harbour" in second and "tankers" in second
    recs = chunk_records(doc, ChunkConfig(chunk_size=8, overlap=0))
    typed = [r["meta"] for r in recs if r["page_end"] == 1]
    scanned = [r["meta"] for r in recs if r["page_start"] == 2]
    assert typed and all(m["ocr"] is False and m["ocr_confidence"] is None for m in typed)
    assert scanned and all(m["ocr"] is True and m["ocr_confidence"] >= 80 for m in scanned)
    # A chunk over both pages has OCR text in it.
    assert all(r["meta"]["ocr"] is True for r in recs if r["page_start"] == 1 and r["page_end"] == 2)
    # --ocr always reads the typed page with OCR too.
    assert [w.split(",")[0] for w in doc.warnings] == ["page 2 read with OCR"]
    doc = load(path, ChunkConfig(ocr="always"))
    assert [w.split(",")[0] for w in doc.warnings] == ["2 pages (from page 1) read with OCR"]
    assert doc.text.split("\f")[0] == "Typed text on the first page."
    assert all(c is not None for c in doc.meta["ocr_confidence"])


def test_never_keeps_the_page_empty_and_says_why(tmp_path):
    path = write(tmp_path, scanned_pdf(LINES[:1]))
    doc = load(path, ChunkConfig(ocr="never"))
    assert doc.text.strip() == ""
    assert doc.warnings == ["page 1 has no text layer (OCR is off: --ocr never)"]


def test_pages_without_a_text_layer_are_named_in_one_warning(tmp_path, monkeypatch):
    # helper-102: a scanned paper of 28 pages gave 28 warnings with --ocr never
    path = write(tmp_path, scanned_pdf(LINES[:1], pages=5))
    doc = load(path, ChunkConfig(ocr="never"))
    assert doc.warnings == ["5 pages (1-5) have no text layer (OCR is off: --ocr never)"]
    monkeypatch.setattr(ocr, "available", lambda: False)
    doc = load(path, ChunkConfig())
    assert doc.warnings == ["5 pages (1-5) have no text layer; OCR needs the optional package rapidocr-onnxruntime: "
                            "pip install 'chunkctl[ocr]'"]


def test_page_numbers_are_given_as_ranges():
    assert ocr.page_ranges([1, 2, 3, 7, 9, 10]) == "1-3, 7, 9-10"
    assert ocr.page_ranges([4]) == "4"
    warnings = ["page 2 has no text layer (OCR is off: --ocr never)", "other",
                "page 3 has no text layer (OCR is off: --ocr never)", "page 5 has no text layer (OCR is off: --ocr never)",
                "page 7 has no text layer and OCR found no text on it"]
    assert ocr.group_missing_text(warnings) == [
        "3 pages (2-3, 5) have no text layer (OCR is off: --ocr never)", "other",
        "page 7 has no text layer and OCR found no text on it"]


def test_without_the_extra_auto_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setattr(ocr, "available", lambda: False)
    path = write(tmp_path, scanned_pdf(LINES[:1]))
    doc = load(path, ChunkConfig())
    assert doc.text.strip() == ""
    assert doc.warnings == ["page 1 has no text layer; OCR needs the optional package rapidocr-onnxruntime: "
                            "pip install 'chunkctl[ocr]'"]
    with pytest.raises(MissingExtraError, match=r"chunkctl\[ocr\]"):
        prepare(ChunkConfig(ocr="always"))


def test_the_option_is_checked_and_auto_keeps_old_fingerprints():
    with pytest.raises(ConfigError, match="--ocr 'sometimes' is not one of: auto, always, never"):
        ChunkConfig(ocr="sometimes")
    assert "ocr" not in ChunkConfig().to_dict()
    assert ChunkConfig(ocr="never").fingerprint() != ChunkConfig().fingerprint()


def test_text_pages_records_say_no_ocr(tmp_path):
    from tests.conftest import ROOT

    pdfs = sorted((ROOT / "examples").glob("*.pdf"))
    assert pdfs
    recs = chunk_records(load(pdfs[0], ChunkConfig()), ChunkConfig(chunk_size=128, overlap=0))
    assert recs and all(r["meta"]["ocr"] is False and r["meta"]["ocr_confidence"] is None for r in recs)
    md = chunk_records(load(ROOT / "README.md", ChunkConfig()), ChunkConfig(chunk_size=512, overlap=0))
    assert all(r["meta"]["ocr"] is None for r in md)


def test_the_cli_and_the_config_file_take_the_option(tmp_path):
    from tests.conftest import run_cli

    path = write(tmp_path, scanned_pdf(LINES[:1]))
    (tmp_path / "chunkctl.toml").write_text('ocr = "never"\n', "utf-8")
    res = run_cli("chunk", str(path), "-o", str(tmp_path / "out.jsonl"), "--config", str(tmp_path / "chunkctl.toml"))
    assert "page 1 has no text layer (OCR is off: --ocr never)" in res.stderr.decode()
    res = run_cli("chunk", str(path), "--ocr", "sometimes", "-o", str(tmp_path / "out.jsonl"))
    assert res.returncode == 2 and "--ocr 'sometimes' is not one of" in res.stderr.decode()
