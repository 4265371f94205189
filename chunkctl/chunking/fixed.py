"""Strategy `fixed`: sliding token windows of chunk_size with overlap, edges on grapheme boundaries."""

from __future__ import annotations

from chunkctl.chunking.packer import Packer
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import BlockIndex
from chunkctl.model import Chunk


@register("fixed", "sliding token windows of --chunk-size tokens stepping by chunk size minus --overlap; "
                   "ignores structure")
def chunk_fixed(doc, tokenizer, config, table) -> Chunked:
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
    cur = packer.tokens_before(front_end)  # nominal first token of the window
    s = _skip_space(text, g.ceil(tab.char(cur)), g)
    while s < n_text:
        path = index.headings_at(s)
        # Heading lines that open the window are left out of the breadcrumb (they are in the body).
        reach = tab.char(cur + size)
        prefix, ptoks = packer.breadcrumb(packer.breadcrumb_parts(path, index.heading_levels_within(s, reach, path)))
        room = max(1, size - ptoks)
        target = max(tab.char(cur + room), s + 1)
        e, oversize, n = packer.window_end(s, n_text, size, prefix, target=target)
        if oversize and prefix:  # the breadcrumb yields first: the window may fit without it
            prefix = ""
            e, oversize, n = packer.window_end(s, n_text, size, prefix, target=target)
        body_end = g.rstrip_end(s, e)
        if body_end <= s:
            body_end = e
        n = packer.count(s, body_end, prefix)
        while n > size and not oversize:
            # Trimming white space can add tokens ("}));\n\n" is one token, "}));" two).
            e, oversize, _ = packer.window_end(s, body_end - 1, size, prefix, target=body_end - 1)
            if oversize and prefix:
                prefix = ""
                e, oversize, _ = packer.window_end(s, body_end - 1, size, prefix, target=body_end - 1)
            body_end = g.rstrip_end(s, e)
            if body_end <= s:
                body_end = min(e, g.next(s))
            n = packer.count(s, body_end, prefix)
        out.append(Chunk(s, body_end, prefix, path, index.kind_of(s, body_end), n, size, oversize))
        if not text[e:].strip():
            break
        # Next window: `room - overlap` tokens on, never past this window's end (no gap),
        # and repeating at most `overlap` tokens of it (exact count of the shared text).
        nxt = max(cur + 1, min(cur + room - ov, packer.tokens_before(e)))
        ns = e
        if ov:
            while True:
                found = _window_start(packer, nxt, e, body_end, ov, s)
                if found is not None or nxt >= packer.tokens_before(e):
                    break
                nxt += 1
            ns = found if found is not None else e
        if ns >= e:
            nxt = max(nxt, packer.tokens_before(e))
            ns = _skip_space(text, e, g)
        cur, s = nxt, ns
    return Chunked(out)


def _window_start(packer: Packer, tok: int, e: int, body_end: int, ov: int, prev_start: int) -> int | None:
    """Where the window of nominal first token `tok` starts, or None if it breaks the overlap rule.

    The start is the token's first character with leading white space skipped, unless
    skipping it makes the text shared with the previous window encode to more than
    `ov` tokens (" violet" is one token, "violet" two): then the token's own start,
    when that is a single space before the word.
    """
    text = packer.text
    g = packer.graphemes
    raw = min(e, g.ceil(packer.table.char(tok)))
    trimmed = min(e, _skip_space(text, raw, g))
    cands = (trimmed, raw) if (raw + 1 == trimmed and text[raw] == " ") else (trimmed,)
    for cand in cands:
        if cand <= prev_start:
            continue
        if cand >= body_end or packer.count(cand, body_end) <= ov:
            return cand
    return None


def _skip_space(text: str, pos: int, g) -> int:
    """First position at or after `pos` that is not white space, on a cluster boundary."""
    n = len(text)
    while pos < n and text[pos].isspace():
        pos += 1
    return g.floor(pos) if pos < n else n
