"""HTML charset prescan: the encodings a page declares in `<meta>`, read from its raw bytes; no decoding, no DOM."""

from __future__ import annotations

import re

_META_OR_COMMENT = re.compile(rb"<!--.*?-->|<meta\b([^>]*)>", re.I | re.S)
_ATTR = re.compile(rb"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")
_CONTENT_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([^\s"';,]+)""", re.I)
PRESCAN_BYTES = 32768


def declared_charsets(data: bytes, limit: int = PRESCAN_BYTES) -> list[str]:
    """Encoding labels the page declares in `<meta charset>` or `<meta http-equiv="Content-Type">`.

    A prescan of the raw bytes like the browser's (WHATWG HTML "prescan a byte stream"),
    but over the first `limit` bytes rather than 1024 (saved pages often carry a long
    head) and returning every declaration in order, so that a later one can serve when
    an earlier one does not decode. Comments are skipped; a UTF-16 label reads as UTF-8.

    Args:
        data: the file's bytes.
        limit: how many leading bytes to scan.

    Returns:
        the labels as declared (not yet mapped to codecs), first declaration first.
    """
    out: list[str] = []
    for m in _META_OR_COMMENT.finditer(data, 0, limit):
        body = m.group(1)
        if body is None:
            continue
        attrs: dict[bytes, bytes] = {}
        for a in _ATTR.finditer(body):
            name = a.group(1).lower()
            if name not in attrs:
                attrs[name] = a.group(2) or a.group(3) or a.group(4) or b""
        label = attrs.get(b"charset", b"").strip()
        if not label and attrs.get(b"http-equiv", b"").strip().lower() == b"content-type":
            c = _CONTENT_CHARSET.search(attrs.get(b"content", b""))
            label = c.group(1) if c else b""
        if label:
            text = label.decode("ascii", "ignore").strip()
            out.append("utf-8" if text.lower().startswith("utf-16") else text)
    return out
