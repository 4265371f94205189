"""PDF loader speed and memory: pages per second over ../shared/corpus/pdf in one process, peak RSS on the 352-page book.

Run: .venv/bin/python bench/pdf_bench.py   (not a test: figures depend on the machine)
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


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    corpus_speed()
    book_memory()
    print(f"this process: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
