"""`make bench`: chunkctl's speed against one tiktoken pass and other chunkers, measured in the same run.

Prints Markdown tables (paste them into README with the machine line). Nothing here is a
test: timings are medians of interleaved repeats on whatever machine runs it.

    python bench/bench.py                 # everything (a few minutes)
    python bench/bench.py --quick         # no 100 MB corpus, 1 repeat
    python bench/bench.py --only speed    # one section: speed, libs, strategies, formats, scale, memory, jobs, cli, tiny, hf

The `speed` section (issue 19) builds its corpus once with bench/corpus.py (public repositories at
pinned commits, outside the project) and runs the command line as users do.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
CASES = SHARED / "cases"
SIZE, OVERLAP = 512, 64


def machine() -> str:
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu or 'unknown CPU'}), "
            f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} at start")


def texts_of(fmt: str) -> list[tuple[str, str]]:
    """(name, document text) of the corpus files of one format, as chunkctl reads them."""
    import chunkctl

    out = []
    for p in sorted((CORPUS / fmt).iterdir()):
        try:
            out.append((p.name, chunkctl.load(p).text))
        except chunkctl.ChunkctlError:
            pass
    return out


def timed(fn, repeats: int) -> float:
    """Median wall time of `fn()` over `repeats` runs (seconds)."""
    times = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def table(headers: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join("---" for _ in headers) + " |"]
    for r in rows:
        out.append("| " + " | ".join(str(x) for x in r) + " |")
    return "\n".join(out)


# ----------------------------------------------------------------------------- tools
def tool_floor(enc):
    def run(texts):
        return [[0] * len(enc.encode_ordinary(t)) for t in texts]  # one pass; "chunks" = none
    return run


def tool_chunkctl(fmt: str, strategy: str = "recursive"):
    import chunkctl

    def run(texts):
        out = []
        for t in texts:
            out.append([r["text"] for r in chunkctl.chunk_text(t, format=fmt, strategy=strategy, chunk_size=SIZE,
                                                                overlap=OVERLAP)])
        return out
    return run


# Each tool builds its splitter inside the timed run: semchunk memoizes token counts
# and would otherwise answer repeats of the same texts from its cache.
def tool_langchain(enc, fmt):
    from langchain_text_splitters import MarkdownTextSplitter, RecursiveCharacterTextSplitter

    cls = MarkdownTextSplitter if fmt == "md" else RecursiveCharacterTextSplitter

    def run(texts):
        splitter = cls(chunk_size=SIZE, chunk_overlap=OVERLAP,
                       length_function=lambda s: len(enc.encode(s, disallowed_special=())))
        return [splitter.split_text(t) for t in texts]
    return run


def tool_chonkie(enc):
    from chonkie import RecursiveChunker

    def run(texts):
        chunker = RecursiveChunker(tokenizer=enc, chunk_size=SIZE)
        return [[c.text for c in chunker.chunk(t)] for t in texts]
    return run


def tool_semchunk(enc):
    import semchunk

    def run(texts):
        chunker = semchunk.chunkerify(lambda s: len(enc.encode(s, disallowed_special=())), SIZE)
        return [chunker(t, overlap=OVERLAP) for t in texts]
    return run


def tool_text_splitter(fmt):
    from semantic_text_splitter import MarkdownSplitter, TextSplitter

    cls = MarkdownSplitter if fmt == "md" else TextSplitter

    def run(texts):
        splitter = cls.from_tiktoken_model("gpt-3.5-turbo", (SIZE, SIZE), overlap=OVERLAP)
        return [splitter.chunks(t) for t in texts]
    return run


def tool_chonkie_sentence(enc):
    from chonkie import SentenceChunker

    def run(texts):
        chunker = SentenceChunker(tokenizer=enc, chunk_size=SIZE, chunk_overlap=OVERLAP)
        return [[c.text for c in chunker.chunk(t)] for t in texts]
    return run


def stats_of(chunks: list[list[str]], enc) -> tuple[int, float, int, int]:
    """(chunks, mean tokens, max tokens, chunks over the limit), counted by re-encoding the output."""
    counts = [len(enc.encode_ordinary(c)) for doc in chunks for c in doc]
    if not counts:
        return 0, 0.0, 0, 0
    return len(counts), sum(counts) / len(counts), max(counts), sum(1 for c in counts if c > SIZE)


def peak_rss_mb(code: str) -> float:
    """Peak resident memory (MB) of a fresh Python running `code`."""
    p = subprocess.run([sys.executable, "-c", code + "\nimport resource,sys;"
                        "sys.stdout.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))"],
                       capture_output=True, text=True, cwd=ROOT)
    try:
        return int(p.stdout.strip().splitlines()[-1]) / 1024
    except (ValueError, IndexError):
        return float("nan")


# ----------------------------------------------------------------------------- sections
def section_libs(enc, repeats: int) -> str:
    """chunkctl against the floor and other chunkers on the shared md and txt corpus."""
    out = []
    for fmt in ("txt", "md"):
        docs = texts_of(fmt)
        texts = [t for _, t in docs]
        mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
        tools = [("tiktoken encode_ordinary (floor)", tool_floor(enc)),
                 ("chunkctl recursive (API)", tool_chunkctl(fmt))]
        optional = [("LangChain RecursiveCharacter" if fmt == "txt" else "LangChain MarkdownTextSplitter",
                     lambda: tool_langchain(enc, fmt)),
                    ("chonkie RecursiveChunker (no overlap)", lambda: tool_chonkie(enc)),
                    ("semchunk", lambda: tool_semchunk(enc)),
                    ("semantic-text-splitter" + (" Markdown" if fmt == "md" else ""), lambda: tool_text_splitter(fmt))]
        for name, make in optional:
            try:
                tools.append((name, make()))
            except Exception as exc:  # a library that is not installed or fails offline is reported, not fatal
                print(f"  skipped {name}: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        results = {name: [] for name, _ in tools}
        outputs = {}
        for _ in range(repeats):  # interleaved: every tool once per round
            for name, fn in tools:
                gc.collect()
                t0 = time.perf_counter()
                res = fn(texts)
                results[name].append(time.perf_counter() - t0)
                outputs[name] = res
        floor = statistics.median(results[tools[0][0]])
        rows = []
        for name, _ in tools:
            t = statistics.median(results[name])
            if name.startswith("tiktoken"):
                rows.append([name, f"{mb / t:.1f}", "1.00", "", "", "", ""])
                continue
            n, mean, mx, over = stats_of(outputs[name], enc)
            rows.append([name, f"{mb / t:.1f}", f"{t / floor:.2f}", n, f"{mean:.0f}", mx, over])
        cli = section_cli_time(fmt)
        if cli is not None:
            rows.insert(2, ["chunkctl recursive (CLI, --jobs 1)", f"{mb / cli:.1f}", f"{cli / floor:.2f}",
                            "", "", "", ""])
        out.append(f"**{fmt}** ({len(texts)} files, {mb:.1f} MB; cl100k_base, {SIZE} tokens, overlap {OVERLAP} "
                   "where supported; median of {r} interleaved runs)\n\n".replace("{r}", str(repeats))
                   + table(["tool", "MB/s", "× floor", "chunks", "mean tok", "max tok", "over limit"], rows))
    return "\n\n".join(out)


def section_cli_time(fmt: str) -> float | None:
    """Wall time of `chunkctl chunk DIR --jobs 1` (process start and tokenizer load included)."""
    exe = Path(sys.executable).parent / "chunkctl"
    if not exe.exists():
        return None
    args = [str(exe), "chunk", str(CORPUS / fmt), "--jobs", "1", "--quiet", "--chunk-size", str(SIZE),
            "--overlap", str(OVERLAP), "-o", os.devnull]
    return timed(lambda: subprocess.run(args, capture_output=True), 3)


# ----------------------------------------------------------------------------- issue 19: the speed corpus
def _cli(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "chunkctl"), *args]


def _cli_rss(args: list[str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MB of the chunkctl process, peak RSS MB of its largest worker) of one CLI run."""
    # A process forked from this one starts with this one's peak RSS (Linux keeps it across
    # exec): the driver resets its peak (clear_refs 5) and reads VmHWM at exit.
    driver = ("import atexit, resource, sys\n"
              "try:\n"
              "    open('/proc/self/clear_refs', 'w').write('5')\n"
              "except OSError:\n"
              "    pass\n"
              "def report():\n"
              "    s = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
              "    try:\n"
              "        s = int([x for x in open('/proc/self/status') if x.startswith('VmHWM')][0].split()[1])\n"
              "    except (OSError, IndexError):\n"
              "        pass\n"
              "    c = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
              "    sys.__stderr__.write(f'RSS {s} {c}\\n')\n"
              "atexit.register(report)\n"
              "from chunkctl.cli import entry_point\n"
              "sys.argv = ['chunkctl', *sys.argv[1:]]\n"
              "entry_point()\n")  # (as the console script: atexit runs, the teardown is skipped)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", driver, *args], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"chunkctl failed: {p.stderr[-500:]}")
    line = [x for x in p.stderr.splitlines() if x.startswith("RSS ")][-1].split()
    return wall, int(line[1]) / 1024, int(line[2]) / 1024


