"""Speed of the HTML loader (+ chunking) against one tiktoken pass over the extracted text; prints a table, asserts nothing.

Usage: .venv/bin/python bench/html_speed.py [FOLDER] [--repeat N] [--profile]
Default folder: ../shared/corpus/html. One core, files read into memory first,
best of N repeats for each stage.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

from chunkctl.config import ChunkConfig
from chunkctl.loaders import load_bytes
from chunkctl.pipeline import chunk_records
from chunkctl.tokenizers import get_tokenizer

ROOT = Path(__file__).resolve().parent.parent


def best(fn, repeat: int) -> float:
    """Shortest wall time of `repeat` calls of fn, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", nargs="?", default=str(ROOT.parent / "shared" / "corpus" / "html"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", action="store_true", help="profile loading + chunking once (top 25 by own time)")
    args = ap.parse_args()

    files = sorted(Path(args.folder).glob("*.htm*"))
    datas = [(f.name, f.read_bytes()) for f in files]
    nbytes = sum(len(d) for _, d in datas)
    tok = get_tokenizer("cl100k_base")
    enc = tok.encoding
    settings = [ChunkConfig(chunk_size=512), ChunkConfig(chunk_size=256, overlap=32)]

    docs = [load_bytes(d, name, "html", settings[0]) for name, d in datas]
    texts = [d.text for d in docs]
    nchars = sum(len(t) for t in texts)
    text_bytes = sum(len(t.encode("utf-8")) for t in texts)

    t_tok = best(lambda: [enc.encode_ordinary(t) for t in texts], args.repeat)
    t_load = best(lambda: [load_bytes(d, name, "html", settings[0]) for name, d in datas], args.repeat)
    print(f"{len(files)} pages, {nbytes / 1e6:.2f} MB of HTML -> {nchars:,} characters "
          f"({text_bytes / 1e6:.2f} MB UTF-8) of document text")
    print(f"{'stage':<44} {'seconds':>8} {'HTML MB/s':>10} {'x tiktoken':>11}")
    print(f"{'tiktoken encode_ordinary over the text':<44} {t_tok:8.3f} {nbytes / 1e6 / t_tok:10.1f} {1.0:11.2f}")
    print(f"{'load (decode + parse + blocks)':<44} {t_load:8.3f} {nbytes / 1e6 / t_load:10.1f} "
          f"{t_load / t_tok:11.2f}")
    for cfg in settings:
        t_chunk = best(lambda: [chunk_records(doc, cfg) for doc in docs], args.repeat)
        total = t_load + t_chunk
        label = f"load + chunk (recursive {cfg.chunk_size}/{cfg.overlap_tokens})"
        print(f"{'chunk only, ' + str(cfg.chunk_size) + '/' + str(cfg.overlap_tokens):<44} {t_chunk:8.3f} "
              f"{'':>10} {t_chunk / t_tok:11.2f}")
        print(f"{label:<44} {total:8.3f} {nbytes / 1e6 / total:10.1f} {total / t_tok:11.2f}")

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        for name, d in datas:
            chunk_records(load_bytes(d, name, "html", settings[0]), settings[0])
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
