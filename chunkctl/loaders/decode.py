"""Bytes -> str for text formats: BOM, BOM-less UTF-16/32, strict UTF-8, declared charset, detection, cp1252; no newline translation."""

from __future__ import annotations

import codecs
import collections
import functools
import re
import unicodedata
from collections.abc import Iterable
from typing import NamedTuple

from chunkctl.config import text_codec
from chunkctl.errors import LoaderError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

# Code pages detection may choose freely, `common_codecs` (Windows and ISO pages of living languages, the
# CJK multi-byte encodings, UTF-16/32). Any other page chardet knows (hp-roman8, the mac-*
# and DOS pages, iso8859-3/4/10/13/14/16, KOI8 variants but koi8-r/u, EBCDIC) is chosen
# only when no common page decodes the bytes plausibly (docs/records.md#decoding).
_COMMON_NAMES = (
    "cp1250 cp1251 cp1252 cp1253 cp1254 cp1255 cp1256 cp1257 cp1258 cp874 tis-620 koi8-r koi8-u "
    "latin-1 iso8859-2 iso8859-5 iso8859-6 iso8859-7 iso8859-8 iso8859-9 iso8859-15 "
    "gb18030 gbk gb2312 big5 big5hkscs cp950 cp932 shift_jis shift_jis_2004 euc_jp euc_jis_2004 "
    "iso2022_jp iso2022_jp_2 iso2022_jp_2004 iso2022_jp_ext cp949 euc_kr "
    "utf-16 utf-16-le utf-16-be utf-32 utf-32-le utf-32-be ascii utf-8")
# Western single-byte pages whose text cp1252 usually is (chardet may rank them a hair above
# cp1252 for short Western prose: "élèves" read as cp1250 "élčves").
_LATIN_NAMES = "cp1250 cp1254 cp1257 iso8859-2 iso8859-9 iso8859-15"


@functools.cache
def common_codecs() -> frozenset[str]:
    """Canonical names of the code pages detection may choose freely (see the comment above).

    Looked up when first needed: each lookup imports a codec module, about 10 ms in all,
    which a run of UTF-8 files never needs."""
    return frozenset(codecs.lookup(name).name for name in _COMMON_NAMES.split())


@functools.cache
def _latin_single_byte() -> frozenset[str]:
    """Canonical names of `_LATIN_NAMES`."""
    return frozenset(codecs.lookup(name).name for name in _LATIN_NAMES.split())


CP1252_MARGIN = 0.8
"""cp1252 wins over another Latin single-byte page with at least this share of its confidence."""
SAMPLE_BYTES = 16384
"""Bytes of non-ASCII lines each candidate reading is judged on by `detect` (the chosen codec must decode the whole file)."""


# Encoding labels as browsers read them (WHATWG Encoding Standard, "Encodings" table):
# a page that says iso-8859-1 is decoded as windows-1252, gb2312 as GBK (whose decoder
# is gb18030's), shift_jis as Windows-31J, and so on. Python codec name per label.
_WHATWG_GROUPS = {
    "utf-8": "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8",
    "cp1252": "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 "
              "iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
    "cp1254": "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5 latin5 "
              "windows-1254 x-cp1254",
    "cp874": "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
    "gb18030": "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk gb18030",
    "big5hkscs": "big5 big5-hkscs cn-big5 csbig5 x-x-big5",
    "euc_jp": "cseucpkdfmtjapanese euc-jp x-euc-jp",
    "iso2022_jp": "csiso2022jp iso-2022-jp",
    "cp932": "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    "cp949": "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 "
             "windows-949",
    "cp866": "866 cp866 csibm866 ibm866",
    "koi8_r": "cskoi8r koi koi8 koi8-r koi8_r",
    "koi8_u": "koi8-ru koi8-u",
    "mac_roman": "csmacintosh mac macintosh x-mac-roman",
    "mac_cyrillic": "x-mac-cyrillic x-mac-ukrainian",
    "iso8859_8": "csiso88598i iso-8859-8-i logical",
    "utf-16-le": "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
    "utf-16-be": "unicodefffe utf-16be",
}
WHATWG_LABELS: dict[str, str] = {label: codec for codec, labels in _WHATWG_GROUPS.items() for label in labels.split()}
# Labels the standard maps to "replacement" (never decode with them) and x-user-defined.
_WHATWG_REFUSED = frozenset("csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr replacement "
                            "x-user-defined".split())


def codec_for_label(label: str) -> str | None:
    """Python codec for an encoding label as a browser reads it, or None when there is none.

    Labels of the WHATWG Encoding Standard map as browsers map them (iso-8859-1,
    latin1 and ascii -> cp1252; gb2312 and gbk -> gb18030; shift_jis -> cp932;
    euc-kr -> cp949; big5 -> big5hkscs; ...); any other label Python knows maps to
    Python's codec of that name. Source of the table: https://encoding.spec.whatwg.org/#names-and-labels.

    Args:
        label: the label as declared (case and surrounding white space do not matter).

    Returns:
        a canonical Python codec name, or None (unknown, or a label the standard refuses).
    """
    key = label.strip().strip("\"'").lower()
    if not key or key in _WHATWG_REFUSED:
        return None
    codec = WHATWG_LABELS.get(key)
    return text_codec(codec or key)


def canonical(name: str) -> str:
    """Python's canonical codec name for an encoding label (e.g. "UTF8" -> "utf-8").

    Raises:
        LookupError: Python has no such codec.
    """
    return codecs.lookup(name).name


