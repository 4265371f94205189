"""Shared test helpers: paths to ../shared, the contract checker, the registries under test, the `slow` marker."""

from __future__ import annotations

import bisect
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests: `make test` (what CI runs) draws the same examples on every run
# (derandomized, a seed per test), so a submission passes or fails on its code alone;
# `make fuzz` (HYPOTHESIS_PROFILE=fuzz) draws fresh random examples, ten times as many,
# to look for new failures. A failure found there becomes an exact test.
settings.register_profile("repeatable", derandomize=True, database=None, print_blob=True)
settings.register_profile("fuzz", derandomize=False, print_blob=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "repeatable")
settings.load_profile(PROFILE)
# `make fuzz`: each property test draws FUZZ_FACTOR (environment, default 10) times its own max_examples
FUZZ_FACTOR = int(os.environ.get("FUZZ_FACTOR", "10"))

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
CASES = SHARED / "cases"
CHECKER = SHARED / "tools" / "check_chunks.py"
CLI = [sys.executable, "-m", "chunkctl"]

# Tests that take more than ~5 s on 2 cores (`pytest --durations`): `make test-fast`
# (`-m "not slow"`) leaves them out, `make test` runs them. Whole modules by file name,
# single tests by node id; files this list does not own mark their own tests instead.
SLOW_MODULES = frozenset({
    "test_contract_corpus.py",  # every strategy over ../shared/corpus: 5-18 s a case
    "test_pdf_corpus.py",  # loads every corpus PDF: ~23 s of setup
    "test_html_corpus.py",  # every corpus page through the checker: up to 14 s a case
    "test_dask.py",  # starts a Dask cluster: ~6 s
    "test_table_roundtrip.py",  # every table chunk of the corpus: 11-16 s a case
})
SLOW_TESTS = frozenset({
    "tests/test_llm_cli.py::test_failed_model_calls_exit_1_and_keep_the_records",  # ~20 s of model-call retries
    # memory: traced (tracemalloc makes a load some 25x slower), or measured in processes of their own: 5-30 s each
    "tests/test_memory_bounds.py::test_peak_memory_of_loading_a_large_html_page_stays_within_8x",  # 1-15 s each
    "tests/loaders/test_html_pieces.py::test_a_page_of_many_small_tables_forgets_the_closed_ones",  # 4 processes
    "tests/test_memory_bounds.py::test_lazy_splitters_equal_the_list_splitters",
    "tests/chunking/test_heading_runs.py::test_a_million_empty_headings_are_not_held_at_once",
    "tests/loaders/test_markdown_pieces.py::"
    "test_traced_memory_of_one_list_item_of_one_word_paragraphs_grows_less_than_8x_the_text",
    "tests/loaders/test_markdown_parsers.py::test_traced_memory_of_one_big_code_block_grows_less_than_12x_the_text",
    "tests/test_blocklist.py::test_heading_titles_are_kept_packed_in_strings",
    "tests/test_reliability.py::test_sigterm_at_any_moment_says_what_is_on_disk",
    "tests/loaders/test_html_pieces.py::"  # ~7 s: pages of 200-odd nested elements, read whole and in pieces
    "test_a_page_nested_past_200_elements_read_in_pieces_gives_the_blocks_of_the_page_read_whole",
})


def pytest_collection_modifyitems(config, items):
    """Mark the tests of SLOW_MODULES and SLOW_TESTS `slow` (registered in pyproject.toml) and run
    them first, so that under `-n auto` the short tests fill the workers at the end (four traced
    HTML page loads of 54-97 s each came last in file order, and the suite ended on them);
    under the `fuzz` profile, multiply every property test's examples by FUZZ_FACTOR."""
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if PROFILE == "fuzz" and own is not None and not getattr(test, "_fuzz_scaled", False):
            test._hypothesis_internal_use_settings = settings(own, max_examples=own.max_examples * FUZZ_FACTOR)
            test._fuzz_scaled = True
        nodeid = item.nodeid.split("[", 1)[0]
        if item.path.name in SLOW_MODULES or nodeid in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # (stable: file order kept within each)


