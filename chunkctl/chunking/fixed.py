"""Strategy `fixed`: sliding token windows of chunk_size with overlap, edges on grapheme boundaries."""

from __future__ import annotations

from ..model import Chunk
from . import register
from .packer import Packer
from .sections import BlockIndex


@register("fixed", "sliding token windows of --chunk-size tokens stepping by chunk size minus --overlap; "
                   "ignores structure")
def chunk_fixed(doc, tokenizer, config, table) -> list[Chunk]:
    """Fixed-size token windows over the whole document text.

    Window i starts `chunk_size - overlap` tokens after window i-1 (in the document's
    own tokenization) and holds up to `chunk_size` tokens including the breadcrumb
    prefix. Edges are moved to grapheme-cluster boundaries; a window whose exact
    re-encoded count is over the budget is shrunk; consecutive windows leave no gap
    and share at most `overlap` tokens; white space at window edges is trimmed and
    whitespace-only windows are skipped. The loop stops at the window that reaches the
    end of the text (no redundant tail window).
    """
    packer = Packer(doc, tokenizer, config, table)
    text = doc.text
    n_text = len(text)
    g = packer.graphemes
    tab = packer.table
    index = BlockIndex(doc.blocks)
    size, ov = config.chunk_size, config.overlap_tokens
    front_end = max((b.end for b in doc.blocks if b.kind.value == "front_matter"), default=0)
    out: list[Chunk] = []
    cur = packer.T(front_end)  # nominal first token of the window
    s = _skip_space(text, g.ceil(tab.char(cur)), g)
    while s < n_text:
        path = index.headings_at(s)
        prefix, ptoks = packer.breadcrumb(packer.breadcrumb_parts(path))
        room = max(1, size - ptoks)
        target = max(tab.char(cur + room), s + 1)
        e, oversize, n = packer.window_end(s, n_text, size, prefix, target=target)
        if oversize:
            prefix = ""
        body_end = s + len(text[s:e].rstrip())
        if body_end <= s:
            body_end = e
        n = packer.count(s, body_end, prefix)
        out.append(Chunk(s, body_end, prefix, path, index.kind_of(s, body_end), n, size, oversize))
        if not text[e:].strip():
            break
        # Next window: `room - overlap` tokens on, never past this window's end (no gap),
        # and repeating at most `overlap` tokens of it (exact count of the shared text).
        nxt = max(cur + 1, min(cur + room - ov, packer.T(e)))
        ns = e
        if ov:
            ns = min(e, _skip_space(text, g.ceil(tab.char(nxt)), g))
            while ns < body_end and (ns <= s or packer.count(ns, body_end) > ov):
                nxt += 1
                ns = min(e, _skip_space(text, g.ceil(tab.char(nxt)), g))
            if ns >= body_end:
                ns = e
        if ns == e:
            nxt = max(nxt, packer.T(e))
            ns = _skip_space(text, e, g)
        cur, s = nxt, ns
    return out


def _skip_space(text: str, pos: int, g) -> int:
    """First position at or after `pos` that is not white space, on a cluster boundary."""
    n = len(text)
    while pos < n and text[pos].isspace():
        pos += 1
    return g.floor(pos) if pos < n else n
