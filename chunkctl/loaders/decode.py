"""Bytes -> str for text formats: BOM, strict UTF-8, declared charset, detection, cp1252; no newline translation."""

from __future__ import annotations

import codecs
from collections.abc import Iterable

from chunkctl.errors import LoaderError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

# Single-byte Latin code pages a detector may answer for Western text; when it does
# and cp1252 decodes the bytes without control characters, cp1252 wins (docs/records.md#decoding).
_LATIN_SINGLE_BYTE = {
    "cp1250", "cp1252", "cp1254", "cp1257", "cp1258", "latin_1", "iso8859_1", "iso8859_2", "iso8859_3",
    "iso8859_4", "iso8859_9", "iso8859_10", "iso8859_13", "iso8859_14", "iso8859_15", "iso8859_16",
    "mac_roman", "mac_latin2", "cp850", "cp437", "cp858",
}


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
    try:
        return canonical(codec or key)
    except LookupError:
        return None


def canonical(name: str) -> str:
    """Python's canonical codec name for an encoding label (e.g. "UTF8" -> "utf-8").

    Raises:
        LookupError: Python has no such codec.
    """
    return codecs.lookup(name).name


def is_binary(data: bytes) -> bool:
    """True when the first 8 KiB hold a NUL byte and there is no UTF-16/32 byte-order mark."""
    head = data[:8192]
    if b"\x00" not in head:
        return False
    return not any(data.startswith(bom) for bom, _ in _BOMS if bom != codecs.BOM_UTF8)


def _has_controls(text: str) -> bool:
    """True when `text` holds C0/C1 control characters other than tab, newlines and form feed."""
    for ch in text:
        o = ord(ch)
        if (o < 32 and ch not in "\t\n\r\f\v\x1a") or 0x7F <= o <= 0x9F:
            return True
    return False


def _detect(data: bytes) -> str | None:
    """charset-normalizer's best guess (canonical name), with the cp1252 preference rule."""
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        return None
    guess = canonical(best.encoding)
    if guess in _LATIN_SINGLE_BYTE and guess != "cp1252":
        try:
            if not _has_controls(data.decode("cp1252")):
                return "cp1252"
        except UnicodeDecodeError:
            pass
    return guess


def decode(data: bytes, source: str, forced: str | None = None,
           declared: str | Iterable[str] | None = None) -> tuple[str, str]:
    """Decode file bytes to text without newline translation.

    Order: a forced encoding (strict, nothing else tried) > byte-order mark >
    strict UTF-8 > `declared` (e.g. HTML meta charsets, each strict, in order, read
    as browsers read labels: `codec_for_label`) > charset-normalizer > cp1252. One
    leading BOM is removed from the text. A declaration that lies (says gb2312 about
    UTF-8 bytes) loses to strict UTF-8; one that does not decode is passed over.

    Args:
        data: the file's bytes.
        source: the file's name, for error messages.
        forced: `--encoding` value (a Python codec name), or None to detect.
        declared: encoding label(s) the document declares about itself, first
            declaration first, or None.

    Returns:
        (text, encoding): the decoded text and the canonical codec name that decodes
        the raw bytes to it (BOM aside), for `meta.encoding`.

    Raises:
        LoaderError: binary file, unknown forced encoding, or bytes that do not decode.
    """
    if is_binary(data):
        raise LoaderError(source, "binary file (NUL bytes in the first 8 KiB); not a text document")
    enc: str | None
    if forced:
        try:
            enc = canonical(forced)
        except LookupError:
            raise LoaderError(source, f"unknown encoding {forced!r} given with --encoding") from None
        try:
            text = data.decode(enc)
        except UnicodeDecodeError as exc:
            raise LoaderError(
                source, f"cannot decode as {enc} at byte {exc.start} (0x{data[exc.start]:02x}); "
                        f"try --encoding cp1252 or leave --encoding out to detect it") from None
        return _strip_bom(text), enc
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                return _strip_bom(data.decode(enc)), enc
            except UnicodeDecodeError as exc:
                raise LoaderError(source, f"starts with a {enc} byte-order mark but does not decode at byte {exc.start}") from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    for label in [declared] if isinstance(declared, str) else (declared or ()):
        enc = codec_for_label(label)
        if enc is None or enc == "utf-8":
            continue
        try:
            return data.decode(enc), enc
        except UnicodeDecodeError:
            continue
    guess = _detect(data)
    for enc in (guess, "cp1252"):
        if not enc:
            continue
        try:
            text = data.decode(enc)
        except (UnicodeDecodeError, LookupError):
            continue
        return text, enc
    raise LoaderError(source, "cannot decode: not UTF-8 and no encoding detected; pass --encoding")


def _strip_bom(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text
