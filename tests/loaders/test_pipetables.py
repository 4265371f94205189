"""Pipe tables without a delimiter row found in paragraphs: exact spans, the rule against a plain
reading of every line, and memory on a large export."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkctl.loaders.pipetables import as_pipe_table
from chunkctl.model import Block, BlockKind
from tests.test_pdf_memory import _traced_peak


def _by_lines(text: str, block: Block):
    """The rule read from a list of every non-blank line (how the loader read it before 0.1.23)."""
    lines = [(m.start(), m.end()) for m in re.compile(r"[^\r\n]+").finditer(text, block.start, block.end)
             if m.group().strip()]

    def cells(line: str) -> int:
        body = line.strip()
        body = body[1:] if body.startswith("|") else body
        body = body[:-1] if body.endswith("|") else body
        return len(re.findall(r"(?<!\\)\|", body)) + 1

    counts = [cells(text[s:e]) for s, e in lines]
    if len(lines) < 3 or min(counts) < 2 or sum(c == counts[0] for c in counts) < 0.8 * len(counts):
        return None
    rows = [(s + len(text[s:e]) - len(text[s:e].lstrip()), s + len(text[s:e].rstrip())) for s, e in lines[1:]]
    return (block.start, lines[0][1]), rows


def test_an_export_of_pipe_lines_is_a_table_with_its_first_line_for_header():
    text = "Name | Qty | Price\n  apple | 3 | 1.20  \nbanana | 12 | 0.5\n\tcherry|1|9\n"
    got = as_pipe_table(text, Block(BlockKind.PARAGRAPH, 0, len(text) - 1))
    assert got.kind == BlockKind.TABLE and got.header == (0, 18)
    assert [text[s:e] for s, e in got.rows] == ["apple | 3 | 1.20", "banana | 12 | 0.5", "cherry|1|9"]
    assert got.meta == {"header_cells": ["Name", "Qty", "Price"], "delimiter_row": False}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", " b ", "", "\\|", "c d"]), st.integers(0, 4),
                          st.sampled_from(["\n", "\r\n", "\n \n", "\r"])), min_size=1, max_size=30),
       st.sampled_from(["", "x\n", "  "]))
def test_tables_are_found_as_a_plain_reading_of_every_line_finds_them(lines, before):
    body = "".join(("| " if n % 2 else "") + " | ".join([cell] * max(n, 1)) + end for cell, n, end in lines)
    text = before + body
    block = Block(BlockKind.PARAGRAPH, len(before), len(text))
    want = _by_lines(text, block)
    got = as_pipe_table(text, block)
    if want is None:
        assert got is block
    else:
        assert got.kind == BlockKind.TABLE and got.header == want[0] and list(got.rows) == want[1]


def test_a_large_export_is_read_a_line_at_a_time():
    """A list of every line's span and cell count took some 300 bytes a line: 16x a 20 MB
    export of `a | b | c` lines, as a text file or a Markdown paragraph."""
    text = "alpha | beta | gamma\n" * 100_000
    got, peak = _traced_peak(lambda: as_pipe_table(text, Block(BlockKind.PARAGRAPH, 0, len(text) - 1)))
    assert got.kind == BlockKind.TABLE and len(got.rows) == 99_999
    assert peak < 2 * len(text), peak / len(text)
