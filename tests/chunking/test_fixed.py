"""Strategy `fixed` (issue 17, point 9): trimmed edges, no window inside the previous one, no gap, budget, overlap.

A window's body may begin or end with white space only where that white space is part
of a grapheme cluster with something else (a space followed by a combining mark is one
cluster, UAX #29, and an edge never cuts a cluster): its first and last clusters are
never white space alone.
"""

from __future__ import annotations

import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkctl
from chunkctl.tokenizers import get_tokenizer

ENC = get_tokenizer()


def run(text, fmt="txt", **kw):
    return chunkctl.chunk_text(text, format=fmt, source="doc." + fmt, strategy="fixed", **kw)


def bodies(recs):
    return [r["text"][len(r["prefix"]):] for r in recs]


def window_faults(text: str, recs: list[dict], size: int, overlap: int) -> list[str]:
    """Every break of the fixed-window rules in `recs` (empty when they all hold)."""
    faults = []
    prev = None
    for r in recs:
        body = r["text"][len(r["prefix"]):]
        clusters = regex.findall(r"\X", body)
        if not clusters or not clusters[0].strip() or not clusters[-1].strip():
            faults.append(f"white space at an edge: {body!r}")
        if r["n_tokens"] > size and not r["oversize"]:
            faults.append(f"over the budget: {r['n_tokens']} > {size}")
        if r["n_tokens"] != ENC.count(r["text"]):
            faults.append(f"n_tokens {r['n_tokens']} is not the count of {r['text']!r}")
        if prev is not None:
            if r["start"] <= prev["start"] or r["end"] <= prev["end"]:
                faults.append(f"window inside the previous one: {body!r} after {prev['text']!r}")
            if text[prev["end"]:r["start"]].strip():
                faults.append(f"gap: {text[prev['end']:r['start']]!r}")
            shared = text[r["start"]:prev["end"]]
            if shared and ENC.count(shared) > overlap:
                faults.append(f"overlap {ENC.count(shared)} > {overlap} tokens: {shared!r}")
        prev = r
    covered = set()
    for r in recs:
        covered.update(range(r["start"], r["end"]))
    missing = [i for i, c in enumerate(text) if not c.isspace() and i not in covered]
    if missing:
        faults.append(f"text outside every window at {missing[:5]}")
    return faults


COLOURS = ("red orange yellow green blue indigo violet black white grey brown pink gold silver teal navy olive "
           "maroon coral ivory\n")


def test_no_window_starts_on_a_space_when_the_word_alone_takes_more_tokens():
    # " violet" is one token, "violet" two: the window at token 7 used to start " violet black ...".
    recs = run(COLOURS, chunk_size=4, overlap=3)
    assert window_faults(COLOURS, recs, 4, 3) == []
    assert bodies(recs)[5:9] == ["indigo violet", "igo violet black", "violet black white", "black white grey"]
    # one window per token, still: window i starts at token i (its leading space trimmed)
    table = ENC.table(COLOURS)
    assert [r["start"] for r in recs] == [table.char(i) + (COLOURS[table.char(i)] == " ") for i in range(len(recs))]
    assert len(recs) == 19 and recs[-1]["end"] == len(COLOURS.rstrip())


def test_no_window_inside_the_previous_one_with_a_large_overlap():
    # A 7-token emoji cannot join a window that repeats 14 of its 18 tokens: the start moves on
    # instead of giving a window that ends where the previous one ends.
    text = "(ok)  好き。 \n\n clear.\nHello! \t\n👨\u200d👩\u200d👧 👨\u200d👩\u200d👧 b,  猫が the  (ok) clear."
    recs = run(text, chunk_size=18, overlap=14)
    assert window_faults(text, recs, 18, 14) == []
    assert bodies(recs) == ["(ok)  好き。 \n\n clear.\nHello!", "clear.\nHello! \t\n👨\u200d👩\u200d👧",
                            "👨\u200d👩\u200d👧 b,", "b,  猫が the", ",  猫が the  (ok) clear."]


def test_a_lone_full_stop_never_follows_the_window_that_holds_it():
    text = "The sky is clear. " * 6
    for size, overlap in ((5, 4), (6, 5), (9, 8), (12, 11)):
        recs = run(text, chunk_size=size, overlap=overlap)
        assert window_faults(text, recs, size, overlap) == [], (size, overlap)
        assert not any(b in (".", "clear.") for b in bodies(recs)[1:]), (size, overlap)


