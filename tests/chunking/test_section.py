"""Strategy `section` (issue 17, point 11): the same records as `recursive` by default; with
`--min-chunk-tokens N`, small sibling sections merged, never across a shallower heading.

The default stays one chunk per heading section because ../shared/cases BR-07, BR-21,
BR-22, BR-25 and BR-38 require it ("merging is opt-in, never the default").
"""

from __future__ import annotations

import pytest

import chunkctl
from chunkctl.config import ChunkConfig
from chunkctl.model import BlockKind
from chunkctl.pipeline import chunk_records, load
from tests.conftest import CORPUS, check_records, needs_shared

GUIDE = """# Guide

Read this first.

## Install

Run pip install chunkctl.

## Usage

Call chunkctl chunk on a folder.

### Options

Use --chunk-size to set the budget.

## Licence

MIT.

# Appendix

Contact the team.
"""


def run(text, fmt="md", **kw):
    kw.setdefault("overlap", 0)
    return chunkctl.chunk_text(text, format=fmt, source="doc." + fmt, **kw)


def view(recs):
    return [(r["headings"], r["prefix"], r["text"][len(r["prefix"]):]) for r in recs]


def key(recs):
    return [(r["text"], r["start"], r["end"], r["headings"], r["n_tokens"]) for r in recs]


def test_default_section_is_recursive_under_another_name():
    for size in (16, 40, 512):
        assert key(run(GUIDE, strategy="section", chunk_size=size)) == key(run(GUIDE, strategy="recursive",
                                                                                 chunk_size=size))
    assert [h for h, _, _ in view(run(GUIDE, strategy="section", chunk_size=512))] == [
        ["Guide"], ["Guide", "Install"], ["Guide", "Usage"], ["Guide", "Usage", "Options"], ["Guide", "Licence"],
        ["Appendix"]]


def test_merging_up_to_the_budget_stops_at_the_top_level_heading():
    recs = run(GUIDE, strategy="section", chunk_size=512, min_chunk_tokens=512)
    assert view(recs) == [
        (["Guide"], "", GUIDE[:GUIDE.index("\n\n# Appendix")]),
        (["Appendix"], "", "# Appendix\n\nContact the team.")]
    assert recs[0]["n_tokens"] == 44


def test_a_run_never_crosses_a_shallower_heading():
    # 30 tokens: Guide + Install + Usage fit (27); Options (16 more) does not and opens a run at
    # level 3, which the level-2 "Licence" may not join; "Appendix" is top level.
    recs = run(GUIDE, strategy="section", chunk_size=30, min_chunk_tokens=30)
    assert view(recs) == [
        (["Guide"], "", "# Guide\n\nRead this first.\n\n## Install\n\nRun pip install chunkctl.\n\n## Usage\n\n"
                        "Call chunkctl chunk on a folder."),
        (["Guide", "Usage", "Options"], "Guide > Usage\n\n", "### Options\n\nUse --chunk-size to set the budget."),
        (["Guide", "Licence"], "Guide\n\n", "## Licence\n\nMIT."),
        (["Appendix"], "", "# Appendix\n\nContact the team.")]
    assert [r["n_tokens"] for r in recs] == [27, 16, 7, 7]


def test_min_chunk_tokens_stops_a_run_once_it_has_that_many():
    recs = run(GUIDE, strategy="section", chunk_size=512, min_chunk_tokens=20)
    # 7 + 7 < 20: Usage joins (31 tokens); then the run is full enough.
    assert [r["n_tokens"] for r in recs] == [27, 16, 7, 7]
    assert recs[0]["text"].endswith("Call chunkctl chunk on a folder.")


S = " ".join(f"Sentence {w} of the long introduction says a few words." for w in ("one", "two", "three", "four",
                                                                                "five", "six"))
BIG_INTRO = f"# Guide\n\n{S}\n\n## Alpha\n\nFirst small part.\n\n## Beta\n\nSecond small part.\n\n# Appendix\n\nContact the team.\n"


