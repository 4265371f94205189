"""`chunkctl view`: the HTML page of documents and chunks, its plots, escaping, and the page in a real browser.

The browser tests open the page in headless Chromium from the distribution's packages
(Debian `chromium`, at /usr/bin/chromium; `.ci/run` installs it where it can) and read
the DOM it renders (`--dump-dom`); they are skipped, saying so, where it is absent.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import orjson
import pytest
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from typer.testing import CliRunner

import chunkctl
from chunkctl.cli import app
from chunkctl.config import ChunkConfig
from chunkctl.pipeline import chunk_records, load
from chunkctl.view import DocumentView, eval_page, histogram, mismatch, payload, script_json, size_bins
from chunkctl.view.data import Utf16, roles
from tests.conftest import ROOT, parse_jsonl

runner = CliRunner()
CHROMIUM = "/usr/bin/chromium"

PWN = "document.documentElement.setAttribute('data-pwned','{}')"
HOSTILE = f"</script><img src=x onerror=\"{PWN.format('body')}\"><!-- <script>{PWN.format('script')}</script>"
# A file name cannot hold "/", so the name's payload is an element that needs no closing tag.
HOSTILE_NAME = f"<img src=x onerror={PWN.format('name')}>.md"
HOSTILE_MD = (
    f"---\ntitle: \"{HOSTILE.replace(chr(34), chr(39))}\"\n---\n\n"
    f"# Guide <img src=x onerror={PWN.format('heading')}>\n\n"
    "An emoji first, \U0001f600, so that code points and UTF-16 units differ; and a line\u2028separator.\n\n"
    + "".join(f"Paragraph {i} says {HOSTILE} and goes on for a while, so that it fills a chunk or two. "
              f"Carriage returns\rstay in the text.\n\n" for i in range(6))
    + "## Table <b>bold</b>\n\n| Name <i>it</i> | Value |\n| --- | --- |\n"
    + "".join(f"| row {i} </td></tr></table><script>{PWN.format('table')}</script> | {i} |\n" for i in range(12))
)
HOSTILE_HTML = (
    "<!DOCTYPE html><html><head><title>&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</title></head><body>"
    "<nav><a href='/'>Home</a></nav><main><h1>&lt;script&gt;alert('h1')&lt;/script&gt;</h1>"
    + "".join(f"<p>Entity text {i}: &lt;/script&gt;&lt;img src=x onerror=&quot;{PWN.format('html')}&quot;&gt; "
              "and more words to make the paragraph long enough.</p>" for i in range(8))
    + "</main><footer>footer text</footer></body></html>"
)


def invoke(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def display(s: str) -> str:
    """What the page shows for document text: a lone CR as a line break, a form feed as a space."""
    return re.sub("\r(?!\n)", "\n", s).replace("\f", " ")


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    d = tmp_path / "docs"
    d.mkdir()
    (d / HOSTILE_NAME).write_text(HOSTILE_MD, encoding="utf-8")
    (d / "page.html").write_text(HOSTILE_HTML, encoding="utf-8")
    (d / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really a PDF\n")
    return d


def _blocks(page: str) -> dict[int, dict]:
    """The JSON data blocks of a page, by document number."""
    return {int(m.group(1)): json.loads(m.group(2))
            for m in re.finditer(r'<script type="application/json" id="j-(\d+)">(.*?)</script>', page, re.S)}


# --- the page as text ----------------------------------------------------------------------------------------


def test_script_json_cannot_close_its_script():
    value = {"t": "</script><!-- \u2028\u2029 & <b>", "n": [1, 2]}
    text = script_json(value)
    assert not set(text) & set("<>&\u2028\u2029")
    assert json.loads(text) == value


def test_page_of_hostile_documents_keeps_every_byte_as_text(hostile_folder, tmp_path):
    out = tmp_path / "view.html"
    r = invoke("view", hostile_folder, "-o", out, "--strategy", "fixed", "-n", "48", "--overlap", "8")
    assert r.exit_code == 1, r.stderr  # broken.pdf failed; the page is still written
    assert "broken.pdf: unreadable PDF" in r.stderr and len(r.stderr.strip().splitlines()) == 2
    page = out.read_text("utf-8")
    # Our markup has no <img> and exactly two executable scripts; the rest are JSON data blocks.
    assert "<img" not in page and "<!-- " not in page
    scripts = re.findall(r"<script([^>]*)>", page)
    assert sorted(scripts) == sorted(["", "", ' type="application/json" id="j-0"', ' type="application/json" id="j-2"'])
    assert page.count("</script>") == 4
    data = _blocks(page)
    for k, name in ((0, HOSTILE_NAME), (2, "page.html")):  # sorted: "<" comes before "b"
        doc = load(hostile_folder / name, source=name)
        assert data[k]["text"] == doc.text and data[k]["source"] == name
        recs = chunk_records(doc, ChunkConfig(strategy="fixed", chunk_size=48, overlap=8))
        assert [c["rec"]["id"] for c in data[k]["chunks"]] == [x["id"] for x in recs]
    assert "&lt;img src=x onerror=" in page  # the name, escaped in the index
    assert 'class="failed"' in page and "unreadable PDF" in page
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert "default-src &#x27;none&#x27;" in csp and "unsafe-inline" not in csp.split("style-src")[0]


def test_offsets_are_utf16_and_records_keep_their_fields():
    text = "a\U0001f600b " * 40
    recs = chunkctl.chunk_text(text, chunk_size=16, overlap=4, strategy="fixed")
    view = DocumentView("x.txt", "txt", text=text, records=recs)
    data = payload(view)
    js = text.encode("utf-16-le")
    for c, r in zip(data["chunks"], recs):
        assert js[2 * c["s"]:2 * c["e"]].decode("utf-16-le") == text[r["start"]:r["end"]]
        assert c["rec"]["text"] is None and {k: v for k, v in c["rec"].items() if k != "text"} == {
            k: v for k, v in r.items() if k != "text"}
    assert any(c["overlap"] for c in data["chunks"])
    assert Utf16("\U0001f600x")(1) == 2 and Utf16("abc")(3) == 3


def test_roles_of_parents_children_and_summaries():
    tree = chunkctl.chunk_file(ROOT / "examples" / "backup-guide.md", strategy="hierarchical", levels=(256, 64),
                               overlap=0)
    got = roles(tree)
    parents = {r["parent_id"] for r in tree if r["parent_id"]}
    assert [g[0] for g in got] == ["parent" if r["id"] in parents else "leaf" for r in tree]
    assert all(g[1] == (0 if r["parent_id"] is None else 1) for g, r in zip(got, tree))
    summary = copy.deepcopy(tree[1]) | {"kind": "summary", "text": "A model's summary.", "prefix": "",
                                        "parent_id": tree[1]["id"], "id": "s1"}
    with_summary = tree[:3] + [summary] + tree[3:]
    assert roles(with_summary)[3][0] == "summary"
    assert roles(with_summary)[1][0] == roles(tree)[1][0]  # a summary's link does not make a parent
    data = payload(DocumentView("g.md", "md", text=chunkctl.load(ROOT / "examples" / "backup-guide.md").text,
                                records=with_summary))
    assert data["chunks"][3]["rec"]["text"] == "A model's summary."
    assert mismatch(chunkctl.load(ROOT / "examples" / "backup-guide.md").text, with_summary) is None


def test_records_mode_matches_checks_and_reports(tmp_path):
    out = tmp_path / "o.jsonl"
    assert invoke("chunk", ROOT / "examples", "-n", "128", "-o", out, "--quiet").exit_code == 0
    page = tmp_path / "v.html"
    r = invoke("view", ROOT / "examples", "--records", out, "-o", page)
    assert r.exit_code == 0, r.stderr
    assert "4 documents shown" in r.stderr
    recs = parse_jsonl(out.read_bytes())
    data = _blocks(page.read_text("utf-8"))
    assert [c["rec"]["id"] for k in sorted(data) for c in data[k]["chunks"]] == [x["id"] for x in recs]
    # Records of a changed document, a source that is not among the inputs, a line that is not a record.
    bad = copy.deepcopy(recs)
    first = bad[0]["source"]
    for x in bad:
        if x["source"] == first:
            x["text"] = x["text"].replace("e", "E")
    bad.append(bad[-1] | {"source": "elsewhere.md", "id": "zz"})
    broken = tmp_path / "bad.jsonl"
    broken.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in bad) + b"{not json\n")
    r = invoke("view", ROOT / "examples", "--records", broken, "-o", page)
    assert r.exit_code == 1
    assert f"{first}: the records do not match the document: record 0" in r.stderr
    assert "elsewhere.md: no such document among the inputs" in r.stderr
    assert f"{broken}: 1 line left out, not a record (first: line {len(bad) + 1})" in r.stderr
    # helper-102: a file grown since its records were written (a section appended: the old spans
    # still match) was drawn with them as current, "0 failed"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "policy.txt").write_text("Returns are accepted within 30 days. Keep the receipt.\n")
    (docs / "other.txt").write_text("Shipping is free over 50 euros.\n")
    made = tmp_path / "p.jsonl"
    assert invoke("chunk", docs, "-o", made, "--quiet").exit_code == 0
    with open(docs / "policy.txt", "a") as fh:
        fh.write("\nEnterprise returns\n\nEnterprise customers return through their account manager.\n")
    r = invoke("view", docs, "--records", made, "-o", page)
    assert r.exit_code == 1
    assert "policy.txt: the records do not match the document: the file changed since its records were written " \
           "(its sha256 differs)" in r.stderr and "other.txt" not in r.stderr
    # usage errors: one line, exit 2
    for args, msg in [(["--records", out, "--chunk-size", "64"], "--chunk-size has no effect with --records"),
                      (["--records", tmp_path / "nope.jsonl"], "cannot read it"),
                      (["--records", out, "-o", out], "is also the --records file")]:
        r = invoke("view", ROOT / "examples", *args, *(["-o", page] if "-o" not in args else []))
        assert r.exit_code == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
    assert invoke("view", ROOT / "examples").exit_code == 2  # -o is required
    empty = tmp_path / "empty"
    empty.mkdir()
    r = invoke("view", empty, "-o", tmp_path / "e.html")
    assert r.exit_code == 1 and "no input files selected" in r.stderr and not (tmp_path / "e.html").exists()


def test_flavoured_records_are_read_back(tmp_path):
    out = tmp_path / "lc.jsonl"
    guide = ROOT / "examples" / "backup-guide.md"
    assert invoke("chunk", guide, "-n", "128", "--flavour", "langchain", "-o", out, "--quiet").exit_code == 0
    r = invoke("view", guide, "--records", out, "-o", tmp_path / "v.html")
    assert r.exit_code == 0, r.stderr


# --- plots ----------------------------------------------------------------------------------------------------


def test_histogram_counts_sizes_against_the_budget():
    sizes = [5, 10, 100, 250, 256, 256, 300]
    bins = size_bins(sizes, 256, bins=32)
    assert sum(c for _, _, c in bins) == len(sizes) and bins[0] == (0, 8, 1) and bins[-1][1] == 300
    svg_text = histogram(sizes, 256, title="<sizes>")
    assert svg_text.count("<rect") == sum(1 for *_, c in bins if c) and "budget 256" in svg_text
    assert "&lt;sizes&gt;" in svg_text and svg_text.count('fill="#dc2626"') >= 1  # a bar past the budget is red


def test_eval_page_plots_recall_and_iou_against_size():
    def row(config, strategy, size, recall, iou, scored="chunks"):
        m = {k: {"mean": v, "std": 0.1} for k, v in (("recall", recall), ("precision", 0.1),
                                                      ("precision_omega", 0.2), ("iou", iou))}
        return {"config": config, "scored": scored, "flags": f"--strategy {strategy} --chunk-size {size} --overlap 0",
                "n_units": 10, "mean_unit_tokens": size * 0.8, "retrieved": {"tokens": size * 4}, "metrics": m}

    report = {"settings": {"n_questions": 3, "retriever": {"name": "bm25"}, "k": 5, "token_budget": None},
              "results": [row("recursive:200/0", "recursive", 200, 0.8, 0.06), row("recursive:400/0", "recursive", 400,
                                                                                     0.9, 0.03),
                          row("<b>x</b>", "sentence", 256, 0.85, 0.05)],
              "best": {"config": "recursive:200/0", "scored": "chunks", "optimize": "iou", "flags": "--x"}}
    page = eval_page(report)
    assert page.count("<polyline") == 2  # recursive has two sizes in each plot; sentence one point
    assert page.count("<circle") == 6 and "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "(best)" in page


def test_cli_eval_writes_an_html_report(tmp_path):
    pytest.importorskip("bm25s")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = "".join(f"Section {i}. The answer to question {i} is the number {i * 7}. " * 3 + "\n\n" for i in range(30))
    (corpus / "c.txt").write_text(text)
    q = []
    for i in range(0, 30, 5):
        needle = f"The answer to question {i} is the number {i * 7}."
        start = text.index(needle)
        q.append({"question": f"What is the answer to question {i}?", "corpus_id": "c",
                  "references": [{"content": needle, "start_index": start, "end_index": start + len(needle)}]})
    qf = tmp_path / "q.jsonl"
    qf.write_text("".join(json.dumps(x) + "\n" for x in q))
    out = tmp_path / "eval.html"
    r = invoke("eval", corpus, "--questions", qf, "--grid", "recursive:64/0,recursive:128/0,fixed:64/0", "--html", out,
               "-q")
    assert r.exit_code == 0, r.stderr
    page = out.read_text("utf-8")
    assert page.count("<polyline") == 2 and "recall against chunk size" in page


def test_stats_draws_the_size_histogram(tmp_path):
    out = tmp_path / "o.jsonl"
    assert invoke("chunk", ROOT / "examples", "-n", "128", "-o", out, "--quiet").exit_code == 0
    r = invoke("stats", out)
    assert r.exit_code == 0
    chart = r.stdout.split("records")[0]
    assert "token sizes: " in chart and "budget 128 (┆)" in chart and "█" in chart
    assert chart.count("┆") == 6 and "at the wall (≥ 90%)" in chart


# --- in a real browser ------------------------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK),
    reason=f"no headless Chromium at {CHROMIUM}: install the Debian package `chromium` (apt-get install -y chromium; "
           ".ci/run does it when it runs as root) to run the browser tests")


def chromium(url: str, *args: str) -> tuple[str, str]:
    """Run headless Chromium on `url` with `args` (--dump-dom, --screenshot=...); (stdout, console lines of stderr)."""
    profile = tempfile.mkdtemp(prefix="chunkctl-chromium-")
    try:
        p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            f"--user-data-dir={profile}", "--hide-scrollbars", "--window-size=1280,900",
                            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000", *args, url],
                           capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    console = [ln for ln in p.stderr.splitlines() if ":CONSOLE" in ln or "Uncaught" in ln]
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout, "\n".join(console)


def _check_document(dom: HTMLParser, data: dict) -> None:
    """Every chunk present once and in order (markers, list rows), each body's characters where the text says."""
    root = dom.css_first("html")
    assert root.attributes.get("data-ready") == "1"
    assert root.attributes.get("data-errors") is None, root.attributes.get("data-errors")
    assert root.attributes.get("data-pwned") is None
    assert not dom.css("img") and len(dom.css("script")) == len(dom.css('script[type="application/json"]')) + 2
    text_box = dom.css_first("div.text")
    chunks = data["chunks"]
    leaves = [k for k, c in enumerate(chunks) if c["role"] == "leaf"]
    assert [int(m.attributes["data-m"]) for m in text_box.css("span.mk")] == leaves
    assert [m.text() for m in text_box.css("span.mk")] == [f"#{chunks[k]['rec']['chunk_index']}" for k in leaves]
    rows = dom.css("div.list tr")
    assert [int(r.attributes["data-row"]) for r in rows] == list(range(len(chunks)))
    shown: dict[int, list[str]] = {k: [] for k in range(len(chunks))}
    for span in text_box.css("span[data-k]"):
        for k in span.attributes["data-k"].split():
            shown[int(k)].append(span.text(deep=True))
    text = data["text"]
    units = text.encode("utf-16-le")
    for k, c in enumerate(chunks):
        body = units[2 * c["s"]:2 * c["e"]].decode("utf-16-le")
        assert "".join(shown[k]) == display(body), k
    seen = "".join(s.text(deep=True) for s in text_box.css("div.body > span:not(.mk):not(.pfx):not(.lead)"))
    assert seen == display(text)


