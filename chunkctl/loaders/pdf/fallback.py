"""PDF text layers pdfium cannot map: such pages are read again with pdfminer, page by page; no layout, no tokens.

pdfium drops or garbles the glyphs of fonts it cannot map to Unicode: CID fonts
shown through a CMap it does not have and without a /ToUnicode map (OCR text layers
of scanned CJK reports, Japanese gazettes set in Ryumin-Light), or fonts whose codes
it can only guess from. pdfminer.six (a dependency through pdfplumber) maps CIDs
through the Adobe character collections' own tables, so it often reads what pdfium
cannot. Only pages that look unmapped are read again; pdfminer's text replaces
pdfium's when it is clearly better, and a page no extractor can read is named in a
warning instead of passing as text.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import io
import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from chunkctl.loaders.pdf.packed import unpacked
from chunkctl.loaders.pdf.page import Frame, Line, PageData, clean_text, font_style

# A page is read again when this many of its glyphs (and this share of them) are
# unmapped or guessed, or when more of its text objects map to nothing than it has
# characters.
MIN_BAD = 5
BAD_SHARE = 0.10
MIN_EMPTY = 10
# pdfminer's reading is clean when at most this share of its glyphs is unmapped; it
# agrees with pdfium's when their characters (as multisets) overlap this much.
CLEAN_SHARE = 0.1
AGREE_SHARE = 0.9
# A clean reading replaces pdfium's when it keeps this share of pdfium's reliable
# characters (neither unmapped nor guessed).
KEEP_SHARE = 0.9
# A page whose best text maps fewer than this share of its glyphs is reported.
READABLE_SHARE = 0.5

_CID = re.compile(r"\(cid:\d+\)")
_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff]")
_CJK_GAP = re.compile(r"(?<=[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef])[ \u3000]+"
                      r"(?=[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef])")


def suspect(p: PageData) -> bool:
    """Whether pdfium's text of a page looks unmapped (worth reading again with pdfminer)."""
    bad = p.bad_chars + p.guessed
    if bad >= MIN_BAD and bad >= BAD_SHARE * p.n_chars:
        return True
    return p.empty_objects >= MIN_EMPTY and p.empty_objects >= p.n_chars


@dataclass
class _Read:
    """What pdfminer read from one page: its lines, its frame, mapped and unmapped glyphs."""

    lines: list[Line]
    frame: Frame
    good: int
    bad: int

    @property
    def clean(self) -> bool:
        return self.good > 0 and self.bad <= CLEAN_SHARE * (self.good + self.bad)

    def text(self) -> str:
        return "".join("".join(ln.text for ln in self.lines).split())


