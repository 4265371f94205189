"""PDF page reading with pypdfium2: text lines with upright geometry, font facts, ruling edges; no layout decisions, no tokens."""

from __future__ import annotations

import bisect
import ctypes
import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pypdfium2.raw as pdfium_c
import regex

# Ligature glyphs U+FB00-FB06 become their letters (only these: no NFKC, so
# superscripts, full-width forms and the like stay as they are).
LIGATURES = {
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi",
    "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st",
}
# Private-use code points that Word's Symbol and Wingdings bullets come out as;
# mapped only where a line starts (elsewhere the same code points are other
# symbols in other fonts).
PUA_BULLETS = {"\uf0b7": "\u2022", "\uf0a7": "\u25aa"}
# Spacing accents that TeX sets as separate glyphs before the letter ("na¨ıve").
_SPACING_ACCENTS = {
    "\u00a8": "\u0308", "\u00b4": "\u0301", "`": "\u0300", "\u02c6": "\u0302", "^": "\u0302",
    "\u02dc": "\u0303", "~": "\u0303", "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02da": "\u030a",
    "\u00af": "\u0304", "\u00b8": "\u0327", "\u02dd": "\u030b",
}
_ACCENT_PAIR = re.compile("(?<=[^\\W\\d_])([\u00a8\u00b4\u02c6\u02dc\u02c7\u02d8\u02da\u00af\u02dd])([a-zA-Z\u0131\u0237])")
_TRANSLATE: dict[int, str | None] = {ord(k): v for k, v in LIGATURES.items()}
# A combining mark never follows white space in real text: pdfium puts a space
# before Thai marks it places out of order ("ข ํ ้อ").
_SPACE_BEFORE_MARK = regex.compile(r"\s+(?=\p{M})")
# Control characters and non-characters pdfium may hand back; tabs, no-break
# spaces and Unicode line/paragraph separators inside a line become spaces.
for _cp in list(range(0x00, 0x20)) + [0x7F, 0xFFFE, 0xFFFF, 0x00AD, 0x200B, 0xFEFF]:
    _TRANSLATE[_cp] = None
for _cp in (0x09, 0xA0, 0x85, 0x2028, 0x2029):
    _TRANSLATE[_cp] = " "

_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demibold|[-,+]?(?:cmbx|cmb\d|bx\d)|medi(?:um)?\b|-medi|,b$|-b$|-sb$", re.I)
_MONO_NAME = re.compile(r"courier|mono|cmtt|consola|menlo|typewriter|sftt|lmtt|inconsolata|terminal|fixed|\bcode", re.I)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
# Where a space may be missing: after sentence punctuation before a letter, or at a
# lower-to-upper case change ("law.The", "generallyThe"); checked against glyph gaps.
_SPACE_CANDIDATE = re.compile(r"(?<=[.,;:!?)\]\u201d])(?=[^\W\d_(\u201c\u2018])|(?<=[a-z])(?=[A-Z])")
# A gap wider than this fraction of the font size is a word space (after
# punctuation; inside a CamelCase word or a domain name only a full space counts).
SPACE_GAP_EM = 0.14
CAMEL_GAP_EM = 0.25
# Tokens a restored space must never cut: URLs, e-mail addresses, domain names, file
# names and dotted identifiers ("mupdf.com/downloads", "os.path.join", "setup.py").
_URLISH = re.compile(r"://|@|^(?:www\.|mailto:|doi:)", re.I)
_TLDS = ("com|org|net|edu|gov|mil|int|io|ai|co|uk|de|fr|jp|cn|ru|info|biz|dev|app|me|us|eu|ca|au|nl|ch|se|no|fi"
         "|es|it|pl|be|at|dk|cz|br|in|kr|tw|hk|nz|za|gr|ie|pt|hu|ro|sk|ly|tv|gl|so|sh|xyz|online|site|tech")
_DOMAIN = re.compile(rf"(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+(?:{_TLDS})(?::\d+)?(?:[/?#]\S*)?")
_PATHLIKE = re.compile(r"[\w-]+(?:\.[\w-]+)+/\S*")
_FILE_EXT = re.compile(r"[\w~-]+\.(?:py|pyi|ipynb|txt|pdf|md|rst|json|jsonl|ya?ml|toml|csv|tsv|html?|xml|js|mjs|ts|tsx"
                       r"|jsx|css|c|h|cc|cpp|hpp|java|kt|go|rs|rb|php|pl|sh|bash|bat|ps1|cfg|conf|ini|log|zip|tar|gz"
                       r"|tgz|bz2|xz|7z|png|jpe?g|gif|svg|bmp|tiff?|docx?|xlsx?|pptx?|odt|exe|dll|so|dylib|tex|bib"
                       r"|sql|db|sqlite|lock|env|cmake|mk|gradle|swift|m|r|jl|lua|dart|scala|wasm|bin|dat|iso)", re.I)
