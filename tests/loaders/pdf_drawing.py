"""Small PDFs written byte by byte for the PDF loader tests (no PDF library): text operators on A4 pages.

Fonts on every page: /F1 Helvetica, /F2 Helvetica-Bold (WinAnsiEncoding) and /C1, a
CID font (STSong-Light, Adobe-GB1, Identity-H) that is neither embedded nor given a
/ToUnicode map, as OCR text layers of scanned Chinese reports draw their text; /C2 is
the same font with the Adobe-Identity ordering, whose CIDs no extractor can map.
"""

from __future__ import annotations

# Adobe-GB1 CIDs of a few Han characters (from pdfminer's UniGB-UCS2-H CMap).
GB1_CIDS = {"中": 4559, "国": 1875, "的": 1445, "年": 2893, "度": 1543, "报": 1041, "告": 1761, "显": 3905,
            "示": 3413, "经": 2268, "济": 2102, "增": 4409, "长": 1225}


def pdf_bytes(pages: list[list[bytes]], media: tuple[float, float, float, float] = (0, 0, 595, 842),
              inherited: bool = False) -> bytes:
    """A PDF of pages (A4 by default: `media` is the MediaBox in points), each drawing the given
    content-stream operators; `inherited`: the MediaBox sits on the page tree, not on each page
    (as FPDF writes it)."""
    objs: list[bytes] = [b"", b""]  # 1: catalog, 2: page tree

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    f1 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    f2 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    desc = add(b"<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [-25 -254 1000 880]"
               b" /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>")
    cid = add(b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe)"
              b" /Ordering (GB1) /Supplement 2 >> /FontDescriptor %d 0 R /DW 1000 >>" % desc)
    c1 = add(b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light-Identity-H /Encoding /Identity-H"
             b" /DescendantFonts [%d 0 R] >>" % cid)
    cid2 = add(b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe)"
               b" /Ordering (Identity) /Supplement 0 >> /FontDescriptor %d 0 R /DW 1000 >>" % desc)
    c2 = add(b"<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light-Identity-H /Encoding /Identity-H"
             b" /DescendantFonts [%d 0 R] >>" % cid2)
    fonts = b"/F1 %d 0 R /F2 %d 0 R /C1 %d 0 R /C2 %d 0 R" % (f1, f2, c1, c2)
    box = b" ".join(b"%g" % v for v in media)
    kids = []
    for ops in pages:
        stream = b"\n".join(ops)
        content = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        own = b"" if inherited else b" /MediaBox [%s]" % box
        kids.append(add(b"<< /Type /Page /Parent 2 0 R%s /Resources << /Font << %s >> >>"
                        b" /Contents %d 0 R >>" % (own, fonts, content)))
    objs[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objs[1] = b"<< /Type /Pages /Kids [%s] /Count %d%s >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids), b" /MediaBox [%s]" % box if inherited else b"")
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def _literal(s: str) -> bytes:
    raw = s.encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def text(x: float, y: float, s: str, size: float = 11, bold: bool = False) -> bytes:
    """One line of Helvetica text with its baseline starting at (x, y), points from the bottom left."""
    return b"BT %s %.1f Tf %.2f %.2f Td %s Tj ET" % (b"/F2" if bold else b"/F1", size, x, y, _literal(s))


def spaced(x: float, y: float, pieces: list[str | float], size: float = 11) -> bytes:
    """A line drawn with TJ: strings, and numbers that move the next glyph (thousandths of an em, negative = right)."""
    parts = b" ".join(_literal(p) if isinstance(p, str) else b"%g" % p for p in pieces)
    return b"BT /F1 %.1f Tf %.2f %.2f Td [%s] TJ ET" % (size, x, y, parts)


def cid_column(x: float, y: float, chars: str, size: float = 12, font: bytes = b"/C1") -> bytes:
    """Han characters of a CID font stacked one per line downwards from (x, y), each shown by its own Tj
    (pdfium maps none of these glyphs)."""
    shows = b" ".join(b"<%04X> Tj T*" % GB1_CIDS[ch] for ch in chars)
    return b"BT %s %.1f Tf %.2f %.2f Td %.1f TL %s ET" % (font, size, x, y, size * 1.2, shows)