def recover_text(data: bytes, pages: list[PageData], password: str | None, warnings: list[str]) -> list[int]:
    """Replace the lines of pages pdfium could not map with pdfminer's, in place, where pdfminer reads better.

    A page is a candidate when `suspect` says so, or when it has a text object long
    enough that pdfium may have cut its string (`PageData.long_strings`): pdfminer's
    reading of such a page replaces pdfium's when it holds pdfium's text and clearly
    more (`_reads_more`), and the page is named in a warning when pdfminer cannot read
    it. For a `suspect` page, pdfminer's reading is taken when it is clean (at most
    CLEAN_SHARE of its glyphs unmapped: "(cid:N)", control and private-use
    characters), does not just agree with pdfium's (AGREE_SHARE of the characters in
    common: pdfium guessed right) and keeps KEEP_SHARE of pdfium's reliable
    characters. A page read by pdfminer loses its tables (found in pdfium's text).
    A page whose text still maps fewer than READABLE_SHARE of its glyphs is named in
    a warning: when most of pdfium's characters there are junk (unmapped, or guessed
    in words that mix scripts) its text is left out (never emitted as junk), else
    the readable part is kept and called incomplete (glyphs pdfium dropped are
    missing, not junk).

    Args:
        data: the PDF's bytes.
        pages: the pages as pdfium read them (0-based `index`).
        password: the password that opened the file, if any.
        warnings: the document's warnings, appended to.

    Returns:
        0-based indices of the pages whose text now comes from pdfminer.
    """
    wanted = [p.index for p in pages if suspect(p) or p.long_strings]
    if not wanted:
        return []
    got = _read_with_pdfminer(data, wanted, password)
    recovered: list[int] = []
    left_out: list[int] = []
    incomplete: list[int] = []
    maybe_cut: list[int] = []
    for i in wanted:
        p = pages[i]
        with unpacked(p):  # (a big document's pages are packed: chunkctl.loaders.pdf.packed)
            mine = _page_text(p)
            if not suspect(p):  # only long strings: pdfminer's reading replaces a cut one
                r = got.get(i)
                if r is not None and _reads_more(mine, r):
                    p.lines, p.frame, p.stray, p.tables = r.lines, r.frame, [], []
                    recovered.append(i)
                elif r is None or not r.clean:
                    maybe_cut.append(i)
                continue
            glyphs = p.n_chars + p.empty_objects
            r = got.get(i)
            if r is not None and r.clean:
                if _overlap("".join(mine.split()), r.text()) >= AGREE_SHARE:
                    continue
                if r.good >= KEEP_SHARE * (p.n_chars - p.bad_chars - p.guessed):
                    p.lines, p.frame, p.stray, p.tables = r.lines, r.frame, [], []
                    recovered.append(i)
                    if r.good < READABLE_SHARE * max(glyphs, r.good + r.bad):
                        incomplete.append(i)
                        p.unreadable = True
                    continue
            junk = p.bad_chars + min(p.guessed, mixed_script_chars(mine))
            readable = p.n_chars - junk
            if readable >= READABLE_SHARE * glyphs:
                continue
            p.unreadable = True
            if junk > readable:
                p.lines, p.stray, p.tables = [], [], []
                left_out.append(i)
            else:
                incomplete.append(i)
    if left_out:
        warnings.append(f"{_pages(left_out)}: fonts without a Unicode mapping that no extractor could read; "
                        "their text is left out")
    if incomplete:
        warnings.append(f"{_pages(incomplete)}: fonts without a Unicode mapping; their text is incomplete")
    if maybe_cut:
        warnings.append(f"{_pages(maybe_cut)}: a text string longer than pdfium reads (32,767 bytes) that pdfminer "
                        "could not read either; its text may be incomplete")
    return recovered


# Cipher text: fonts whose codes a PDF maps to the wrong characters (their own encoding and a
# wrong or no /ToUnicode map, which pdfium and pdfminer then read alike), so a page of prose reads
# "YPZ@[]\\PZXZ@^`_=ab^bZcedgfihj": a subset font codes its glyphs in the order they first appear,
# from "!" on, so common letters come out as "#%$'&)(+*". A word (four characters or more, a
# sentence's quotes, brackets and stops at its ends set aside) with at least two of these marks
# and three different characters inside is a cipher's; code (`a.b(c)`, `x_y`), paths, URLs,
# contractions, leaders and rules ("====") hold fewer of them.
_ODD_MARKS = frozenset("!\"#$%&()*+;<=>?@[\\]^`{|}~")
_OPENING, _CLOSING = "\"'([{", ".,;:!?\"')]}"  # (a sentence's marks around a word)
MIN_WORDS = 40  # a page with fewer such words is judged only in a cipher document (from FEW_WORDS)
FEW_WORDS = 5
# Shares of cipher words: a page at GARBLED_PAGE or more is garbled; in a document whose median
# page is at GARBLED_DOC or more, so is every page at GARBLED_DOC or more. Measured with pypdfium2
# on 193 papers-we-love PDFs, 58 Debian manuals and the shared corpus (helper-102): five cipher
# documents have median pages at 0.20-0.70 (their pages 0.15-0.83); of the others no page passes
# 0.26 (formulas set as text), and no document's mean passes 0.03.
GARBLED_PAGE = 0.5
GARBLED_DOC = 0.12
# Only a page whose lines are mostly (this share) in fonts without a name is judged: the cipher
# documents' fonts are Type 3 fonts without one (dvips's bitmap fonts); a named font, Courier or a
# subset "ABCDEF+Times", is read as its map says (helper-103: a listing of HTML in Courier, C++
# templates, a PGP key block, hashes and sums were left out as ciphers).
CIPHER_FONTS = 0.5


# A cipher's letters fall on a font's later codes at random: a fifth of them or so are vowels, where
# English prose has nearly two fifths and code's identifiers a third (a page of code, its words full
# of brackets and quotes, is told apart so; measured as above: the cipher pages' vowel share 0.18-0.32,
# the other pages with cipher words 0.30 and up). Judged on pages of MIN_LETTERS ASCII letters or more.
CIPHER_VOWELS = 0.30
MIN_LETTERS = 200
_VOWELS = frozenset("aeiouAEIOU")
# Code and formulas close the brackets they open, in order; a cipher's brackets are letters, found
# in the order of the words they spell: a page of MIN_BRACKETS brackets or more that leaves fewer
# than CIPHER_UNPAIRED of them unpaired is no cipher's (C code, its short names few in vowels).
CIPHER_UNPAIRED = 0.15
MIN_BRACKETS = 10


