"""Draw examples/cold-storage-handbook.pdf: a small PDF written byte by byte, with no PDF library.

The example shows what the pdf loader reads: a heading outline (/Outlines, two levels),
paragraphs, a numbered list, a ruled table that runs over a page break without repeating
its header, and running headers and page numbers (furniture the loader drops).
The file is deterministic: running this script again writes the same bytes.

    .venv/bin/python tools/draw_examples.py          # writes examples/cold-storage-handbook.pdf
    .venv/bin/chunkctl extract examples/cold-storage-handbook.pdf --blocks   # what the loader reads
"""

from __future__ import annotations

import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "examples" / "cold-storage-handbook.pdf"

PAGE_W, PAGE_H = 595, 842          # A4 in points
LEFT, RIGHT, TOP, BOTTOM = 72, 523, 770, 90
BODY, LEADING = 10.5, 14.5

# Advance widths of Helvetica (and, close enough for wrapping, Helvetica-Bold) in 1/1000 em, from the
# Adobe Core 14 AFM files, for the ASCII characters used here; others count as 556.
_W = dict(zip(" !\"#$%&'()*+,-./0123456789:;<=>?@", [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278,
                                                       333, 278, 278] + [556] * 10 + [278, 278, 584, 584, 584, 556,
                                                                                       1015]))
_W.update(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", [667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
                                              667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611]))
_W.update(zip("abcdefghijklmnopqrstuvwxyz", [556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
                                              556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500]))
_W.update({"[": 278, "]": 278, "\u00b0": 400, "\u2013": 556})


def width(text: str, size: float) -> float:
    """Width of `text` set in Helvetica at `size` points, in points."""
    return sum(_W.get(c, 556) for c in text) * size / 1000


def pdf_string(text: str) -> bytes:
    """A PDF literal string in WinAnsiEncoding (cp1252), with ( ) \\ escaped."""
    raw = text.encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


@dataclass
class Page:
    """One page's content stream operators, built top to bottom."""

    ops: list[bytes] = field(default_factory=list)

    def text(self, x: float, y: float, s: str, size: float = BODY, bold: bool = False) -> None:
        font = b"/F2" if bold else b"/F1"
        self.ops.append(b"BT %s %.1f Tf %.2f %.2f Td %s Tj ET" % (font, size, x, y, pdf_string(s)))

    def line(self, x1: float, y1: float, x2: float, y2: float) -> None:
        self.ops.append(b"%.2f %.2f m %.2f %.2f l S" % (x1, y1, x2, y2))


