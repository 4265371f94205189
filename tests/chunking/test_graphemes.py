"""Grapheme cluster boundaries found locally (with remembered stretches) equal a full `\\X` segmentation."""

from __future__ import annotations

import bisect

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkctl.text.segment import Graphemes

PIECES = st.sampled_from(["a", "Z", " ", ".", "\r\n", "\r", "\n", "\t", "é", "e\u0301", "\u0301", "中", "가",
                          "\u1100\u1161\u11a8", "🇯🇵", "🇫", "👍🏽", "👨\u200d👩\u200d👧", "\u200d", "\ufe0f", "ก\u0e33",
                          "\u0915\u094d\u0937", "🚀", "\U000e0067",
                          # Hebrew, Arabic and Thai letters (simple) beside their points, harakat, vowel
                          # signs and Prepend marks (not simple)
                          "م", "رحبا", "\u064e", "\u0651", "\u0600", "\u06dd", "\u061c", "ש", "\u05b8", "\u05be",
                          "ก", "\u0e31", "\u0e40", "\u0e47"])


def reference(text: str) -> list[int]:
    return [m.start() for m in regex.finditer(r"\X", text)] + [len(text)]


@settings(max_examples=500, deadline=None)
@given(st.lists(PIECES, max_size=60).map("".join), st.randoms(use_true_random=False))
def test_local_boundaries_equal_a_full_segmentation(text, rnd):
    ref = reference(text)
    g = Graphemes(text)
    order = list(range(len(text) + 1))
    rnd.shuffle(order)  # questions in any order: remembered stretches must not depend on it
    for i in order:
        assert g.is_boundary(i) == (i in ref), (text, i)
        assert g.floor(i) == ref[bisect.bisect_right(ref, i) - 1], (text, i)
        assert g.ceil(i) == ref[bisect.bisect_left(ref, i)], (text, i)


def test_a_text_of_flags_is_segmented_once():
    text = "🇯🇵" * 3000 + "abc"
    g = Graphemes(text)
    assert [g.floor(i) for i in (0, 1, 2, 3, 5999, 6000, 6001)] == [0, 0, 2, 2, 5998, 6000, 6001]
    assert len(g._runs) == 1  # one stretch between sure boundaries, remembered


def test_hebrew_arabic_and_thai_letters_are_decided_at_once():
    # helper-74: a line of Arabic prose was one stretch (4 bytes a character remembered: 14x its file)
    for text in ("مرحبا بالعالم. " * 2000, "שלום עולם. " * 2000, "สวัสดีชาวโลก " * 2000):
        ref = set(reference(text))
        g = Graphemes(text)
        assert all(g.is_boundary(i) == (i in ref) for i in range(0, len(text) + 1, 7))
        assert all(b - a < 8 for a, b, _ in g._runs)  # only short stretches (Thai vowel signs)
    g = Graphemes("مرحبا بالعالم. " * 2000)
    assert g.is_boundary(15_000) and not g._runs  # (between two letters: sure)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=80).map("".join), st.randoms(use_true_random=False), st.sampled_from([2, 4, 6]))
def test_forgetting_stretches_changes_no_answer(text, rnd, keep):
    ref = reference(text)
    g = type("Few", (Graphemes,), {"__slots__": (), "KEEP_RUNS": keep})(text)
    order = list(range(len(text) + 1))
    rnd.shuffle(order)
    for i in order:
        assert g.is_boundary(i) == (i in ref), (text, i)
        assert g.floor(i) == ref[bisect.bisect_right(ref, i) - 1], (text, i)
        assert g.ceil(i) == ref[bisect.bisect_left(ref, i)], (text, i)
        assert len(g._runs) <= keep and g._run_starts == sorted(g._run_starts) == [a for a, _b, _ in g._runs]


def test_stretches_remembered_are_bounded():
    # Devanagari words among Latin ones: a stretch every few words. 0.1.23 kept all of them,
    # some 100 bytes each beside their boundaries (5.4 bytes a byte of the file).
    text = "नमस्ते hello दुनिया world " * 20_000
    ref = reference(text)
    g = Graphemes(text)
    refs = set(ref)
    assert all(g.is_boundary(i) == (i in refs) for i in range(0, len(text) + 1, 3))
    assert len(g._runs) <= Graphemes.KEEP_RUNS


@settings(max_examples=500, deadline=None)
@given(st.lists(PIECES, max_size=60).map("".join), st.integers(1, 9))
def test_stretches_segmented_in_windows_equal_a_full_segmentation(text, window):
    import chunkctl.text.segment as segment

    ref = reference(text)
    saved = segment.CLUSTER_WINDOW
    try:
        segment.CLUSTER_WINDOW = window  # slices that cut clusters, flags and joiner sequences
        g = Graphemes(text)
        assert [i for i in range(len(text) + 1) if g.is_boundary(i)] == ref, text
    finally:
        segment.CLUSTER_WINDOW = saved


def test_a_line_of_flags_is_segmented_in_linear_time():
    # regex's \X looks back to the start of a run of regional indicators at each match: a
    # line of 50,000 flags took 8 s. Counted in slices: no slice longer than the window.
    import chunkctl.text.segment as segment

    text = "🇯🇵🇫🇷" * 10_000 + "🇫"
    g = Graphemes(text)
    seen = []
    real = segment._CLUSTER

    class Counting:
        def finditer(self, s, *args):
            seen.append(len(s) if not args else args[-1] - args[0])
            return real.finditer(s, *args)

    segment._CLUSTER = Counting()
    try:
        assert g.floor(25_001) == 25_000 and g.ceil(39_999) == 40_000 and g.is_boundary(40_000)
        assert not g.is_boundary(39_999)
    finally:
        segment._CLUSTER = real
    assert max(seen) <= segment.CLUSTER_WINDOW and sum(seen) < 2 * len(text)
