"""Pipe tables written without a delimiter row ("a | b | c" lines), found in paragraphs of txt and md; no I/O."""

from __future__ import annotations

import re
from dataclasses import replace

from chunkctl.model import Block, BlockKind

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
    """
    if block.kind != BlockKind.PARAGRAPH or text.find("|", block.start, block.end) < 0:
        return block
    lines = [(m.start(), m.end()) for m in _LINE.finditer(text, block.start, block.end)]
    lines = [(s, e) for s, e in lines if text[s:e].strip()]
    if len(lines) < 3:
        return block
    counts = [_cells(text[s:e]) for s, e in lines]
    if min(counts) < 2:
        return block
    if sum(1 for c in counts if c == counts[0]) < 0.8 * len(counts):
        return block
    hs, he = lines[0]
    rows = tuple((s + len(text[s:e]) - len(text[s:e].lstrip()), s + len(text[s:e].rstrip())) for s, e in lines[1:])
    header_cells = [c.strip() for c in text[hs:he].strip().strip("|").split("|")]
    return replace(block, kind=BlockKind.TABLE, header=(block.start, he), rows=rows,
                   meta={**block.meta, "header_cells": header_cells, "delimiter_row": False})
