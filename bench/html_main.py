"""Main-content quality of the HTML loader against reference article bodies; prints a table, asserts nothing.

Usage: .venv/bin/python bench/html_main.py DATA [--only default,main-content,trafilatura] [--worst N]
       .venv/bin/python bench/html_main.py --snippets TRAFILATURA_CHECKOUT [--only ...]

DATA is a checkout of the public benchmark scrapinghub/article-extraction-benchmark
(MIT licence): `DATA/ground-truth.json` maps a page id to {"articleBody": ..., "url": ...}
and `DATA/html/<id>.html.gz` holds the page (UTF-8). Nothing of it is in this repository.

Scores, per page, on word tokens (`\\w+`, case kept) taken as multisets:
precision = shared tokens / extracted tokens, recall = shared tokens / reference tokens;
the table gives the mean over pages and F1 = harmonic mean of the two means (the
benchmark's own convention), for both single tokens and 4-token shingles (the
benchmark's headline metric). Systems: chunkctl's default HTML loader, chunkctl with
`--main-content`, and trafilatura alone (`trafilatura.extract`, tables kept, comments
dropped); the last two need the extra `chunkctl[html-main]`.

With `--snippets`, DATA is a checkout of adbar/trafilatura (Apache-2.0): `tests/evaldata.json`
lists, for ~1,000 pages in `tests/eval/` and `tests/cache/`, snippets the main text must
hold ("with") and must not hold ("without"). A "with" snippet found is a true positive,
missed a false negative; a "without" snippet found is a false positive; precision,
recall and F1 are over all snippets (trafilatura's own evaluation, so tuned in its favour).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import time
from collections import Counter
from pathlib import Path

from chunkctl.config import ChunkConfig
from chunkctl.loaders import load_bytes

_TOKEN = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    """Word tokens of a text (`\\w+`, case kept)."""
    return _TOKEN.findall(text or "")


def shingles(toks: list[str], n: int = 4) -> list[tuple[str, ...]]:
    """Runs of n consecutive tokens (one shorter run for texts under n tokens)."""
    if len(toks) < n:
        return [tuple(toks)] if toks else []
    return [tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)]


def pr(reference: list, extracted: list) -> tuple[float | None, float | None]:
    """(precision, recall) of two multisets; None where the denominator is empty."""
    ref, got = Counter(reference), Counter(extracted)
    shared = sum((ref & got).values())
    p = shared / len(extracted) if extracted else (1.0 if not reference else None)
    r = shared / len(reference) if reference else None
    return p, r


def mean(xs: list[float | None]) -> float:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else 0.0


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def system_text(name: str, data: bytes, page: str) -> str:
    """The text a system extracts from one page."""
    if name == "default":
        return load_bytes(data, page, "html", ChunkConfig()).text
    if name == "main-content":
        return load_bytes(data, page, "html", ChunkConfig(main_content=True)).text
    if name == "trafilatura":
        import trafilatura

        return trafilatura.extract(data.decode("utf-8", "replace"), include_comments=False,
                                   include_tables=True) or ""
    raise ValueError(name)


def _squash(text: str) -> str:
    return " ".join(text.split())


def snippets(data: Path, systems: list[str]) -> None:
    """Snippet precision/recall/F1 on trafilatura's evaluation pages (see the module doc)."""
    cases = json.loads((data / "tests" / "evaldata.json").read_text("utf-8"))
    print(f"{len(cases)} pages of trafilatura's tests/evaldata.json; snippets found or not")
    print(f"{'system':<14} {'P':>6} {'R':>6} {'F1':>6} {'with found':>11} {'without found':>14} {'seconds':>8}")
    for name in systems:
        tp = fn = fp = tn = 0
        t0 = time.perf_counter()
        for case in cases.values():
            path = data / "tests" / "eval" / case["file"]
            if not path.exists():
                path = data / "tests" / "cache" / case["file"]
            raw = path.read_bytes()
            if name == "trafilatura":
                import trafilatura

                text = trafilatura.extract(raw, include_comments=False, include_tables=True) or ""
            else:
                text = load_bytes(raw, case["file"], "html", ChunkConfig(main_content=name == "main-content")).text
            text = _squash(text)
            for snip in case.get("with", []):
                if _squash(snip) in text:
                    tp += 1
                else:
                    fn += 1
            for snip in case.get("without", []):
                if _squash(snip) in text:
                    fp += 1
                else:
                    tn += 1
        secs = time.perf_counter() - t0
        P, R = tp / (tp + fp), tp / (tp + fn)
        print(f"{name:<14} {P:6.3f} {R:6.3f} {f1(P, R):6.3f} {f'{tp}/{tp + fn}':>11} {f'{fp}/{fp + tn}':>14} "
              f"{secs:8.1f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path, help="checkout of scrapinghub/article-extraction-benchmark "
                                            "(or of adbar/trafilatura with --snippets)")
    ap.add_argument("--only", default="default,main-content,trafilatura")
    ap.add_argument("--worst", type=int, default=0, help="list the N pages with the lowest default F1")
    ap.add_argument("--snippets", action="store_true", help="DATA is a trafilatura checkout: score its snippets")
    args = ap.parse_args()
    if args.snippets:
        snippets(args.data, args.only.split(","))
        return
    truth = json.loads((args.data / "ground-truth.json").read_text("utf-8"))
    pages = sorted(truth)
    systems = args.only.split(",")
    print(f"{len(pages)} pages of {args.data.name}; per-page means, F1 of the means")
    print(f"{'system':<14} {'tok P':>6} {'tok R':>6} {'tok F1':>7} {'4g P':>6} {'4g R':>6} {'4g F1':>7} {'seconds':>8}")
    per_page: dict[str, list[tuple[str, float]]] = {}
    for name in systems:
        tp, tr, sp, sr = [], [], [], []
        scores = []
        t0 = time.perf_counter()
        for page in pages:
            data = gzip.decompress((args.data / "html" / f"{page}.html.gz").read_bytes())
            got = tokens(system_text(name, data, page + ".html"))
            ref = tokens(truth[page].get("articleBody", ""))
            p, r = pr(ref, got)
            tp.append(p)
            tr.append(r)
            p4, r4 = pr(shingles(ref), shingles(got))
            sp.append(p4)
            sr.append(r4)
            scores.append((page, f1(p or 0.0, r or 0.0)))
        secs = time.perf_counter() - t0
        per_page[name] = scores
        P, R, P4, R4 = mean(tp), mean(tr), mean(sp), mean(sr)
        print(f"{name:<14} {P:6.3f} {R:6.3f} {f1(P, R):7.3f} {P4:6.3f} {R4:6.3f} {f1(P4, R4):7.3f} {secs:8.1f}")
    if args.worst and systems:
        first = per_page[systems[0]]
        for page, score in sorted(first, key=lambda x: x[1])[:args.worst]:
            others = " ".join(f"{n}={dict(per_page[n])[page]:.2f}" for n in systems[1:])
            print(f"{score:.2f} {page[:16]} {truth[page].get('url', '')[:70]} {others}")


if __name__ == "__main__":
    main()
