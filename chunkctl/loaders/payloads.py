"""Inline `data:` URIs (base64 images and the like) are not text to embed.

Markdown exported from PDFs and notebooks inlines images as
`![alt](data:image/png;base64,...)` or `<img src="data:...">`; their payloads flowed into
other tools' chunks and embeddings (linagora/openrag #570: oversized chunks and a failed
store insert; Engram #1619: one 2.5 MB image became 1,222 chunks). Per
the project's rules (docs/records.md, "Data URIs"), a payload, from `data:` to its closing delimiter, is the one span
besides page furniture that chunks may leave out: blocks are cut around it so that no
chunk body holds it, and the alt or link text stays in the body with its sentence.
Never counts tokens.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from chunkctl.model import Block, BlockKind, BlockList
from chunkctl.text.segment import trimmed

# data:[<media type>][;param=value]*[;base64],<data>; the data runs to the first
# delimiter of the surrounding markup: ")" (Markdown), a quote (HTML attribute),
# white space or "<" / ">".
_DATA_URI = re.compile(r"(?<![\w.+-])data:[\w.+-]*/?[\w.+-]*(?:;[\w.+-]+(?:=[^;,\s\"'()<>]*)?)*,([^\s\"'()<>]*)")
MIN_PAYLOAD = 64
"""Data URIs whose data part is shorter than this many characters stay text (`data:,Hello`)."""

# Blocks whose text may hold a payload to cut out. Code is the user's code; a table keeps
# its rows (a payload in a cell stays, see docs/records.md).
_CUT_KINDS = (BlockKind.PARAGRAPH, BlockKind.LIST, BlockKind.QUOTE, BlockKind.HTML)


def payload_spans(text: str, a: int = 0, b: int | None = None) -> list[tuple[int, int]]:
    """`[start, end)` character spans of the data-URI payloads in `text[a:b]`, in order.

    A span runs from `data:` to the end of the data, plus the closing `)` or quote right
    after it (so no lone delimiter is left to make a chunk of its own).
    """
    b = len(text) if b is None else b
    out: list[tuple[int, int]] = []
    for m in _DATA_URI.finditer(text, a, b):
        if len(m.group(1)) < MIN_PAYLOAD:
            continue
        end = m.end()
        if end < b and text[end] in ")\"'":
            end += 1
        out.append((m.start(), end))
    return out


def cut_payloads(text: str, blocks: Sequence[Block]) -> tuple[BlockList, list[tuple[int, int]]]:
    """Blocks with data-URI payloads cut out, and the payload spans.

    A block holding payloads becomes the pieces between them (same kind and heading
    path; a list's item spans are clipped to each piece). The packer never lets a chunk
    span a payload (`Packer.pack` ends a run of atoms at each): the spans go to
    `Document.meta["skipped_spans"]`.

    Returns:
        (blocks, payload spans as `[start, end)` character offsets, in order).
    """
    if "data:" not in text:
        return (blocks if isinstance(blocks, BlockList) else BlockList(blocks)), []
    out = BlockList()
    skipped: list[tuple[int, int]] = []
    for blk in blocks:
        if blk.kind not in _CUT_KINDS or text.find("data:", blk.start, blk.end) < 0:
            out.append(blk)
            continue
        spans = payload_spans(text, blk.start, blk.end)
        if not spans:
            out.append(blk)
            continue
        skipped.extend(spans)
        pos = blk.start
        for s, e in [*spans, (blk.end, blk.end)]:
            piece = trimmed(text, pos, s)
            pos = e
            if piece is None:
                continue
            ps, pe = piece
            rows = tuple(r for r in ((max(rs, ps), min(re_, pe)) for rs, re_ in blk.rows) if r[1] > r[0])
            rows = tuple(t for t in (trimmed(text, rs, re_) for rs, re_ in rows) if t)
            atomic = [x for x in blk.meta.get("atomic", ()) if ps <= x[0] and x[1] <= pe]
            meta = {k: v for k, v in blk.meta.items() if k != "atomic"}
            if atomic:
                meta["atomic"] = atomic
            out.append(Block(blk.kind, ps, pe, blk.level, blk.headings, blk.language, blk.header, rows, meta))
    return out, skipped