def test_overlap_zero_windows_meet_exactly():
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu\n"
    recs = run(text, chunk_size=5, overlap=0)
    assert bodies(recs) == ["alpha beta gamma delta epsilon", "zeta eta theta iota", "kappa lambda mu"]  # " z" "eta"
    for a, b in zip(recs, recs[1:]):
        assert text[a["end"]:b["start"]] == " "


def test_a_window_of_heading_lines_gets_its_first_headings_path():
    # Never the path of a heading that starts after the window (issue 17, point 4).
    text = "# Sample\n\n## 0.68.0 - 2026-07-24\n\nFixed the parser for nested lists in tables.\n"
    for size, first in ((3, "# Sample"), (4, "# Sample\n\n##")):
        recs = run(text, fmt="md", chunk_size=size, overlap=0)
        assert bodies(recs)[0] == first
        assert recs[0]["headings"] == ["Sample"] and recs[0]["prefix"] == ""
        assert recs[1]["headings"] == ["Sample", "0.68.0 - 2026-07-24"]
        for r in recs:
            assert all(text.index(h) < r["end"] for h in r["headings"]), r


def test_a_window_shrunk_for_its_breadcrumb_leaves_the_rest_to_the_next_window():
    # With "Title" the window ending after "black" is over 14 tokens; settling shrank it to
    # the emoji family, and the loop used to stop there as if "black" had been taken (CI find).
    text = "# Title\n\n \U0001f468\u200d\U0001f469\u200d\U0001f467black"
    recs = run(text, fmt="md", chunk_size=14, overlap=0, context="headings")
    assert window_faults(text, recs, 14, 0) == []
    assert bodies(recs) == ["# Title", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "black"]
    assert recs[-1]["prefix"].startswith("Title")


PIECES = st.sampled_from(
    ["violet", "black", "clear.", "red", "the", "a", "b,", ".", "!", "(ok)", "1.5", "—", "...", "Hello!", "x" * 12,
     "猫が", "好き。", "日本語の文", "👍🏽", "👨\u200d👩\u200d👧", "🇫🇷", "e\u0301", " \u0301", "\u00a0", "\u3000",
     " ", " ", "  ", "\t", "\n", "\n\n", " \n "])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(PIECES, min_size=1, max_size=80), size=st.integers(1, 48), frac=st.floats(0, 0.99),
       fmt=st.sampled_from(["txt", "md"]))
def test_random_text_windows_keep_the_rules(pieces, size, frac, fmt):
    text = "".join(pieces)
    overlap = min(size - 1, int(size * frac))
    recs = run(text, fmt=fmt, chunk_size=size, overlap=overlap)
    if not text.strip():
        assert recs == []
        return
    assert window_faults(text, recs, size, overlap) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(st.one_of(PIECES, st.sampled_from(["# Title\n\n", "\n\n## Part two\n\n", "- item\n"])),
                       min_size=1, max_size=60),
       size=st.integers(8, 40), frac=st.floats(0, 0.9))
def test_random_markdown_windows_keep_the_rules_with_breadcrumbs(pieces, size, frac):
    text = "".join(pieces)
    overlap = min(size - 1, int(size * frac))
    recs = run(text, fmt="md", chunk_size=size, overlap=overlap, context="headings")
    if not text.strip():
        return
    assert window_faults(text, recs, size, overlap) == []
    for r in recs:  # a breadcrumb names only headings that start before the window ends
        assert all(h in text[:r["end"]] for h in r["headings"]), r


STRUCTURED = st.sampled_from(
    ["# Title\n\n", "\n\n## Part two\n\n", "\n\n### Deeper\n\n", "\n\n```\ncode line one\ncode line two\n```\n\n",
     "\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |\n\n", "\n\n$$\nx = y + 1\n$$\n\n", "- item\n",
     "The sky is clear. ", "Rain falls on the plain. ", "violet black white ", "\n\n"])


