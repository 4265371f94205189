"""PDF OCR: text lines of a page rendered to an image, read by RapidOCR (extra chunkctl[ocr]); no layout, no tokens.

The engine is rapidocr-onnxruntime (Apache-2.0): PaddleOCR's PP-OCRv4 detection and
recognition models and its direction classifier, converted to ONNX and shipped
inside the wheel, run by onnxruntime on the CPU. Nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from typing import Any

from chunkctl.allocator import large_buffers_from_heap
from chunkctl.cores import worker_share
from chunkctl.loaders.pdf.page import Frame, Line, PageData, clean_text

MODES = ("auto", "always", "never")
"""`--ocr` values: auto (pages without a text layer, when the extra is installed), always, never."""

PACKAGE = "rapidocr-onnxruntime"
MODULE = "rapidocr_onnxruntime"
# Rendering resolution: 200 dpi, but at most MAX_SIDE pixels on the long side (the
# engine scales larger images down to 2000 pixels before detection anyway).
DPI = 200.0
MAX_SIDE = 2000
# A blank gap in a text line wider than this fraction of the line box's height is a word space.
SPACE_GAP = 0.22

_ENGINE: Any = None


def available() -> bool:
    """Whether the OCR engine (rapidocr-onnxruntime) is installed."""
    return importlib.util.find_spec(MODULE) is not None


def wanted(mode: str, pdata: PageData) -> bool:
    """Whether to OCR a page read from its text layer.

    Args:
        mode: "auto" (a page without any text that draws an image, when the engine
            is installed), "always" (every page) or "never".
        pdata: the page as `PageReader` read it.
    """
    if mode == "never":
        return False
    if mode == "always":
        return True
    return no_text_layer(pdata) and available()


def no_text_layer(pdata: PageData) -> bool:
    """A page that draws an image but has no text at all (a scan without an OCR layer)."""
    return not pdata.lines and not pdata.tables and not pdata.stray and pdata.has_images


def threads() -> int:
    """Threads onnxruntime may use in this process: its share of the cores among the worker
    processes of a run (`chunkctl.cores.worker_share`), at least 1.

    Each of two workers on two cores running onnxruntime's default (a thread per core, which
    spin while they wait) made `--jobs 2` slower than `--jobs 1` on scanned PDFs (helper-47:
    21.6-23.7 s against 15.3-16.0 s for five of them).
    """
    return worker_share()


def _engine() -> Any:
    """The process's RapidOCR instance (made once: loading the models takes about a second)."""
    global _ENGINE
    if _ENGINE is None:
        from rapidocr_onnxruntime import RapidOCR

        n = threads()
        _ENGINE = RapidOCR(intra_op_num_threads=n, inter_op_num_threads=n)
    return _ENGINE


@dataclass(slots=True)
class OcrPage:
    """What OCR read on one page.

    Attributes:
        lines: text lines in the engine's order (upright frame of the rendered page, points).
        frame: that frame: angle 0, the page as displayed (its /Rotate applied).
        confidence: mean recognition confidence of the page's text, weighted by
            characters, 0-1; None when nothing was read.
    """

    lines: list[Line]
    frame: Frame
    confidence: float | None


def read_page(page, index: int) -> OcrPage:
    """Render one page and read its text with OCR.

    Each text box the engine finds becomes a `Line` whose box is the detected
    quadrilateral's bounding box in points (pixels / scale), so the layout steps
    (reading order, paragraphs, headings by size) treat it like a text-layer line.
    The font size is taken as 0.8 of the box height (boxes include ascender and
    descender room).

    Args:
        page: an open `pypdfium2.PdfPage`.
        index: 0-based page number (recorded nowhere; for messages).

    Returns:
        the page's OCR lines, frame and confidence.

    Raises:
        ImportError: the extra is not installed (`pip install 'chunkctl[ocr]'`).
    """
    import numpy as np

    w, h = page.get_size()  # points, /Rotate applied
    scale = min(DPI / 72.0, MAX_SIDE / max(w, h, 1.0))
    bitmap = page.render(scale=scale, grayscale=True)  # text needs no colour; the engine takes a grey image
    try:
        img = np.ascontiguousarray(bitmap.to_numpy().reshape(bitmap.height, bitmap.width))
        with large_buffers_from_heap():  # its tensors, freed and made again at every step
            result, _ = _engine()(img, return_word_box=True)
    finally:
        bitmap.close()
    frame = Frame(0, 0.0, 0.0, float(w), float(h))
    lines: list[Line] = []
    weight = total = 0.0
    for order, item in enumerate(result or []):
        box, text, score = item[0], str(item[1]), item[2]
        if len(item) > 3:
            text = restore_spaces(img, box, text, item[3])
        text = clean_text(text).strip()
        if not text:
            continue
        xs = [float(p[0]) / scale for p in box]  # (plain floats: a packed page keeps no numpy number)
        ys = [float(p[1]) / scale for p in box]
        x0, x1, top, bottom = max(0.0, min(xs)), min(float(w), max(xs)), max(0.0, min(ys)), min(float(h), max(ys))
        if x1 <= x0 or bottom <= top:
            continue
        size = max(1.0, 0.8 * (bottom - top))
        lines.append(Line(text, x0, top, x1, bottom, size, order=order, base=bottom))
        n = len(text) - text.count(" ")
        weight += float(score) * n
        total += n
    return OcrPage(lines, frame, weight / total if total else None)


