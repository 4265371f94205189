"""PDF loader speed and memory: pages per second over ../shared/corpus/pdf in one process, peak RSS on the 352-page book,
and OCR pages per second and word accuracy on scanned pages drawn here (with chunkctl[ocr]).

Run: .venv/bin/python bench/pdf_bench.py [--only corpus|memory|ocr]   (not a test: figures depend on the machine)
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "pdf"
BOOK = CORPUS / "freeculture-book-352p.pdf"

CHILD = """
import resource, sys, time
from chunkctl.config import ChunkConfig
from chunkctl.pipeline import chunk_records, load
t = time.perf_counter()
doc = load(sys.argv[1])
mid = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
recs = chunk_records(doc, ChunkConfig(chunk_size=512)) if sys.argv[2] == "chunk" else []
print(doc.meta["n_pages"], len(recs), time.perf_counter() - t, mid,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def corpus_speed(rounds: int = 3) -> None:
    from chunkctl.config import ChunkConfig
    from chunkctl.errors import LoaderError
    from chunkctl.pipeline import load

    cfg = ChunkConfig()
    files = sorted(CORPUS.glob("*.pdf"))
    best = None
    for _ in range(rounds):
        pages = 0
        w0, c0 = time.perf_counter(), time.process_time()
        for f in files:
            try:
                pages += load(f, cfg).meta["n_pages"]
            except LoaderError:
                pass
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        if best is None or wall < best[1]:
            best = (pages, wall, cpu)
    pages, wall, cpu = best
    print(f"corpus load (best of {rounds}): {pages} pages, {len(files)} files, {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"-> {pages / wall:.0f} pages/s wall, {pages / cpu:.0f} pages/s CPU")


def book_memory() -> None:
    for mode in ("load", "chunk"):
        out = subprocess.run([sys.executable, "-c", CHILD, str(BOOK), mode], capture_output=True, text=True,
                             cwd=ROOT, check=True).stdout.split()
        n, recs, secs, mid, peak = int(out[0]), int(out[1]), float(out[2]), int(out[3]), int(out[4])
        extra = f", {recs} chunks of 512 tokens" if mode == "chunk" else ""
        print(f"book {mode}: {n} pages in {secs:.2f} s{extra}; peak RSS after load {mid / 1024:.0f} MB, "
              f"at the end {peak / 1024:.0f} MB")


def _scanned_pages(n: int) -> tuple[bytes, list[str]]:
    """A PDF of n US-letter pages that are 200-dpi images of prose (11 pt DejaVu Sans), and the words drawn."""
    import io
    import textwrap

    from PIL import Image, ImageDraw, ImageFont

    words = (ROOT / "README.md").read_text("utf-8").split()
    words = [w for w in words if w.isascii() and w.strip("`*#|[]()<>") == w and len(w) < 20]
    font = ImageFont.truetype("DejaVuSans.ttf", 31)
    pages, drawn = [], []
    pos = 0
    for _ in range(n):
        img = Image.new("L", (1700, 2200), 255)
        draw = ImageDraw.Draw(img)
        para = " ".join(words[pos:pos + 330])
        pos += 330
        for i, line in enumerate(textwrap.wrap(para, 80)[:38]):
            draw.text((150, 150 + 50 * i), line, fill=0, font=font)
            drawn.extend(line.split())
        pages.append(img)
    buf = io.BytesIO()
    pages[0].save(buf, format="PDF", resolution=200.0, save_all=True, append_images=pages[1:])
    return buf.getvalue(), drawn


def ocr_speed(n: int = 6) -> None:
    """OCR pages per second (engine start-up excluded) and word accuracy on n drawn scanned pages."""
    import difflib
    import tempfile

    from chunkctl.allocator import return_freed_memory
    from chunkctl.config import ChunkConfig
    from chunkctl.loaders.pdf import ocr
    from chunkctl.pipeline import load

    if not ocr.available():
        print("ocr: skipped (pip install 'chunkctl[ocr]')")
        return
    return_freed_memory()  # the allocator as the command line and its workers set it (chunkctl.allocator)
    data, drawn = _scanned_pages(n)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scan.pdf"
        path.write_bytes(data)
        ocr._engine()  # model loading (about a second) is paid once per process
        w0, c0 = time.perf_counter(), time.process_time()
        doc = load(path, ChunkConfig(ocr="auto"))
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    got = doc.text.split()
    match = difflib.SequenceMatcher(None, drawn, got, autojunk=False)
    same = sum(b.size for b in match.get_matching_blocks())
    print(f"ocr: {n} drawn pages (US letter, 200 dpi, 11 pt, {len(drawn)} words) in {wall:.1f} s wall, {cpu:.1f} s "
          f"CPU -> {n / wall:.2f} pages/s; words read right, in order: {same}/{len(drawn)} "
          f"({100 * same / len(drawn):.1f}%)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    if only in (None, "corpus"):
        corpus_speed()
    if only in (None, "memory"):
        book_memory()
    if only in (None, "ocr"):
        ocr_speed()
    print(f"this process: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
