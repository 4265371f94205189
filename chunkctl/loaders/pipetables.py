"""Pipe tables written without a delimiter row ("a | b | c" lines), found in paragraphs of txt and md; no I/O."""

from __future__ import annotations

import re
from dataclasses import replace

from chunkctl.model import Block, BlockKind, compact_spans
from chunkctl.text.segment import trimmed

_LINE = re.compile(r"[^\r\n]+")
_SEP = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> int:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return len(_SEP.findall(body)) + 1


def as_pipe_table(text: str, block: Block) -> Block:
    """The paragraph `block` as a TABLE block when its lines form a pipe table, else the block unchanged.

    A pipe table here is at least three lines, each with at least two cells separated
    by `|`, most (80%) with the same number of cells as the first line. The first line
    is the header (repeated in the prefix when the table is split); each further line
    is a row. Exports of spreadsheets and filings write tables this way, without the
    `| --- |` row GitHub-flavoured Markdown requires.

    Lines are read one at a time, twice (the test, then the rows, kept as `compact_spans`:
    8 bytes a row): a list of every line's span and cell count took some 300 bytes a line,
    16x a 20 MB export of `a | b | c` lines.
    """
    if block.kind != BlockKind.PARAGRAPH or text.find("|", block.start, block.end) < 0:
        return block
    n = same = 0
    first = -1
    header_end = block.start
    for m in _LINE.finditer(text, block.start, block.end):
        line = m.group()
        if not line.strip():
            continue
        cells = _cells(line)
        if cells < 2:
            return block
        if first < 0:
            first, header_end = cells, m.end()
        n += 1
        same += cells == first
    if n < 3 or same < 0.8 * n:
        return block
    rows = compact_spans(row for m in _LINE.finditer(text, header_end, block.end)
                         if (row := trimmed(text, m.start(), m.end())) is not None)
    header_cells = [c.strip() for c in text[block.start:header_end].strip().strip("|").split("|")]
    return replace(block, kind=BlockKind.TABLE, header=(block.start, header_end), rows=rows,
                   meta={**block.meta, "header_cells": header_cells, "delimiter_row": False})