def ready_strategies(skip: tuple[str, ...] = ("llm",)) -> list[str]:
    """Registered strategies that can run here: `.ready()` does not raise (extra installed), minus `skip`.

    `llm` is skipped by default: it needs a model endpoint (its own tests run a fake one).
    """
    from chunkctl.chunking import STRATEGIES
    from chunkctl.config import ChunkConfig

    names = []
    for name, strategy in STRATEGIES.items():
        if name in skip:
            continue
        try:
            strategy.ready(ChunkConfig(strategy=name))
        except Exception:  # a missing extra (MissingExtraError) or a missing endpoint (ConfigError)
            continue
        names.append(name)
    return names


def text_formats() -> list[str]:
    """Registered formats whose loader reads a plain UTF-8 string (txt, md, html; not pdf, which needs a PDF)."""
    from chunkctl.config import ChunkConfig
    from chunkctl.errors import ChunkctlError
    from chunkctl.loaders import LOADERS, load_bytes

    names = []
    for fmt in LOADERS:
        try:
            load_bytes(b"Probe text.\n", f"probe.{fmt}", fmt, ChunkConfig())
        except ChunkctlError:
            continue
        names.append(fmt)
    return names


def run_cli(*args: str, input: bytes | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -m chunkctl ARGS` and capture its output."""
    return subprocess.run([*CLI, *args], input=input, capture_output=True, timeout=timeout, cwd=ROOT)


def run_checker(jsonl: Path, root: Path, *extra: str) -> tuple[int, str]:
    """Run ../shared/tools/check_chunks.py; returns (exit code, last line)."""
    extract = f"{sys.executable} -m chunkctl extract"
    p = subprocess.run([sys.executable, str(CHECKER), str(jsonl), "--root", str(root), "--extract-cmd", extract,
                        *extra], capture_output=True, text=True, timeout=900)
    lines = (p.stdout + p.stderr).strip().splitlines()
    return p.returncode, "\n".join(lines[-12:])


def parse_jsonl(data: bytes | str) -> list[dict]:
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    # split on "\n" only: str.splitlines() also breaks at U+2028, U+0085 ... inside JSON strings
    return [json.loads(line) for line in data.split("\n") if line.strip()]


def pytest_report_header(config):
    """A line at the top of the run when ../shared is missing (its tests then fail: README)."""
    if not SHARED.is_dir():
        return [f"WARNING: {SHARED} is missing: the tests that read the shared corpus or the contract "
                "checker are skipped or fail (put the workspace's shared folder beside the clone)"]
    return []


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The same line at the end: `addopts = "-q"` hides the header (helper-102)."""
    for line in pytest_report_header(config):
        terminalreporter.write_line(line, yellow=True, bold=True)


def needs_shared():
    return pytest.mark.skipif(not SHARED.is_dir(), reason="../shared is not beside the project")


_PEAK_GROWTH = """
import json, sys

def _status(key):
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith(key + ":"))

{setup}
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
_before = _status("VmRSS")
assert _status("VmHWM") <= _before + (1 << 20), "the peak was not reset"
{measured}
print(json.dumps({{"growth": _status("VmHWM") - _before, **result}}))
"""

needs_proc = pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="reads /proc (Linux)")


def peak_growth(setup: str, measured: str, *args: str, timeout: float = 600) -> dict:
    """Run Python `setup`, then `measured` (which sets `result`, a dict of JSON values), in a fresh
    process given `args` (`sys.argv[1:]`); returns `result` with "growth": the bytes by which
    the process's peak resident memory while `measured` ran passed its resident memory before.

    The peak is Linux's VmHWM, reset to the resident memory before `measured` (`clear_refs` 5),
    not `ru_maxrss`, which a process started from a larger one (pytest's) begins with at that
    one's size. Untraced, a load runs at full speed: tracemalloc makes one some 25x slower (and
    does not see memory that C libraries take from malloc). Tests marked `needs_proc`."""
    code = _PEAK_GROWTH.format(setup=textwrap.dedent(setup), measured=textwrap.dedent(measured))
    run = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.splitlines()[-1])


@pytest.fixture(scope="module", params=["objects", "packed"])
def pdf_pages_both_ways(request):
    """Run a module's PDF tests twice: pages held as objects (a small document), and packed from the
    first page on (`chunkctl.loaders.pdf.packed`: a big document's way), which must read the same.
    Module-scoped (hypothesis refuses function-scoped fixtures); the threshold is restored after."""
    from chunkctl.loaders.pdf import packed

    saved = packed.PACK_AT
    packed.PACK_AT = -1 if request.param == "packed" else saved
    try:
        yield request.param
    finally:
        packed.PACK_AT = saved


def pdf_file(objects: list[bytes]) -> bytes:
    """A PDF of the given objects (numbered from 1; object 1 is the catalog), with its cross-reference
    table: for the small PDFs tests write by hand."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


class _IndexedText(str):
    """A document text whose `count("\\f", 0, end)` looks its form feeds up (bisect) instead of
    scanning from the start: the checker counts a record's page that way, once per record, so a
    3 MB text of 12,000 records took 23 of a check's 35 s. Every answer is `str.count`'s."""

    _form_feeds: list[int]

    def count(self, sub, start=None, end=None):  # type: ignore[override]
        if sub != "\f" or start != 0 or end is None or end < 0:
            return super().count(sub, start, end)
        if not hasattr(self, "_form_feeds"):
            self._form_feeds = [m.start() for m in re.finditer("\f", self)]
        return bisect.bisect_left(self._form_feeds, end)


def _load_checker():
    import importlib.util

    spec = importlib.util.spec_from_file_location("shared_check_chunks", CHECKER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    doc_text = mod.Checker.doc_text

    def indexed_doc_text(self, rec):
        text = doc_text(self, rec)
        return _IndexedText(text) if text is not None else None

    mod.Checker.doc_text = indexed_doc_text
    return mod


_CHECKER_MOD = None


def check_records(records: list[dict], root: Path, tmp_path: Path, *extra: str, extract_cmd: str | None = None,
                  more_formats: dict[str, bool] | None = None) -> str:
    """Write records as JSONL and run the shared contract checker on them in-process; assert 0 violations.

    `extract_cmd` replaces `python -m chunkctl extract` for pdf/html document text (e.g. a
    `cat` of texts extracted once per session). `more_formats` ({format: paged}) adds
    formats registered in another process (plugins) to the registry's.
    """
    global _CHECKER_MOD
    import contextlib
    import io

    import orjson

    if _CHECKER_MOD is None:
        _CHECKER_MOD = _load_checker()
    # The checker knows the four formats of contract v1; a format registered here
    # (docs/extending.md) extends the contract, with pages when its loader says so.
    from chunkctl.loaders import LOADERS

    paged = {name: loader.paged for name, loader in LOADERS.items()} | (more_formats or {})
    _CHECKER_MOD.FORMATS = set(paged)
    _CHECKER_MOD.PAGED = {name for name, has_pages in paged.items() if has_pages}
    out = tmp_path / "check.jsonl"
    out.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = _CHECKER_MOD.main([str(out), "--root", str(root), "--extract-cmd",
                                extract_cmd or f"{sys.executable} -m chunkctl extract",
                                "--max-examples", "3", *extra])
    report = buf.getvalue()
    assert rc == 0, report
    return report


def chunk_case(name: str, **options) -> tuple[list[dict], str]:
    """Chunk a file of ../shared/cases (source = its file name); returns (records, document text)."""
    from chunkctl.config import ChunkConfig
    from chunkctl.pipeline import chunk_records, load

    config = ChunkConfig(**options)
    doc = load(CASES / name, config, source=name)
    return chunk_records(doc, config), doc.text


def bodies(records: list[dict]) -> list[str]:
    return [r["text"][len(r["prefix"]):] for r in records]