def apply(page, pdata: PageData, mode: str) -> float | None:
    """OCR one page when `mode` asks for it, replacing the lines read from its text layer.

    With "always" the page's text-layer lines and tables are dropped for the OCR
    lines; with "auto" only pages without any text (`no_text_layer`) are read.

    Args:
        page: the open `pypdfium2.PdfPage` of `pdata`.
        pdata: the page as read from its text layer; updated in place (lines,
            frame, tables, stray lines).
        mode: one of MODES.

    Returns:
        the OCR confidence of the page (0-1), or None when the page was not read
        with OCR or OCR found no text.
    """
    if not wanted(mode, pdata):
        return None
    got = read_page(page, pdata.index)
    if not got.lines:
        return None
    pdata.lines = got.lines
    pdata.frame = got.frame
    pdata.tables = []
    pdata.stray = []
    return got.confidence if got.confidence is not None else 0.0


def restore_spaces(img, box, text: str, char_boxes) -> str:
    """Put back word spaces the recogniser left out, from blank pixel columns in the line image.

    PP-OCR's recogniser often drops the space after punctuation or digits
    ("inMarch:1234,ofwhich"). A run of ink-free columns wider than SPACE_GAP of the
    line's box height between two characters (placed by the engine's per-character
    boxes) is a word space.

    Args:
        img: the grey page image (rows, columns; 0 black).
        box: the line's quadrilateral (pixels).
        text: the recognised text.
        char_boxes: one quadrilateral per character of `text` (pixels).

    Returns:
        the text with the missing spaces inserted (unchanged when the boxes do not match).
    """
    if len(char_boxes) != len(text) or len(text) < 2:
        return text
    xs = [p[0] for p in box]
    ys = [p[1] for p in box]
    x0, x1 = max(0, int(min(xs))), min(img.shape[1], int(max(xs)) + 1)
    top, bottom = max(0, int(min(ys))), min(img.shape[0], int(max(ys)) + 1)
    height = bottom - top
    if height < 8 or x1 - x0 < 8:
        return text
    ink = (img[top:bottom, x0:x1] < 128).any(axis=0)
    gaps = []
    run = 0
    for i, has_ink in enumerate(ink.tolist() + [True]):
        if not has_ink:
            run += 1
            continue
        if run >= SPACE_GAP * height and run < i:  # not the blank margin before the first glyph
            gaps.append(x0 + i - run / 2)
        run = 0
    if not gaps:
        return text
    centres = [sum(p[0] for p in cb) / len(cb) for cb in char_boxes]
    out = []
    for i, ch in enumerate(text):
        out.append(ch)
        if i + 1 < len(text) and not ch.isspace() and not text[i + 1].isspace():
            if any(centres[i] < g < centres[i + 1] for g in gaps):
                out.append(" ")
    return "".join(out)


def used_warning(page_numbers: list[int], mode: str = "auto") -> str:
    """The note for a document some of whose pages were read with OCR (1-based `page_numbers`,
    at least one; `mode` as in `wanted`): that its text may hold recognition errors, and that
    OCR is what costs the memory (the engine takes 300-1,030 MB a process whatever the file's
    size; helper-88 took a scanned PDF's 850 MB for a breach of the memory bound, nothing having
    said OCR ran)."""
    which = f"page {page_numbers[0]}" if len(page_numbers) == 1 else \
        f"{len(page_numbers)} pages (from page {page_numbers[0]})"
    why = "as --ocr always asks" if mode == "always" else "having no text layer"
    return (f"{which} read with OCR, {why}: the text may hold recognition errors, and OCR "
            f"takes some 300-1,000 MB of memory (--ocr never turns it off)")


_MISSING = re.compile(r"page (\d+) has no text layer(.*)\Z", re.S)


def page_ranges(numbers: list[int]) -> str:
    """Page numbers in order as ranges: [1, 2, 3, 7, 9, 10] -> "1-3, 7, 9-10"."""
    out: list[str] = []
    i = 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        out.append(str(numbers[i]) if i == j else f"{numbers[i]}-{numbers[j]}")
        i = j + 1
    return ", ".join(out)


def pages_by_reason(lines: list[str], pattern: re.Pattern) -> dict[str, list[int]]:
    """The page numbers of the `lines` that `pattern` matches (group 1: the page number, group 2: the
    reason), by reason, in order."""
    pages: dict[str, list[int]] = {}
    for w in lines:
        m = pattern.match(w)
        if m:
            pages.setdefault(m.group(2), []).append(int(m.group(1)))
    return pages


def group_missing_text(warnings: list[str]) -> list[str]:
    """`warnings` with the `missing_text_warning`s of one reason made one, where the first was:
    "28 pages (1-28) have no text layer (OCR is off: --ocr never)" (helper-102: a scanned paper
    gave a line a page)."""
    pages = pages_by_reason(warnings, _MISSING)
    out = []
    for w in warnings:
        m = _MISSING.match(w)
        if m is None or len(pages[m.group(2)]) == 1:
            out.append(w)
        elif pages[m.group(2)][0] == int(m.group(1)):
            numbers = pages[m.group(2)]
            out.append(f"{len(numbers)} pages ({page_ranges(numbers)}) have no text layer{m.group(2)}")
    return out


def missing_text_warning(mode: str, page_number: int) -> str:
    """The warning for a page that draws an image but gave no text, naming why OCR did not help."""
    if mode == "never":
        return f"page {page_number} has no text layer (OCR is off: --ocr never)"
    if not available():
        return (f"page {page_number} has no text layer; OCR needs the optional package {PACKAGE}: "
                f"pip install 'chunkctl[ocr]'")
    return f"page {page_number} has no text layer and OCR found no text on it"
