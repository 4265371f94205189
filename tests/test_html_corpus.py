"""HTML on ../shared: the contract checker over every corpus page, encodings, and the HTML cases BR-22 and BR-28."""

from __future__ import annotations

import json
import sys

import pytest

from chunkctl.chunking import STRATEGIES
from chunkctl.config import ChunkConfig
from chunkctl.model import BlockKind
from chunkctl.pipeline import chunk_records, load

from .conftest import CASES, CORPUS, needs_shared, parse_jsonl, run_checker, run_cli

pytestmark = needs_shared()

HTML = CORPUS / "html"
PHRASES = CORPUS / "encodings.json"


# ------------------------------------------------------------------ the contract on every page

@pytest.mark.parametrize("options", [
    ("--chunk-size", "256", "--overlap", "32"),
], ids=["recursive-256-32"])
def test_corpus_has_no_contract_violations(tmp_path, options):
    out = tmp_path / "html.jsonl"
    p = run_cli("chunk", str(HTML), *options, "--jobs", "2", "-o", str(out))
    assert p.returncode == 0, p.stderr.decode()
    records = parse_jsonl(out.read_bytes())
    assert {r["source"] for r in records} == {f.name for f in HTML.glob("*.html")}
    assert all(r["format"] == "html" and r["page_start"] is None and r["page_end"] is None for r in records)
    rc, summary = run_checker(out, HTML, "--expect-all")
    assert rc == 0, summary
    assert "0 violations" in summary and "coverage 100.00%" in summary
    # Decoding: every phrase of encodings.json, on the whole page text (the qq page's phrase
    # is an invisible skip link, which the main-content default rightly leaves out).
    whole = tmp_path / "whole.jsonl"
    p = run_cli("chunk", str(HTML), *options, "--keep-boilerplate", "-o", str(whole))
    assert p.returncode == 0, p.stderr.decode()
    rc, summary = run_checker(whole, HTML, "--expect-all", "--phrases", str(PHRASES), "--extract-cmd",
                              f"{sys.executable} -m chunkctl extract --keep-boilerplate")
    assert rc == 0, summary


# ------------------------------------------------------------------ encodings (SOURCES.md)

PHRASE = json.loads(PHRASES.read_text(encoding="utf-8"))["phrases"] if PHRASES.is_file() else {}


@pytest.mark.parametrize("name, encoding", [
    ("winfuture-de-latin1.html", "cp1252"),            # declares iso-8859-1: browsers read windows-1252
    ("xinhua-gb2312-conflicting-meta.html", "gb18030"),  # declares gb2312: GBK, decoded by gb18030
    ("sjis-no-charset-decl.html", "cp932"),            # no declaration: detected
    ("qq-zh-says-gb2312-is-utf8.html", "utf-8"),       # declares gb2312, bytes are UTF-8
])
def test_non_utf8_pages_decode_exactly(name, encoding):
    doc = load(HTML / name, ChunkConfig(keep_boilerplate=True))  # the phrase may sit outside the main content
    assert doc.meta["encoding"] == encoding
    assert PHRASE[f"html/{name}"] in doc.text
    assert "\ufffd" not in doc.text


def test_every_other_page_is_utf8():
    odd = {"winfuture-de-latin1.html", "xinhua-gb2312-conflicting-meta.html", "sjis-no-charset-decl.html"}
    for path in sorted(HTML.glob("*.html")):
        if path.name not in odd:
            assert load(path, ChunkConfig()).meta["encoding"] == "utf-8", path.name


# ------------------------------------------------------------------ tables and code on real pages

def test_code_listings_in_one_cell_tables_come_out_as_code():
    doc = load(HTML / "mozilla-hacks-fetch-tables-code.html", ChunkConfig())
    kinds = [b.kind for b in doc.blocks]
    assert kinds.count(BlockKind.CODE) == 17
    assert BlockKind.TABLE not in kinds
    first = next(b for b in doc.blocks if b.kind == BlockKind.CODE)
    assert doc.text[first.start:first.end].startswith('fetch("/data.json").then(function(res) {')
    recs = chunk_records(doc, ChunkConfig(chunk_size=64, overlap=0))
    assert "table" not in {r["kind"] for r in recs} and "code" in {r["kind"] for r in recs}


def test_data_table_stays_a_table_and_layout_tables_do_not():
    doc = load(HTML / "factorio-fff-data-table.html", ChunkConfig())
    tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 1
    head = doc.text[tables[0].header[0]:tables[0].header[1]]
    assert head.startswith("|  | General UX | UX draft | UX review |") and head.endswith("| --- |")
    assert len(tables[0].rows) > 10
    for name in ("lwn-weekly-layout-tables.html", "hukumusume-ja-layout-tables.html",
                 "xinhua-gb2312-conflicting-meta.html"):
        doc = load(HTML / name, ChunkConfig())
        assert not any(b.kind == BlockKind.TABLE for b in doc.blocks), name


def test_pre_blocks_and_languages():
    doc = load(HTML / "mercurial-guide-pre-blocks.html", ChunkConfig())
    assert sum(b.kind == BlockKind.CODE for b in doc.blocks) == 46
    doc = load(HTML / "v8-blog-code.html", ChunkConfig())
    langs = [b.language for b in doc.blocks if b.kind == BlockKind.CODE]
    assert len(langs) == 10 and {"js", "c", "cpp", "bash"} <= set(langs)