def _stages(paths: list[Path], fmt: str, tok) -> dict[str, float]:
    """Seconds of each in-process stage over the files (no profiler): load (decode + blocks), token table,
    strategy (recursive, packing), records (finalize + JSONL)."""
    import chunkctl
    from chunkctl.chunking import chunk_document
    from chunkctl.loaders import load_bytes
    from chunkctl.pipeline.document import serialize
    from chunkctl.pipeline.finalize import iter_records

    config = chunkctl.ChunkConfig(chunk_size=SIZE, overlap=OVERLAP)
    out = dict.fromkeys(("load", "token table", "strategy", "records"), 0.0)
    clock = time.perf_counter
    for path in paths:
        data = path.read_bytes()
        t0 = clock()
        doc = load_bytes(data, path.name, fmt, config)
        t1 = clock()
        table = tok.table(doc.text)
        t2 = clock()
        chunked = chunk_document(doc, tok, config, table)
        t3 = clock()
        serialize(iter_records(doc, chunked.chunks, config, tok.name, chunked.doc_meta))
        t4 = clock()
        for k, dt in zip(out, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            out[k] += dt
    return out


def section_speed(enc, repeats: int) -> str:
    """Issue 19: the whole CLI (--jobs 1 and 2), chunkctl's in-process stages and other chunkers on the speed
    corpus (bench/corpus.py: real Markdown and text from public repositories), txt and md apart and together,
    as ratios to one tiktoken pass over the same text in the same round; start-up; peak RSS; load average."""
    import corpus as speed_corpus
    from chunkctl.tokenizers import get_tokenizer

    root = speed_corpus.build(speed_corpus.DEFAULT_DEST, verbose=False)
    tok = get_tokenizer("cl100k_base")
    load0 = os.getloadavg()
    out = []
    totals: dict[str, float] = {}
    floors = 0.0
    rss_rows = []
    for fmt in ("txt", "md"):
        import chunkctl

        paths = sorted(p for p in (root / fmt).rglob("*") if p.is_file())
        texts = [chunkctl.load(p).text for p in paths]
        mb = sum(p.stat().st_size for p in paths) / 1e6
        tools = [("tiktoken encode_ordinary (floor)", tool_floor(enc))]
        optional = [("LangChain RecursiveCharacterTextSplitter", lambda: tool_langchain(enc, "txt"))]  # recursive splitter
        if fmt == "md":
            optional.append(("LangChain MarkdownTextSplitter", lambda: tool_langchain(enc, "md")))
        optional += [("chonkie RecursiveChunker (no overlap)", lambda: tool_chonkie(enc)),
                     ("chonkie SentenceChunker", lambda: tool_chonkie_sentence(enc)),
                     ("semchunk", lambda: tool_semchunk(enc)),
                     ("semantic-text-splitter" + (" MarkdownSplitter" if fmt == "md" else ""),
                      lambda: tool_text_splitter(fmt))]
        for name, make in optional:
            try:
                tools.append((name, make()))
            except Exception as exc:  # a library that is not installed is reported, not fatal
                print(f"  skipped {name}: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        cli_args = ["chunk", str(root / fmt), "--quiet", "--chunk-size", str(SIZE), "--overlap", str(OVERLAP), "-o", os.devnull]
        times: dict[str, list[float]] = {name: [] for name, _ in tools}
        times |= {"CLI --jobs 1": [], "CLI --jobs 2": [], "stages": []}
        stage_runs = []
        outputs = {}
        rss = {}
        for _ in range(repeats):  # interleaved: every tool once per round
            for name, fn in tools:
                gc.collect()
                t0 = time.perf_counter()
                outputs[name] = fn(texts)
                times[name].append(time.perf_counter() - t0)
            for jobs in (1, 2):
                wall, parent, worker = _cli_rss([*cli_args, "--jobs", str(jobs)])
                times[f"CLI --jobs {jobs}"].append(wall)
                rss[jobs] = (parent, worker)
            gc.collect()
            st = _stages(paths, fmt, tok)
            stage_runs.append(st)
            times["stages"].append(sum(st.values()))
        floor = statistics.median(times[tools[0][0]])
        floors += floor
        med = {k: statistics.median(v) for k, v in times.items() if v}
        for k in ("CLI --jobs 1", "CLI --jobs 2"):
            totals[k] = totals.get(k, 0.0) + med[k]
        rows = [[tools[0][0], f"{mb / floor:.1f}", "1.00", "", "", "", ""],
                ["chunkctl CLI --jobs 1 (whole process)", f"{mb / med['CLI --jobs 1']:.1f}",
                 f"{med['CLI --jobs 1'] / floor:.2f}", "", "", "", ""],
                ["chunkctl CLI --jobs 2 (whole process)", f"{mb / med['CLI --jobs 2']:.1f}",
                 f"{med['CLI --jobs 2'] / floor:.2f}", f"{med['CLI --jobs 1'] / med['CLI --jobs 2']:.2f}x faster "
                 "than --jobs 1", "", "", ""]]
        best = min(stage_runs, key=lambda d: sum(d.values()))
        rows.append(["chunkctl in-process stages: " + " + ".join(f"{k} {v / floor:.2f}" for k, v in best.items()),
                     f"{mb / sum(best.values()):.1f}", f"{sum(best.values()) / floor:.2f}", "", "", "", ""])
        for name, _ in tools[1:]:
            t = med[name]
            n, mean, mx, over = stats_of(outputs[name], enc)
            rows.append([name, f"{mb / t:.1f}", f"{t / floor:.2f}", n, f"{mean:.0f}", mx, over])
        out.append(f"**{fmt}** ({len(paths)} files, {mb:.1f} MB; {SIZE} tokens, overlap {OVERLAP} where supported; "
                   f"median of {repeats} interleaved rounds; other tools in-process, loop only)\n\n"
                   + table(["tool", "MB/s", "× floor", "note / chunks", "mean tok", "max tok", "over limit"], rows))
        for jobs in (1, 2):
            rss_rows.append([f"{fmt}, --jobs {jobs}", f"{rss[jobs][0]:.0f}",
                             f"{rss[jobs][1]:.0f}" if jobs > 1 else "(no worker)"])
    # both formats in one run, as users run it
    all_args = ["chunk", str(root), "--quiet", "--chunk-size", str(SIZE), "--overlap", str(OVERLAP), "-o", os.devnull]
    for jobs in (1, 2):
        wall, parent, worker = _cli_rss([*all_args, "--jobs", str(jobs)])
        rss_rows.append([f"txt+md, --jobs {jobs}", f"{parent:.0f}", f"{worker:.0f}" if jobs > 1 else "(no worker)"])
    ratio1, ratio2 = totals["CLI --jobs 1"] / floors, totals["CLI --jobs 2"] / floors
    startup = statistics.median(
        _cli_rss(["chunk", str(ROOT / "examples" / "backup-guide.md"), "-o", os.devnull])[0] for _ in range(5))
    helptime = statistics.median(timed(lambda: subprocess.run(_cli("--help"), capture_output=True), 1)
                                 for _ in range(5))
    load1 = os.getloadavg()
    out.append(f"txt+md: CLI --jobs 1 = {ratio1:.2f}x the floor, --jobs 2 = {ratio2:.2f}x "
               f"({totals['CLI --jobs 1'] / totals['CLI --jobs 2']:.2f}x faster)")
    out.append(f"Start-up: `chunkctl chunk examples/backup-guide.md -o /dev/null` {startup:.2f} s wall, "
               f"`chunkctl --help` {helptime:.2f} s (medians of 5)")
    out.append("Peak RSS (MB) of the chunkctl process and of its largest worker:\n\n"
               + table(["run", "chunkctl process", "worker"], rss_rows))
    out.append(f"Load average (1, 5, 15 min): {load0[0]:.1f} {load0[1]:.1f} {load0[2]:.1f} before, "
               f"{load1[0]:.1f} {load1[1]:.1f} {load1[2]:.1f} after, on {os.cpu_count()} cores")
    return "\n\n".join(out)


def section_strategies(enc, repeats: int) -> str:
    """Each strategy's MB/s and ratio to the floor on txt + md (+ html)."""
    import chunkctl
    from chunkctl.chunking import STRATEGIES

    docs = [(fmt, t) for fmt in ("txt", "md", "html") for _, t in texts_of(fmt)]
    mb = sum(len(t.encode("utf-8")) for _, t in docs) / 1e6
    floor = timed(lambda: [enc.encode_ordinary(t) for _, t in docs], repeats)
    rows = []
    for name in STRATEGIES:
        try:
            STRATEGIES[name].ready(chunkctl.ChunkConfig(strategy=name))
        except chunkctl.ChunkctlError:
            continue  # needs an extra or a model endpoint (llm)

        def run(name=name):
            n = 0
            for fmt, t in docs:
                f = "txt" if fmt == "html" else fmt  # html documents are re-chunked from their extracted text
                n += len(chunkctl.chunk_text(t, format=f, strategy=name, chunk_size=SIZE, overlap=OVERLAP))
            return n
        t = timed(run, repeats)
        extra = ""
        if name == "semantic":
            from chunkctl.text.sentences import SentenceSplitter

            sp = SentenceSplitter()
            n_sent = sum(len(sp.spans(tx, 0, len(tx))) for _, tx in docs)
            extra = f"{n_sent / t:,.0f} sentences/s"
        rows.append([name, f"{mb / t:.1f}", f"{t / floor:.2f}", extra])
    return (f"Strategies over the txt, md and html corpus text ({mb:.1f} MB of text, {SIZE}/{OVERLAP}):\n\n"
            + table(["strategy", "MB/s", "× floor", "note"], rows))


def section_formats(enc, repeats: int) -> str:
    """Loader + chunking per format, end to end from bytes, against one tiktoken pass over the extracted text."""
    import chunkctl
    from chunkctl.loaders import LOADERS
    from chunkctl.pipeline import discover, process_file

    rows = []
    for fmt in ("txt", "md", "html", "pdf"):
        if fmt not in LOADERS:
            continue
        items = [i for i in discover([str(CORPUS / fmt)]).inputs if i.format]
        for i in items:
            i.data = Path(i.path).read_bytes()
        cfg = chunkctl.ChunkConfig(chunk_size=SIZE, overlap=OVERLAP)
        texts = []
        pages = 0
        for i in items:
            r = process_file(i, cfg)
            if not r.error:
                texts.append(chunkctl.load(i.path).text)
        pages = sum(t.count("\f") + 1 for t in texts) if fmt == "pdf" else 0
        mb = sum(i.size for i in items) / 1e6
        floor = timed(lambda: [enc.encode_ordinary(t) for t in texts], repeats)
        t = timed(lambda: [process_file(i, cfg) for i in items], repeats)
        note = f"{pages / t:.0f} pages/s" if pages else ""
        rows.append([fmt, len(items), f"{mb:.1f}", f"{mb / t:.1f}", f"{t / floor:.2f}", note])
    return ("End to end per format (bytes -> records; one process; the floor is one tiktoken pass over the "
            "extracted text):\n\n" + table(["format", "files", "MB", "MB/s", "× floor", "note"], rows))


def section_scale(enc, repeats: int) -> str:
    """Linear time: the BR-20 paragraph at 300 K and 600 K characters."""
    import chunkctl

    seed = (CASES / "BR-20-far-paragraph-break.txt").read_text("utf-8").rstrip("\n")
    rows = []
    res = {}
    for k in (350, 700):
        for tail in (True, False):
            text = "\n".join([seed] * k) + ("\n\nEnd of survey notes.\n" if tail else "")
            t = min(timed(lambda: chunkctl.chunk_text(text, format="txt", chunk_size=64, overlap=0), 1)
                    for _ in range(max(2, repeats)))
            res[(k, tail)] = t
            rows.append([f"{len(text):,}", "yes" if tail else "no", f"{t:.2f}"])
    ratio = res[(700, True)] / res[(350, True)]
    return ("Scale (BR-20: one paragraph break at the very end, recursive 64/0, best of runs):\n\n"
            + table(["characters", "final blank line", "seconds"], rows)
            + f"\n\n600 K / 300 K time ratio: {ratio:.2f} (target <= 2.3)")


def section_memory(quick: bool) -> str:
    """Peak RSS of a whole-corpus CLI run, of a 100 MB corpus, and of one big file of each worst shape."""
    rows = []
    exe = Path(sys.executable).parent / "chunkctl"

    def cli_peak(args):
        p = subprocess.run(["/usr/bin/env", "python3", "-c",
                            "import resource,subprocess,sys;subprocess.run(sys.argv[1:]);"
                            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)", *args],
                           capture_output=True, text=True)
        try:
            return int(p.stdout.strip().splitlines()[-1]) / 1024
        except (ValueError, IndexError):
            return float("nan")

    rows.append(["whole ../shared/corpus, CLI --jobs 1",
                 f"{cli_peak([str(exe), 'chunk', str(CORPUS), '--jobs', '1', '--quiet', '-o', os.devnull]):.0f}"])
    # Issue 14 (7): the worst shapes of one big file (bench/memory.py; `python bench/memory.py --help`).
    import memory

    shapes, _ = memory.measure(5 if quick else 20, modes=("jobs1",) if quick else ("jobs1", "worker"))
    with tempfile.TemporaryDirectory() as tmp:
        if not quick:
            corpus = Path(tmp) / "c100"
            corpus.mkdir()
            n = 0
            total = 0
            files = [p for fmt in ("txt", "md") for p in sorted((CORPUS / fmt).iterdir())]
            while total < 100_000_000:
                for p in files:
                    dest = corpus / f"{n:05d}-{p.name}"
                    dest.write_bytes(p.read_bytes())
                    total += p.stat().st_size
                    n += 1
            t0 = time.perf_counter()
            peak = cli_peak([str(exe), "chunk", str(corpus), "--jobs", "1", "--quiet", "-o", os.devnull])
            secs = time.perf_counter() - t0
            rows.append([f"100 MB corpus ({n} files), CLI --jobs 1", f"{peak:.0f} ({total / 1e6 / secs:.1f} MB/s)"])
            # Issue 6's cache target on a corpus big enough that start-up (~0.35 s) is not the whole rerun.
            cmd = [str(exe), "chunk", str(corpus), "--quiet", "--cache", str(Path(tmp) / "cache"), "-o", os.devnull]
            first = timed(lambda: subprocess.run(cmd, capture_output=True), 1)
            again = timed(lambda: subprocess.run(cmd, capture_output=True), 3)
            note = (f"\n\n100 MB corpus with `--cache` (default --jobs): first run {first:.1f} s, "
                    f"unchanged rerun {again:.2f} s = {again / first:.1%} of the first (target <= 10%)")
    return ("Peak resident memory (MB):\n\n" + table(["run", "peak RSS MB"], rows) + (note if not quick else "")
            + "\n\n" + shapes)


def section_jobs(repeats: int) -> str:
    """Wall time of --jobs 1 against --jobs 2 on the shared corpus."""
    exe = Path(sys.executable).parent / "chunkctl"
    base = [str(exe), "chunk", str(CORPUS), "--quiet", "-o", os.devnull]
    t1 = timed(lambda: subprocess.run(base + ["--jobs", "1"], capture_output=True), repeats)
    t2 = timed(lambda: subprocess.run(base + ["--jobs", "2"], capture_output=True), repeats)
    return ("Parallel (whole ../shared/corpus, CLI):\n\n"
            + table(["jobs", "seconds", "speed-up"], [[1, f"{t1:.2f}", "1.00"], [2, f"{t2:.2f}", f"{t1 / t2:.2f}"]]))


def section_cli(repeats: int) -> str:
    """Issue 6: --jobs 1 against --jobs 2, and a --cache rerun, on txt+md+html (wall times, outputs compared)."""
    exe = Path(sys.executable).parent / "chunkctl"
    dirs = [str(CORPUS / f) for f in ("txt", "md", "html")]
    mb = sum(p.stat().st_size for d in dirs for p in Path(d).iterdir() if p.is_file()) / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        def run(name: str, *extra: str) -> float:
            out = Path(tmp) / f"{name}.jsonl"
            t0 = time.perf_counter()
            p = subprocess.run([str(exe), "chunk", *dirs, "-o", str(out), *extra], capture_output=True)
            wall = time.perf_counter() - t0
            if p.returncode != 0:
                raise SystemExit(f"chunkctl failed: {p.stderr.decode()[-500:]}")
            return wall

        load0 = os.getloadavg()[0]
        t1 = statistics.median(run("j1", "--jobs", "1") for _ in range(repeats))
        t2 = statistics.median(run("j2", "--jobs", "2") for _ in range(repeats))
        cold, warm = [], []
        for i in range(repeats):
            cache = str(Path(tmp) / f"cache{i}")
            cold.append(run("cold", "--jobs", "2", "--cache", cache))
            warm.append(run("warm", "--jobs", "2", "--cache", cache))
        t_cold, t_warm = statistics.median(cold), statistics.median(warm)
        empty = statistics.median(
            timed(lambda: subprocess.run([str(exe), "chunk", "--from-list", os.devnull, "-q"], capture_output=True), 1)
            for _ in range(repeats))
        same = len({(Path(tmp) / f"{n}.jsonl").read_bytes() for n in ("j1", "j2", "cold", "warm")}) == 1
        load1 = os.getloadavg()[0]
    rows = [["--jobs 1", f"{t1:.2f}", f"{mb / t1:.1f}", "1.00"],
            ["--jobs 2", f"{t2:.2f}", f"{mb / t2:.1f}", f"{t1 / t2:.2f}x faster"],
            ["--jobs 2 --cache (first run, cache empty)", f"{t_cold:.2f}", f"{mb / t_cold:.1f}", ""],
            ["--jobs 2 --cache (unchanged corpus)", f"{t_warm:.2f}", f"{mb / t_warm:.1f}",
             f"{100 * t_warm / t_cold:.0f}% of the first run"],
            ["(start-up alone: no input)", f"{empty:.2f}", "", ""]]
    return (f"CLI on ../shared/corpus txt+md+html ({mb:.1f} MB), wall seconds, median of {repeats}; outputs "
            f"byte-identical: {'yes' if same else 'NO'}; load average {load0:.1f} before, {load1:.1f} after "
            "(on 2 cores, a load above ~0.5 means another job shared the machine):\n\n"
            + table(["run", "seconds", "MB/s", "ratio"], rows))


def tiny_tree(root: Path, n: int = 20_000) -> int:
    """`n` files of a few hundred bytes (half .md, half .txt) in folders of 1,000; returns their bytes."""
    import random

    rng = random.Random(14)
    words = ("the of and to in is that for it as with was on be by this are from at or an which have not "
             "backup restore volume snapshot policy retention schedule encrypted archive").split()
    total = 0
    for i in range(n):
        folder = root / f"d{i // 1000:02d}"
        folder.mkdir(exist_ok=True)
        body = " ".join(rng.choice(words) for _ in range(rng.randint(30, 90)))
        text = f"# Note {i}\n\n{body}.\n" if i % 2 else f"{body}.\n"
        (folder / f"n{i:05d}.{'md' if i % 2 else 'txt'}").write_text(text)
        total += len(text)
    return total


def section_tiny(repeats: int) -> str:
    """Issue 14 (13): 20,000 tiny files with the defaults (a time limit, all cores) against one process."""
    import resource

    exe = Path(sys.executable).parent / "chunkctl"
    ways = [("defaults (--jobs 0 --file-timeout 300)", []), ("--jobs 1", ["--jobs", "1"]),
            ("--jobs 1 --file-timeout 0 (no worker process)", ["--jobs", "1", "--file-timeout", "0"])]
    with tempfile.TemporaryDirectory() as tmp:
        nbytes = tiny_tree(Path(tmp))
        load0 = os.getloadavg()[0]
        walls: dict[str, list[float]] = {name: [] for name, _ in ways}
        cpus: dict[str, list[float]] = {name: [] for name, _ in ways}
        for _ in range(repeats):  # interleaved: every way once per round
            for name, extra in ways:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                p = subprocess.run([str(exe), "chunk", tmp, "-q", "-o", os.devnull, *extra], capture_output=True)
                walls[name].append(time.perf_counter() - t0)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
                if p.returncode != 0:
                    raise SystemExit(f"chunkctl failed: {p.stderr.decode()[-500:]}")
        load1 = os.getloadavg()[0]
    base = statistics.median(walls[ways[-1][0]])
    rows = []
    for name, _ in ways:
        t = statistics.median(walls[name])
        rows.append([name, f"{t:.2f}", f"{t / base:.2f}", f"{statistics.median(cpus[name]):.2f}"])
    return (f"Many small files (20,000 files, {nbytes / 1e6:.1f} MB, made in a temporary folder), CLI to "
            f"/dev/null, wall seconds, median of {repeats} interleaved runs; load average {load0:.1f} before, "
            f"{load1:.1f} after (target: the defaults within ~1.3x of one process):\n\n"
            + table(["run", "seconds", "× one process", "CPU seconds (all processes)"], rows))


def section_hf(enc, repeats: int) -> str:
    """A Hugging Face WordPiece tokenizer.json (built here, BERT-style, 30k vocabulary trained on the
    corpus; nothing downloaded) beside tiktoken cl100k: counting and `recursive` chunking."""
    try:
        from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    except ImportError:
        return "Hugging Face tokenizer.json: skipped (pip install 'chunkctl[hf]')"
    import chunkctl

    docs = [t for fmt in ("txt", "md") for _, t in texts_of(fmt)]
    mb = sum(len(t.encode("utf-8")) for t in docs) / 1e6
    tk = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tk.normalizer = normalizers.BertNormalizer(lowercase=True)
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tk.train_from_iterator(docs, trainers.WordPieceTrainer(vocab_size=30_000, show_progress=False,
                                                           special_tokens=["[UNK]", "[CLS]", "[SEP]"]))
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tk.token_to_id("[CLS]")), ("[SEP]", tk.token_to_id("[SEP]"))])
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "tokenizer.json")
        tk.save(path)
        hf = chunkctl.get_tokenizer(path)
        rows = []
        for name, spec, count in (("tiktoken cl100k_base", "cl100k_base", lambda t: len(enc.encode_ordinary(t))),
                                  ("HF WordPiece tokenizer.json", path, hf.count)):
            t_count = timed(lambda count=count: [count(t) for t in docs], repeats)
            t_chunk = timed(lambda spec=spec: [chunkctl.chunk_text(t, format="txt", chunk_size=SIZE, overlap=OVERLAP,
                                                                   tokenizer=spec) for t in docs], repeats)
            rows.append([name, f"{mb / t_count:.1f}", f"{mb / t_chunk:.1f}", f"{t_chunk / t_count:.2f}"])
        base = float(rows[0][2])
        rows = [r + [f"{base / float(r[2]):.2f}"] for r in rows]
    return (f"Tokenizers: one count of each txt/md corpus text, then `recursive` chunking with that tokenizer "
            f"({mb:.1f} MB, {SIZE}/{OVERLAP}):\n\n"
            + table(["tokenizer", "count MB/s", "chunk MB/s", "chunk × own count", "chunk time × tiktoken"], rows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="one repeat, no 100 MB corpus")
    ap.add_argument("--only", action="append", help="run only these sections")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    repeats = 1 if args.quick else args.repeats
    from chunkctl.tokenizers import get_tokenizer

    enc = get_tokenizer("cl100k_base").encoding
    print(f"Machine: {machine()}\n")
    sections = {
        "speed": lambda: section_speed(enc, repeats),
        "libs": lambda: section_libs(enc, repeats),
        "formats": lambda: section_formats(enc, repeats),
        "strategies": lambda: section_strategies(enc, repeats),
        "scale": lambda: section_scale(enc, repeats),
        "jobs": lambda: section_jobs(repeats),
        "cli": lambda: section_cli(repeats),
        "tiny": lambda: section_tiny(repeats),
        "hf": lambda: section_hf(enc, repeats),
        "memory": lambda: section_memory(args.quick),
    }
    for name, fn in sections.items():
        if args.only and name not in args.only:
            continue
        print(fn(), flush=True)
        print()


if __name__ == "__main__":
    main()