def _structure(text: str):
    """Heading starts and code/table/math spans of a Markdown text (from the loader's blocks)."""
    from chunkctl.config import ChunkConfig
    from chunkctl.loaders import load_bytes

    doc = load_bytes(text.encode(), "doc.md", "md", ChunkConfig())
    heads = [b.start for b in doc.blocks if b.kind.value == "heading"]
    atoms = [(b.start, b.end) for b in doc.blocks if b.kind.value in ("code", "table", "math")]
    return heads, atoms


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(STRUCTURED, min_size=2, max_size=30), size=st.integers(8, 48), frac=st.floats(0.1, 0.9))
def test_overlap_never_crosses_a_heading_nor_repeats_code_table_or_math_lines(pieces, size, frac):
    # RULINGS ("Sizes and overlap"): overlap never crosses a heading boundary and never
    # repeats rows of a table or lines of a code block; fixed windows too (a QA find).
    # A window that ends inside such a line leaves the line whole to the next window
    # (BR-32: every table line lies in some chunk body), so only that partial line repeats.
    text = "".join(pieces)
    overlap = max(1, min(size - 1, int(size * frac)))
    recs = run(text, fmt="md", chunk_size=size, overlap=overlap, context="headings")
    assert window_faults(text, recs, size, overlap) == []
    heads, atoms = _structure(text)
    for prev, r in zip(recs, recs[1:]):
        a, b = r["start"], prev["end"]
        if a >= b:
            continue  # nothing shared
        assert not [h for h in heads if a < h < b], (text[a:b], "crosses a heading")
        repeated = [(s, e) for s, e in atoms if s < b and a < e]
        assert all(s < b < e and "\n" not in text[a:b] for s, e in repeated), (text[a:b], "repeats code lines")


def test_a_table_row_cut_by_a_window_comes_whole_in_the_next():
    text = "Intro words here.\n\n| Month | Saved |\n| --- | ---: |\n| January | $250 |\n| February | $80 |\n"
    # each window ends inside a line; the next starts at that line's start, so every line
    # of the table lies whole in some window
    recs = run(text, fmt="md", chunk_size=14, overlap=5, context="none")
    assert bodies(recs) == ["Intro words here.\n\n| Month | Saved |\n| --- | ---:",
                            "| --- | ---: |\n| January | $250 |\n| February", "| February | $80 |"]
    # unless the overlap is too small to repeat the cut part of the line (4 tokens here)
    recs = run(text, fmt="md", chunk_size=14, overlap=4, context="none")
    assert bodies(recs)[1].startswith("--- | ---: |\n| January")


def test_fixed_overlap_starts_at_the_heading_it_would_cross():
    text = ("# A\n\nAlpha text one two three four five six seven eight nine ten.\n\n"
            "## B\n\nBeta text one two three four five six seven eight nine ten.\n")
    recs = run(text, fmt="md", chunk_size=16, overlap=8)
    assert [r["start"] for r in recs] == [0, 30, 67, 87]
    assert bodies(recs)[2].startswith("## B") and "## B" in bodies(recs)[1]


class _CountingText(str):
    """A text that counts the characters read one at a time."""

    reads = 0

    def __getitem__(self, key):
        if isinstance(key, int):
            type(self).reads += 1
        return str.__getitem__(self, key)


def _windows(text: str):
    from chunkctl.chunking.fixed import _Windows
    from chunkctl.text.segment import Graphemes

    w = object.__new__(_Windows)
    w.text, w.graphemes, w._space = text, Graphemes(text), (-1, -1)
    return w


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([" ", "\u00a0", "\n", "\t", "a", "é", "e\u0301", "\u3000", "👍🏽"]), max_size=40)
       .map("".join), st.lists(st.integers(0, 80), max_size=30))
def test_skip_space_remembering_its_last_run_answers_as_a_fresh_scan(text, asks):
    w = _windows(text)
    for pos in asks:
        pos = min(pos, len(text))
        want = pos
        while want < len(text) and text[want].isspace():
            want += 1
        want = w.graphemes.floor(want) if want < len(text) else len(text)
        assert w.skip_space(pos) == want, (text, pos)


def test_the_windows_cross_a_long_white_space_run_once():
    # helper-78: a table row of 20,000 no-break spaces before `x` took 5 s with `fixed`: the
    # candidate starts stepped through the run token by token and scanned it again from each
    text = _CountingText("a " + "\u00a0 " * 20_000 + "x")
    w = _windows(text)
    _CountingText.reads = 0
    asks = range(2, 40_002, 400)
    assert [w.skip_space(p) for p in asks] == [40_002] * len(asks)
    assert _CountingText.reads < 41_000, _CountingText.reads  # (0.1.23: 2 M, the run again from each)
    recs = run("| a | b |\n|---|---|\n| c | d |\n" + "\u00a0 " * 3_000 + "x\n", "md",
               chunk_size=64, overlap=16)
    assert "".join(r["text"] for r in recs).count("x") == 1