def test_boilerplate_heavy_pages_keep_the_article_only():
    doc = load(HTML / "nytimes-boilerplate-heavy.html", ChunkConfig())
    assert "LONDON — After nearly 20 years of hostile relations" in doc.text
    assert "function(" not in doc.text and "Site Index" not in doc.text
    doc = load(HTML / "bbc-news-script-heavy.html", ChunkConfig())
    assert "window." not in doc.text and "var " not in doc.text


# ------------------------------------------------------------------ cases

BR22 = CASES / "BR-22-html-heading-path.html"
BR22_PATHS = {
    "Test the soil every spring.": ["Soil"],
    "Turn the heap once a month.": ["Soil", "Compost"],
    "Add worms to speed it up.": ["Soil", "Compost", "Worms"],
    "Dig a trench on the low side.": ["Soil", "Drainage"],
    "Rotate beds each year.": ["Crops"],
    "Sow beans after the last frost.": ["Crops", "Beans"],
}


def _chunk_case(tmp_path, case, *options) -> list[dict]:
    out = tmp_path / "case.jsonl"
    p = run_cli("chunk", str(CASES), "--include", case.name, "--overlap", "0", *options, "-o", str(out))
    assert p.returncode == 0, p.stderr.decode()
    rc, summary = run_checker(out, CASES)
    assert rc == 0, summary
    return parse_jsonl(out.read_bytes())


def _paths_of_paragraphs(records: list[dict], paths: dict[str, list[str]]) -> None:
    doc = load(CASES / records[0]["source"], ChunkConfig()).text
    for para, want in paths.items():
        a = doc.index(para)
        b = a + len(para)
        holding = [r for r in records if r["start"] < b and r["end"] > a]
        assert holding, para
        for r in holding:
            assert r["headings"] == want, (para, r["headings"])


@pytest.mark.parametrize("strategy, size", [("recursive", "256"), ("recursive", "16"), ("section", "256")])
def test_br22_heading_path_keeps_the_parent_heading(tmp_path, strategy, size):
    if strategy not in STRATEGIES:
        pytest.skip(f"strategy {strategy} is not built yet (RULINGS: its issue runs this)")
    records = _chunk_case(tmp_path, BR22, "--strategy", strategy, "--chunk-size", size)
    if size == "256":
        assert len(records) == 6
    _paths_of_paragraphs(records, BR22_PATHS)
    for r in records:
        assert "Allotment handbook" not in r["headings"]
        assert "Allotment handbook" not in r["text"]
        if "Crops" in r["headings"]:
            assert "Soil" not in r["headings"]
        if r["headings"][-1:] == ["Drainage"]:
            assert "Worms" not in r["headings"]
    assert records[0]["meta"]["title"] == "Allotment handbook"


BR28 = CASES / "BR-28-html-boilerplate.html"
BR28_FORBIDDEN = ("trackPage", "BANNER_DELAY", "font-family", "app.js", "News", "Shop", "Sign in", "We use cookies",
                  "Accept all", "Related", "Cleaning a chain", "Copyright 2024", "Privacy", "Enable scripts")


@pytest.mark.parametrize("strategy, size", [("recursive", "16"), ("recursive", "256"), ("section", "256")])
def test_br28_page_furniture_stays_out(tmp_path, strategy, size):
    if strategy not in STRATEGIES:
        pytest.skip(f"strategy {strategy} is not built yet (RULINGS: its issue runs this)")
    records = _chunk_case(tmp_path, BR28, "--strategy", strategy, "--chunk-size", size)
    joined = "\n".join(r["text"] for r in records)
    doc = load(BR28, ChunkConfig()).text
    for sentence in ("Take the wheel off and push one tyre lever under the bead.",
                     "Pump the tube a little and listen for the hiss."):
        a = doc.index(sentence)
        covered = set()
        for r in records:
            covered.update(range(max(a, r["start"]), min(a + len(sentence), r["end"])))
        assert covered >= {i for i in range(a, a + len(sentence)) if not doc[i].isspace()}, sentence
    for bad in BR28_FORBIDDEN:
        assert bad not in joined, bad
    _paths_of_paragraphs(records, {
        "Take the wheel off and push one tyre lever under the bead.": ["Repairing a bike puncture"],
        "Pump the tube a little and listen for the hiss.": ["Repairing a bike puncture", "Finding the hole"],
    })
    assert all("Related" not in r["headings"] for r in records)
    assert records[0]["meta"]["title"] == "Repairing a bike puncture | Cycle Notes"
    assert "Cycle Notes" not in joined


def test_br28_keep_boilerplate_keeps_the_furniture_but_not_scripts(tmp_path):
    p = run_cli("extract", str(BR28), "--keep-boilerplate")
    assert p.returncode == 0
    text = p.stdout.decode()
    for kept in ("News", "We use cookies", "Related", "Copyright 2024", "Privacy"):
        assert kept in text
    for dropped in ("trackPage", "font-family", "app.js", "Enable scripts"):
        assert dropped not in text