@needs_chromium
def test_the_page_in_a_browser(hostile_folder, tmp_path):
    out = tmp_path / "view.html"
    r = invoke("view", hostile_folder, "-o", out, "--strategy", "fixed", "-n", "48", "--overlap", "8")
    assert r.exit_code == 1
    page = out.read_text("utf-8")
    data = _blocks(page)
    url = out.as_uri()
    # the index: one row per document, the failure named, the plots drawn
    dom_text, console = chromium(url, "--dump-dom")
    dom = HTMLParser(dom_text)
    assert console == ""
    root = dom.css_first("html")
    assert root.attributes.get("data-ready") == "1" and root.attributes.get("data-errors") is None
    assert root.attributes.get("data-pwned") is None and not dom.css("img")
    rows = dom.css("table.docs tbody tr")
    assert [r.css_first("td.name").text() for r in rows] == [HOSTILE_NAME, "broken.pdf", "page.html"]
    assert "failed: unreadable PDF" in rows[1].text() and rows[1].css_first("a") is None
    assert [r.css_first("a").attributes["href"] for r in (rows[0], rows[2])] == ["#d=0", "#d=2"]
    assert len(dom.css("#index svg.plot")) == 2 and dom.css_first("#doc").attributes.get("hidden") is not None
    # each document, every section drawn (&all), and one chunk selected (&c=)
    for k in (0, 2):
        dom_text, console = chromium(f"{url}#d={k}&all=1&c=1", "--dump-dom")
        assert console == "", console
        dom = HTMLParser(dom_text)
        _check_document(dom, data[k])
        assert dom.css_first("#index").attributes.get("hidden") is not None
        sel = dom.css("div.list tr.sel")
        assert len(sel) == 1 and sel[0].attributes["data-row"] == "1"
        record = json.loads(dom.css_first("div.rec pre").text())
        assert record["id"] == data[k]["chunks"][1]["rec"]["id"]
        c = data[k]["chunks"][1]
        body = data[k]["text"].encode("utf-16-le")[2 * c["s"]:2 * c["e"]].decode("utf-16-le")  # the page's offsets
        assert record["text"] == record["prefix"] + body and record == {**c["rec"], "text": record["text"]}
        assert "</script><img src=x onerror=" in dom.css_first("div.text").text(deep=True)
    assert "\u2028" in data[0]["text"] and "\U0001f600" in data[0]["text"]
    assert any(c["overlap"] for c in data[2]["chunks"]) and dom.css("div.text span.ov")
    # a screenshot, and nothing on the console
    png = tmp_path / "shot.png"
    _, console = chromium(f"{url}#d=0", f"--screenshot={png}")
    assert console == "", console
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


@needs_chromium
def test_a_lazy_page_draws_the_start_and_the_chosen_chunk(tmp_path):
    # a long document: sections are drawn as they come into view, and a chosen chunk's section at once
    text = "".join(f"Line {i} of a long text file, with a few words to fill it up.\n" for i in range(3000))
    src = tmp_path / "long.txt"
    src.write_text(text)
    out = tmp_path / "long.html"
    assert invoke("view", src, "-o", out, "-n", "64", "--overlap", "0").exit_code == 0
    data = _blocks(out.read_text("utf-8"))[0]
    last = len(data["chunks"]) - 1
    dom_text, console = chromium(f"{out.as_uri()}#c={last}", "--dump-dom")
    assert console == ""
    dom = HTMLParser(dom_text)
    sections = dom.css("section.sec")
    drawn = [s for s in sections if s.css_first("div.body > span")]
    assert len(sections) > 10 and 0 < len(drawn) < len(sections)
    marks = [int(m.attributes["data-m"]) for m in dom.css("div.text span.mk")]
    assert 0 in marks and last in marks and marks == sorted(marks)
    assert dom.css_first("div.list tr.sel").attributes["data-row"] == str(last)
