"""Decoding accuracy of legacy code pages: the share of files decoded to exactly their text; prints tables, asserts nothing.

Usage: .venv/bin/python bench/encodings.py [--corpus ../shared/corpus]

1. The sample of tests/loaders/encoding_samples.py (prose written for the tests in eleven
   languages, each text cut into files of about 24 to 400 characters and whole, encoded in
   its language's usual code pages), by family, for all files and for those of at most 48
   characters. tests/loaders/test_decode.py asserts a floor on the same numbers.
2. With --corpus: text chunkctl extracts from real documents of ../shared/corpus (not used to
   tune the detector), paragraphs cut to 24-400 characters, encoded likewise.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chunkctl.config import ChunkConfig  # noqa: E402
from chunkctl.errors import LoaderError  # noqa: E402
from chunkctl.loaders import load_bytes  # noqa: E402
from chunkctl.loaders.decode import decode  # noqa: E402
from tests.loaders.encoding_samples import cases  # noqa: E402

# corpus file, language, code pages to encode its text in
HELD_OUT = [
    ("html/lemonde-fr-article.html", "French", ("cp1252",)),
    ("html/winfuture-de-latin1.html", "German", ("latin-1",)),
    ("txt/latin1-portuguese-prose.txt", "Portuguese", ("latin-1",)),
    ("txt/koi8r-russian.txt", "Russian", ("cp1251", "koi8-r")),
    ("txt/sanguo-yanyi-zh-crlf.txt", "Chinese", ("gb18030",)),
    ("txt/big5-classical-chinese.txt", "Chinese (classical)", ("big5",)),
    ("html/hukumusume-ja-layout-tables.html", "Japanese", ("shift_jis", "euc-jp")),
    ("md/fastapi-async-ja.md", "Japanese (docs, mostly ASCII)", ("shift_jis", "euc-jp")),
    ("html/assabah-ar-rtl-news.html", "Arabic", ("cp1256",)),
]


def _right(data: bytes, text: str) -> bool:
    try:
        return decode(data, "x")[0] == text
    except LoaderError:
        return False


def sample_table() -> None:
    right: collections.Counter[tuple[str, str]] = collections.Counter()
    total: collections.Counter[tuple[str, str]] = collections.Counter()
    for _language, codec, family, length, text in cases():
        for key in ((family, "all"), (family, "short")) if 0 < length <= 48 else ((family, "all"),):
            total[key] += 1
            right[key] += _right(text.encode(codec), text)
    print("| family | files | decoded right | files <= 48 chars | decoded right |")
    print("|---|---:|---:|---:|---:|")
    for family in dict.fromkeys(f for f, _ in total):
        a, s = (family, "all"), (family, "short")
        print(f"| {family} | {total[a]} | {100 * right[a] / total[a]:.1f}% | {total[s]} | "
              f"{100 * right[s] / total[s]:.1f}% |")


def corpus_table(corpus: Path) -> None:
    print("\n| corpus text | code page | files | decoded right |")
    print("|---|---|---:|---:|")
    for rel, language, codecs_ in HELD_OUT:
        path = corpus / rel
        doc = load_bytes(path.read_bytes(), rel, rel.split("/")[0], ChunkConfig())
        paras = [p.strip() for p in re.split(r"\n\s*\n", doc.text[:20000]) if len(p.strip()) > 20 and not p.isascii()]
        for codec in codecs_:
            n = ok = 0
            for length in (24, 48, 96, 200, 400):
                for p in paras[:40]:
                    piece = p[:length]
                    try:
                        data = piece.encode(codec)
                    except UnicodeEncodeError:
                        continue
                    if data.isascii():
                        continue
                    n += 1
                    ok += _right(data, piece)
            if n:
                print(f"| {language} (`{rel}`) | {codec} | {n} | {100 * ok / n:.1f}% |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="../shared/corpus, for the held-out table")
    args = ap.parse_args()
    sample_table()
    if args.corpus:
        corpus_table(args.corpus)


if __name__ == "__main__":
    main()