def utf16_without_bom(data: bytes) -> str | None:
    """The codec of BOM-less UTF-16/32 text, recognised from where its NUL bytes fall, else None.

    A NUL byte in text that is not UTF-8 is the high byte of a UTF-16 code unit (every
    ASCII character's, spaces and line ends included: even offsets for big-endian, odd
    for little-endian) or, in CJK text (nine characters in ten from everyday blocks),
    its low byte (U+4E00 and the like); or two or three bytes of a UTF-32 one (two
    thirds of the NULs must then fall where one byte order puts them).
    The first 8 KiB must decode strictly in the codec to characters of text (no NUL, no
    control but white space, no unassigned, private-use or lone surrogate code point),
    which a binary file's bytes do not. When both UTF-16 byte orders read as text, the
    one with far more characters of everyday text wins ("一场" is U+4E00 U+573A one way,
    U+004E U+3A57 the other), else the one with more NULs in its high bytes, else the
    one whose high bytes take fewer values (04 for Cyrillic; the other order scatters them).

    Args:
        data: the file's bytes (only the first 8 KiB are looked at).

    Returns:
        "utf-32-le", "utf-32-be", "utf-16-le", "utf-16-be" or None.
    """
    head = data[:8192]
    if b"\x00" not in head:
        return None
    if len(data) <= len(head) and len(data) % 2:
        return None  # a whole file of an odd number of bytes holds no UTF-16/32 code units
    readings: list[tuple[str, float, int, int]] = []  # UTF-16: codec, and what ranks the byte orders
    for codec, width in (("utf-32-le", 4), ("utf-32-be", 4), ("utf-16-le", 2), ("utf-16-be", 2)):
        body = head[:len(head) - len(head) % width]
        if not body:
            continue
        # the high bytes of each unit: where an ASCII character's NULs fall
        high = range(1, width) if codec.endswith("le") else range(0, width - 1)
        nul_high = sum(body[i::width].count(0) for i in high)
        if width == 4 and nul_high < 2 * (body.count(0) - nul_high):
            continue
        try:
            text = body.decode(codec)
        except UnicodeDecodeError:
            if len(data) <= len(head):
                continue
            try:  # the 8 KiB cut may fall inside a surrogate pair
                text = body[:-width].decode(codec)
            except UnicodeDecodeError:
                continue
        if not text or "\x00" in text or _has_controls(text) or _has_unassigned(text):
            continue
        if width == 4:
            return codec
        if _stray_nuls(head, body, codec.endswith("le")):
            continue
        share = _ordinary_share(text)
        if nul_high < body.count(0) - nul_high and share < 0.9:
            continue  # most NULs in low bytes: only for text of U+4E00-like characters (CJK)
        top = body[1::2] if codec.endswith("le") else body[0::2]
        readings.append((codec, share, nul_high, len(set(top))))
    if len(readings) < 2:
        return readings[0][0] if readings else None
    (a, share_a, nul_a, top_a), (b, share_b, nul_b, top_b) = readings
    # both byte orders read as text: far more characters of everyday text in one; else the
    # one with ASCII's NULs in the high bytes; else the one whose high bytes take fewer
    # values (one script's block, 04 for Cyrillic; the other order scatters them)
    if abs(share_a - share_b) > 0.2:
        return a if share_a > share_b else b
    if nul_a != nul_b:
        return a if nul_a > nul_b else b
    return a if top_a <= top_b else b


def utf16_cjk_without_nul(data: bytes) -> str | None:
    """The byte order of BOM-less UTF-16 CJK text without a single NUL byte, else None.

    Text of kana, hanzi or Hangul alone (no space, digit or line end, each of which has
    a NUL byte in UTF-16) has no NUL for `utf16_without_bom` to find. Such bytes are
    taken as UTF-16 when one byte order reads them, whole and strictly, as 95% or more
    common hanzi (`_common_hanzi`), kana, CJK signs and KS X 1001 Hangul syllables, at
    least 4 characters of 2 or more kinds, none over 3 in 5. `decode_bytes` asks only
    when detection found no plausible reading in a common code page (a short GBK or
    Shift_JIS text can read so in UTF-16-BE, but reads plausibly in its own page first;
    a rare DOS page reads any bytes as letters and box drawing).

    Args:
        data: the file's bytes.

    Returns:
        "utf-16-le", "utf-16-be" or None.
    """
    if len(data) % 2 or len(data) < 8 or b"\x00" in data[:8192]:
        return None
    best: tuple[float, str] | None = None
    common, hangul = _common_hanzi(), _ksx1001_hangul()
    for codec in ("utf-16-le", "utf-16-be"):
        try:
            text = data[:8192].decode(codec)
        except UnicodeDecodeError:
            continue
        counts = collections.Counter(text)
        cjk = sum(n for ch, n in counts.items() if ord(ch) in common or ch in hangul or
                  0x3041 <= ord(ch) <= 0x30FF or ord(ch) in _CJK_SIGNS or ch == "\u3000")
        if len(counts) < 2 or 5 * max(counts.values()) > 3 * len(text) or cjk < 0.95 * len(text):
            continue
        if best is None or cjk / len(text) > best[0]:
            best = (cjk / len(text), codec)
    if best is None or not _decodes(data, best[1]):
        return None
    return best[1]