def _paired(text: str) -> bool:
    """True when `text` has MIN_BRACKETS brackets or more and fewer than CIPHER_UNPAIRED of them
    are unpaired: a closing one with none of its kind open before it, or an opening one never
    closed."""
    brackets = unpaired = 0
    depth = {"(": 0, "[": 0, "{": 0}
    closing = {")": "(", "]": "[", "}": "{"}
    for ch in text:
        if ch in depth:
            depth[ch] += 1
        elif ch in closing:
            k = closing[ch]
            if depth[k]:
                depth[k] -= 1
            else:
                unpaired += 1
        else:
            continue
        brackets += 1
    unpaired += sum(depth.values())
    return brackets >= MIN_BRACKETS and unpaired < CIPHER_UNPAIRED * brackets


def cipher_share(text: str, min_words: int = MIN_WORDS) -> float | None:
    """The share of `text`'s words of four characters or more that read as a cipher's (two or more
    of `_ODD_MARKS` and three different characters inside the word); None when it has fewer than
    `min_words`; 0.0 when its ASCII letters (MIN_LETTERS or more) are CIPHER_VOWELS vowels or more,
    or its brackets (MIN_BRACKETS or more) pair up (words, code, formulas)."""
    words = [w for w in text.split() if len(w) >= 4]
    if len(words) < min_words:
        return None
    letters = [c for c in text if c.isascii() and c.isalpha()]
    if len(letters) >= MIN_LETTERS and sum(c in _VOWELS for c in letters) >= CIPHER_VOWELS * len(letters):
        return 0.0
    if _paired(text):
        return 0.0
    odd = 0
    for w in words:
        if "://" in w or w.startswith("www."):
            continue  # (a link's query: "?q=a&b=c#frag")
        inner = w.lstrip(_OPENING).rstrip(_CLOSING)[1:-1]
        if sum(c in _ODD_MARKS for c in inner) >= 2 and len(set(inner)) >= 3:
            odd += 1
    return odd / len(words)