_IDENT = re.compile(r"[A-Za-z_][\w$]+(?:\.[A-Za-z_][\w$]+){2,}|[\w$]*_[\w$]*(?:\.[A-Za-z_][\w$]*)+")
_CALL = re.compile(r"\w\.[A-Za-z_]\w*\(")
# What a space pdfium made up may be taken out of: only unmistakable tokens (the
# top-level domains and extensions that are not also English words).
_DOMAIN_STRICT = re.compile(r"(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)+(?:com|org|net|edu|gov|io|dev|info|biz)"
                            r"(?::\d+)?(?:[/?#]\S*)?")
_GLUE_SPOT = re.compile(r"(?<=[./@:]) (?=\S)|(?<=\S) (?=[/@])")
_FILE_STRICT = re.compile(r"[\w~-]+\.(?:py|pyi|ipynb|txt|pdf|md|rst|json|jsonl|ya?ml|toml|csv|tsv|html?|xml|js|ts|css"
                          r"|cpp|hpp|java|sh|zip|gz|tgz|png|jpe?g|gif|svg|docx?|xlsx?|pptx?|tex|bib|sql|exe|dll)", re.I)

# A page with more ruling edges than this is a drawing (a chart, a map): looking
# for tables in it would cost seconds (pairwise intersections), so it is skipped.
MAX_EDGES = 2500
# pdfium keeps the first 32,767 bytes of a string in a content stream and drops the
# rest without a word (CPDF_StreamParser's kMaxStringLength, literal and hex strings
# alike). A text object of at least this many characters (32,767 bytes of 2-byte
# codes, as Identity-H and most CID encodings use; a cut string of 1-byte codes gives
# 32,767) may hold such a cut string: its page is read again by pdfminer, which has no
# such limit (`chunkctl.loaders.pdf.fallback.recover_text`). Found by helper-58: 65% of
# one 94,000-character `Tj` was missing from the records. Not lower: pdfminer reads a
# large page slowly (helper-59: 40 objects of 9,000 characters, 18 s), and a string of
# 3- or 4-byte codes that long is not known outside hand-made files.
LONG_STRING = 32_767 // 2

FPDF_PAGEOBJ_TEXT = 1
FPDF_PAGEOBJ_PATH = 2
FPDF_PAGEOBJ_IMAGE = 3
FPDF_PAGEOBJ_FORM = 5


def clean_text(text: str) -> str:
    """Repair one line of extracted text: ligatures, a leading PUA bullet, TeX accents, stray spaces, controls.

    Ligatures U+FB00-FB06 become letters; nothing else is folded (no NFKC).
    Returns the repaired text (characters may be fewer or more than given).
    """
    text = text.translate(_TRANSLATE)
    if text[:1] in PUA_BULLETS:
        text = PUA_BULLETS[text[0]] + text[1:]
    if not text.isascii():
        text = _SPACE_BEFORE_MARK.sub("", text)
    if "\u00a8" in text or "\u00b4" in text or "\u02c6" in text or "\u02dc" in text or "\u02c7" in text \
            or "\u02d8" in text or "\u02da" in text or "\u00af" in text or "\u02dd" in text:
        text = _ACCENT_PAIR.sub(_compose_accent, text)
    return text


def _compose_accent(m: re.Match) -> str:
    base = m.group(2)
    base = {"\u0131": "i", "\u0237": "j"}.get(base, base)
    return unicodedata.normalize("NFC", base + _SPACING_ACCENTS[m.group(1)])


def space_may_break(text: str, i: int) -> bool:
    """Whether a space restored before `text[i]` would cut a URL, e-mail address, file name or identifier.

    Decided from the whitespace-delimited token around position i alone (no glyph
    geometry): a token with "://", "@", "www.", "mailto:" or "doi:"; a domain name
    (a known top-level domain, or any dotted name followed by a "/" path); a file
    name with a common extension; a dotted identifier (three or more dotted parts,
    an underscore, or a call "f.g("); and any dot followed by a lower-case letter
    ("numpy.ndarray", "mupdf.com"), which in prose is almost never a lost space.

    Args:
        text: one line of text.
        i: the index of the character a space would go before (0 < i < len(text)).

    Returns:
        True when the space must not be inserted.
    """
    a = text.rfind(" ", 0, i) + 1
    b = text.find(" ", i)
    token = text[a:b if b >= 0 else len(text)].strip("\"'()[]{}<>,;!?\u201c\u201d\u2018\u2019")
    if text[i - 1] == "." and text[i].islower() and text[i - 2:i - 1].isalnum():
        return True
    if _URLISH.search(token) or _PATHLIKE.match(token):
        return True
    core = token.rstrip(".:")
    return bool(_DOMAIN.fullmatch(core) or _FILE_EXT.fullmatch(core) or _IDENT.fullmatch(core) or _CALL.search(core))