# Bytes of single-byte text: ASCII white space and printable ASCII.
_PRINTABLE = frozenset(range(0x09, 0x0E)) | frozenset(range(0x20, 0x7F))
_WHITE = frozenset(range(0x09, 0x0E))
# Bytes text in Latin-1 (or cp1252) does not hold: C0 controls but white space, DEL, C1 controls.
_CONTROL_BYTES = re.compile(b"[\x01-\x08\x0e-\x1f\x7f-\x9f]")


def _stray_nuls(head: bytes, body: bytes, little: bool) -> bool:
    """True when a UTF-16 reading of `body` is single-byte text with a few stray NULs in it.

    Each code unit of the reading is an ASCII character (high byte NUL); an "ASCII pair"
    (both bytes printable ASCII or white space: U+6869 for "hi"); a unit with a NUL low
    byte (U+4E00); or a "wide" unit, with a byte ASCII text does not hold (>= 0x80 or a
    control: Cyrillic's 04, most CJK units). Kana that are ASCII pairs too (U+3041-U+307E,
    "0" before a letter), Latin-1 characters and units whose high byte is a tab or line
    end (U+0900-U+0DFF, Indic) count as neither. The reading is text written in UTF-16
    (False) when it has one of:

    - Latin evidence: two ASCII characters or more, over twice the ASCII pairs and NUL
      low bytes (Latin text; Cyrillic, Greek, Hebrew, Korean with their spaces, digits);
    - short CJK text (8 bytes or more): only common hanzi (`_common_hanzi`), kana and CJK
      signs besides ASCII characters, two of them distinct, none three in five of them,
      and no ASCII letter or sign alone between two of them ("桩t桥": a stray NUL's);
    - CJK bytes: two wide units or more, a quarter of the ASCII pairs or more, four in
      five in blocks of everyday text (`_ORDINARY`), bytes that are not UTF-8 once the
      NULs are out and, with fewer wide units than pairs, a C0/C1 control among them (the
      bytes of CJK code units spread over all 256 values); or wide units that are ASCII
      controls (Cyrillic's 04, with no byte >= 0x80).

    ASCII, Latin-1 or UTF-8 text with a few stray NULs has none of them: only its NULs
    make ASCII characters (and as many NUL low bytes), its letter pairs give common hanzi
    about one time in three, and only its accented letters make wide units (U+C3A4 from
    UTF-8 "ä", U+41E9 in CJK Extension A). Measured on 50,000 random ASCII and Western
    strings of 2 to 2,000 bytes with 1 to 32 stray NULs (up to one per four bytes of text,
    up to one letter in ten accented): 13 still read as UTF-16, all repetitive
    ("QkgQkg...") or under 16 bytes; of 3,120 strings with an accented letter in every
    seven characters or more, 25 do. Of 24,576 three-word CJK texts, 2 are refused.
    """
    lows, highs = (body[0::2], body[1::2]) if little else (body[1::2], body[0::2])
    ascii_chars = pairs = nul_low = wide = ordinary = 0
    lone_letters = 0  # ASCII letters and signs with no ASCII character next to them ("桩t桥")
    after = False  # the last unit: an ASCII character?
    letter = False  # the last unit: an ASCII letter or sign after a unit that is no ASCII character?
    cjk: list[int] = []  # the common hanzi, kana and CJK signs
    not_cjk = 0  # units (but ASCII characters) that are none of them
    common = _common_hanzi()
    for low, high in zip(lows, highs):
        is_ascii = not high and low < 0x80
        lone_letters += letter and not is_ascii
        letter = is_ascii and not after and not chr(low).isspace() and not chr(low).isdigit()
        after = is_ascii
        if not high:
            ascii_chars += is_ascii
            continue
        code = (high << 8) | low
        if code & 0xFF == 0 and code not in (0x4E00, 0x6700, 0x9000):  # 一, 最, 退: the everyday U+xx00
            not_cjk += 1
        elif code in common or 0x3041 <= code <= 0x30FF or code in _CJK_SIGNS:
            cjk.append(code)
        else:
            not_cjk += 1
        if 0x3041 <= code <= 0x307E:
            continue  # kana that are ASCII pairs too ("0" before a letter): for neither side
        if (0x20 <= high < 0x7F or high in _WHITE) and low in _PRINTABLE:
            pairs += 1
        elif not low:
            nul_low += 1
        elif not 0x09 <= high <= 0x0D:
            wide += 1
            ordinary += _is_ordinary(code)
    if ascii_chars >= 2 and ascii_chars > 2 * (pairs + nul_low):
        return False  # Latin text, or an alphabet's with its spaces
    lone_letters += letter
    top = collections.Counter(cjk).most_common(1)[0][1] if cjk else 0
    if len(body) >= 8 and not not_cjk and len(set(cjk)) >= 2 and 5 * top <= 3 * len(cjk) and not lone_letters:
        return False  # short CJK text: common hanzi, kana and CJK signs, spaces and digits between
    if not wide:
        return True  # every byte printable ASCII or NUL: ASCII text with stray NULs
    rest = head.replace(b"\x00", b"")
    if rest.isascii():
        return False  # control bytes ASCII text lacks (Cyrillic's 04)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(rest, final=False)
        return True  # UTF-8 text with stray NULs
    except UnicodeDecodeError:
        pass
    if wide >= 2 and 4 * wide >= pairs and 5 * ordinary >= 4 * wide \
            and (wide >= pairs or _CONTROL_BYTES.search(rest) is not None):
        return False  # CJK, Japanese: bytes spread over all 256 values, C1 ones among them
    return True