def drop_garbled(pages: list[PageData], skip: set[int], warnings: list[str], ocr_available: bool) -> list[int]:
    """Leave out the text of pages that read as a cipher (`cipher_share`), in place, and name them
    in a warning: no extractor maps such fonts, and their text would pass as words into an index
    (helper-102: six of 193 papers, 19% of the chunks of the run, "#%$'&)(+*-,/.102.43652&").

    Args:
        pages: the document's pages (0-based `index`), after `recover_text`.
        skip: 0-based indices of pages not to judge (read with OCR).
        warnings: the document's warnings, appended to.
        ocr_available: whether the OCR engine is installed (the warning says how to read them).

    Returns:
        0-based indices of the pages left out.
    """
    shares: dict[int, float] = {}  # (pages of MIN_WORDS words or more)
    few: dict[int, float] = {}  # (pages of FEW_WORDS to MIN_WORDS: a title page, a figure's)
    for p in pages:
        if p.index in skip or p.nameless < CIPHER_FONTS:
            continue
        with unpacked(p):
            text = _page_text(p)
        share = cipher_share(text, FEW_WORDS)
        if share is not None:
            judged = sum(len(w) >= 4 for w in text.split()) >= MIN_WORDS
            (shares if judged else few)[p.index] = share
    if not shares:
        return []
    ranked = sorted(shares.values())
    if ranked[len(ranked) // 2] >= GARBLED_DOC:
        out = sorted(i for i, share in (shares | few).items() if share >= GARBLED_DOC)
    else:
        out = sorted(i for i, share in shares.items() if share >= GARBLED_PAGE)
    for i in out:
        p = pages[i]
        with unpacked(p):
            p.lines, p.stray, p.tables = [], [], []
        p.unreadable = True
    if out:
        how = "--ocr always reads them from the page images" if ocr_available else \
            "OCR (pip install 'chunkctl[ocr]', then --ocr always) can read them from the page images"
        warnings.append(f"{_pages(out)}: text in fonts that map their glyphs to the wrong characters (no extractor "
                        f"reads them); their text is left out; {how}")
    return out


def _reads_more(mine: str, r: _Read) -> bool:
    """Whether pdfminer's clean reading holds pdfium's text of a page and clearly more
    (pdfium cut a long string: see `chunkctl.loaders.pdf.page.LONG_STRING`)."""
    if not r.clean:
        return False
    a, b = "".join(mine.split()), r.text()
    if len(b) <= len(a) + max(2, len(a) // 1000):
        return False
    return _shared(a, b) >= AGREE_SHARE * len(a)


def _page_text(p: PageData) -> str:
    """pdfium's text of a read page: its lines and table cells, space-separated."""
    parts = [ln.text for ln in p.lines + p.stray]
    for t in p.tables:
        parts.extend(t.header)
        parts.extend(c for row in t.rows for c in row)
    return " ".join(parts)


def _overlap(a: str, b: str) -> float:
    """Characters two texts share, as multisets, over the longer one's length (0 when either is empty)."""
    if not a or not b:
        return 0.0
    return _shared(a, b) / max(len(a), len(b))


def _shared(a: str, b: str) -> int:
    """Characters two texts share, as multisets."""
    cb = Counter(b)
    return sum(min(n, cb[ch]) for ch, n in Counter(a).items())


def _script(ch: str) -> str:
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return "?"
    word = name.split(" ", 1)[0]
    return "CJK" if word in ("CJK", "HIRAGANA", "KATAKANA", "HALFWIDTH", "FULLWIDTH") else word


def mixed_script_chars(text: str) -> int:
    """Characters of the words that mix letters of two or more scripts ("ଋҨǥƹ": glyph codes read as text).

    The script is the first word of a letter's Unicode name (LATIN, CYRILLIC, ARABIC,
    ...); Han, kana and full-width forms count as one script, since Japanese mixes them.
    """
    return sum(len(w) for w in text.split() if len({_script(ch) for ch in w if ch.isalpha()}) > 1)


def _pages(indices: list[int]) -> str:
    """'page 3' or 'pages 2-4, 7' from 0-based indices."""
    nums = sorted(i + 1 for i in indices)
    runs: list[str] = []
    start = prev = nums[0]
    for n in nums[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        runs.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ("page " if len(nums) == 1 else "pages ") + ", ".join(runs)


MAX_PAGES = 100_000
"""Pages a document read whole by pdfminer (`read_document`) may have."""


def _collected(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, then a run of the cyclic garbage collector once it has returned: pdfminer's
    parser and document refer to each other, and with them the file's bytes, until the
    collector runs (whenever it likes: a damaged PDF's bytes stayed through the next
    files). One collection takes far less time than pdfminer's pass."""
    @functools.wraps(fn)
    def collected(*args: Any) -> Any:
        try:
            return fn(*args)
        finally:
            gc.collect()

    return collected


@_collected
def read_document(data: bytes, password: str | None) -> list[PageData] | None:
    """Every page of a PDF that pdfium cannot open, read by pdfminer (lines only: no tables,
    no outline), or None when pdfminer cannot open it either or finds no page. pdfminer
    rebuilds a broken cross-reference table its own way and reads some files pdfium calls
    damaged beyond repair (helper-48: a data sheet of py-pdf/sample-files)."""
    pages: list[PageData] = []
    try:
        with _quiet_pdfminer(logging.CRITICAL):
            for i, read in _pdfminer_pages(data, password):
                if i >= MAX_PAGES:
                    break
                p = PageData(i, Frame(0))
                try:
                    r = read()
                    p.lines, p.frame = r.lines, r.frame
                    p.n_chars, p.bad_chars = r.good + r.bad, r.bad
                except Exception:  # a page pdfminer cannot interpret stays empty (its form feed is kept)
                    pass
                pages.append(p)
    except Exception:  # pdfminer cannot open it either
        return None
    return pages or None


@_collected
def _read_with_pdfminer(data: bytes, wanted: list[int], password: str | None) -> dict[int, _Read]:
    """pdfminer's lines of the wanted pages (0-based); pages it fails on are missing from the result."""
    out: dict[int, _Read] = {}
    todo = set(wanted)
    try:
        with _quiet_pdfminer(logging.ERROR):
            for i, read in _pdfminer_pages(data, password):
                if i > max(todo):
                    break
                if i not in todo:
                    continue
                try:
                    out[i] = read()
                except Exception:  # one page pdfminer cannot interpret: it keeps pdfium's text
                    continue
    except Exception:  # pdfminer cannot open the file at all: pdfium's text stands
        return out
    return out


@contextlib.contextmanager
def _quiet_pdfminer(level: int) -> Iterator[None]:
    """pdfminer's log holds messages below `level` back inside the block."""
    log = logging.getLogger("pdfminer")
    before = log.level
    log.setLevel(level)
    try:
        yield
    finally:
        log.setLevel(before)


def _pdfminer_pages(data: bytes, password: str | None) -> Iterator[tuple[int, Callable[[], _Read]]]:
    """(0-based index, a call that reads the page's lines) for each page pdfminer finds, in order.
    Raises whatever pdfminer raises when it cannot open the file."""
    from pdfminer.converter import PDFPageAggregator
    from pdfminer.layout import LAParams
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    doc = PDFDocument(PDFParser(io.BytesIO(data)), password=password or "")
    rsrc = PDFResourceManager()
    # all_texts: characters drawn by a form XObject are laid out into lines too (else
    # they stay loose in an LTFigure and the page reads as empty). boxes_flow=None: text
    # boxes in the order of their place on the page; pdfminer's grouping of boxes breaks
    # ties between equal distances by id(), so a page of equally spaced glyphs (a figure's
    # quote marks) read in another order at each run (helper-67; pdfminer.six issue #607).
    # The loader orders the lines for reading itself (`lines.reading_order`).
    device = PDFPageAggregator(rsrc, laparams=LAParams(detect_vertical=True, all_texts=True, boxes_flow=None))
    interp = PDFPageInterpreter(rsrc, device)
    for i, page in enumerate(PDFPage.create_pages(doc)):
        def read(page: Any = page) -> _Read:
            interp.process_page(page)
            return _page_lines(device.get_result())
        yield i, read


_END = object()


def _page_lines(layout) -> _Read:
    """Lines (upright frame, points, top-left origin) of one pdfminer page layout, in its reading order."""
    from pdfminer.layout import LTChar, LTTextLine, LTTextLineVertical

    height = layout.height
    frame = Frame(0, ox=0.0, oy=-height, width=layout.width, height=height)
    lines: list[Line] = []
    good = bad = 0

    # Depth first, children in order, with a stack of iterators (a closure that called itself
    # was a reference cycle a page, freed by the cyclic collector only).
    stack = [iter(layout)]
    while stack:
        child = next(stack[-1], _END)
        if child is _END:
            stack.pop()
        elif isinstance(child, LTTextLine):
            line = _line(child, height, isinstance(child, LTTextLineVertical), len(lines), LTChar)
            if line is not None:
                lines.append(line[0])
            good += line[1] if line else 0
            bad += line[2] if line else _unmapped_count(child.get_text())
        elif hasattr(child, "__iter__") and not isinstance(child, LTChar):
            stack.append(iter(child))
    # Text drawn twice at (almost) the same place (fake bold, shadows) is read once.
    seen: set[tuple[str, int, int]] = set()
    unique = []
    for ln in lines:
        key = (ln.text, round(ln.x0 / 3), round(ln.top / 3))
        if key in seen:
            good -= len(ln.text) - ln.text.count(" ")
            continue
        seen.add(key)
        unique.append(ln)
    return _Read(unique, frame, good, bad)


def _unmapped_count(raw: str) -> int:
    return len(_CID.findall(raw)) + len(_BAD.findall(raw))


def _line(obj, height: float, vertical: bool, order: int, char_type) -> tuple[Line, int, int] | None:
    """One pdfminer text line as a Line, with its mapped and unmapped glyph counts (None when it has no text)."""
    raw = obj.get_text().replace("\n", " ")
    bad = _unmapped_count(raw)
    text = clean_text(_CJK_GAP.sub("", _BAD.sub("", _CID.sub("", raw))).strip())
    text = " ".join(text.split()) if not vertical else text.replace(" ", "")
    good = len(text) - text.count(" ")
    if not text:
        return None
    chars = [c for c in obj if isinstance(c, char_type)]
    sizes = sorted(c.size for c in chars) or [obj.height]
    size = sizes[len(sizes) // 2]
    names = {c.fontname for c in chars}
    styles = [font_style(n) for n in names] or [(False, False)]
    bold = all(s[0] for s in styles)
    mono = all(s[1] for s in styles)
    top, bottom = height - obj.y1, height - obj.y0
    line = Line(text, obj.x0, top, obj.x1, bottom, max(1.0, size), bold, mono, False, vertical, 0, order,
                bottom - 0.2 * (bottom - top))
    return line, good, bad
