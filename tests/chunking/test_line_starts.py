"""Issue 19: the overlap's hard line starts are read near the window (`hard_line_starts`), not by
analysing the whole block at every chunk end; they must be exactly `split_lines`'s starts."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkctl.text.segment import hard_line_starts, split_lines
from chunkctl.text.segment import line_wrap as quick_wrap  # string methods up to 64 K characters, else line by line

WORDS = ["the", "pump", "valve", "is", "checked", "daily,", "before", "use.", "Note:", "1.", "-", "(a)", "a)",
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
    from the start of its line (after CR or LF, not before `a`), when there are two or more."""
    lines = split_lines(text, a, b, prose=False)
    widths = [e - max(a, text.rfind("\n", a, s) + 1, text.rfind("\r", a, s) + 1) for s, e in lines]
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