def test_a_section_too_big_is_split_as_recursive_splits_it_and_its_small_siblings_merge():
    recs = run(BIG_INTRO, strategy="section", chunk_size=40, min_chunk_tokens=40)
    rec = run(BIG_INTRO, strategy="recursive", chunk_size=40)
    assert key(recs[:2]) == key(rec[:2])  # the introduction does not fit: split at sentences, as recursive does
    assert [r["headings"] for r in rec[2:]] == [["Guide", "Alpha"], ["Guide", "Beta"], ["Appendix"]]
    # Alpha and Beta share "Guide": one chunk, whose breadcrumb and headings are that shared path.
    assert view(recs[2:]) == [
        (["Guide"], "Guide\n\n", "## Alpha\n\nFirst small part.\n\n## Beta\n\nSecond small part."),
        (["Appendix"], "", "# Appendix\n\nContact the team.")]
    assert recs[2]["n_tokens"] == 16


def test_br38_heading_level_jumps_merge_only_under_the_shared_parent():
    text = (CORPUS.parent / "cases" / "BR-38-heading-level-jumps.md").read_text(encoding="utf-8") \
        if CORPUS.parent.is_dir() else None
    if text is None:
        pytest.skip("../shared is not beside the project")
    recs = run(text, strategy="section", chunk_size=512, min_chunk_tokens=40)
    assert [r["headings"] for r in recs] == [["Field manual"], ["Field manual", "Second section"], ["Appendix"]]
    assert "Readings above 40 units" in recs[0]["text"] and recs[1]["text"].startswith("Field manual\n\n## Second")


# ------------------------------------------------------------------ the shared corpus
MD_FILES = sorted(p.name for p in (CORPUS / "md").glob("*.md")) if (CORPUS / "md").is_dir() else []


@pytest.fixture(scope="module")
def md_docs():
    return {name: load(CORPUS / "md" / name, ChunkConfig(), source=name) for name in MD_FILES}


def _merged_runs_hold(doc, merged, plain, size):
    """`merged` (section with merging) partitions `plain` (recursive) into runs of whole records;
    a run of several is one record opening with its first heading, with the shared path, and
    crosses no heading shallower than its first one nor any top-level heading."""
    heads = [b for b in doc.blocks if b.kind == BlockKind.HEADING]
    top = min((b.level for b in heads), default=0)
    i = 0
    for m in merged:
        j = i
        while j < len(plain) and plain[j]["end"] < m["end"]:
            j += 1
        run_ = plain[i:j + 1]
        assert run_[0]["start"] == m["start"] and run_[-1]["end"] == m["end"], m["text"][:80]
        if len(run_) == 1:
            assert key([m]) == key(run_)
        else:
            inside = [b for b in heads if m["start"] <= b.start < m["end"]]
            assert inside and inside[0].start == m["start"], "a merged chunk opens with its heading"
            first = min(b.level for b in inside if b.start == inside[0].start)
            assert all(top < b.level and b.level >= first for b in inside[1:] if b.start > inside[0].start)
            common = run_[0]["headings"]
            for r in run_[1:]:
                n = 0
                while n < min(len(common), len(r["headings"])) and common[n] == r["headings"][n]:
                    n += 1
                common = common[:n]
            assert m["headings"] == common and common
            assert m["n_tokens"] <= size
        i = j + 1
    assert i == len(plain)


@needs_shared()
@pytest.mark.parametrize("size,overlap", [(256, 32), (512, 0)])
def test_corpus_markdown_merged_sections_differ_from_recursive_and_keep_the_rules(tmp_path, md_docs, size, overlap):
    fewer = []
    merged_all = []
    for name, doc in md_docs.items():
        plain = chunk_records(doc, ChunkConfig(strategy="recursive", chunk_size=size, overlap=overlap))
        same = chunk_records(doc, ChunkConfig(strategy="section", chunk_size=size, overlap=overlap))
        assert key(same) == key(plain), name  # the default is recursive's records
        merged = chunk_records(doc, ChunkConfig(strategy="section", chunk_size=size, overlap=overlap,
                                                min_chunk_tokens=size))
        if overlap == 0:
            _merged_runs_hold(doc, merged, plain, size)
        if len(merged) < len(plain):
            fewer.append(name)
        merged_all.extend(merged)
    # files with several small sections under a shared heading
    assert {"fastapi-features-zh.md", "k8s-api-conventions-115kb.md", "fastapi-release-notes-700kb.md"} <= set(fewer)
    report = check_records(merged_all, CORPUS / "md", tmp_path, "--expect-all", "--phrases",
                           str(CORPUS / "encodings.json"))
    assert report.splitlines()[-1].startswith("OK")
