"""PDF loader: pypdfium2 text and pdfplumber ruled tables -> Document with pages joined by form feeds; never counts tokens."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkctl.errors import LoaderError
from chunkctl.loaders.headings import HeadingPath
from chunkctl.loaders.pdf import ocr
from chunkctl.loaders.pdf.fallback import drop_garbled, read_document, recover_text
from chunkctl.loaders.pdf.furniture import drop_furniture
from chunkctl.loaders.pdf.groups import Group, group_page
from chunkctl.loaders.pdf.headings import body_size, complete_outline, font_headings, outline_headings
from chunkctl.loaders.pdf.joining import Joiner, move_split_words, runs_on
from chunkctl.loaders.pdf.lines import merge_pieces, reading_order
from chunkctl.loaders.pdf.packed import PageGroups, pack_page, should_pack, unpack_page
from chunkctl.loaders.pdf.page import MAX_EDGES, Frame, Line, PageData, PageReader
from chunkctl.loaders.pdf.tables import Table, find_tables, find_text_tables
from chunkctl.loaders.pdf.toc import is_contents_title, mark_toc
from chunkctl.loaders.registry import register
from chunkctl.model import Block, BlockKind, BlockList, Document, Spans, compact_spans

# pdfium's FPDF_GetLastError codes (fpdfview.h).
_ERR_FILE, _ERR_FORMAT, _ERR_PASSWORD, _ERR_SECURITY = 2, 3, 4, 6
_JUNK_TITLE = re.compile(r"^(?:untitled|none|null|title|document\d*|microsoft word - .*|.*\.(?:pdf|docx?|txt|tex|dvi"
                         r"|qxd|indd|rtf|odt|ps|xlsx?|pptx?))$", re.I)
_SEP = "\n\n"


@register("pdf", ".pdf")
def load_pdf(data: bytes, source: str, config) -> Document:
    """Load a PDF: text of every page, tables, headings, lists and code as typed blocks.

    The document text is the pages' text joined by a form feed (U+000C), one per
    page break, so a character's page is 1 + the number of form feeds before it
    (a page without text still has its form feed). Inside a page, blocks are
    separated by a blank line; paragraphs are rebuilt from their lines (a line break
    inside a paragraph becomes a space, a word hyphenated at a line end is joined);
    tables are Markdown pipe tables; running headers, footers and page numbers are
    dropped. Offsets of blocks are in characters of that text.

    Args:
        data: the file's bytes.
        source: the path shown in records and messages.
        config: the run's options (`config.password` opens encrypted files).

    Returns:
        the Document; page-level problems (a scanned page without text, a page
        pdfium cannot read) are in `doc.warnings`.

    Raises:
        LoaderError: empty, unrecoverably damaged or not a PDF ("unreadable PDF:
            ..."), encrypted without the right password, or without any page.
    """
    try:
        pdf, protected = _open(data, source, getattr(config, "password", None))
    except LoaderError as exc:
        doc = _read_by_pdfminer(data, source, exc, getattr(config, "password", None))
        if doc is None:
            raise
        return doc
    try:
        n = len(pdf)
        if n == 0:
            raise LoaderError(source, "unreadable PDF: it has no pages")
        reader = PageReader()
        warnings: list[str] = []
        ocr_mode = getattr(config, "ocr", "auto")
        ocr_conf: list[float | None] = [None] * n
        pages = []
        chars = 0
        for i in range(n):
            p = _read_page(pdf, i, reader, warnings, ocr_mode, ocr_conf)
            chars += p.n_chars
            if should_pack(chars):  # (a big document: see chunkctl.loaders.pdf.packed)
                pack_page(p)
            pages.append(p)
        outline = _outline(pdf)
        labels = _page_labels(pdf, n)
        meta_title = _metadata_title(pdf)
    finally:
        pdf.close()
    recovered = recover_text(data, pages, getattr(config, "password", None), warnings)
    if recovered:  # those pages have a text layer after all
        gone = {f"page {i + 1} has no text layer" for i in recovered}
        warnings[:] = [w for w in warnings if not any(w.startswith(g) for g in gone)]
    warnings[:] = ocr.group_missing_text(warnings)
    drop_garbled(pages, {i for i, c in enumerate(ocr_conf) if c is not None}, warnings, ocr.available())
    text, blocks, first_heading = assemble(pages, outline, labels)
    meta: dict[str, Any] = {
        "title": meta_title or first_heading,  # None: the registry gives the file stem
        "encoding": "utf-8",
        "n_pages": n,
    }
    if labels:
        meta["page_labels"] = labels
    meta["ocr_confidence"] = ocr_conf  # per page: OCR confidence 0-1, None for a page read from its text layer
    read = [i + 1 for i, c in enumerate(ocr_conf) if c is not None]
    if read:
        warnings.append(ocr.used_warning(read, ocr_mode))
    # pages pdfium could not load (a truncated or damaged file): the document is written without
    # them and fails the run (helper-117: half a PDF was chunked, "ok", exit 0); not a page
    # without a text layer, which is read as it is
    return Document(source=source, format="pdf", text=text, blocks=blocks, meta=meta,
                    warnings=[w for w in warnings if not _UNREADABLE.match(w)], protected=protected,
                    lost=_unreadable_pages(warnings, n))


def _read_by_pdfminer(data: bytes, source: str, refused: LoaderError, password: str | None) -> Document | None:
    """The Document of a PDF pdfium refused as damaged (`refused`), read by pdfminer
    (`fallback.read_document`: text lines only, no tables or outline), with a warning; None
    when it was refused for another reason (encryption, not a PDF) or pdfminer cannot read
    any text of it either."""
    if refused.reason not in (_DAMAGED, _NO_PAGE_TREE):
        return None
    pages = read_document(data, password)
    if pages is None or not any(p.lines for p in pages):
        return None
    text, blocks, first_heading = assemble(pages, [])
    warning = (f"pdfium cannot open it ({refused.reason.removeprefix('unreadable PDF: ')}); "
               "its text was read by pdfminer, without tables")
    meta: dict[str, Any] = {"title": first_heading, "encoding": "utf-8", "n_pages": len(pages),
                            "ocr_confidence": [None] * len(pages)}
    return Document(source=source, format="pdf", text=text, blocks=blocks, meta=meta, warnings=[warning])


# -- opening ----------------------------------------------------------------------

# What `_open` says of a file pdfium cannot read at all (the cases pdfminer is tried on).
_DAMAGED = "unreadable PDF: damaged beyond repair (truncated or corrupt structure)"
_NO_PAGE_TREE = "unreadable PDF: no page that can be read (an empty or broken page tree)"

def _quiet_exit() -> None:
    """Keep pypdfium2 from writing "The following object was still open and will be closed now"
    to stderr at exit (it still closes the object): a run stopped by a signal while a page is
    open would end with that line, named after no file, after chunkctl's own last line."""
    import logging

    import pypdfium2_cfg

    level = getattr(pypdfium2_cfg, "DEBUG_AUTOCLOSE", None)
    if level is not None:
        level.value = max(level.value, logging.CRITICAL + 1)


def _open(data: bytes, source: str, password: str | None):
    """Open the bytes with pdfium (which rebuilds broken cross-reference tables).

    Returns:
        (the pdfium document, whether it needed the password to open).

    Raises:
        LoaderError: with a one-line reason.
    """
    import pypdfium2 as pdfium

    _quiet_exit()
    if not data:
        raise LoaderError(source, "unreadable PDF: the file is empty (0 bytes)")
    if b"%PDF" not in data[:1024]:
        raise LoaderError(source, "unreadable PDF: no %PDF header (not a PDF file)")
    protected = False
    try:
        try:
            return pdfium.PdfDocument(data), protected  # an empty user password opens it: not protected
        except pdfium.PdfiumError as exc:
            if getattr(exc, "err_code", None) != _ERR_PASSWORD or password is None:
                raise
        protected = True
        return pdfium.PdfDocument(data, password=password), protected
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code == _ERR_PASSWORD:
            if password is None:
                raise LoaderError(source, "encrypted PDF: a password is needed (give it with --password)") from None
            raise LoaderError(source, "encrypted PDF: the password is wrong") from None
        if code == _ERR_SECURITY:
            raise LoaderError(source, "encrypted PDF: unsupported security handler") from None
        if code == _ERR_FORMAT:
            raise LoaderError(source, _DAMAGED) from None
        if code == 0:  # pdfium refused it without naming an error ("PDFium: Success"): a page tree it cannot use
            raise LoaderError(source, _NO_PAGE_TREE) from None
        raise LoaderError(source, f"unreadable PDF: {exc}") from None


UNREADABLE_PAGE = " cannot be read"
"""What the line of a page pdfium could not load says after its number (`Document.lost`)."""
_UNREADABLE = re.compile(r"page (\d+)" + UNREADABLE_PAGE + r" \((.*)\); it is left empty$")


def _unreadable_pages(warnings: list[str], n: int) -> list[str]:
    """The lines of the pages pdfium could not load, one a reason: "pages 4-14 (11 of 14) cannot be
    read (Failed to load page.); the records are written without them" (a truncated file gave a
    line a page)."""
    out = []
    for why, numbers in ocr.pages_by_reason(warnings, _UNREADABLE).items():
        which = f"page {numbers[0]}" if len(numbers) == 1 else \
            f"pages {ocr.page_ranges(numbers)} ({len(numbers)} of {n})"
        out.append(f"{which}{UNREADABLE_PAGE} ({why}); the records are written without "
                   f"{'it' if len(numbers) == 1 else 'them'}")
    return out


def _read_page(pdf, i: int, reader: PageReader, warnings: list[str], ocr_mode: str = "never",
               ocr_conf: list[float | None] | None = None) -> PageData:
    """Read page i (0-based), find its tables, OCR it if `ocr_mode` says so (its confidence
    goes to `ocr_conf[i]`), close it; never raises for a bad page."""
    import pypdfium2 as pdfium

    try:
        page = pdf[i]
    except (pdfium.PdfiumError, OSError, ValueError) as exc:
        warnings.append(f"page {i + 1}{UNREADABLE_PAGE} ({exc}); it is left empty")
        return PageData(i, Frame(0))
    try:
        # pdfium orders a page's text as the page is shown, /Rotate applied: right where that turns
        # the text upright (its direction is the rotation), but lines drawn across a page shown
        # turned 90 degrees came last first (helper-48), and text drawn at 270 degrees on a page
        # shown as drawn too (helper-49). Such a page's text is read again with the page turned
        # so that its text stands upright (lines and boxes are in user space either way); OCR
        # sees it as shown.
        rotation = page.get_rotation()
        tp = page.get_textpage()
        try:
            pdata = reader.read(page, tp, i)
            if pdata.lines and pdata.frame.angle != rotation:
                tp.close()
                page.set_rotation(pdata.frame.angle)
                tp = page.get_textpage()
                pdata = reader.read(page, tp, i)
            if pdata.ruled:
                pdata.tables = find_tables(pdata, tp, pdata.text)
            pdata.tables += find_text_tables(pdata, tp, pdata.text)  # tables without ruling lines
            if pdata.tables:
                pdata.tables = [t for t in pdata.tables if _holds_its_text(t, pdata.lines)]
                _drop_table_lines(pdata)
        finally:
            tp.close()
            if page.get_rotation() != rotation:
                page.set_rotation(rotation)
        if ocr_mode != "never":
            _ocr_page(page, pdata, ocr_mode, ocr_conf, warnings)
    except pdfium.PdfiumError as exc:
        warnings.append(f"page {i + 1}{UNREADABLE_PAGE} ({exc}); it is left empty")
        pdata = PageData(i, Frame(0))
    finally:
        page.close()
    if pdata.too_many_edges:
        warnings.append(f"page {i + 1} draws over {MAX_EDGES} ruling lines; tables were not looked for on it")
    pdata.text = ""
    pdata.edges = []
    if ocr.no_text_layer(pdata):
        warnings.append(ocr.missing_text_warning(ocr_mode, i + 1))
    return pdata


def _ocr_page(page, pdata: PageData, mode: str, conf: list[float | None] | None, warnings: list[str]) -> None:
    """OCR one open page when `mode` asks for it (chunkctl.loaders.pdf.ocr); a failing engine is a warning."""
    try:
        c = ocr.apply(page, pdata, mode)
    except Exception as exc:  # the optional engine's own errors (onnxruntime, OpenCV): the page stays as read
        warnings.append(f"page {pdata.index + 1}: OCR failed ({type(exc).__name__}: {exc})")
        return
    if c is not None and conf is not None:
        conf[pdata.index] = c


TABLE_LOSS = 0.02
"""Share of the characters of the lines a table covers (3 at least) that its cells may miss: above
it, the table is no table and its lines stay text (`_holds_its_text`)."""


def _holds_its_text(table: Table, lines: list[Line]) -> bool:
    """True when `table`'s cells, captions and notes hold the characters (white space aside) of the
    page's lines whose centre lies in it, all but TABLE_LOSS of them: those lines are dropped for the
    table (`_drop_table_lines`). A grid drawn across a chart and its caption took the caption
    ("Figure 4: Logarithmic Scale Performance Comparison Across All Operations") into cells that held
    its ends only, and the words between were in no chunk (helper-116)."""
    covered: Counter[str] = Counter()
    for ln in lines:
        if table.contains((ln.x0 + ln.x1) / 2, (ln.top + ln.bottom) / 2):
            covered.update(ch for ch in ln.text if not ch.isspace())
    if not covered:
        return True
    held: Counter[str] = Counter()
    for cell in [*table.header, *(c for row in table.rows for c in row), *table.captions, *table.notes]:
        held.update(ch for ch in cell.replace("\\|", "|") if not ch.isspace())
    missing = sum((covered - held).values())
    return missing <= max(3, TABLE_LOSS * sum(covered.values()))


def _drop_table_lines(pdata: PageData) -> None:
    """Lines whose centre lies in a table are the table's text: they are emitted by the table."""
    keep = []
    for ln in pdata.lines:
        cx, cy = (ln.x0 + ln.x1) / 2, (ln.top + ln.bottom) / 2
        if not any(t.contains(cx, cy) for t in pdata.tables):
            keep.append(ln)
    pdata.lines = keep


def _outline(pdf) -> list[tuple[int, str, int, float | None]]:
    """Outline entries as (depth, title, page index, destination y in user space or None); the page index
    is -1 for an entry without a destination (looked for between its neighbours' pages)."""
    out: list[tuple[int, str, int, float | None]] = []
    try:
        for i, item in enumerate(pdf.get_toc(max_depth=8)):
            if i >= 5000:
                break
            title = (item.get_title() or "").strip()
            if not title:
                continue
            dest = item.get_dest()
            pidx = dest.get_index() if dest is not None else None
            if dest is None or pidx is None:
                out.append((int(item.level), title, -1, None))
                continue
            y = None
            mode, pos = dest.get_view()
            if mode == 1 and len(pos) >= 2 and pos[1]:  # XYZ: left, top, zoom
                y = float(pos[1])
            out.append((int(item.level), title, int(pidx), y))
    except Exception:  # a broken outline is not worth failing the file for
        return out
    return out


def _page_labels(pdf, n: int) -> list[str] | None:
    """Printed page labels (/PageLabels) per physical page, or None when the PDF defines none."""
    try:
        labels = [pdf.get_page_label(i) or "" for i in range(n)]
    except Exception:
        return None
    return labels if any(labels) else None


def _metadata_title(pdf) -> str | None:
    """The Info dictionary's /Title when it looks like a title (not a file name)."""
    try:
        title = (pdf.get_metadata_value("Title") or "").strip()
    except Exception:
        return None
    title = " ".join(title.replace("\x00", "").split())
    if not title or _JUNK_TITLE.match(title) or not any(ch.isalpha() for ch in title):
        return None
    return title


# -- the document text ---------------------------------------------------------------

@dataclass
class _OpenTable:
    """A table block being written (it may continue on the next page)."""

    start: int
    header: tuple[int, int]
    rows: Spans
    headings: tuple[str, ...]
    cells: list[str]
    col_x: list[float]
    pages: list[int] = field(default_factory=list)
    end: int = 0


class _Writer:
    """Appends block texts to the document text and records their spans."""

    def __init__(self) -> None:
        self.parts: list[str] = []  # the text since the last page break, and a part or two before it
        self.done: list[str] = []  # the text before those, one string a page
        self.pos = 0
        self.blocks = BlockList()  # (packed when there are many short ones: a page of short lines)
        self.page_has_text = False
        self.table: _OpenTable | None = None
        self._table_break: int | None = None  # index in parts of the "\n\f" after the open table
        # The last paragraph written, not yet a block while only page breaks follow it: the next
        # page's first paragraph may go on with it (`joining.runs_on`): (start, headings, text's end,
        # whether it may run on: body text whose last line runs to the margin, its end offset)
        self.held: tuple[int, tuple[str, ...], str, bool, int] | None = None

    def _put(self, s: str) -> None:
        self.parts.append(s)
        self.pos += len(s)

    def new_page(self) -> None:
        # The parts so far as one string (a part's own 57 bytes were more than its text: a
        # paragraph's line, a table's row); the last one stays for table_block to look at, and
        # the open table's page break for close_table.
        keep = len(self.parts) - 1
        if self._table_break is not None:
            keep = min(keep, self._table_break)
        if keep > 0:
            self.done.append("".join(self.parts[:keep]))
            del self.parts[:keep]
            if self._table_break is not None:
                self._table_break -= keep
        # After a table the form feed opens a line of its own: a Markdown parser reads a
        # form feed inside a line as cell text, not a row end, and drops the row after it
        # (a continuation's rows follow it; close_table adds a blank line for other blocks).
        if self.table is not None and not self.parts[-1].endswith("\f"):
            self._table_break = len(self.parts)
            self._put("\n\f")
        else:
            self._put("\f")
        self.page_has_text = False

    def _gap(self) -> None:
        if self.page_has_text:
            self._put(_SEP)
        self.page_has_text = True

    def _release(self) -> None:
        """Make the held paragraph a block (something other than its next page's paragraph follows)."""
        if self.held is not None:
            # (it ends where its text did: only page breaks were written since, however many pages;
            # helper-101: counted from the parts left, after two empty pages it took in form feeds)
            start, headings, end = self.held[0], self.held[1], self.held[4]
            self.blocks.append(Block(BlockKind.PARAGRAPH, start, end, headings=headings))
            self.held = None

    def close_table(self) -> None:
        self._release()
        t = self.table
        if t is None:
            return
        k = self._table_break
        if k is not None and k < len(self.parts) and all(p == "\f" for p in self.parts[k + 1:]):
            self.parts[k] = "\n\n\f"  # a blank line ends the table before the next page's block
            self.pos += 1
        self._table_break = None
        self.blocks.append(Block(BlockKind.TABLE, t.start, t.end, headings=t.headings, header=t.header,
                                 rows=compact_spans(t.rows), meta={"header_cells": t.cells, "columns": len(t.cells),
                                                            "pages": t.pages}))
        self.table = None

    def block(self, kind: BlockKind, text: str, headings: tuple[str, ...], level: int = 0,
              rows: Sequence[tuple[int, int]] = (), offsets: list[tuple[int, int]] | None = None,
              body: bool = False, runs: bool = False) -> None:
        """Write a block. A paragraph is held (`held`) until the next block: `runs`, it may run on
        over the page break; `body`, the first paragraph of a page may go on with the held one
        (both: body text, not a footnote, caption or folio; helper-100)."""
        held = self.held
        if kind == BlockKind.PARAGRAPH and held is not None and held[3] and body and not self.page_has_text \
                and self.pos - held[4] == 1 and runs_on(held[2], text):
            # the paragraph ending the last page goes on: one block across the form feed (one page
            # break since it, "\f": not over an empty page)
            self._put(text)
            self.page_has_text = True
            self.held = (held[0], held[1], text[-64:], runs, self.pos)
            return
        self.close_table()
        self._gap()
        start = self.pos
        self._put(text)
        if kind == BlockKind.PARAGRAPH:
            self.held = (start, headings, text[-64:], runs, self.pos)
            return
        if offsets is not None:
            rows = compact_spans((start + a, start + b) for a, b in offsets)
        self.blocks.append(Block(kind, start, self.pos, level=level, headings=headings, rows=rows))

    def table_block(self, table: Table, headings: tuple[str, ...], page: int) -> None:
        t = self.table
        if t is not None and table.continues:
            # Continuation on the next page: rows follow the form feed (see new_page).
            first = True
            for row in table.rows:
                if not first:
                    self._put("\n")
                first = False
                s = self.pos
                self._put(_md_row(row))
                t.rows.append((s, self.pos))
            t.end = self.pos
            t.pages.append(page + 1)
            self.page_has_text = True
            return
        self.close_table()
        if not self.page_has_text and len(self.parts) > 1 and self.parts[-1] == "\f" \
                and not self.parts[-2].endswith("\n"):
            # A table opening a page after text: a blank line before the form feed, or a Markdown
            # parser reads its header row as the end of the paragraph before it.
            self.parts[-1] = "\n\n\f"
            self.pos += 2
        self._gap()
        start = self.pos
        self._put(_md_row(table.header))
        self._put("\n")
        self._put(_md_row(["---"] * len(table.header)))
        header = (start, self.pos)
        rows = Spans()
        for row in table.rows:
            self._put("\n")
            s = self.pos
            self._put(_md_row(row))
            rows.append((s, self.pos))
        self.table = _OpenTable(start, header, rows, headings, list(table.header), list(table.col_x),
                                [page + 1], self.pos)

    def text(self) -> str:
        self.done.extend(self.parts)
        self.parts = []
        return "".join(self.done)


_FULL = 0.8
"""Share of a page's full line width (`_full_width`) from which a paragraph's last line runs to the
margin, so the paragraph may go on over the page break; a paragraph's own last line is shorter, and
so are a folio, an index entry, "Return type: bool" (helper-100)."""


def _full_width(groups: list[Group], body: float) -> float:
    """The width of a full line of body text on a page (points): the widest line of its paragraphs
    of two lines or more in the body's font size; 0 when it has none."""
    return max((ln.x1 - ln.x0 for g in groups if g.kind == "para" and len(g.lines) > 1
                for ln in g.lines if abs(ln.size - body) <= 0.5), default=0.0)


def _body_text(g: Group, body: float) -> bool:
    """Whether a paragraph group is body text, which may go on over a page break: its lines in
    the body's font size (within half a point of the most common), none monospaced. Footnotes,
    captions in a smaller size and code are not (helper-100: a footnote ending a page was joined
    to the next page's text)."""
    return all(abs(ln.size - body) <= 0.5 and not ln.mono for ln in g.lines)


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(c if c else " " for c in cells) + " |"


def _continues(prev: Table, cur: Table) -> bool:
    """Whether `cur` (first on its page) continues `prev` (last on the previous page)."""
    if cur.captions or len(cur.header) != len(prev.header):
        return False
    if len(cur.col_x) != len(prev.col_x):
        return False
    return all(abs(a - b) <= 4.0 for a, b in zip(cur.col_x, prev.col_x))


def _norm_cells(cells: list[str]) -> list[str]:
    return [" ".join(c.lower().split()) for c in cells]


def assemble(pages: list[PageData], outline: list[tuple[int, str, int, float | None]],
             labels: list[str] | None = None) -> tuple[str, BlockList, str | None]:
    """Turn read pages into the document text and its blocks.

    Steps: drop page furniture; join pieces of printed lines; order each page for
    reading; cut it into groups; find headings (outline entries when the PDF has an
    outline, else font size and weight); move words hyphenated across pages; write
    each page's blocks separated by blank lines, pages separated by form feeds.

    Args:
        pages: the read pages, in order.
        outline: (depth, title, page index, destination y or None) per outline entry.
        labels: printed page labels per page, when the PDF defines them.

    Returns:
        (document text, blocks with character spans, first heading's title or None); the
        pages' lines and tables are let go (each page's as soon as it is written).
    """
    drop_furniture(pages, labels)
    # a big document's groups are packed between passes, as its pages were (chunkctl.loaders.pdf.packed)
    groups_by_page = PageGroups(packed=any(p.packed is not None for p in pages))
    for p in pages:
        unpack_page(p)
        p.lines = merge_pieces(p.lines)
        groups_by_page.append(group_page(reading_order(p), p.index))
        p.lines = []  # the groups hold the lines now, and each page's go once it is written
        p.stray = []
        p.tables = []
    body = body_size(g for gs in groups_by_page.reading() for g in gs)
    matched = outline_headings(groups_by_page, outline, pages, body) if outline else 0
    if not matched:
        font_headings(groups_by_page, body)
    else:
        complete_outline(groups_by_page, body)
    mark_toc(groups_by_page, outline)
    joiner = Joiner(ln.text + ("-" if ln.hyphen else "")
                    for gs in groups_by_page.reading() for g in gs for ln in g.lines)
    move_split_words(groups_by_page, joiner)

    w = _Writer()
    path = HeadingPath()
    first_heading = None
    last_table: Table | None = None
    for pi in range(len(groups_by_page)):
        groups = groups_by_page.take(pi)
        if pi:
            w.new_page()
        full = _full_width(groups, body)
        gi = 0
        while gi < len(groups):
            g = groups[gi]
            heads = path.titles
            if g.kind == "table":
                t = g.table
                assert t is not None  # a "table" group always carries its table (groups._cut)
                if gi == 0 and last_table is not None and w.table is not None and _continues(last_table, t):
                    t.continues = True
                    if _norm_cells(t.header) != _norm_cells(last_table.header):
                        t.rows = [t.header] + t.rows
                for cap in t.captions:
                    w.block(BlockKind.PARAGRAPH, cap, heads)
                w.table_block(t, heads, pi)
                last_table = t
                for note in t.notes:
                    w.block(BlockKind.PARAGRAPH, note, heads)
                    last_table = None
                gi += 1
                continue
            last_table = None
            if g.kind == "heading":
                text = joiner.join(g.lines)
                if not text:
                    gi += 1
                    continue
                path.enter(g.level, g.title or text)
                if first_heading is None and not is_contents_title(g.title or text):
                    first_heading = g.title or text  # the document's title, never "Contents"
                w.block(BlockKind.HEADING, text, path.titles, level=g.level)
            elif g.kind == "code":
                text = _code_text(g.lines)
                if text:
                    w.block(BlockKind.CODE, text, heads)
            elif g.kind == "item":
                items = []
                while gi < len(groups) and groups[gi].kind == "item":
                    s = joiner.join(groups[gi].lines)
                    if s:
                        items.append(s)
                    gi += 1
                if items:
                    offsets = []
                    pos = 0
                    for s in items:
                        offsets.append((pos, pos + len(s)))
                        pos += len(s) + 1
                    w.block(BlockKind.LIST, "\n".join(items), heads, offsets=offsets)
                continue
            else:
                text = joiner.join(g.lines)
                if text:
                    plain = _body_text(g, body)
                    last = g.lines[-1]
                    w.block(BlockKind.PARAGRAPH, text, heads, body=plain,
                            runs=plain and full > 0 and last.x1 - last.x0 >= _FULL * full)
            gi += 1
        if groups and groups[-1].kind != "table":
            last_table = None
    w.close_table()
    return w.text(), w.blocks, first_heading


def _code_text(lines: list[Line]) -> str:
    """Monospaced lines with their indentation restored from their x positions."""
    widths = [ln.width / len(ln.text) for ln in lines if len(ln.text.strip()) >= 4 and ln.width > 0]
    cw = sorted(widths)[len(widths) // 2] if widths else 0.0
    left = min(ln.x0 for ln in lines)
    out = []
    for ln in lines:
        t = ln.text.strip()
        if not t:
            continue
        indent = int(round((ln.x0 - left) / cw)) if cw > 0 else 0
        out.append(" " * min(indent, 80) + t)
    return "\n".join(out)