# CJK punctuation and full-width forms of CJK text: 、。「」『』【】・ー and U+FF01-U+FF5E.
_CJK_SIGNS = frozenset([0x3001, 0x3002, 0x300C, 0x300D, 0x300E, 0x300F, 0x3010, 0x3011, 0x30FB, 0x30FC,
                        *range(0xFF01, 0xFF5F)])


@functools.lru_cache(maxsize=1)
def _common_hanzi() -> frozenset[int]:
    """Code points of the common hanzi and kanji: GB 2312 level 1, Big5's frequent characters, JIS X 0208 level 1.

    About 7,200 of the 20,992 characters of U+4E00-U+9FFF; everyday Chinese and Japanese
    text is nearly all of them, while two ASCII letters read as one UTF-16 unit give one
    about a third of the time.
    """
    found = set()
    for code in range(0x4E00, 0xA000):
        for codec, first, last in (("gb2312", 0xB0, 0xD7), ("big5", 0xA4, 0xC6), ("cp932", 0x88, 0x98)):
            try:
                lead = chr(code).encode(codec)[0]
            except UnicodeEncodeError:
                continue
            if first <= lead <= last:
                found.add(code)
                break
    return frozenset(found)


# Blocks of everyday text: ASCII and Latin-1, Latin Extended-A, Greek to Arabic, the usual
# punctuation, CJK symbols and kana, CJK Unified Ideographs, Hangul syllables, full-width forms.
# Not U+3000 (the ideographic space), which ASCII "0" read in the wrong byte order gives.
_ORDINARY = ((0x09, 0x0D), (0x20, 0x7E), (0xA0, 0x17F), (0x370, 0x6FF), (0x2010, 0x2027), (0x3001, 0x30FF),
             (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xFF00, 0xFFEF))


def _is_ordinary(code: int) -> bool:
    """True when code point `code` is in a block of everyday text (`_ORDINARY`)."""
    return any(lo <= code <= hi for lo, hi in _ORDINARY)


def _ordinary_share(text: str) -> float:
    """The share of `text`'s characters in blocks of everyday text (`_ORDINARY`)."""
    if not text:
        return 0.0
    hits = sum(1 for ch in text if any(lo <= ord(ch) <= hi for lo, hi in _ORDINARY))
    return hits / len(text)


def is_binary(data: bytes) -> bool:
    """True when the first 8 KiB hold a NUL byte and the file is not UTF-16/32 text.

    UTF-16/32 text starts with a byte-order mark, or without one has its NUL bytes where
    those encodings put them (`utf16_without_bom`).
    """
    if b"\x00" not in data[:8192]:
        return False
    if any(data.startswith(bom) for bom, _ in _BOMS if bom != codecs.BOM_UTF8):
        return False
    return utf16_without_bom(data) is None


_CONTROLS = re.compile("[\x00-\x08\x0e-\x19\x1b-\x1f\x7f-\x9f]")


def _has_controls(text: str) -> bool:
    """True when `text` holds C0/C1 control characters other than tab, newlines, form feed and SUB."""
    return _CONTROLS.search(text) is not None


def _has_unassigned(text: str) -> bool:
    """True when `text` holds unassigned, private-use or surrogate code points."""
    return any(unicodedata.category(ch) in ("Cn", "Co", "Cs") for ch in set(text) if ord(ch) > 0x7F)


_SCRIPT_GROUPS = {"LATIN": "Latin", "CYRILLIC": "Cyrillic", "GREEK": "Greek", "HEBREW": "Hebrew",
                  "ARABIC": "Arabic", "THAI": "Thai"}
# Signs that no language writes between two letters of one word ("pi±tek" is cp1250 read
# for ISO-8859-2 Polish "piątek"). Apostrophes, quotes (Arabic "لـ«الصباح»"), the middle
# dot (Catalan l·l) and hyphens are not among them.
_IN_WORD_SIGNS = frozenset("¡¤¦§¨©¬®¯°±²³´¶¸¹¼½¾¿×÷ˇ˘˙˛˝†‡•…‰€™")
# Signs a wrong page's reading of accented letters puts inside Latin words, which real text
# has now and then too (a unit `kW∙h`, German `Sicherheits„systeme“`): they count against a
# reading only when many of its words have them (`_odd_words`). Operators, technical
# signs, box drawing and block elements between two Latin letters, two on one side at
# least ("cr▐me": Mac Roman "crème" read as KOI8-U; not "x≤y"); a low quote between two
# Latin letters ("S„„tiedotus": cp850 "Säätiedotus" read as cp1252); and the capitals
# cp1252 and cp1250 have in 0x80-0x9F, where Mac Roman and the DOS pages have small
# accented letters, after a small letter ("CafŽ", "GrŠe": Mac Roman "Café", "Gräe").
# Real camelCase capitals (`KundenÜbersicht`, `getÉtat`, Gaelic `MacÀidh`) are not among them.
_LATIN = "A-Za-z\u00c0-\u024f"
_ODD_SIGN_IN_WORD = (f"[{_LATIN}]{{2}}[\u2200-\u23ff\u2500-\u259f]+[{_LATIN}]|"
                     f"[{_LATIN}][\u2200-\u23ff\u2500-\u259f]+[{_LATIN}]{{2}}|"
                     f"[a-z\u00df-\u00ff][\u0160\u017d\u0178\u0152]")
_LOW_QUOTE_IN_WORD = f"[{_LATIN}][\u201a\u201e]+[{_LATIN}]"


