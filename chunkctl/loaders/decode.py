"""Bytes -> str for text formats: BOM, strict UTF-8, declared charset, detection, cp1252; no newline translation."""

from __future__ import annotations

import codecs
import unicodedata

from ..errors import LoaderError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

# Single-byte Latin code pages a detector may answer for Western text; when it does
# and cp1252 decodes the bytes without control characters, cp1252 wins (RULINGS).
_LATIN_SINGLE_BYTE = {
    "cp1250", "cp1252", "cp1254", "cp1257", "cp1258", "latin_1", "iso8859_1", "iso8859_2", "iso8859_3",
    "iso8859_4", "iso8859_9", "iso8859_10", "iso8859_13", "iso8859_14", "iso8859_15", "iso8859_16",
    "mac_roman", "mac_latin2", "cp850", "cp437", "cp858",
}


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


def decode(data: bytes, source: str, forced: str | None = None, declared: str | None = None) -> tuple[str, str]:
    """Decode file bytes to text without newline translation.

    Order: a forced encoding (strict, nothing else tried) > byte-order mark >
    strict UTF-8 > `declared` (e.g. an HTML meta charset, strict) > charset-normalizer
    > cp1252. One leading BOM is removed from the text.

    Args:
        data: the file's bytes.
        source: the file's name, for error messages.
        forced: `--encoding` value, or None to detect.
        declared: an encoding the document declares about itself, or None.

    Returns:
        (text, encoding): the decoded text and the canonical codec name that decodes
        the raw bytes to it (BOM aside), for `meta.encoding`.

    Raises:
        LoaderError: binary file, unknown forced encoding, or bytes that do not decode.
    """
    if is_binary(data):
        raise LoaderError(source, "binary file (NUL bytes in the first 8 KiB); not a text document")
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
    if declared:
        try:
            enc = canonical(declared)
            return data.decode(enc), enc
        except (LookupError, UnicodeDecodeError):
            pass
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


def has_replacement_or_controls(text: str) -> bool:
    """True when `text` looks mis-decoded (U+FFFD or C1 controls)."""
    return "\ufffd" in text or any(0x80 <= ord(c) <= 0x9F for c in text if unicodedata.category(c) == "Cc")
