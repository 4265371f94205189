"""The boundary cases of ../shared/cases handed over with issue 17 (BR-32 to BR-45):
every "Must hold" point of each `.expect.md`, run by run."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from tests.conftest import CASES, CLI, ROOT, bodies, check_records, chunk_case, needs_shared, run_cli

pytestmark = needs_shared()


def _holding(recs, doc, a, b):
    """Records whose body span holds doc[a:b] whole."""
    return [r for r in recs if r["start"] <= a and b <= r["end"]]


def _touching(recs, a, b):
    return [r for r in recs if r["start"] < b and a < r["end"]]


# ---------------------------------------------------------------- BR-32
BR32 = "BR-32-md-table-code-kept.md"


@pytest.mark.parametrize("run,strategy,size,overlap", [
    ("A", "recursive", 512, 0), ("B", "recursive", 48, 0), ("C", "section", 96, 0), ("D", "fixed", 48, 8),
    ("E", "sentence", 96, 0), ("F", "recursive", 64, 16)])
def test_br32_tables_and_code_are_kept(tmp_path, run, strategy, size, overlap):
    recs, doc = chunk_case(BR32, strategy=strategy, chunk_size=size, overlap=overlap)
    check_records(recs, CASES, tmp_path)
    t0 = doc.index("| Month")
    t1 = doc.index("\n", doc.index("| May")) if "| May" in doc else doc.index("\n\n", t0)
    f0 = doc.index("```java")
    f1 = doc.index("```", f0 + 3) + 3
    body = bodies(recs)
    for line in doc[t0:t1].splitlines() + doc[f0:f1].splitlines():
        if line.strip():
            assert any(line.strip() in b for b in body), f"run {run}: line lost: {line!r}"
    if run in ("A", "C", "E"):
        assert _holding(recs, doc, t0, t1), f"run {run}: the table is cut"
        assert _holding(recs, doc, f0, f1), f"run {run}: the code block is cut"
    if run == "B":
        header = doc[t0:doc.index("\n", doc.index("\n", t0) + 1)]
        later = [r for r in recs if t0 < r["start"] < t1]
        assert later, "run B: the table fits one chunk of 48 tokens?"
        for r in later:
            assert header in r["prefix"]


# ---------------------------------------------------------------- BR-34
BR34 = "BR-34-display-math.md"


def _math_blocks(doc):
    return [(m.start(), m.end()) for m in re.finditer(r"^\$\$\n.*?\n\$\$$", doc, re.S | re.M)]


@pytest.mark.parametrize("run,strategy,size,overlap", [
    ("A", "recursive", 512, 0), ("B", "recursive", 48, 0), ("C", "sentence", 48, 0), ("D", "section", 64, 0),
    ("E", "recursive", 48, 12)])
def test_br34_display_math_is_never_cut_when_it_fits(tmp_path, run, strategy, size, overlap):
    from chunkctl.tokenizers import get_tokenizer

    tok = get_tokenizer()
    recs, doc = chunk_case(BR34, strategy=strategy, chunk_size=size, overlap=overlap)
    check_records(recs, CASES, tmp_path)
    blocks = _math_blocks(doc)
    assert len(blocks) == 3
    for a, b in blocks:
        touching = _touching(recs, a, b)
        assert touching
        fits = tok.count(doc[a:b]) + max(tok.count(r["prefix"]) for r in touching) <= size
        if fits:
            for r in touching:
                assert r["start"] <= a and b <= r["end"], f"run {run}: chunk {r['chunk_index']} cuts {doc[a:b]!r}"
    for r in recs:  # no chunk is only a delimiter line
        assert bodies([r])[0].strip() not in ("$$", "\\[", "\\]")
    if run == "C":
        for r in recs:
            body = bodies([r])[0]
            assert not body.rstrip().endswith("1.5") and not body.lstrip().startswith("%")


# ---------------------------------------------------------------- BR-35
BR35 = "BR-35-base64-image.md"


def _check_allowing_payload(recs, doc, tmp_path):
    """The shared checker, where G7 may miss only the data-URI payload (../shared/RULINGS.md)."""
    from chunkctl.loaders.payloads import payload_spans

    spans = payload_spans(doc)
    assert spans, "the case holds a payload"
    covered = bytearray(len(doc))
    for r in recs:
        covered[r["start"]:r["end"]] = b"\x01" * (r["end"] - r["start"])
    for i, ch in enumerate(doc):
        if not ch.isspace() and not covered[i]:
            assert any(s <= i < e for s, e in spans), f"character {i} ({ch!r}) is not covered"
    for s, e in spans:
        assert not _touching(recs, s, e), "a chunk holds the payload"
    # everything but G7 through the checker: blank the payload in a copy of the document
    blank = doc[:spans[0][0]] + "".join(
        (" " * (e - s)) + doc[e:(spans[n + 1][0] if n + 1 < len(spans) else len(doc))] for n, (s, e) in enumerate(spans))
    assert len(blank) == len(doc)
    root = tmp_path / "root"
    root.mkdir()
    (root / BR35).write_text(blank, encoding="utf-8")
    check_records(recs, root, tmp_path)


@pytest.mark.parametrize("run,strategy,size,overlap", [
    ("A", "recursive", 256, 0), ("B", "recursive", 512, 76), ("C", "section", 256, 0), ("D", "fixed", 256, 32),
    ("E", "sentence", 256, 0)])
def test_br35_base64_payload_is_left_out(tmp_path, run, strategy, size, overlap):
    recs, doc = chunk_case(BR35, strategy=strategy, chunk_size=size, overlap=overlap)
    _check_allowing_payload(recs, doc, tmp_path)
    assert all(r["n_tokens"] <= size and not r["oversize"] for r in recs)
    if run == "D":
        return
    paragraphs = [p for p in re.split(r"\n\s*\n", doc) if p.strip() and not p.startswith(("#", "!["))]
    assert len(paragraphs) == 2
    for p in paragraphs:
        a = doc.index(p.strip())
        holders = _holding(recs, doc, a, a + len(p.strip()))
        assert holders, f"run {run}: paragraph cut: {p[:40]!r}"
        for r in holders:
            assert not re.search(r"[A-Za-z0-9+/=]{40,}", r["text"])
    alt = "![Figure 2: coupling guard, left side]"
    a = doc.index(alt)
    assert _holding(recs, doc, a, a + len(alt)), "the alt text is cut"


# ---------------------------------------------------------------- BR-38
BR38 = "BR-38-heading-level-jumps.md"
BR38_PATHS = {
    "Carry two": ["Field manual", "Quick note"],
    "Log each": ["Field manual", "Main section"],
    "Readings above": ["Field manual", "Main section", "Deep detail"],
    "Return the notebook": ["Field manual", "Second section"],
    "The phone number": ["Appendix"],
}


@pytest.mark.parametrize("run,strategy,size,extra", [
    ("A", "recursive", 512, {}), ("B", "section", 512, {}), ("C", "hierarchical", 32, {"parent_chunk_size": 96})])
def test_br38_shallower_heading_closes_deeper_ones(tmp_path, run, strategy, size, extra):
    recs, doc = chunk_case(BR38, strategy=strategy, chunk_size=size, overlap=0, **extra)
    check_records(recs, CASES, tmp_path)
    for sentence, path in BR38_PATHS.items():
        a = doc.index(sentence)
        holders = [r for r in recs if r["start"] <= a < r["end"]]
        leaves = [r for r in holders if not any(c["parent_id"] == r["id"] for c in recs)]
        for r in leaves or holders:
            if run == "B" and len(r["headings"]) < len(path):
                assert r["headings"] == path[:len(r["headings"])]  # merged siblings: their shared path
                continue
            assert r["headings"] == path, f"run {run}: {sentence!r} under {r['headings']}"
            if "Quick note" not in path:
                assert "Quick note" not in r["prefix"]


def test_br38_merged_chunk_keeps_the_shared_path(tmp_path):
    recs, doc = chunk_case(BR38, strategy="section", chunk_size=512, overlap=0, min_chunk_tokens=40)
    check_records(recs, CASES, tmp_path)
    for r in recs:
        body = bodies([r])[0]
        inside = [s for s in BR38_PATHS if s in body]
        paths = [BR38_PATHS[s] for s in inside]
        shared = []
        for parts in zip(*paths):
            if len(set(parts)) > 1:
                break
            shared.append(parts[0])
        if len(inside) > 1:
            assert r["headings"] == shared


# ---------------------------------------------------------------- BR-39
BR39 = "BR-39-heading-inline-markup.md"


def _heading_starts(doc):
    """(start, heading line) of each ATX heading line of a Markdown document."""
    return [(m.start(), m.group(0)) for m in re.finditer(r"^#{1,6} .*$", doc, re.M)]


def _assert_no_later_heading(recs, doc):
    from chunkctl.loaders.markdown import clean_heading

    heads = [(s, clean_heading(line.lstrip("#").strip())) for s, line in _heading_starts(doc)]
    for r in recs:
        for h in r["headings"]:
            assert h.strip(), "an empty heading entry"
            starts = [s for s, t in heads if t == h]
            assert starts and min(starts) < r["end"], f"chunk {r['chunk_index']} names a later heading {h!r}"
        for s, t in heads:
            if s >= r["end"]:
                words = [w for w in t.split() if len(w) > 3]
                assert not words or not r["prefix"].startswith(words[0]) or any(
                    t2 == t for s2, t2 in heads if s2 < r["end"]), f"prefix names later heading {t!r}"


@pytest.mark.parametrize("run,strategy,size,extra", [
    ("A", "recursive", 512, {}), ("B", "section", 512, {}), ("C", "recursive", 24, {}),
    ("D", "hierarchical", 24, {"parent_chunk_size": 64}), ("E", "recursive", 32, {})])
def test_br39_heading_markup_and_paths(tmp_path, run, strategy, size, extra):
    recs, doc = chunk_case(BR39, strategy=strategy, chunk_size=size, overlap=0, **extra)
    check_records(recs, CASES, tmp_path)
    _assert_no_later_heading(recs, doc)
    entries = {h for r in recs for h in r["headings"]}
    for words in (("0.68.0", "2026-07-24"), ("Install with", "pip install samplepkg"), ("Very", "important", "notes")):
        assert any(all(w in h for w in words) for h in entries), words
    if run in ("A", "B"):
        for body in bodies(recs):
            assert not all(line.startswith("#") for line in body.splitlines() if line.strip()), body
    if run == "E":
        first = recs[0]
        assert bodies([first])[0].startswith("# Sample")
        if "Fixed the crash" not in first["text"]:  # a chunk of headings alone: its first heading's path
            assert first["headings"] == ["Sample"] and "0.68" not in first["prefix"]


# ---------------------------------------------------------------- BR-41
BR41 = "BR-41-identical-chunk-ids.txt"


def _ids(tmp_path, name, *opts, folder="a", source=None):
    d = tmp_path / folder
    d.mkdir(exist_ok=True)
    (d / (source or BR41)).write_bytes((CASES / BR41).read_bytes())
    out = d / "out.jsonl"
    p = subprocess.run([*CLI, "chunk", source or BR41, "-o", str(out), *opts], capture_output=True, cwd=d,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_br41_identical_chunks_get_distinct_stable_ids(tmp_path):
    a = _ids(tmp_path, "A", "--chunk-size", "16", "--overlap", "0")
    a2 = _ids(tmp_path, "A2", "--chunk-size", "16", "--overlap", "0")
    x1 = _ids(tmp_path, "X1", "--chunk-size", "16", "--overlap", "0", folder="b")
    x2 = _ids(tmp_path, "X2", "--chunk-size", "16", "--overlap", "0", folder="c", source="renamed.txt")
    x3 = _ids(tmp_path, "X3", "--chunk-size", "16", "--overlap", "1", folder="d")
    for strategy, size in (("sentence", 16), ("fixed", 8), ("section", 16)):
        recs, _doc = chunk_case(BR41, strategy=strategy, chunk_size=size, overlap=0)
        assert len({r["id"] for r in recs}) == len(recs)
    texts = [r["text"] for r in a]
    assert len(set(texts)) < len(texts), "the case has identical chunks"
    assert len({r["id"] for r in a}) == len(a)
    assert [r["id"] for r in a] == [r["id"] for r in a2] == [r["id"] for r in x1]
    assert not {r["id"] for r in a} & {r["id"] for r in x2}
    assert not {r["id"] for r in a} & {r["id"] for r in x3}
    assert a[0]["doc_id"] != x2[0]["doc_id"]


# ---------------------------------------------------------------- BR-43, BR-45 (PDF)
def _pdf_case(tmp_path, name, strategy, size, overlap=0, **extra):
    from tests.conftest import run_checker

    out = tmp_path / f"{strategy}-{size}.jsonl"
    opts = [f"--{k.replace('_', '-')}={v}" for k, v in extra.items()]
    p = run_cli("chunk", str(CASES / name), "--strategy", strategy, "--chunk-size", str(size), "--overlap",
                str(overlap), *opts, "-o", str(out))
    assert p.returncode == 0, p.stderr
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    rc, last = run_checker(out, CASES)
    assert rc == 0, last
    text = run_cli("extract", str(CASES / name)).stdout.decode()
    return recs, text


@pytest.mark.slow
@pytest.mark.parametrize("strategy,size", [("recursive", 512), ("recursive", 32), ("section", 128), ("fixed", 32)])
def test_br43_margin_text_is_kept(tmp_path, strategy, size):
    recs, text = _pdf_case(tmp_path, "BR-43-margin-text-kept.pdf", strategy, size)
    joined = " ".join(bodies(recs))
    for phrase in ("Section 2: Lifting heavy loads", "Total weight of all slings", "42 kg"):
        assert phrase in text
        assert phrase.split()[-1] in joined
    assert "Page 1 of 3" not in text
    first = [r for r in recs if "Section 1" in r["text"]]
    assert first and first[0]["page_start"] == 1
    lifting = [r for r in recs if "Lifting heavy" in r["text"]]
    assert any(r["page_start"] <= 2 <= r["page_end"] for r in lifting)
    kg = [r for r in recs if "42 kg" in r["text"] or re.search(r"\b42\b", bodies([r])[0])]
    assert any(r["page_end"] == 3 for r in kg)


@pytest.mark.slow
@pytest.mark.parametrize("strategy,size,extra", [
    ("recursive", 512, {}), ("section", 512, {}), ("hierarchical", 64, {"parent_chunk_size": 256}),
    ("sentence", 8, {})])
def test_br45_headings_only_pdf(tmp_path, strategy, size, extra):
    recs, text = _pdf_case(tmp_path, "BR-45-headings-only.pdf", strategy, size, **extra)
    assert recs
    for r in recs:
        assert all(h.strip() for h in r["headings"])
    assert "Quarterly Review" in text and "Operations Team, Q3" in text
    q = text.index("Quarterly Review")
    o = text.index("Operations Team, Q3")
    for r in recs:
        if "Operations Team" in r["headings"][-1:][0] if r["headings"] else False:
            assert r["end"] > o
        if r["end"] <= o:
            assert all("Operations" not in h for h in r["headings"]), r
            assert "Operations" not in r["prefix"]
    top = [r for r in recs if r["start"] <= q < r["end"]]
    assert top and top[0]["headings"][:1] == ["Quarterly Review"]
    if size == 8:
        assert not [r for r in recs if r["start"] <= q and o < r["end"]], "run D must split the two headings"


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["recursive", "fixed"])
def test_br45_one_line_pdf_is_kept(tmp_path, strategy):
    recs, text = _pdf_case(tmp_path, "BR-45-headings-only-oneline.pdf", strategy, 512)
    assert recs and text.strip()
    joined = " ".join(bodies(recs))
    assert text.split()[-1] in joined


# ---------------------------------------------------------------- BR-36 (HTML)
BR36 = "BR-36-html-br-in-paragraph.html"


@pytest.mark.parametrize("run,strategy,size", [("A", "recursive", 512), ("B", "recursive", 24),
                                               ("C", "sentence", 64), ("D", "section", 512)])
def test_br36_br_is_a_line_break_inside_its_paragraph(tmp_path, run, strategy, size):
    from chunkctl.model import BlockKind

    recs, doc = chunk_case(BR36, strategy=strategy, chunk_size=size, overlap=0)
    check_records(recs, CASES, tmp_path)
    import chunkctl

    blocks = chunkctl.load(CASES / BR36).blocks
    paragraphs = [doc[b.start:b.end] for b in blocks if b.kind == BlockKind.PARAGRAPH]
    assert [doc[b.start:b.end] for b in blocks if b.kind == BlockKind.HEADING] == [
        "Ferry notice", "Winter timetable", "Fares"]
    assert any(p.startswith("The morning ferry") and p.endswith("sold on board.") for p in paragraphs)
    assert any(p.startswith("Address:") and p.endswith("Port Ellen") for p in paragraphs)
    for glued in ("sevenfrom", "Address:Harbour", "Adultreturn", "EUR(summer"):
        assert glued not in doc
    for r in recs:
        assert all("\n" not in h for h in r["headings"])
    table = next(b for b in blocks if b.kind == BlockKind.TABLE)
    for s, e in table.rows:
        assert doc[s:e].count("|") == 3  # two cells a row
    if run == "A":
        a = doc.index("The morning ferry")
        b = doc.index("sold on board.") + len("sold on board.")
        assert _holding(recs, doc, a, b)