@functools.lru_cache(maxsize=4096)
def _script(ch: str) -> str | None:
    """The alphabetic script of a non-ASCII letter (Latin, Cyrillic, Greek, Hebrew, Arabic, Thai), else None."""
    try:
        return _SCRIPT_GROUPS.get(unicodedata.name(ch).split(" ", 1)[0])
    except ValueError:
        return None


@functools.cache
def _ksx1001_hangul() -> frozenset[str]:
    """The 2,350 Hangul syllables of KS X 1001 (EUC-KR): nearly every syllable of everyday Korean text.

    The other 8,822 of U+AC00-U+D7A3, which only cp949's extension encodes, are what
    Western text read as cp949 mostly gives ("S꼧tiedotus": Finnish "Säätiedotus" from DOS).
    """
    # Python's euc_kr writes the others as 8-byte jamo sequences (KS X 1001 annex 3)
    return frozenset(chr(code) for code in range(0xAC00, 0xD7A4) if len(chr(code).encode("euc_kr")) == 2)


def _rare_hangul(text: str) -> bool:
    """True when most of `text`'s Hangul syllables lie outside KS X 1001 (slang such as "햏" is rare)."""
    syllables = [ch for ch in text if "\uac00" <= ch <= "\ud7a3"]
    if not syllables:
        return False
    common = _ksx1001_hangul()
    rare = sum(ch not in common for ch in syllables)
    return 2 * rare > len(syllables)


def _odd_words(text: str) -> bool:
    """True when a third or more of the words with a non-ASCII character hold a sign of
    `_ODD_SIGN_IN_WORD` or `_LOW_QUOTE_IN_WORD`, two words at least (one is enough for
    `_ODD_SIGN_IN_WORD` when there are no more than three such words, never for a low
    quote alone: `Sicherheits„systeme“`). A wrong page's reading has such signs wherever an
    accented letter was; real text only now and then."""
    words = [w for w in text.split() if not w.isascii()]
    odd = sum(1 for w in words if re.search(_ODD_SIGN_IN_WORD, w))
    quoted = sum(1 for w in words if re.search(_LOW_QUOTE_IN_WORD, w))
    if odd and 3 * odd >= len(words):
        return True
    return odd + quoted >= 2 and 3 * (odd + quoted) >= len(words)


def implausible(text: str) -> str | None:
    """Why `text` cannot be what a person wrote (a wrong code page's reading of it), or None.

    Signs of a wrong reading, each one enough: C0/C1 control characters (other than white
    space), unassigned or private-use code points, a word whose letters come from two
    alphabets ("Pצydהn", Latin-1 Finnish read as ISO-8859-8), a sign between two letters
    of a word ("pi±tek"), and Hangul mostly outside KS X 1001's everyday syllables
    (`_rare_hangul`: Western bytes read as cp949). Signs that count only when many words
    have them (`_odd_words`): box drawing or operators between Latin letters ("cr▐me"), a
    low quote inside a word, cp1252's Š Ž Ÿ Œ after a small letter ("CafŽ"). Words of
    CJK characters are not otherwise judged (they have no alphabet).

    Returns:
        a short reason, or None when nothing is wrong.
    """
    if _has_controls(text):
        return "control characters"
    if _has_unassigned(text):
        return "unassigned code points"
    if not text.isascii() and _rare_hangul(text):
        return "rare Hangul syllables"
    word_script: str | None = None  # the alphabet of the word being read, once it has a letter of one
    in_word = sign_pending = False
    for ch in text:
        if in_word and ch in _IN_WORD_SIGNS:  # before letters: the caron "ˇ" is a modifier letter
            sign_pending = True
        elif ch.isalpha():
            script = "Latin" if ch.isascii() else _script(ch)
            if sign_pending and script:
                return "a sign inside a word"
            if script and word_script and script != word_script:
                return f"a word mixing {word_script} and {script} letters"
            word_script = script or word_script
            in_word = script is not None  # words of letters of an alphabet (not CJK, which has none)
            sign_pending = False
        elif in_word and unicodedata.category(ch).startswith("M"):
            continue  # a combining mark (Arabic and Hebrew vowel signs) belongs to its word
        else:
            word_script = None
            in_word = sign_pending = False
    if not text.isascii() and _odd_words(text):
        return "signs inside many words"
    return None


def _sparse_foreign(text: str) -> bool:
    """True when a reading puts a few letters of a non-Latin alphabet into Latin text.

    French "à 13h36" read as cp1251 gives "а 13h36": Cyrillic letters under 15% of the
    letters, the rest ASCII. Such a reading loses to a plausible Latin one.
    """
    letters = foreign = 0
    for ch in text:
        if ch.isalpha():
            letters += 1
            if not ch.isascii() and _script(ch) not in (None, "Latin"):
                foreign += 1
    return 0 < foreign < 0.15 * letters


# Runs of CJK characters (kana, ideographs, Hangul and its compatibility jamo, CJK signs and
# brackets, half-width katakana) and the pseudo-graphics of KOI8 and the DOS pages (box
# drawing, block elements) after two letters of a Latin word.
_CJK_RUN = "[\u3000-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7a3\uff61-\uff9f\U00020000-\U0002ffff]+"
_GLUED_GRAPHICS = "[A-Za-z\u00c0-\u024f]{2}[\u2500-\u259f]"


