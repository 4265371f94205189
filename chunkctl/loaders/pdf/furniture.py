"""PDF page furniture: running headers, footers and page numbers found across pages and dropped; no PDF parsing, no tokens."""

from __future__ import annotations

import math
import re
from array import array
from collections import defaultdict

from chunkctl.loaders.pdf.headings import text_size
from chunkctl.loaders.pdf.lines import MARGIN
from chunkctl.loaders.pdf.packed import lines_of, unpacked
from chunkctl.loaders.pdf.page import PageData

# A page number alone: "12", "- 12 -", "Page 3 of 9", "iv".
_BARE = r"^\W{0,3}(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?\W{0,3}$"
_PAGE_NUMBER = re.compile(
    _BARE +
    r"|^\W{0,3}(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,7})\s.{0,80}$"
    # (a running title set apart from its number by a wide gap pdfium gave no space: "2Optimized ZK...",
    # LaTeX's \thepage\hfil\leftmark, helper-116)
    r"|^(\d{1,4})(?-i:[A-Z])\D{2,116}$"
    r"|^.{0,80}\b(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?\W{0,3}$",
    re.I,
)
_DIGITS = re.compile(r"\d+")
_BARE_NUMBER = re.compile(_BARE, re.I)
_NUMBER_FIRST = re.compile(r"^\W{0,3}(?:\d{1,4}|[ivxlcdm]{1,7})\.?\s+\w", re.I)
_PAGE_WORD = re.compile(r"^(?:page|p\.|seite|página|pagina)\s*", re.I)
_SPACES = re.compile(r"\s+")
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def _roman_value(s: str) -> int | None:
    s = s.lower()
    if not s or any(c not in _ROMAN for c in s):
        return None
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = _ROMAN[a]
        total += -v if b != " " and _ROMAN[b] > v else v
    return total if total > 0 else None


def _page_number_value(text: str) -> int | None:
    m = _PAGE_NUMBER.match(text.strip())
    if not m:
        return None
    raw = next(g for g in m.groups() if g)
    if raw.isdigit():
        return int(raw)
    return _roman_value(raw)


BODY_SHARE = 0.5
"""Share of a page's characters above which the lines that repeat off its margins (same
text at the same height on 40% of the pages) are its content, kept: helper-59's font
specimen (pdf.js standard_fonts.pdf) lost each page's whole character table that way."""

SHORT_PDF = 10
"""Pages up to which a number that runs with the page on 2 pages in a row is taken for a
page number (an excerpt, a scan of a few pages); in longer documents that is chance (an
index whose pages open with "..., 10" and "..., 11")."""


HEADING_SIZE = 1.15
"""Font size, relative to the page's text (`headings.text_size`), above which a line that opens with a number
and says more is not taken for the page's number (a section heading that opens the page)."""


def _key(text: str, bucket: int) -> int:
    """The key of a line's text at a height bucket. The bucket is shifted to be positive: in
    CPython hash(-1) == hash(-2), so buckets -1 and -2 (lines centred just above the page's
    top edge) would share their pages (helper-64)."""
    return hash((text, bucket + (1 << 40)))


def _add(table: dict[int, int | set[int]], key: int, page: int) -> None:
    """Note that the line of `key` is on `page` (0-based): an int for one page, a set for more."""
    got = table.get(key)
    if got is None:
        table[key] = page
    elif isinstance(got, int):
        if got != page:
            table[key] = {got, page}
    else:
        got.add(page)


def _seen(table: dict[int, int | set[int]], text: str, bucket: int) -> set[int]:
    """The pages on which `text` stands in `bucket` or a bucket next to it."""
    pages_seen: set[int] = set()
    for b in (bucket - 1, bucket, bucket + 1):
        got = table.get(_key(text, b))
        if got is None:
            continue
        if isinstance(got, int):
            pages_seen.add(got)
        else:
            pages_seen |= got
    return pages_seen


def _repeated(keys: array, texts: array, pages: array, least: int) -> dict[int, int | set[int]]:
    """The page sets (as `_add` makes them) of the line keys `keys` (on `pages`) whose text (hash
    in `texts`) stands on `least` lines or more, wherever on their pages: the others cannot reach
    `least` pages in three height buckets. Texts are counted in a table of one to two slots a
    line (4 bytes a slot); two texts in one slot add up, which only lets more keys in."""
    size = 1 << max(10, len(texts).bit_length())
    mask = size - 1
    counts = array("I", bytes(4 * size))
    for t in texts:
        counts[t & mask] += 1
    keyed: dict[int, int | set[int]] = {}
    for k, t, page in zip(keys, texts, pages):
        if counts[t & mask] >= least:
            _add(keyed, k, page)
    return keyed


