"""Hard-wrapped prose inside a block quote ("> " on every line) wraps as prose does: its line
breaks are soft, so chunks end at sentences, not at line ends (helper-48: quotes of the Rust
book were cut at line ends mid-sentence, while the same text outside a quote was not)."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

import chunkctl
from chunkctl.text.segment import split_lines

QUOTE = ("> Many programming languages don’t require you to think about the stack and the\n"
         "> heap very often. But in a systems programming language like Rust, whether a\n"
         "> value is on the stack or the heap affects how the language behaves and why\n"
         "> you have to make certain decisions. Parts of ownership will be described in\n"
         "> relation to the stack and the heap later in this chapter, so here is a brief\n"
         "> explanation in preparation.\n")


def test_a_wrapped_quote_is_cut_at_sentence_ends():
    records = chunkctl.chunk_text(QUOTE, format="md", chunk_size=40)
    assert [r["text"].split("\n")[-1] for r in records] == [
        "> heap very often.", "> you have to make certain decisions.", "> explanation in preparation."]


WORDS = ["stack", "heap", "the", "value", "is", "on", "language", "ownership", "decisions", "a", "brief"]


@settings(max_examples=80, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), min_size=8, max_size=80), width=st.integers(40, 90),
       ends=st.lists(st.integers(0, 79), max_size=4))
def test_quoted_lines_are_soft_or_hard_where_the_same_lines_unquoted_are(words, width, ends):
    # (greedy wrapping at 40 columns or more: every break but those after a sentence is soft, by the
    # width rule, quoted or not)
    words = [w + "." if i in ends else w for i, w in enumerate(words)]
    lines = textwrap.wrap(" ".join(words), width)
    plain = "\n".join(lines)
    quoted = "\n".join("> " + ln for ln in lines)
    pieces = split_lines(plain, 0, len(plain))
    quoted_pieces = split_lines(quoted, 0, len(quoted))
    # the same breaks kept: each piece holds the same lines
    assert [plain[a:b].count("\n") for a, b in pieces] == [quoted[a:b].count("\n") for a, b in quoted_pieces]