def _glued_signs(text: str) -> bool:
    """True when a reading glues signs of another kind into Latin words (a Western text read in a wrong page).

    Either pseudo-graphics right after two Latin letters, twice or more ("Viel┼ ...
    perehty┼": Mac Roman "Vielä ... perehtyä" read as KOI8-R), or CJK characters under 15%
    of the letters in runs of which two or more, and over half, have a Latin letter on
    both sides ("my喇郭tyminen": Mac Roman "myöhästyminen" read as cp932). Chinese and
    Japanese text glue runs between Latin words too ("在Linux或macOS上用Python和Go开发"),
    but its CJK characters are more of its letters.
    """
    if len(re.findall(_GLUED_GRAPHICS, text)) >= 2:  # (compiled when first needed: never for UTF-8 files)
        return True
    runs = glued = cjk = 0
    for m in re.finditer(_CJK_RUN, text):
        runs += 1
        cjk += m.end() - m.start()
        a, b = m.start(), m.end()
        glued += a > 0 and b < len(text) and text[a - 1].isascii() and text[a - 1].isalpha() \
            and text[b].isascii() and text[b].isalpha()
    if glued < 2 or 2 * glued <= runs:
        return False
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    return cjk < 0.15 * (cjk + latin)


def detect(data: bytes) -> str | None:
    """The codec of bytes that are neither UTF-8 nor declared, as Python names it, or None.

    chardet (7.x) ranks every encoding it knows for the bytes; candidates are taken in
    its order when they read the file's non-ASCII lines (`SAMPLE_BYTES` of them) strictly
    as plausible text (`implausible`) and decode the whole file, with these preferences
    over chardet's own first choice:

    - a common code page (`common_codecs`) over any rare one (hp-roman8, mac-*, DOS and
      EBCDIC pages, ISO-8859-3/4/10/13/14/16, ...), which is taken only when no common
      page reads the bytes plausibly;
    - cp1252 over another Latin single-byte page (cp1250 for Latin-1 French, for example)
      when chardet gives it at least `CP1252_MARGIN` of that page's confidence;
    - a reading in one alphabet over one that puts a few letters of another into Latin
      text (`_sparse_foreign`: French "à" read as Cyrillic "а");
    - on a tie, the Windows page (cp1250 over ISO-8859-2 when both read the bytes well).

    ISO-8859-1 is answered as cp1252 (as browsers read it, and the same text wherever
    ISO-8859-1 has printable characters).

    Args:
        data: the file's bytes (chardet reads at most its first 200,000).

    Returns:
        a canonical Python codec name (when nothing reads plausibly, chardet's first
        choice that decodes), or None when no candidate decodes the file.
    """
    return _detect(data)[0]


def _detect(data: bytes) -> tuple[str | None, bool]:
    """`detect`, and whether its choice is a common page that reads the sample plausibly."""
    import chardet

    ranked: list[tuple[str, float]] = []
    for answer in chardet.detect_all(bytes(data), ignore_threshold=True):
        name = answer.get("encoding")
        if not name:
            continue
        try:
            codec = canonical(name)
        except LookupError:
            continue
        if codec == "iso8859-1":
            codec = "cp1252"
        if all(codec != c for c, _ in ranked):
            ranked.append((codec, float(answer.get("confidence") or 0.0)))
    sample = _sample(data)
    readings = {codec: _reading(sample, codec) for codec, _ in ranked}
    verdicts: dict[str, bool] = {}  # codec -> its reading is plausible (filled by `_choose`)
    while ranked:
        choice = _choose(ranked, readings, verdicts)
        if choice is None or _decodes(data, choice):
            return choice, choice in common_codecs() and verdicts.get(choice, False)
        ranked = [c for c in ranked if c[0] != choice]  # the sample decoded, the rest does not
    return None, False


def _sample(data: bytes) -> bytes:
    """The lines of `data` that hold non-ASCII bytes, up to `SAMPLE_BYTES`: where code pages differ.

    A line feed byte is a line feed in every code page `detect` weighs (UTF-16/32 are
    recognised before detection), so no character is cut but perhaps the last.
    """
    lines = []
    size = 0
    for line in data.split(b"\n"):
        if not line.isascii():
            lines.append(line)
            size += len(line) + 1
            if size >= SAMPLE_BYTES:
                break
    return b"\n".join(lines)[:SAMPLE_BYTES]


def _reading(sample: bytes, codec: str) -> str | None:
    """`sample` decoded strictly (a character cut at its end left out), or None."""
    try:
        return codecs.getincrementaldecoder(codec)().decode(sample, final=False)
    except (UnicodeDecodeError, LookupError):
        return None


def _choose(ranked: list[tuple[str, float]], readings: dict[str, str | None],
            verdicts: dict[str, bool]) -> str | None:
    """The codec `detect` picks from chardet's (codec, confidence) ranking and each codec's reading of
    the sample; `verdicts` keeps each plausibility judged (codec -> plausible)."""

    def plausible(codec: str) -> bool:
        if codec not in verdicts:
            text = readings[codec]
            verdicts[codec] = text is not None and implausible(text) is None
        return verdicts[codec]

    common = [(c, conf) for c, conf in ranked if c in common_codecs()]
    best: tuple[str, float] | None = None
    weak: list[tuple[str, float]] = []  # plausible, but foreign signs sprinkled into Latin words
    for c, conf in common:
        if plausible(c):
            if _sparse_foreign(readings[c] or "") or _glued_signs(readings[c] or ""):
                weak.append((c, conf))
            else:
                best = (c, conf)
                break
    if best is None and weak:
        best = weak[0]
        # a rare page chardet ranks above it that reads the bytes without such signs (Mac Roman
        # "Größe" is "Gro吮e" in Big5-HKSCS, "Gro┼" in KOI8-R)
        for c, _conf in ranked:
            if c == best[0]:
                break
            text = readings[c]
            if c not in common_codecs() and plausible(c) and not _sparse_foreign(text or "") \
                    and not _glued_signs(text or ""):
                return c
    if best is None:
        exotic = next((c for c, _ in ranked if c not in common_codecs() and plausible(c)), None)
        # nothing reads plausibly: chardet's first choice that decodes at all
        return exotic or next((c for c, _ in ranked if readings[c] is not None), None)
    codec, confidence = best
    # a tie (bytes both read the same way but for a few letters): the Windows page, as files are written
    tied = [c for c, conf in common if conf >= confidence - 1e-9 and c.startswith("cp125") and plausible(c)
            and not _sparse_foreign(readings[c] or "")]
    if tied:
        codec = tied[0]
    if codec in _latin_single_byte():
        cp1252 = next((conf for c, conf in common if c == "cp1252"), None)
        if cp1252 is not None and cp1252 >= CP1252_MARGIN * confidence and plausible("cp1252") \
                and not _sparse_foreign(readings["cp1252"] or ""):
            return "cp1252"
    return codec


