"""Issue 19: the overlap's hard line starts are read near the window (`hard_line_starts`), not by
analysing the whole block at every chunk end; they must be exactly `split_lines`'s starts."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkctl
from chunkctl.text.segment import hard_line_starts, split_lines
from chunkctl.text.segment import line_wrap as quick_wrap  # string methods up to 64 K characters, else line by line

WORDS = ["the", "pump", "valve", "is", "checked", "daily,", "before", "use.", "Note:", "1.", "-", "(a)", "a)", "[ref]:", "[1]:",
         "x", "internationalisation", "|", "end;", "\u201cquoted.\u201d", "\u3002", "\u00e9t\u00e9"]
INDENTS = ["", "", "", " ", "  ", "    ", "        ", "\t", "\u3000", "\u00a0"]
BREAKS = ["\n", "\n", "\n", "\r\n", "\r", "\n\n", "\f", "\u2028", "\v", "\n  \n", "\x1c"]


@st.composite
def wrapped(draw) -> str:
    """Lines of words with random indentation and line ends: filled prose, lists, verse, columns."""
    width = draw(st.integers(20, 90))
    lines = []
    for _ in range(draw(st.integers(1, 14))):
        words = []
        while sum(len(w) + 1 for w in words) < draw(st.integers(1, width)):
            words.append(draw(st.sampled_from(WORDS)))
        gap = draw(st.sampled_from([" ", " ", " ", "   ", "\t"]))
        lines.append(draw(st.sampled_from(INDENTS)) + gap.join(words) + draw(st.sampled_from(["", "", " ", "\t"])))
    out = lines[0]
    for line in lines[1:]:
        out += draw(st.sampled_from(BREAKS)) + line
    return out


def line_wrap(text: str, a: int, b: int) -> int | None:
    """The wrap width by its definition: the widest of `split_lines`'s raw lines, measured
    from the start of its line (after a line break other than a form feed: CR, LF, vertical tab,
    U+2028, U+2029; not before `a`), when there are two or more."""
    lines = split_lines(text, a, b, prose=False)
    widths = [e - max([a] + [text.rfind(br, a, s) + 1 for br in "\n\r\v\u2028\u2029"]) for s, e in lines]
    wrap = max(widths, default=-1)
    return wrap if len(lines) >= 2 and 30 <= wrap <= 200 else None


def expected(text: str, a: int, b: int, lo: int, hi: int, prose: bool) -> list[int]:
    return [s for s, _e in split_lines(text, a, b, prose=prose) if lo < s < hi]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wrapped(), st.booleans(), st.data())
def test_windowed_starts_are_split_lines_starts(body, prose, data):
    text = "Intro.\n\n" + body + "\n\nAfter."
    a = len("Intro.\n\n") + (len(body) - len(body.lstrip()))
    b = a + len(body.strip())
    if b <= a:
        return
    assert quick_wrap(text, a, b) == line_wrap(text, a, b)
    wrap = quick_wrap(text, a, b) if prose else None
    lo = data.draw(st.integers(0, len(text)))
    hi = data.draw(st.integers(lo, len(text)))
    assert hard_line_starts(text, a, b, lo, hi, prose, wrap) == expected(text, a, b, lo, hi, prose)
    # the whole span as one window
    assert hard_line_starts(text, a, b, a - 1, b + 1, prose, wrap) == expected(text, a, b, a - 1, b + 1, prose)


def test_an_indented_line_joined_above_counts_its_indentation():
    """The case that makes reading start above the window: whether the break after an indented
    line is soft depends on whether that line was itself joined to the line above."""
    body = ("The reading of the pump valve is checked every morning before the crew shift change\n"
            "        and then logged against the limit values in the sheet of the day by the\n"
            "        crew lead who signs it and files it with the others in the cabinet\n"
            "        next to the door of the plant room for the inspectors to read it.")
    text = body
    a, b = 0, len(text)
    full = [s for s, _e in split_lines(text, a, b)]
    third = text.index("        crew lead")
    fourth = text.index("        next to")
    wrap = quick_wrap(text, a, b)
    for lo in range(third - 3, fourth + 3):
        assert hard_line_starts(text, a, b, lo, b, True, wrap) == [s for s in full if lo < s < b]


def test_corpus_like_prose_windows_match_at_random():
    rng = random.Random(5)
    words = "the of and to in a is that for it as was with be by on not he this are or his from at which".split()
    paras = []
    for _ in range(30):
        line, lines = [], []
        for _w in range(rng.randint(20, 120)):
            w = rng.choice(words) + rng.choice(["", "", "", ",", ".", ";"])
            if sum(len(x) + 1 for x in line) + len(w) > 70:
                lines.append(rng.choice(["", "", "  "]) + " ".join(line))
                line = []
            line.append(w)
        lines.append(" ".join(line))
        paras.append("\n".join(lines))
    for p in paras:
        a, b = 0, len(p)
        wrap = quick_wrap(p, a, b)
        assert wrap == line_wrap(p, a, b)
        full = [s for s, _e in split_lines(p, a, b)]
        for _ in range(20):
            lo = rng.randrange(0, b)
            hi = rng.randrange(lo, b + 1)
            assert hard_line_starts(p, a, b, lo, hi, True, wrap) == [s for s in full if lo < s < hi]


def test_the_wrap_width_of_a_span_over_64k_characters_is_read_line_by_line():
    """Past 64 K characters the wrap width is found without a list of the span's lines (the
    memory bound of issue 14); it is the same width."""
    rng = random.Random(9)
    words = "the pump valve is checked daily before use and logged".split()
    lines = [" " * rng.choice([0, 0, 2]) + " ".join(rng.choice(words) for _ in range(rng.randint(3, 11)))
             for _ in range(12_000)]
    text = "\r\n".join(lines)
    assert len(text) > 1 << 16
    assert quick_wrap(text, 0, len(text)) == line_wrap(text, 0, len(text)) == max(len(x.rstrip()) for x in lines)


def _overlap_start_reading_the_whole_window(self, atoms, i, k, cs):
    """The overlap start as chosen before issue 19's shortcut: every hard line start of the
    window is read, then the earliest candidate that fits wins (the oracle for the test below)."""
    from chunkctl.chunking.packer import SLACK, Level
    from chunkctl.text.segment import split_words

    ce = atoms[k].end
    lo = cs + 1
    for idx in range(k, i - 1, -1):
        x = atoms[idx]
        if x.barrier:
            lo = max(lo, x.end)
            break
        if x.block is not None and x.block.meta.get("atomic"):
            lo = max(lo, max((e for s, e in x.block.meta["atomic"] if s < ce), default=lo))
    if atoms[k].barrier or lo >= ce:
        return None
    tce = self.tokens_before(ce)
    wlo = max(lo, self.table.char(tce - self.overlap - SLACK))
    cands, multi, blocks = set(), False, []
    last_sentence = max(lo, atoms[k].start)
    for idx in range(k, i - 1, -1):
        x = atoms[idx]
        if x.end <= wlo:
            break
        if x.start >= wlo and x.start > cs and x.strength >= Level.SENTENCE:
            cands.add(x.start)
        if x.level > Level.SENTENCE:
            multi = True
            if x.block is not None and (not blocks or blocks[-1] is not x.block):
                blocks.append(x.block)
    if multi:
        a = max(lo, wlo - 80)
        found = self.sentences.quick_starts(self.text, a, ce)
        for b in blocks:
            found += self._hard_line_starts(b, a, ce)
        cands.update(s for s in found if s >= wlo)
        if found:
            last_sentence = max(last_sentence, max(found))
    first = self._first_within_overlap(sorted(c for c in cands if cs < c < ce and c >= lo), cs, ce, tce)
    if first is not None:
        return first
    text = self.text
    words = [s for s, _e in split_words(text, max(last_sentence, wlo, lo), ce)
             if s > cs and (s == 0 or text[s - 1].isspace())]
    return self._first_within_overlap(words, cs, ce, tce)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(wrapped(), min_size=1, max_size=6), st.sampled_from([(24, 8), (40, 12), (64, 20)]))
def test_overlaps_read_hard_lines_only_up_to_the_first_fitting_start(paragraphs, size):
    """Issue 19: hard line starts are read only up to the first candidate that already fits;
    the chunks (and so the overlaps) are those of reading the whole window."""
    from unittest import mock

    import chunkctl
    from chunkctl.chunking.packer import Packer

    text = "\n\n".join(paragraphs)
    chunk_size, overlap = size
    fast = chunkctl.chunk_text(text, chunk_size=chunk_size, overlap=overlap)
    with mock.patch.object(Packer, "_overlap_start", _overlap_start_reading_the_whole_window):
        slow = chunkctl.chunk_text(text, chunk_size=chunk_size, overlap=overlap)
    assert [(r["start"], r["end"]) for r in fast] == [(r["start"], r["end"]) for r in slow]


@pytest.mark.parametrize("sep", ["\v", "\u2028", "\u2029", "\n", "\r\n"])
@pytest.mark.parametrize("fmt", ["txt", "md"])
def test_finding_line_starts_reads_the_text_a_bounded_number_of_times(sep, fmt, monkeypatch):
    """helper-114: lines ended by a vertical tab (Word's soft return in a plain-text export), U+2028
    or U+2029 were split as lines, but their starts were searched back for CR or LF only, so each
    line's search ran to the start of the span: 160 KB of "a\\v" lines took 50 s. The characters
    the backward searches read are counted (no timing): linear in the text now."""
    from chunkctl.text import segment

    scanned = [0]
    real = segment._LINE_BREAK_REV

    class Counting:
        def search(self, text, lo, pos):
            m = real.search(text, lo, pos)
            scanned[0] += pos - (m.end() if m is not None else lo)
            return m

    monkeypatch.setattr(segment, "_LINE_BREAK_REV", Counting())
    text = "Intro.\n\n" + ("Some words of a soft-wrapped Word line" + sep) * 3000
    recs = chunkctl.chunk_text(text, fmt, strategy="recursive", chunk_size=64, overlap=8)
    assert recs and all(r["n_tokens"] <= 64 for r in recs)
    assert scanned[0] < 20 * len(text), scanned[0] / len(text)