class Writer:
    """Lays out headings, paragraphs, list items and one ruled table on A4 pages, top to bottom."""

    def __init__(self) -> None:
        self.pages: list[Page] = [Page()]
        self.y = TOP
        self.outline: list[tuple[int, str, int, float]] = []   # (depth, title, page index, y)

    @property
    def page(self) -> Page:
        return self.pages[-1]

    def room(self, height: float) -> None:
        """Start a new page unless `height` points still fit above the bottom margin."""
        if self.y - height < BOTTOM:
            self.pages.append(Page())
            self.y = TOP

    def heading(self, title: str, depth: int, size: float) -> None:
        self.room(size * 4)
        self.y -= size * 0.8
        self.outline.append((depth, title, len(self.pages) - 1, self.y + size + 4))
        self.page.text(LEFT, self.y, title, size, bold=True)
        self.y -= size * 1.2

    def paragraph(self, text: str, indent: float = 0, bullet: str = "") -> None:
        lines, cur = [], ""
        for word in text.split():
            trial = f"{cur} {word}".strip()
            if width(trial, BODY) > RIGHT - LEFT - indent:
                lines.append(cur)
                cur = word
            else:
                cur = trial
        lines.append(cur)
        for i, ln in enumerate(lines):
            self.room(LEADING)
            if i == 0 and bullet:
                self.page.text(LEFT + indent - 16, self.y, bullet)
            self.page.text(LEFT + indent, self.y, ln)
            self.y -= LEADING
        self.y -= LEADING * 0.5

    def table(self, header: list[str], rows: list[list[str]], cols: list[float]) -> None:
        """A grid ruled on every cell; it continues on the next page without repeating the header."""
        row_h = 17.0
        xs = [LEFT]
        for w in cols:
            xs.append(xs[-1] + w)
        todo = [(header, True)] + [(r, False) for r in rows]
        while todo:
            self.room(row_h * 2)
            top = self.y
            fit = max(1, int((self.y - BOTTOM) // row_h))
            part, todo = todo[:fit], todo[fit:]
            for cells, bold in part:
                for x, col, cell in zip(xs, cols, cells):
                    if width(cell, 9.5) + 8 > col:
                        raise ValueError(f"table cell {cell!r} is wider than its column ({col} pt)")
                    self.page.text(x + 4, self.y - 12, cell, 9.5, bold=bold)
                self.y -= row_h
            for i in range(len(part) + 1):
                self.page.line(xs[0], top - i * row_h, xs[-1], top - i * row_h)
            for x in xs:
                self.page.line(x, top, x, self.y)
        self.y -= LEADING


def build() -> Writer:
    """The handbook's content, laid out."""
    w = Writer()
    w.heading("Cold Storage Handbook", 0, 20)
    w.paragraph("This handbook is for the staff of the Riverside distribution centre who receive, store and "
                "dispatch chilled and frozen goods. It says what to check when a delivery arrives, how cold each "
                "product group must be kept, and what to do when the cold chain breaks.")
    w.heading("1 Receiving deliveries", 1, 14)
    w.paragraph("Chilled and frozen deliveries are booked into the two refrigerated docks, 7 and 8, and are "
                "unloaded before any ambient delivery waiting at the same time. A pallet may stand on the dock "
                "for at most twenty minutes; the dock supervisor moves it into storage or back onto the truck.")
    w.heading("1.1 Checking temperatures at the dock", 2, 12)
    w.paragraph("Probe one case from the front, the middle and the back of the load, between two packs, never "
                "through a pack. Write the three readings on the delivery note with the time and your initials. "
                "If one reading is above the limit in the table of section 2, call the shift lead before signing.")
    w.paragraph("Refuse the whole delivery when a frozen product reads above -12 °C or shows signs of thawing and "
                "refreezing: ice crystals inside the bag, cartons stuck together, or a pool of frost at the bottom "
                "of the trailer.")
    w.heading("2 Storage temperatures", 1, 14)
    w.paragraph("Each product group has a storage range, and a limit on the hours it may spend outside that "
                "range over its whole stay with us. The warehouse system adds up the hours from the door sensors; "
                "the table is the reference when the system is down.")
    header = ["Product group", "Store at", "Max. hours out", "Notes"]
    rows = [
        ["Fresh milk and cream", "0 to 4 °C", "2", "Keep away from the door curtain"],
        ["Yoghurt and desserts", "0 to 5 °C", "2", "Stack at most six trays high"],
        ["Hard cheese", "2 to 8 °C", "6", "Wrapped wheels only"],
        ["Soft cheese", "2 to 6 °C", "3", "Separate from hard cheese"],
        ["Butter", "0 to 5 °C", "4", ""],
        ["Fresh poultry", "0 to 2 °C", "1", "Lowest shelves, drip trays"],
        ["Fresh beef and lamb", "0 to 3 °C", "1", "Hang carcasses in room C2"],
        ["Fresh fish", "0 to 2 °C", "1", "On ice, boxes drained daily"],
        ["Smoked fish", "0 to 4 °C", "2", ""],
        ["Cooked meats", "0 to 4 °C", "2", "Never above raw meat"],
        ["Ready meals", "0 to 4 °C", "2", "Check the use-by date first"],
        ["Fresh pasta", "0 to 4 °C", "3", ""],
        ["Salad leaves", "1 to 5 °C", "3", "Not below 1 °C: leaves freeze"],
        ["Berries", "0 to 4 °C", "4", "Do not stack punnets"],
        ["Cut fruit", "0 to 4 °C", "2", ""],
        ["Fresh juice", "0 to 4 °C", "3", ""],
        ["Eggs", "5 to 15 °C", "12", "Store away from strong smells"],
        ["Chocolate", "12 to 18 °C", "24", "Ambient room A4, not the chiller"],
        ["Frozen vegetables", "-18 °C or colder", "1", ""],
        ["Frozen fish", "-18 °C or colder", "1", "Blast room B1 first"],
        ["Frozen meat", "-18 °C or colder", "1", ""],
        ["Ice cream", "-22 °C or colder", "0.5", "Room B3 only"],
        ["Frozen bakery", "-18 °C or colder", "2", ""],
        ["Frozen ready meals", "-18 °C or colder", "1", ""],
        ["Vaccines (pharmacy line)", "2 to 8 °C", "0", "Pharmacy staff only"],
        ["Insulin (pharmacy line)", "2 to 8 °C", "0", "Pharmacy staff only"],
        ["Flowers", "2 to 6 °C", "4", "Away from fruit: ethylene"],
    ]
    w.table(header, rows, [125, 90, 76, 160])
    w.paragraph("Hours out are counted per pallet, not per case. A pallet that reaches its limit is quarantined "
                "in cage Q1 and checked by the quality team before it can be sold.")
    w.heading("3 When the cold chain breaks", 1, 14)
    w.paragraph("A room alarm, a failed door sensor or a reading outside the range in section 2 is a cold chain "
                "break. Act in this order:")
    for i, step in enumerate([
            "Close the room and stop picking from it.",
            "Read the room's two independent thermometers and write down both readings and the time.",
            "Call the engineer on duty; the number is on the room door.",
            "Move the most sensitive groups (pharmacy line, ice cream, fresh fish) to the spare room first."], 1):
        w.paragraph(step, indent=18, bullet=f"{i}.")
    w.heading("3.1 Recording an incident", 2, 12)
    w.paragraph("Every break is recorded in the incident log the same day, even when no goods were lost: the room, "
                "the start and end times, the highest reading, the pallets moved and where to. The quality team "
                "reviews the log every Monday and decides which pallets are destroyed.")
    w.heading("3.2 Power failures", 2, 12)
    w.paragraph("The generator starts within a minute of a power cut and carries the frozen rooms only. Keep the "
                "chiller doors shut: a closed chiller stays within range for about four hours without power.")
    w.heading("4 Dispatching chilled orders", 1, 14)
    w.paragraph("Orders are picked in reverse delivery order so that the first drop is loaded last, nearest the "
                "doors. Frozen goods are picked last of all, in the twenty minutes before the trailer leaves, and "
                "wait in the dispatch chiller, never on the open dock.")
    w.heading("4.1 Loading the trailer", 2, 12)
    w.paragraph("Check that the trailer has been pre-cooled: its display must show the set point, and the air at "
                "the back must feel cold before the first pallet goes in. Leave a hand's width between the load and "
                "the walls so that the air can circulate, and never block the return air grille at the front.")
    w.paragraph("Multi-temperature trailers have a movable bulkhead. Frozen pallets go in the front compartment, "
                "chilled pallets behind the bulkhead; set the bulkhead before loading, not after.")
    w.heading("4.2 Paperwork", 2, 12)
    w.paragraph("The driver signs for the trailer temperature at departure on the dispatch note. Keep the copy "
                "with the probe readings for two years; customers and inspectors ask for it.")
    return w


def render(w: Writer) -> bytes:
    """The PDF file: catalog, page tree, fonts, pages, outline and page content streams."""
    objs: dict[int, bytes] = {}
    n_pages = len(w.pages)
    catalog, pages_id, font1, font2, outlines = 1, 2, 3, 4, 5
    page_ids = [6 + 2 * i for i in range(n_pages)]
    first_item = 6 + 2 * n_pages
    for i, page in enumerate(w.pages):
        ops = [b"0.6 w 0 0 0 RG"]
        running = Page()
        running.text(LEFT, 805, "Cold Storage Handbook \u2013 Riverside distribution centre", 8)
        running.text(RIGHT - 40, 52, f"Page {i + 1} of {n_pages}", 8)
        stream = zlib.compress(b"\n".join(ops + running.ops + page.ops) + b"\n", 9)
        objs[page_ids[i]] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 3 0 R "
                             b"/F2 4 0 R >> >> /Contents %d 0 R >>" % (PAGE_W, PAGE_H, page_ids[i] + 1))
        objs[page_ids[i] + 1] = (b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream
                                 + b"\nendstream")
    objs[catalog] = b"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R /PageMode /UseOutlines >>"
    objs[pages_id] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % p for p in page_ids), n_pages)
    for fid, name in ((font1, b"Helvetica"), (font2, b"Helvetica-Bold")):
        objs[fid] = b"<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding >>" % name

    # Outline: the title at depth 0 holds the numbered sections (depth 1), which hold their subsections.
    items = [(d, t, p, y, first_item + k) for k, (d, t, p, y) in enumerate(w.outline)]
    parent: dict[int, int] = {}
    stack: list[tuple[int, int]] = []          # (depth, object id)
    for d, _t, _p, _y, oid in items:
        while stack and stack[-1][0] >= d:
            stack.pop()
        parent[oid] = stack[-1][1] if stack else outlines
        stack.append((d, oid))
    kids: dict[int, list[int]] = {}
    for _d, _t, _p, _y, oid in items:
        kids.setdefault(parent[oid], []).append(oid)

    def count(oid: int) -> int:
        return sum(1 + count(k) for k in kids.get(oid, []))

    for _d, title, pidx, y, oid in items:
        sibs = kids[parent[oid]]
        j = sibs.index(oid)
        entry = b"<< /Title %s /Parent %d 0 R /Dest [%d 0 R /XYZ 0 %.1f null]" % (
            pdf_string(title), parent[oid], page_ids[pidx], y)
        if j > 0:
            entry += b" /Prev %d 0 R" % sibs[j - 1]
        if j + 1 < len(sibs):
            entry += b" /Next %d 0 R" % sibs[j + 1]
        if kids.get(oid):
            entry += b" /First %d 0 R /Last %d 0 R /Count %d" % (kids[oid][0], kids[oid][-1], count(oid))
        objs[oid] = entry + b" >>"
    top = kids[outlines]
    objs[outlines] = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (top[0], top[-1],
                                                                                       count(outlines))
    info = max(objs) + 1
    objs[info] = b"<< /Title (Cold Storage Handbook) /Producer (chunkctl tools/draw_examples.py) >>"

    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for oid in sorted(objs):
        offsets[oid] = len(out)
        out += b"%d 0 obj\n" % oid + objs[oid] + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (info + 1)
    for oid in range(1, info + 1):
        out += b"%010d 00000 n \n" % offsets[oid]
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (info + 1, info, xref)
    return bytes(out)


def main() -> int:
    OUT.write_bytes(render(build()))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