def unmistakable_token(token: str) -> bool:
    """Whether a token (no spaces) can only be a URL, e-mail address, file name or dotted identifier.

    Stricter than `space_may_break`: used to take out a space pdfium inserted itself
    ("mupdf. com/downloads"), where prose ("et al. in", "e.g. the") must stay as it is.
    """
    t = token.strip("\"'()[]{}<>,;!?\u201c\u201d\u2018\u2019").rstrip(".:")
    if "://" in t or t.lower().startswith("www.") or re.fullmatch(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", t):
        return True
    return bool(_PATHLIKE.match(t) or _DOMAIN_STRICT.fullmatch(t) or _FILE_STRICT.fullmatch(t)
                or _IDENT.fullmatch(t) or _CALL.search(t))


def font_style(name: str) -> tuple[bool, bool]:
    """(bold, monospaced) judged from a font's name ("ABCDEF+Courier-Bold" -> (True, True))."""
    name = name.split("+", 1)[-1]
    return bool(_BOLD_NAME.search(name)), bool(_MONO_NAME.search(name))


def is_cjk(ch: str) -> bool:
    """True for one Han, kana or full-width character (scripts written without spaces between words)."""
    return bool(_CJK.match(ch))


@dataclass(slots=True)
class Line:
    """One text line of a page, in upright coordinates (points, origin top-left, y down).

    Attributes:
        text: repaired text of the line (no line break; ligatures expanded).
        x0, top, x1, bottom: bounding box in the page's upright frame (points).
        size: font size in points (text-space size times the text matrix scale).
        bold: the font is bold (by name or weight).
        mono: the font is monospaced (by name or the fixed-pitch flag).
        hyphen: the line ends in a hyphen that pdfium marked as a hyphenation point.
        vertical: a line of vertical (top-to-bottom) CJK writing.
        angle: text direction in user space, degrees (0, 90, 180, 270).
        order: position in the page's content stream (pdfium's text order).
        base: the baseline's y in the upright frame (points).
    """

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    bold: bool = False
    mono: bool = False
    hyphen: bool = False
    vertical: bool = False
    angle: int = 0
    order: int = 0
    base: float = 0.0

    @property
    def height(self) -> float:
        return self.bottom - self.top

    @property
    def width(self) -> float:
        return self.x1 - self.x0


@dataclass(slots=True)
class Frame:
    """Maps PDF user space to a page's upright frame (text reads left to right, lines go down).

    Attributes:
        angle: the page's dominant text direction in user space, degrees.
        ox, oy: offsets so that the page box starts at (0, 0).
        width, height: the page box size in the upright frame (points).
    """

    angle: int
    ox: float = 0.0
    oy: float = 0.0
    width: float = 0.0
    height: float = 0.0

    def point(self, x: float, y: float) -> tuple[float, float]:
        """User-space point -> upright (x, y), y down."""
        a = self.angle
        if a == 0:
            return x - self.ox, -y - self.oy
        if a == 90:
            return y - self.ox, x - self.oy
        if a == 180:
            return -x - self.ox, y - self.oy
        return -y - self.ox, -x - self.oy

    def box(self, l: float, b: float, r: float, t: float) -> tuple[float, float, float, float]:
        """User-space box (left, bottom, right, top) -> upright (x0, top, x1, bottom)."""
        p1 = self.point(l, b)
        p2 = self.point(r, t)
        return min(p1[0], p2[0]), min(p1[1], p2[1]), max(p1[0], p2[0]), max(p1[1], p2[1])

    def user_box(self, x0: float, top: float, x1: float, bottom: float) -> tuple[float, float, float, float]:
        """Upright box -> user-space (left, bottom, right, top)."""
        pts = [self._inverse(x0, top), self._inverse(x1, bottom)]
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        return min(xs), min(ys), max(xs), max(ys)

    def _inverse(self, ux: float, uy: float) -> tuple[float, float]:
        ux += self.ox
        uy += self.oy
        a = self.angle
        if a == 0:
            return ux, -uy
        if a == 90:
            return uy, ux
        if a == 180:
            return -ux, uy
        return -uy, -ux


@dataclass(slots=True)
class PageData:
    """What one page gave: its lines and the facts the layout needs.

    Attributes:
        index: 0-based physical page number.
        frame: the upright frame of the page.
        lines: text lines in content-stream order (upright coordinates).
        stray: lines whose direction differs from the page's (margin stamps).
        has_images: the page draws at least one image.
        ruled: the page has ruling lines that could form a table grid.
        edges: its ruling edges in user space when `ruled` (see `_scan_objects`).
        too_many_edges: more than MAX_EDGES ruling edges (tables not looked for).
        text: pdfium's text of the page, index-aligned with its characters.
        tables: tables found on the page (filled by the table reader).
        n_chars: non-space characters in pdfium's text of the page.
        bad_chars: of those, characters pdfium could not map to Unicode (control
            characters, private-use code points, U+FFFD).
        guessed: of the others, characters pdfium flags as a Unicode mapping error
            (it guessed them from the character code: often right, sometimes junk).
        empty_objects: text objects whose glyphs pdfium maps to no text at all (CID
            fonts whose CMap it cannot read); see `chunkctl.loaders.pdf.fallback`.
        unreadable: most of the page's glyphs could not be read (its text is left out or
            incomplete, set by `chunkctl.loaders.pdf.fallback.recover_text`).
        long_strings: text objects of at least LONG_STRING characters: pdfium keeps
            only the first 32,767 bytes of a string in a content stream, so their text
            may be cut (read again by `chunkctl.loaders.pdf.fallback.recover_text`).
        nameless: the share of the page's line characters set in fonts without a name (Type 3
            fonts, such as dvips's bitmap fonts: the fonts whose codes may map to the wrong
            characters, `chunkctl.loaders.pdf.fallback.drop_garbled`).
        packed: lines, stray lines and tables packed by `chunkctl.loaders.pdf.packed.pack_page`
            (their lists are empty then), or None.
    """

    index: int
    frame: Frame
    lines: list[Line] = field(default_factory=list)
    stray: list[Line] = field(default_factory=list)
    has_images: bool = False
    ruled: bool = False
    edges: list = field(default_factory=list)
    too_many_edges: bool = False
    text: str = ""
    tables: list = field(default_factory=list)
    n_chars: int = 0
    bad_chars: int = 0
    guessed: int = 0
    empty_objects: int = 0
    unreadable: bool = False
    long_strings: int = 0
    nameless: float = 0.0
    packed: bytes | None = None


class PageReader:
    """Reads pages of an open pypdfium2 document into `PageData` (one call per page).

    Reuses ctypes buffers between calls; pdfium objects are owned by the caller.
    """

    def __init__(self) -> None:
        self._m = pdfium_c.FS_MATRIX()
        self._name = ctypes.create_string_buffer(128)
        self._flags = ctypes.c_int()
        self._d = [ctypes.c_double() for _ in range(4)]
        self._dp = [ctypes.byref(x) for x in self._d]
        self._f = [ctypes.c_float() for _ in range(4)]
        self._fp = [ctypes.byref(x) for x in self._f]
        self._styles: dict[tuple[bytes, int], tuple[bool, bool]] = {}
        self.nameless = False  # the last character `_font` read is in a font without a name
        self._floats: dict[float, float] = {}

    def _same(self, v: float) -> float:
        """One float object per value for a line's left edge, top, bottom, size and baseline,
        which repeat from page to page (24 bytes each a line otherwise: a fifth of a line's
        memory on a page of prose); at most 2^16 values are held at a time."""
        got = self._floats.get(v)
        if got is None:
            if len(self._floats) >= 1 << 16:
                self._floats.clear()
            got = self._floats[v] = v
        return got

    # -- fonts and geometry of single characters --------------------------------
    def _font(self, tp, k: int) -> tuple[float, bool, bool, int]:
        """(size in points, bold, mono, direction in degrees) of character k."""
        raw = tp.raw
        m = self._m
        pdfium_c.FPDFText_GetMatrix(raw, k, ctypes.byref(m))
        fs = pdfium_c.FPDFText_GetFontSize(raw, k)
        scale = math.hypot(m.c, m.d) or 1.0
        size = fs * scale
        angle = int(round(math.degrees(math.atan2(m.b, m.a)) / 90.0)) % 4 * 90
        n = pdfium_c.FPDFText_GetFontInfo(raw, k, self._name, 128, ctypes.byref(self._flags))
        key = (self._name.value if n else b"", self._flags.value & 1)
        self.nameless = not key[0]
        style = self._styles.get(key)
        if style is None:
            name = key[0].decode("latin-1", "replace").split("+", 1)[-1]
            style = self._styles[key] = (bool(_BOLD_NAME.search(name)), bool(key[1]) or bool(_MONO_NAME.search(name)))
        weight = pdfium_c.FPDFText_GetFontWeight(raw, k)
        return size, weight >= 600 or style[0], style[1], angle

    def _charbox(self, tp, k: int) -> tuple[float, float, float, float]:
        pdfium_c.FPDFText_GetCharBox(tp.raw, k, *self._dp)
        d = self._d
        return d[0].value, d[2].value, d[1].value, d[3].value  # left, bottom, right, top

    def _glue_tokens(self, tp, text: str, start: int) -> tuple[str, list[int]]:
        """Take out spaces pdfium generated inside a URL, address, file name or identifier.

        pdfium inserts a space where glyphs stand apart ("mupdf. com/downloads"); such a
        space goes when the tokens on its sides, joined, are `unmistakable_token` and
        the right one does not start upper-case (a sentence: "javascript. Dept.").

        Returns:
            (the text, the text page index of each of its characters).
        """
        idx = list(range(start, start + len(text)))
        spots = [m.start() for m in _GLUE_SPOT.finditer(text)]
        out = text
        for j in reversed(spots):  # right to left: a deletion leaves the earlier spots in place
            a = out.rfind(" ", 0, j) + 1
            b = out.find(" ", j + 1)
            left, right = out[a:j], out[j + 1:b if b >= 0 else len(out)]
            if (left and right and not right[0].isupper() and pdfium_c.FPDFText_IsGenerated(tp.raw, idx[j]) == 1
                    and unmistakable_token(left + right)):
                out = out[:j] + out[j + 1:]
                del idx[j]
        return out, idx

    def _restore_spaces(self, tp, text: str, start: int, size: float, angle: int,
                        idx: list[int] | None = None) -> str:
        """Insert spaces that pdfium left out where the glyph gap is wider than SPACE_GAP_EM.

        `idx` gives the text page index of each character (default: from `start` on).
        """
        cuts = []
        for m in _SPACE_CANDIDATE.finditer(text):
            i = m.start()
            if space_may_break(text, i):
                continue
            k = idx[i] if idx is not None else start + i
            pdfium_c.FPDFText_GetFontInfo(tp.raw, k, self._name, 128, ctypes.byref(self._flags))
            if self._flags.value & 1:
                continue
            l1, b1, r1, t1 = self._charbox(tp, idx[i - 1] if idx is not None else k - 1)
            l2, b2, r2, t2 = self._charbox(tp, k)
            if angle == 0:
                gap = l2 - r1
            elif angle == 180:
                gap = l1 - r2
            elif angle == 90:
                gap = b2 - t1
            else:
                gap = b1 - t2
            # A case change inside a word ("PyMuPDF") or a dot before a lower-case
            # letter ("Amazon.com", "e.g.") needs a full space's gap.
            strict = (text[i - 1].islower() and text[i].isupper()) or (text[i - 1] == "." and text[i].islower())
            if gap > (CAMEL_GAP_EM if strict else SPACE_GAP_EM) * size:
                cuts.append(m.start())
        if not cuts:
            return text
        out = []
        pos = 0
        for c in cuts:
            out.append(text[pos:c])
            pos = c
        out.append(text[pos:])
        return " ".join(out)

    # -- one page ------------------------------------------------------------------
    def read(self, page, tp, index: int) -> PageData:
        """Read one page: lines with geometry and fonts, images, ruling edges.

        Args:
            page: an open `pypdfium2.PdfPage`.
            tp: its open `PdfTextPage`.
            index: 0-based page number.

        Returns:
            PageData with lines in content order (coordinates in points, upright).
        """
        n = tp.count_chars()
        text = tp.get_text_range(0, n) if n else ""
        if len(text) != n:
            # Characters outside the BMP make pdfium's UTF-16 text longer than its
            # character list; rebuild it one character per index.
            get = pdfium_c.FPDFText_GetUnicode
            text = "".join(chr(get(tp.raw, i)) if 0 < get(tp.raw, i) < 0x110000 else "\ufffe" for i in range(n))
            text = "".join(c if not 0xD800 <= ord(c) <= 0xDFFF else " " for c in text)
        crop = visible_box(page)
        nonspace = sum(map(len, text.split())) - text.count("\ufffe")
        has_images, edges, empty_objects, long_strings = _scan_objects(page, self._fp, self._f, crop, tp,
                                                                       max(10, nonspace), n >= LONG_STRING)
        raw_lines: list[tuple[int, int, bool]] = []
        pos = 0
        for m in re.finditer(r"\r\n|\ufffe", text):
            raw_lines.append((pos, m.start(), m.group() == "\ufffe"))
            pos = m.end()
        raw_lines.append((pos, n, False))

        # First pass: facts per line in user space; the page's direction is the
        # direction of most of its characters.
        facts = []
        votes = [0, 0, 0, 0]
        nameless = 0  # characters of lines whose first character's font has no name
        for a, b, hyph in raw_lines:
            seg = text[a:b]
            k = a
            while k < b and seg[k - a].isspace():
                k += 1
            if k >= b:
                continue
            nr = tp.count_rects(a, b - a)
            if nr <= 0:
                continue
            l = bt = math.inf
            r = t = -math.inf
            for j in range(nr):
                rl, rb, rr, rt = tp.get_rect(j)
                l = min(l, rl)
                r = max(r, rr)
                bt = min(bt, rb)
                t = max(t, rt)
            size, bold, mono, angle = self._font(tp, k)
            if self.nameless:
                nameless += b - a
            pdfium_c.FPDFText_GetCharOrigin(tp.raw, k, self._dp[0], self._dp[1])
            origin = (self._d[0].value, self._d[1].value)
            # Weight and spacing hold for the line when its first, middle and last
            # characters agree (a bold run-in word does not make a bold line).
            last = b - 1
            while last > k and text[last].isspace():
                last -= 1
            mid = k + (last - k) // 2
            while mid > k and text[mid].isspace():
                mid -= 1
            for j in {mid, last} - {k}:
                size2, bold2, mono2, _ = self._font(tp, j)
                bold = bold and bold2
                mono = mono and mono2
                size = max(size, size2)
            votes[angle // 90] += b - a
            if seg.endswith("\u00ad"):
                hyph = True
            # The first and last visible characters bound the line sideways (a
            # leading space glyph would otherwise hide an indentation).
            ends = (self._charbox(tp, k), self._charbox(tp, last))
            facts.append((a, b, hyph, (l, bt, r, t), size, bold, mono, angle, origin, ends))
        angle = votes.index(max(votes)) * 90 if facts else 0
        frame = _frame(angle, crop)
        pdata = PageData(index, frame, has_images=has_images)
        pdata.too_many_edges = len(edges) > MAX_EDGES
        pdata.ruled = bool(edges) and angle == 0 and not pdata.too_many_edges and _has_grid(edges)
        if pdata.ruled:
            pdata.edges = edges
        pdata.text = text
        pdata.empty_objects = empty_objects
        pdata.long_strings = long_strings
        pdata.nameless = nameless / max(1, sum(b - a for a, b, *_ in facts))
        pdata.n_chars, pdata.bad_chars, pdata.guessed = _unmapped(tp, text, nonspace)
        for order, (a, b, hyph, (l, bt, r, t), size, bold, mono, ang, origin, ends) in enumerate(facts):
            x0, top, x1, bottom = frame.box(l, bt, r, t)
            if ang == angle:
                f0 = frame.box(*ends[0])
                f1 = frame.box(*ends[1])
                if f0[2] > f0[0] and f1[2] > f1[0] and f1[2] >= f0[0]:
                    x0, x1 = f0[0], f1[2]
            base = frame.point(*origin)[1] if ang == angle else bottom
            if not top - size <= base <= bottom + size:
                base = bottom
            if x1 < 0 or x0 > frame.width or bottom < 0 or top > frame.height:
                continue  # outside the visible page (printer's marks, slug lines)
            h = bottom - top
            w = x1 - x0
            if not (0.5 < size < 500):
                size = max(1.0, h if ang == angle else w)
            raw = text[a:b].rstrip()
            lead = len(raw) - len(raw.lstrip())
            raw = raw.lstrip()
            raw, idx = self._glue_tokens(tp, raw, a + lead)
            if not mono:
                raw = self._restore_spaces(tp, raw, a + lead, size, ang, idx)
            line_text = clean_text(raw)
            if not line_text.strip():
                continue
            nonspace = len(line_text) - line_text.count(" ")
            vertical = (nonspace >= 2 and h > 1.6 * w and h > 0.8 * nonspace * size * 0.8
                        and bool(_CJK.search(line_text)))
            same = self._same
            line = Line(line_text, same(x0), same(top), x1, same(bottom), same(size), bold, mono, hyph, vertical, ang,
                        order, same(base))
            if ang != angle:
                pdata.stray.append(line)
            else:
                pdata.lines.append(line)
        return pdata


_BAD_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff]")
_SAMPLE = 256


def _unmapped(tp, text: str, nonspace: int) -> tuple[int, int, int]:
    """(non-space characters, unmapped ones, guessed ones) of a page's text.

    Unmapped: control characters, private-use code points and U+FFFD. Guessed: other
    characters pdfium flags with FPDFText_HasUnicodeMapError (it took their Unicode
    from the character code). The flags are sampled (at most _SAMPLE characters)
    and counted in full only when the sample finds some.
    """
    n = len(text)
    if not nonspace:
        return 0, 0, 0
    bad = min(len(_BAD_CHAR.findall(text)), nonspace)
    step = max(1, n // _SAMPLE)
    err = pdfium_c.FPDFText_HasUnicodeMapError
    raw = tp.raw
    guessed = 0
    if any(err(raw, k) == 1 for k in range(0, n, step)):
        guessed = sum(1 for k in range(n) if err(raw, k) == 1 and not text[k].isspace() and not _BAD_CHAR.match(text[k]))
    return nonspace, bad, min(guessed, nonspace - bad)


def visible_box(page) -> tuple[float, float, float, float]:
    """(left, bottom, right, top) in points of the part of `page` a viewer shows: its crop box
    within its media box, either inherited from the page tree as the PDF reference allows.

    pypdfium2's `get_cropbox` reads the page's own dictionary only and gives US Letter
    (612 x 792) when the box sits on the page tree (as FPDF writes it), so on an A4 page
    the top 50 points fell outside and their lines were dropped as off-page; pdfium's
    `FPDF_GetPageBoundingBox` resolves the inheritance.
    """
    rect = pdfium_c.FS_RECTF()
    if pdfium_c.FPDF_GetPageBoundingBox(page.raw, ctypes.byref(rect)) and rect.right > rect.left \
            and rect.top > rect.bottom:
        return rect.left, rect.bottom, rect.right, rect.top
    return page.get_cropbox()


def _frame(angle: int, crop: tuple[float, float, float, float]) -> Frame:
    """The upright frame of a page box for text running at `angle` degrees."""
    f = Frame(angle)
    l, b, r, t = crop
    xs, ys = [], []
    for x, y in ((l, b), (l, t), (r, b), (r, t)):
        ux, uy = f.point(x, y)
        xs.append(ux)
        ys.append(uy)
    f.ox, f.oy = min(xs), min(ys)
    f.width, f.height = max(xs) - min(xs), max(ys) - min(ys)
    return f


def _scan_objects(page, fp, f, crop, tp, min_text_objects: int,
                  long_check: bool) -> tuple[bool, list[tuple[str, float, float, float]], int, int]:
    """Images, axis-parallel ruling edges, unmapped and long text objects among a page's top-level objects.

    Returns:
        (has_images, edges, empty, long) where an edge is ("h", y, x0, x1) or ("v", x,
        y0, y1) in user space (points); `empty` counts text objects whose text pdfium
        maps to nothing (counted only on a page with at least `min_text_objects` text
        objects, else 0: asking each object for its text costs); `long` counts text
        objects of at least LONG_STRING characters (only when `long_check`: a page of
        that many characters). Rectangles give their four sides; edges whose middle
        lies outside the crop box (printer's crop marks) are left out.
    """
    raw = page.raw
    n = pdfium_c.FPDFPage_CountObjects(raw)
    has_images = False
    texts = []
    forms = []
    edges: list[tuple[str, float, float, float]] = []
    for i in range(n):
        obj = pdfium_c.FPDFPage_GetObject(raw, i)
        typ = pdfium_c.FPDFPageObj_GetType(obj)
        if typ == FPDF_PAGEOBJ_TEXT:
            texts.append(obj)
        elif typ == FPDF_PAGEOBJ_IMAGE:
            has_images = True
        elif typ == FPDF_PAGEOBJ_FORM:
            forms.append(obj)
            if not has_images:
                has_images = _form_has_image(obj)
        elif typ == FPDF_PAGEOBJ_PATH and len(edges) <= MAX_EDGES:
            if not pdfium_c.FPDFPageObj_GetBounds(obj, *fp):
                continue
            l, b, r, t = (x.value for x in f)
            w, h = r - l, t - b
            if w <= 3 and h <= 3:
                continue
            nseg = pdfium_c.FPDFPath_CountSegments(obj)
            if h <= 3:
                edges.append(("h", (b + t) / 2, l, r))
            elif w <= 3:
                edges.append(("v", (l + r) / 2, b, t))
            else:
                edges.extend(_segment_edges(obj, nseg))
    cl, cb, cr, ct = crop
    visible = []
    for e in edges:
        mx, my = ((e[2] + e[3]) / 2, e[1]) if e[0] == "h" else (e[1], (e[2] + e[3]) / 2)
        if cl - 1 <= mx <= cr + 1 and cb - 1 <= my <= ct + 1:
            visible.append(e)
    # (UTF-16 bytes + NUL of each text object's text, asked once and only when needed)
    sizes = [pdfium_c.FPDFTextObj_GetText(obj, tp.raw, None, 0)
             for obj in texts] if len(texts) >= min_text_objects else []
    empty = sum(b <= 2 for b in sizes) if len(texts) >= min_text_objects else 0
    long = 0
    if long_check:
        long = _long_objects(tp, texts, forms, sizes)
    return has_images, visible, empty, long


def _long_objects(tp, texts: list, forms: list, sizes: list[int]) -> int:
    """Text objects (of the page and of the forms it draws) of at least LONG_STRING characters.

    With pdfium's `FPDFText_GetTextObject`, the characters of the text page are counted by the
    object that drew each, in one pass. Asking each object for its text instead
    (`FPDFTextObj_GetText`, the fallback for an older pdfium, or `sizes` when already asked)
    searches the text page for it, once per object: quadratic on a tall page of many short
    strings (helper-114: 4,000 lines 8 s, 8,000 lines 36 s, 60,000 past the time limit)."""
    by_char = getattr(pdfium_c, "FPDFText_GetTextObject", None)
    if by_char is not None and not sizes:
        counts: dict[int | None, int] = {}
        as_address = ctypes.cast
        for i in range(pdfium_c.FPDFText_CountChars(tp.raw)):
            key = as_address(by_char(tp.raw, i), ctypes.c_void_p).value
            counts[key] = counts.get(key, 0) + 1
        counts.pop(None, None)  # (characters pdfium generated: spaces and line breaks of no object)
        return sum(c >= LONG_STRING for c in counts.values())
    inner = [sub for form in forms for sub, typ in _form_objects(form, 8) if typ == FPDF_PAGEOBJ_TEXT]
    if not sizes:
        sizes = [pdfium_c.FPDFTextObj_GetText(obj, tp.raw, None, 0) for obj in texts]
    return sum(b >= 2 * LONG_STRING + 2 for b in sizes) + sum(
        pdfium_c.FPDFTextObj_GetText(sub, tp.raw, None, 0) >= 2 * LONG_STRING + 2 for sub in inner)


def _form_objects(obj, max_depth: int, depth: int = 0) -> Iterator[tuple[Any, int]]:
    """(object, pdfium object type) of everything a form XObject draws, the forms it draws
    included, down to `max_depth` forms deep."""
    if depth > max_depth:
        return
    for i in range(max(0, pdfium_c.FPDFFormObj_CountObjects(obj))):
        sub = pdfium_c.FPDFFormObj_GetObject(obj, i)
        typ = pdfium_c.FPDFPageObj_GetType(sub)
        yield sub, typ
        if typ == FPDF_PAGEOBJ_FORM:
            yield from _form_objects(sub, max_depth, depth + 1)


def _form_has_image(obj) -> bool:
    return any(typ == FPDF_PAGEOBJ_IMAGE for _sub, typ in _form_objects(obj, 4))


def _segment_edges(obj, nseg: int) -> list[tuple[str, float, float, float]]:
    """Axis-parallel line segments of one path object, in user space."""
    m = pdfium_c.FS_MATRIX()
    pdfium_c.FPDFPageObj_GetMatrix(obj, ctypes.byref(m))
    x, y = ctypes.c_float(), ctypes.c_float()
    out: list[tuple[str, float, float, float]] = []
    prev = None
    start = None
    for i in range(min(nseg, MAX_EDGES + 1)):
        seg = pdfium_c.FPDFPath_GetPathSegment(obj, i)
        if not pdfium_c.FPDFPathSegment_GetPoint(seg, ctypes.byref(x), ctypes.byref(y)):
            continue
        px = m.a * x.value + m.c * y.value + m.e
        py = m.b * x.value + m.d * y.value + m.f
        typ = pdfium_c.FPDFPathSegment_GetType(seg)
        if typ == pdfium_c.FPDF_SEGMENT_MOVETO or prev is None:
            prev = start = (px, py)
            continue
        if typ == pdfium_c.FPDF_SEGMENT_LINETO:
            _add_edge(out, prev, (px, py))
            if pdfium_c.FPDFPathSegment_GetClose(seg) and start is not None:
                _add_edge(out, (px, py), start)
        prev = (px, py)
    return out


def _add_edge(out: list, p: tuple[float, float], q: tuple[float, float]) -> None:
    if abs(p[1] - q[1]) <= 1 and abs(p[0] - q[0]) > 3:
        out.append(("h", (p[1] + q[1]) / 2, min(p[0], q[0]), max(p[0], q[0])))
    elif abs(p[0] - q[0]) <= 1 and abs(p[1] - q[1]) > 3:
        out.append(("v", (p[0] + q[0]) / 2, min(p[1], q[1]), max(p[1], q[1])))


def _has_grid(edges: list[tuple[str, float, float, float]], tol: float = 3.0) -> bool:
    """Whether ruling edges could form a table of at least 2 x 2 cells.

    Cheap test before pdfplumber's table finder: some horizontal edge must be
    crossed (or touched) by at least three vertical edges and some vertical edge by
    at least three horizontal ones. Single boxes and crop marks do not pass.
    """
    hs = [e for e in edges if e[0] == "h"]
    vs = [e for e in edges if e[0] == "v"]
    if len(hs) < 3 or len(vs) < 3:
        return False

    def crossed(lines, others) -> bool:
        # Some edge of `lines` is crossed by others at three or more positions.
        others = sorted(others, key=lambda e: e[1])
        keys = [e[1] for e in others]
        for _, c, lo, hi in lines:
            positions = set()
            i = bisect.bisect_left(keys, lo - tol)
            while i < len(keys) and keys[i] <= hi + tol:
                _, oc, olo, ohi = others[i]
                if olo - tol <= c <= ohi + tol:
                    positions.add(round(oc))
                    if len(positions) >= 3:
                        return True
                i += 1
        return False

    return crossed(hs, vs) and crossed(vs, hs)
