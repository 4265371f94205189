"""Long runs of heading lines (issue 14, point 7): the packer packs a run's early part as it
comes (`LEAD_CAP`), so a file of a million heading lines is not held whole, and the records
are those of holding the run whole."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkctl
import chunkctl.chunking.packer as packer_mod
from tests.conftest import needs_proc, peak_growth

HUGE = 1 << 40

HEADING = st.tuples(st.integers(1, 6), st.sampled_from(["", "Intro", "Étape 2", "x" * 40, "Returns policy"]))
BODY = st.sampled_from([
    "",
    "A short paragraph.",
    "| a | b |\n| - | - |\n" + "".join(f"| {i} | row {i} of the table |\n" for i in range(60)),
    "```\n" + "".join(f"line {i} = {i}\n" for i in range(40)) + "```",
    "- one\n- two\n- three",
])


def _records(text: str, **kw) -> list[tuple]:
    return [(r["start"], r["end"], r["prefix"], r["headings"], r["n_tokens"], r["kind"])
            for r in chunkctl.chunk_text(text, format="md", **kw)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs=st.lists(st.tuples(st.lists(HEADING, min_size=1, max_size=60), BODY), min_size=1, max_size=4),
       size=st.sampled_from([16, 48, 256]), cap=st.integers(1, 12),
       strategy=st.sampled_from(["recursive", "sentence", "hierarchical"]))
def test_a_run_of_headings_packed_as_it_comes_gives_the_records_of_the_whole_run(runs, size, cap, strategy,
                                                                                monkeypatch):
    text = "".join("".join(f"{'#' * lv} {title}".rstrip() + "\n" for lv, title in heads) + "\n" + body + "\n\n"
                   for heads, body in runs)
    kw = {"chunk_size": size, "overlap": size // 8, "strategy": strategy}
    monkeypatch.setattr(packer_mod, "LEAD_CAP", cap)
    capped = _records(text, **kw)
    monkeypatch.setattr(packer_mod, "LEAD_CAP", HUGE)
    assert capped == _records(text, **kw)
    if strategy != "hierarchical":  # (whose parent chunks have a budget of their own)
        assert all(n <= size for *_, n, _kind in capped)


@needs_proc
def test_a_million_empty_headings_are_not_held_at_once():
    """100,000 heading lines without a body: the packer holds a few thousand atoms (each
    with its block: some 250 bytes), not the run. Peak resident memory the chunking adds, over
    the text: 45x (much of it a Markdown piece's parse, which does not grow with the file: 17x
    at 400,000 lines); with the run held whole (`LEAD_CAP` unbounded) 143x. (Traced until
    0.1.32, 51x and 124x, in 30-40 s; 200,000 lines told the same in 75-130 s.)"""
    measured = [peak_growth("""
        import chunkctl
        import chunkctl.chunking.packer as packer_mod
        packer_mod.LEAD_CAP = int(sys.argv[1])
        text = "".join("#" * (i % 6 + 1) + "\\n" for i in range(100_000))
        chunkctl.chunk_text(text[:1000], format="md")  # imports and tables outside the measure
        """, """
        result = {"chunks": sum(1 for _ in chunkctl.chunk_text(text, format="md")), "chars": len(text)}
        """, str(cap)) for cap in (packer_mod.LEAD_CAP, 1 << 60)]
    (new, old) = measured
    assert new["chunks"] == old["chunks"] > 150
    assert new["growth"] < 80 * new["chars"], f"{new['growth'] / new['chars']:.0f}x"
    assert old["growth"] > 100 * old["chars"]  # (what the cap saves: the measure tells)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parent=st.sampled_from(["", "# Parent\n\nIntro text.\n\n", "Intro text.\n\n"]),
       words=st.lists(st.sampled_from(["word", "Étape", "*em*", "x" * 30, "a,", "b.", "`c`"]), min_size=1, max_size=120),
       style=st.sampled_from(["## {}\n", "{}\n---\n", "{}\n===\n"]), body=BODY,
       size=st.sampled_from([16, 48, 256]), strategy=st.sampled_from(["recursive", "sentence", "hierarchical", "section"]),
       cap=st.integers(1, 12))
def test_a_heading_over_iter_span_split_as_it_comes_gives_the_records_of_splitting_it_whole(
        parent, words, style, body, size, strategy, cap, monkeypatch):
    """A heading over ITER_SPAN characters that does not fit is split into heading atoms as they are
    taken (`Packer.iter_heading_atoms`; `_split_atom` cut a 4.6 MB one at once, 74x), which the lead
    packs as it comes (`LEAD_CAP`): the records of cutting it whole."""
    text = parent + style.format(" ".join(words)) + "\n" + body + "\n"
    kw = {"chunk_size": size, "overlap": size // 8, "strategy": strategy}
    monkeypatch.setattr(packer_mod, "ITER_SPAN", HUGE)
    whole = _records(text, **kw)
    monkeypatch.setattr(packer_mod, "ITER_SPAN", 40)
    monkeypatch.setattr(packer_mod, "LEAD_CAP", cap)
    assert _records(text, **kw) == whole


def test_a_heading_line_before_a_heading_cut_as_it_comes_opens_the_chunk_of_its_first_pieces(monkeypatch):
    # (cut whole, inside the packing, the heading came too late: "# Parent" stood alone in a chunk of
    # 2 tokens; the one record change of `iter_heading_atoms`, RULINGS' consecutive heading lines)
    text = "# Parent\n\n## " + "word " * 15 + "word\n\n"
    monkeypatch.setattr(packer_mod, "ITER_SPAN", 40)
    got = _records(text, chunk_size=16, overlap=2)
    assert got[0][:3] == (0, 72, "") and got[0][3] == ["Parent"] and got[0][4] == 16
    assert [r[2] for r in got[1:]] == ["Parent\n\n"] * (len(got) - 1)


_INVISIBLE = ["[summary]: #summary", "[a b]: https://example.com/a?b=1 'title'", "<!-- a note -->",
              "<!--\nover lines\n-->", "[x]: /u\n[y]: /v"]


@settings(max_examples=80, deadline=None)
@given(parts=st.lists(st.tuples(HEADING, st.lists(st.sampled_from(_INVISIBLE), max_size=2),
                                st.sampled_from(["", "", "A short paragraph.", "- one\n- two"])),
                      min_size=1, max_size=8),
       strategy=st.sampled_from(["recursive", "sentence", "section", "hierarchical"]))
def test_lines_that_render_nothing_under_a_heading_do_not_end_its_run(parts, strategy):
    """Link reference definitions and HTML comments right under a heading render to nothing, so
    they neither open a body nor end a run of headings (helper-111: the rust-lang/rfcs template's
    "## Summary" over "[summary]: #summary" made a chunk of a heading and that line before every
    "###"): the records start where they start with those lines blanked out, under the same paths."""
    text = "".join(f"{'#' * lv} {title}".rstrip() + "\n" + "".join(x + "\n" for x in invisible)
                   + (f"\n{body}\n" if body else "") + "\n" for (lv, title), invisible, body in parts)
    blanked = text
    for x in sorted(_INVISIBLE, key=len, reverse=True):
        blanked = blanked.replace(x + "\n", re.sub(r"[^\n]", " ", x) + "\n")
    kw = dict(format="md", strategy=strategy, chunk_size=256, overlap=0)
    got = [(r["start"], r["headings"]) for r in chunkctl.chunk_text(text, **kw) if r["parent_id"] is None]
    want = [(r["start"], r["headings"]) for r in chunkctl.chunk_text(blanked, **kw) if r["parent_id"] is None]
    assert got == want


def test_a_heading_over_a_definition_opens_the_chunk_of_the_heading_under_it():
    text = ("# RFC\n\n## Detailed design\n[design]: #detailed-design\n\n### A walk through the trait\n"
            "[walk thru]: #a-walk-through-the-trait\n\nAn instance of an allocator has many methods.\n\n"
            "## Drawbacks\n<!-- none yet -->\n\n## Alternatives\n\nNone.\n\n[unused]: /u\n")
    recs = list(chunkctl.chunk_text(text, format="md", chunk_size=256, overlap=0))
    assert [(r["start"], r["end"], r["headings"]) for r in recs] == [
        (0, text.index("## Drawbacks") - 2, ["RFC", "Detailed design", "A walk through the trait"]),
        (text.index("## Drawbacks"), len(text) - 1, ["RFC", "Alternatives"])]


@pytest.mark.parametrize("quiet", [
    "".join(f"[link-{i}]: https://example.com/docs/page/{i}\n" for i in range(8)),
    "<!--\n" + "".join(f"Licensed under the Apache License, Version 2.0; line {i}.\n" for i in range(12)) + "-->\n",
])
@pytest.mark.parametrize("strategy", ["recursive", "section"])
def test_a_long_run_of_quiet_lines_under_a_heading_stays_its_body(quiet, strategy):
    """helper-113: taken in by the heading's block, 8 definitions (or a licence comment) under
    "## Links" were heading lines, split without "Links" in the breadcrumb and folded into the
    chunk of "## Next". Past `HEADING_QUIET_CHARS` they are the section's body, as in 0.1.32."""
    text = "# Project\n\nIntro.\n\n## Links\n" + quiet + "\n## Next\n\nBody of next section.\n"
    recs = chunkctl.chunk_text(text, format="md", strategy=strategy, chunk_size=48, overlap=0)
    quiet_start, nxt = text.index("## Links") + 9, text.index("## Next")
    assert any(r["start"] == nxt and r["headings"] == ["Project", "Next"] for r in recs)
    for r in recs:
        if r["start"] < nxt and r["end"] > quiet_start:
            assert r["end"] <= nxt and r["headings"] == ["Project", "Links"]
            assert r["prefix"] == "Project > Links\n\n" or text[r["start"]:].startswith("## Links")