def drop_furniture(pages: list[PageData], labels: list[str] | None = None) -> int:
    """Remove running headers, footers, page numbers and margin numbering, in place.

    A line is in a page's margin when it lies in the top or bottom 12% of the page
    or is one of the two top-most or bottom-most lines of a page of six lines or
    more. Dropped are lines that (a) repeat with the same text at the same height
    on at least 40% of the pages (3 or more), (b) sit in the margin and repeat there
    (digits ignored in lines of up to 60 characters) on 3 pages within 6 pages in a row
    (in a document of 2 pages: in the top or bottom 12% of both, with the same text),
    (c) sit in the margin and carry a number that runs with the physical page
    number at the same end of 3 pages within 6 in a row, or of 2 pages in a row in a
    document of up to SHORT_PDF pages (the printed page number, alone or beside a running
    title; a line in the margin only as one of the two outer lines of its page must be a
    number alone; of several such lines at one end of a page, the outermost; on a page they
    would leave empty, only the number alone), or (d) sit in the margin and read as the page's label from /PageLabels.
    Lines that only repeat (a) off the margin are kept on a page where they hold more than
    BODY_SHARE of its characters (the same content on every page: a font specimen, a
    form's boxes). A page whose every line would go keeps them (what repeats is then the content), unless
    most of its glyphs could not be read (`unreadable`: the footer is then all that is left of
    the page, not what it says). Needs
    2 pages or more. Lines that open a few scattered pages ("Definition 20" on pages 24,
    32 and 63 of a book) or end in a number by chance are content.

    Lines are known by their page and their index in it, so a packed page
    (`chunkctl.loaders.pdf.packed`) is unpacked one at a time, and again only to drop lines.

    Args:
        pages: the read pages (their `lines` are filtered).
        labels: printed page labels per physical page, when the PDF defines them.

    Returns:
        the number of lines dropped.
    """
    n = len(pages)
    if n < 2:
        return 0
    # Page sets keyed by hash((text, height bucket)): an int while the text is on one page, a set
    # from the second; no copy of a line's text is kept (a 2,000-page book's 140,000 lines took 87 MB
    # here as strings, tuples and one set each). Two texts of one hash would share a set: odds
    # about lines^2 / 2^64. Every line's key is first noted in arrays (20 bytes a line), and only
    # the keys of texts seen on repeat_min lines or more go into `keyed` (_repeated): a dict entry
    # took some 100 bytes a line, 81 MB for the 780,000 lines of an 8,000-page book.
    line_keys, line_texts, line_pages = array("q"), array("q"), array("i")
    zone_keyed: dict[int, int | set[int]] = {}
    pair_keyed: dict[int, int | set[int]] = {}  # (2 pages: the exact texts in the top and bottom 12%)
    offsets: dict[tuple[int, bool], set[int]] = defaultdict(set)
    # the outermost line of a page that reads as its number, per end: a page prints one number there
    # (the "4" of a slide's "4th Gen", set apart by pdfium on page 4 above the real "4", is text)
    outermost: dict[tuple[int, tuple[int, bool]], tuple[float, int, bool]] = {}
    facts = []  # lines in a margin: all rules apply; a line off the margins is read again for rule (a)
    for p in pages:
        h = p.frame.height or 1.0
        lines = lines_of(p)
        by_height = sorted(lines, key=lambda ln: ln.top)
        edge_ids = {id(ln) for ln in by_height[:2] + by_height[-2:]} if len(by_height) >= 6 else set()
        label = labels[p.index].strip().lower() if labels and p.index < len(labels) else ""
        body_size = text_size(lines)
        for li, ln in enumerate(lines):
            text = ln.text.strip()
            if len(text) > 120:
                continue
            exact = _SPACES.sub(" ", text.lower())
            cy = (ln.top + ln.bottom) / 2
            bucket = int(cy // 4)
            line_keys.append(_key(exact, bucket))
            line_texts.append(hash(exact))
            line_pages.append(p.index)
            band = cy < MARGIN * h or cy > (1 - MARGIN) * h
            if not (band or id(ln) in edge_ids):
                continue
            # (a line in the zone only as one of a page's two outer lines counts as a page number
            # when it is a number alone: a table of contents' first entry, "1 Topology 2", is not)
            bare = _BARE_NUMBER.match(text)
            # (nor is a line that opens with its number, then words, in a larger font than the page's
            # text: a section heading "3 Methodology" opening page 5 of an article whose sections each
            # open a page runs with the page too, helper-116; a book's running title "12 Chapter One"
            # is set no larger than its text, and a reference card's "OpenMP API 5.2 Page 1" in a
            # larger font ends with its number)
            heading = not bare and ln.size > HEADING_SIZE * body_size and _NUMBER_FIRST.match(text)
            value = _page_number_value(text) if ((band and len(text) <= 120) or bare) and not heading else None
            # A page number runs with the page at the same end of every page.
            off = (value - (p.index + 1), cy < h / 2) if value is not None else None
            if off is not None:
                offsets[off].add(p.index)
                edge = cy if off[1] else h - cy  # distance from its end of the page
                key = (p.index, off)
                if key not in outermost or edge < outermost[key][0]:
                    outermost[key] = (edge, li, bool(bare))  # (a number alone?)
            norm = _DIGITS.sub("#", exact) if len(exact) <= 60 else exact
            _add(zone_keyed, _key(norm, bucket), p.index)
            is_label = bool(label) and _PAGE_WORD.sub("", exact).strip(" -\u2013\u2014.") == label
            if n == 2 and band:
                _add(pair_keyed, _key(exact, bucket), p.index)
            facts.append((p.index, li, exact, norm, bucket, off, is_label, band))

    def running(pages_seen: set[int]) -> bool:
        """3 of the pages within 6 pages in a row: running headers and page numbers are on
        every page or every other one; "Definition 20" opening pages 24, 32, 63 and 65 of a
        book, or a formula line ending in "1" on pages 9, 10 and 62 as if a page number, is content."""
        order = sorted(pages_seen)
        return any(c - a <= 5 for a, c in zip(order, order[2:]))

    repeat_min = max(3, math.ceil(0.4 * n))
    keyed = _repeated(line_keys, line_texts, line_pages, repeat_min) if n >= 3 else {}
    del line_keys, line_texts, line_pages
    # a page number runs on 3 pages close together (or on 2 pages in a row in a short document)
    good_offsets = {o for o, idx in offsets.items()
                    if running(idx) or (n <= SHORT_PDF and any(i + 1 in idx for i in idx))}
    # lines by page: {page index: {line index}}
    drop: dict[int, set[int]] = defaultdict(set)
    body: dict[int, set[int]] = defaultdict(set)  # of those, lines off the margin that only repeat (rule a)
    in_zone: dict[int, set[int]] = defaultdict(set)
    # of the lines dropped only as the page's number, those that say more than the number: {page: {line}}
    worded: dict[int, set[int]] = defaultdict(set)
    for index, li, exact, norm, bucket, off, is_label, band in facts:
        in_zone[index].add(li)
        numbered = off is not None and off in good_offsets and outermost[(index, off)][1] == li
        repeats = running(_seen(zone_keyed, norm, bucket)) if n >= 3 else \
            band and len(_seen(pair_keyed, exact, bucket)) == 2
        if repeats or numbered or is_label:
            drop[index].add(li)
            if off is not None and numbered and not (repeats or is_label or outermost[(index, off)][2]):
                worded[index].add(li)
        elif n >= 3 and len(_seen(keyed, exact, bucket)) >= repeat_min:
            drop[index].add(li)
    del facts
    third = -(-repeat_min // 3)  # three buckets' pages reach repeat_min only if one holds a third of it
    if n >= 3 and (third <= 1 or any(isinstance(v, set) and len(v) >= third for v in keyed.values())):
        # rule (a) off the margins
        for p in pages:
            zone = in_zone.get(p.index, ())
            for li, ln in enumerate(lines_of(p)):
                if li in zone:
                    continue
                text = ln.text.strip()
                if len(text) > 120:
                    continue
                if len(_seen(keyed, _SPACES.sub(" ", text.lower()), int((ln.top + ln.bottom) / 2 // 4))) >= repeat_min:
                    drop[p.index].add(li)
                    body[p.index].add(li)
    dropped = 0
    for p in pages:
        gone = drop.get(p.index)
        if not gone:
            continue
        with unpacked(p):
            worded_here = worded.get(p.index)
            if worded_here and len(gone) == len(p.lines) and len(worded_here) < len(gone):
                # A page prints its number once: a page left empty by its number alone at one end and a
                # line ending in it at the other keeps that line ("This is intro page iv" above a foot of
                # "iv", w3c's page-numbers example, lost both, then kept both, "iv" read as text)
                gone = gone - worded_here
            dropped += _drop(p, gone, body.get(p.index, set()))
    return dropped


def _drop(p: PageData, gone: set[int], mine: set[int]) -> int:
    """Drop page p's lines of indices `gone` (of which `mine` only repeat off the margins); returns how many went."""
    lines = p.lines
    if mine:
        repeated = sum(len(ln.text) for li, ln in enumerate(lines) if li in mine)
        if repeated > BODY_SHARE * sum(len(ln.text) for ln in lines):
            # most of the page's text repeats off its margins: the same content on every
            # page (a form's boxes, a font specimen), not furniture; its margins still go
            p.lines = [ln for li, ln in enumerate(lines) if li not in gone or li in mine]
            return len(lines) - len(p.lines)
    keep = [ln for li, ln in enumerate(lines) if li not in gone]
    if not keep and not p.tables and not p.unreadable:
        return 0  # what repeats is all the page says: it is content, not furniture
    p.lines = keep
    return len(lines) - len(keep)