def _decodes(data: bytes, codec: str) -> bool:
    try:
        data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return False
    return True


class Decoded(NamedTuple):
    """A decoded file: its text, the codec, and how the codec was found."""

    text: str
    """The text, one leading BOM removed, no newline translation."""
    encoding: str
    """Canonical Python codec name that decodes the raw bytes to `text` (BOM aside), for `meta.encoding`."""
    detected: bool
    """True when the codec was guessed (detection, BOM-less UTF-16/32, the cp1252 fallback), not declared."""
    refused: str = ""
    """The declared encoding the bytes did not decode as (guessed after it), else ""."""
    replaced: tuple[int, int] = (0, -1)
    """Sequences of bytes of nearly UTF-8 text that are not UTF-8, each read as one U+FFFD
    (`near_utf8`), and the offset of the first; (0, -1) for none."""
    almost: tuple[int, int] = (0, -1)
    """The same for a nearly UTF-8 text decoded with a detected codec instead (not `lossy`)."""
    unknown: str = ""
    """The first declared label that names no encoding (`charset="bogus"`), else ""."""

    @property
    def warning(self) -> str | None:
        """The one-line warning a guessed encoding or replaced bytes get (without the file name), else None."""
        if self.replaced[0]:
            n, first = self.replaced
            return (f"{n} invalid UTF-8 sequence{'s' if n > 1 else ''} (the first at byte {first}) in otherwise "
                    f"UTF-8 text, read as U+FFFD; pass --encoding if the file is in another encoding")
        if not self.detected:
            return None
        if self.almost[0]:  # (helper-104: one byte dropped from a Chinese file gave cp850, said as "detected")
            n, first = self.almost
            return (f"UTF-8 but for {n} invalid sequence{'s' if n > 1 else ''} (the first at byte {first}); decoded as "
                    f"{self.encoding} (detected), which garbles the rest: repair those bytes")
        if self.refused:  # (helper-50: "not declared" about a page that declares UTF-8 misled)
            return f"declared {self.refused}, but the bytes are not {self.refused}; decoded as {self.encoding} (detected)"
        if self.unknown:  # (helper-117: a page declaring "bogus-charset-x" was said to declare none)
            return f"declared {self.unknown!r}, which names no encoding; decoded as {self.encoding} (detected)"
        return f"encoding not declared; decoded as {self.encoding} (detected)"


def decode(data: bytes, source: str, forced: str | None = None,
           declared: str | Iterable[str] | None = None) -> tuple[str, str]:
    """Decode file bytes to text without newline translation: `decode_bytes` without how the codec was found.

    Returns:
        (text, encoding), as `decode_bytes`.

    Raises:
        as `decode_bytes`.
    """
    found = decode_bytes(data, source, forced, declared)
    return found.text, found.encoding


def decode_bytes(data: bytes, source: str, forced: str | None = None,
                 declared: str | Iterable[str] | None = None, lossy: bool = False) -> Decoded:
    """Decode file bytes to text without newline translation.

    Order: a forced encoding (strict, nothing else tried, no binary check) >
    byte-order mark > BOM-less UTF-16/32 from its NUL pattern > strict UTF-8 >
    `declared` (e.g. HTML meta charsets, each strict, in order, read as browsers
    read labels: `codec_for_label`) > detection (`detect`) > cp1252. One leading BOM
    is removed from the text. A declaration that lies (says gb2312 about UTF-8
    bytes) loses to strict UTF-8; one that does not decode is passed over.

    Args:
        data: the file's bytes.
        source: the file's name, for error messages.
        forced: `--encoding` value (a Python codec name), or None to detect.
        declared: encoding label(s) the document declares about itself, first
            declaration first, or None.
        lossy: read nearly UTF-8 bytes as UTF-8, the few that are not replaced by U+FFFD
            (`near_utf8`), as browsers do: for HTML, whose document text is what is
            extracted; a txt or md document's text is its bytes decoded with `meta.encoding`
            (the record contract), so such a file is detected as before, with a warning that says why.

    Returns:
        the text, the canonical codec name (for `meta.encoding`), and whether the codec
        was guessed rather than declared (BOM, UTF-8, `declared`, `forced`).

    Raises:
        LoaderError: binary file (NUL bytes, not UTF-16/32; never with `forced`), unknown
            forced encoding, or bytes that do not decode.
    """
    enc: str | None
    if forced:
        enc = text_codec(forced)
        if enc is None:
            raise LoaderError(source, f"unknown encoding {forced!r} given with --encoding") from None
        try:
            text = data.decode(enc)
        except UnicodeDecodeError as exc:
            # a byte order mark names the file's encoding (helper-65: UTF-16 was told to try cp1252)
            marked = next((e for bom, e in _BOMS if data.startswith(bom)), None)
            hint = f"it starts with a {marked} byte order mark: try --encoding {marked}" if marked and marked != enc \
                else "try --encoding cp1252"
            raise LoaderError(
                source, f"cannot decode as {enc} at byte {exc.start} (0x{data[exc.start]:02x}); "
                        f"{hint} or leave --encoding out to detect it") from None
        return Decoded(_strip_bom(text), enc, False)
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                return Decoded(_strip_bom(data.decode(enc)), enc, False)
            except UnicodeDecodeError as exc:
                near = near_utf8(data, exc.start) if lossy and codecs.lookup(enc).name.startswith("utf-8") else None
                if near is not None:
                    return near._replace(encoding=enc)
                raise LoaderError(source, f"starts with a {enc} byte-order mark but does not decode at byte {exc.start}") from None
    if b"\x00" in data[:8192]:
        enc = utf16_without_bom(data)
        if enc is None:
            raise LoaderError(source, "binary file (NUL bytes in the first 8 KiB); not a text document")
        try:
            return Decoded(data.decode(enc), enc, True)
        except UnicodeDecodeError as exc:
            raise LoaderError(source, f"looks like {enc} without a byte-order mark but does not decode at "
                                      f"byte {exc.start}; pass --encoding") from None
    try:
        return Decoded(data.decode("utf-8"), "utf-8", False)
    except UnicodeDecodeError as exc:
        near = near_utf8(data, exc.start)
        if near is not None and lossy:
            return near
        almost = near.replaced if near is not None else (0, -1)
        del near  # (its text: the detected codec's is made next)
    refused = unknown = ""
    for label in [declared] if isinstance(declared, str) else (declared or ()):
        enc = codec_for_label(label)
        if enc is None:
            unknown = unknown or " ".join(label.split())[:40]
            continue
        if enc != "utf-8":  # (strict UTF-8 failed above)
            try:
                return Decoded(data.decode(enc), enc, False)
            except (UnicodeError, LookupError):
                pass
        refused = refused or enc
    guess, plausible = _detect(data)
    if not plausible:
        wide = utf16_cjk_without_nul(data)
        if wide is not None:
            return Decoded(data.decode(wide), wide, True, refused, unknown=unknown)
    for enc in (guess, "cp1252"):
        if not enc:
            continue
        try:
            text = data.decode(enc)
        except (UnicodeDecodeError, LookupError):
            continue
        return Decoded(text, enc, True, refused, almost=almost, unknown=unknown)
    if almost[0]:
        n, first = almost
        how = "cut inside its last character (a truncated file?)" if first >= len(data) - 3 and _incomplete(data[first:]) else \
            f"UTF-8 but for {n} invalid sequence{'s' if n > 1 else ''} (the first at byte {first})"
        raise LoaderError(source, f"cannot decode: {how}, and no other encoding reads it; repair the file or "
                                  f"pass --encoding")
    raise LoaderError(source, "cannot decode: not UTF-8 and no encoding detected; pass --encoding")


NEAR_UTF8_SHARE = 0.1
"""Most invalid UTF-8 sequences, for each character of two bytes or more that is valid, from which
a text is read as UTF-8 with those sequences replaced (`near_utf8`)."""
_HIGH_BYTES = bytes(range(128, 256))


def near_utf8(data: bytes, first_bad: int) -> Decoded | None:
    """`data` read as UTF-8 with its few invalid sequences replaced by U+FFFD, as browsers read such
    a page, when it is nearly UTF-8: the invalid sequences are at most NEAR_UTF8_SHARE of its
    characters of two bytes or more, or only a character cut at its end. Else None (another
    encoding is detected). helper-104: one byte dropped from a Chinese, Russian or Japanese file,
    or two stray cp1252 bytes in German, made detection read the whole file as cp850, cp855 or
    mac-roman, and a UTF-8 file cut inside its last character failed.

    A cp1252 or Latin-1 text holds an accented letter as a byte that is not UTF-8 by itself, and
    pairs that happen to be UTF-8 ("Ã©") are rare, so it is not nearly UTF-8; the shared corpus's
    Big5, Shift JIS and GB2312 files have 0.13-0.28 such characters a byte that is not, the
    near-UTF-8 files helper-104 met 25-30 or more."""
    text = data.decode("utf-8", "replace")  # (one U+FFFD a maximal invalid sequence, as WHATWG decodes)
    bad = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    high = len(data) - len(data.translate(None, _HIGH_BYTES))  # bytes 0x80-0xFF
    valid = len(text) - (len(data) - high) - bad  # characters of two bytes or more
    cut_at_end = valid > 0 and first_bad >= len(data) - 3 and _incomplete(data[first_bad:])
    if bad and (cut_at_end or bad <= NEAR_UTF8_SHARE * valid):
        return Decoded(_strip_bom(text), "utf-8", False, replaced=(bad, first_bad))
    return None


def _incomplete(tail: bytes) -> bool:
    """True when `tail` is the start of a UTF-8 character cut before its end."""
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(tail, final=False) == ""
    except UnicodeDecodeError:
        return False


def _strip_bom(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text
