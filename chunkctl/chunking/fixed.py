"""Strategy `fixed`: sliding token windows of chunk_size with overlap, edges on grapheme boundaries."""

from __future__ import annotations

from chunkctl.chunking.packer import Packer
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import BlockIndex
from chunkctl.model import Chunk

# How many windows back `make_room` may shorten to let the next window start on its token.
_BACK = 8


@register("fixed", "sliding token windows of --chunk-size tokens stepping by chunk size minus --overlap; "
                   "ignores structure")
def chunk_fixed(doc, tokenizer, config, table) -> Chunked:
    """Fixed-size token windows over the whole document text.

    Window i nominally starts `chunk_size - overlap` tokens after window i-1 (in the
    document's own tokenization; docs/records.md, "Sizes and overlap") and holds up
    to `chunk_size` tokens including the breadcrumb prefix. Every window:

    - starts and ends on a grapheme-cluster boundary, with white space at both edges
      trimmed (a body starts or ends with white space only when that white space is
      part of a cluster with a mark, e.g. a space followed by U+0301);
    - is within the budget by exact count (shrunk where snapping or trimming would
      push it over); only a lone cluster over the budget is `oversize`;
    - starts after the previous window's start and ends after its end, so no window
      lies inside the previous one;
    - starts on its own token: where the text shared with the previous window would
      exceed `overlap` tokens once the leading space is trimmed (" violet" is one
      token, "violet" two), the previous window ends a token or more earlier
      (`make_room`); only where that cannot work (a cluster bigger than the step, e.g.
      an emoji family at a large overlap) does the start move on, token by token;
    - leaves no gap: it starts at or before the first non-white-space character after
      the previous window, and the text it shares with the previous window encodes to
      at most `overlap` tokens (the overlap rule, docs/records.md "Overlap limit").

    The loop stops at the window that reaches the end of the text (no redundant tail
    window). Front matter is skipped.
    """
    w = _Windows(Packer(doc, tokenizer, config, table), BlockIndex(doc.blocks))
    text = doc.text
    front_end = max((b.end for b in doc.blocks if b.kind.value == "front_matter"), default=0)
    cur = w.packer.tokens_before(front_end)  # nominal first token of the window
    s = w.skip_space(w.graphemes.ceil(w.table.char(cur)))
    out: list[Chunk] = []
    if s >= len(text):
        return Chunked(out)
    chunk, e, room = w.window(s, cur)
    ink_end = len(text.rstrip())  # (testing `text[e:].strip()` copied the rest at every window: quadratic)
    while True:
        out.append(chunk)
        if e >= ink_end:
            break
        if w.overlap:
            e = w.make_room(out, w.step(cur, room, e), e)
        cur, chunk, e, room = w.next_window(out[-1], e, cur, room)
    skipped = doc.meta.get("skipped_spans")
    if skipped:
        out = w.clip(out, skipped)
    return Chunked(out)


class _Windows:
    """Window arithmetic of one document for `chunk_fixed` (characters and document tokens)."""

    def __init__(self, packer: Packer, index: BlockIndex):
        self.packer = packer
        self.index = index
        self.text = packer.text
        self.graphemes = packer.graphemes
        self.table = packer.table
        self.size = packer.budget
        self.overlap = packer.overlap
        self._space = (-1, -1)  # the last white-space run `skip_space` crossed: [start, first other character)

    def clip(self, windows: list[Chunk], skipped: list[tuple[int, int]]) -> list[Chunk]:
        """Windows with the skipped spans (data-URI payloads, docs/records.md) cut out.

        A window holding a payload becomes its parts on either side (white space trimmed,
        counted again with its prefix); parts that lie inside the part before them go,
        so starts still rise, nothing else is lost and shared text only shrinks.
        """
        import bisect

        spans = sorted(skipped)
        starts = [a for a, _b in spans]
        g, p = self.graphemes, self.packer
        parts: list[Chunk] = []
        for c in windows:
            lo = bisect.bisect_left(starts, c.start) - 1
            inside = [(a, b) for a, b in spans[max(0, lo):] if a < c.end and b > c.start]
            if not inside:
                parts.append(c)
                continue
            pos = c.start
            for a, b in [*inside, (c.end, c.end)]:
                stop = min(a, c.end)
                ps, pe = (g.lstrip_start(pos, stop), g.rstrip_end(pos, stop)) if stop > pos else (pos, pos)
                if pe > ps:
                    parts.append(Chunk(ps, pe, c.prefix, c.headings, self.index.kind_of(ps, pe),
                                       p.count(ps, pe, c.prefix), c.budget))
                pos = max(pos, b)
        out: list[Chunk] = []
        for c in sorted(parts, key=lambda x: (x.start, -x.end)):
            if out and c.end <= out[-1].end:
                continue  # inside the part before it
            if out and c.start == out[-1].start:
                out[-1] = c
                continue
            out.append(c)
        return out

    def skip_space(self, pos: int) -> int:
        """First position at or after `pos` that is not white space, on a cluster boundary.

        The last run of white space crossed is remembered: the windows' candidate starts
        step through a long run token by token, and scanning it again from each made a
        line of 20,000 no-break spaces take 5 s (quadratic; helper-78).
        """
        text = self.text
        n = len(text)
        a, b = self._space
        start = pos
        if a <= pos <= b:
            pos = b
        else:
            while pos < n and text[pos].isspace():
                pos += 1
            self._space = (start, pos)
        return self.graphemes.floor(pos) if pos < n else n

    def _prefix(self, path: tuple[str, ...], s: int, end: int) -> tuple[str, int]:
        """Breadcrumb of `path`, without the headings whose own lines start in `[s, end)`."""
        p = self.packer
        return p.breadcrumb(p.breadcrumb_parts(path, self.index.heading_levels_within(s, end, path)))

    def window(self, s: int, cur: int) -> tuple[Chunk, int, int]:
        """The window that starts at character `s` (nominal first token `cur`).

        Returns:
            (chunk, raw end, room): `raw end` is where the window's text stops before its
            trailing white space is trimmed (characters); `room` is the tokens of body
            the window was aimed at (budget minus breadcrumb).
        """
        p, g, size, n_text = self.packer, self.graphemes, self.size, len(self.text)
        reach = self.table.char(cur + size)
        path = self.index.headings_at(s, max(reach, s + 1))
        prefix, ptoks = self._prefix(path, s, reach)
        room = max(1, size - ptoks)
        target = max(self.table.char(cur + room), s + 1)
        e, oversize, _ = p.window_end(s, n_text, size, prefix, target=target)
        if oversize and prefix:  # the breadcrumb yields first: the window may fit without it
            prefix = ""
            e, oversize, _ = p.window_end(s, n_text, size, prefix, target=target)
        body_end = g.rstrip_end(s, e)
        if body_end <= s:
            body_end = e
        chunk = self._settle(s, body_end, prefix, oversize)
        if chunk.end < body_end:  # settling shrank it: the text after it is still to come
            e = chunk.end
        return chunk, max(e, chunk.end), room

    def _settle(self, s: int, body_end: int, prefix: str, oversize: bool) -> Chunk:
        """The window `[s, body_end)` (trimmed end) with its final heading path, breadcrumb
        and exact count, shrunk until it fits the budget."""
        p, g, size = self.packer, self.graphemes, self.size
        yielded = False  # the breadcrumb gave way to a window that cannot shrink
        while True:
            # The heading path comes from what the window holds, never from a heading
            # that starts after it (a window of heading lines only: its first heading's path).
            path = self.index.headings_at(s, body_end)
            if not oversize and not yielded:
                prefix, _ = self._prefix(path, s, body_end)
            n = p.count(s, body_end, prefix)
            if n <= size or oversize:
                break
            # Trimming white space can add tokens ("}));\n\n" is one token, "}));" two);
            # a longer breadcrumb for the final path can too: shrink the window.
            e, oversize, _ = p.window_end(s, body_end - 1, size, prefix, target=body_end - 1)
            if oversize and prefix:
                prefix = ""
                yielded = True
                e, oversize, _ = p.window_end(s, body_end - 1, size, prefix, target=body_end - 1)
            new_end = g.rstrip_end(s, e)
            body_end = new_end if new_end > s else min(e, g.next(s))
        return Chunk(s, body_end, prefix, path, self.index.kind_of(s, body_end), n, size, oversize)

    def step(self, cur: int, room: int, e: int) -> int:
        """Nominal first token of the window after one of nominal first token `cur`, aimed at
        `room` body tokens and ending (untrimmed) at character `e`: `room - overlap` tokens
        on, never past the first token at or after `e` (no gap), at least one token on."""
        return max(cur + 1, min(cur + room - self.overlap, self.packer.tokens_before(e)))

    def make_room(self, out: list[Chunk], tok: int, e: int) -> int:
        """Let the next window start at token `tok` by ending the last windows earlier.

        The next window starts at token `tok` with its leading white space trimmed; the
        text it then shares with `out[-1]` can encode to more tokens than it did with the
        space (" violet" is one token, "violet" two), over the overlap. Rather than skip
        that start, `out[-1]` ends a token or more earlier, and so does the window
        before it when `out[-1]` would otherwise end inside it (at most `_BACK` windows
        back). Ends stay after the next start (no gap) and strictly increasing.

        Returns:
            the raw end of `out[-1]` (unchanged when nothing needed to, or could, change;
            `next_window` then moves the next start on instead).
        """
        p, g, ov = self.packer, self.graphemes, self.overlap
        last = out[-1]
        raw = g.ceil(self.table.char(tok))
        ns = self.skip_space(raw)
        if ns == raw:  # nothing trimmed: when the token alone repeats too much, the start moves on
            return e
        if last.oversize or ns <= last.start or ns >= last.end or p.count(ns, last.end) <= ov:
            return e
        saved = list(out[-_BACK:])
        for end in self._ends(last, ns, last.end):
            if p.count(ns, end) > ov:
                continue
            if self._end_before(out, len(out) - 1, end, ns, _BACK) and p.count(ns, out[-1].end) <= ov:
                return out[-1].end
            break
        out[-len(saved):] = saved
        return e

    def _ends(self, chunk: Chunk, next_start: int, below: int):
        """Trimmed ends of `chunk` at document-token starts before `below`, latest first,
        none before `next_start` (the next window's start: no gap)."""
        p, g = self.packer, self.graphemes
        k = p.tokens_before(below) - 1
        while k > 0:
            end = g.rstrip_end(chunk.start, g.floor(self.table.char(k)))
            k -= 1
            if end <= chunk.start or end < next_start:
                return
            if end < below:
                yield end

    def _end_before(self, out: list[Chunk], j: int, bound: int, next_start: int, depth: int) -> bool:
        """Make `out[j]` end at or before `bound` (and after `next_start`, after `out[j-1]`'s end).

        Windows before it are shortened in turn when needed (up to `depth` of them).
        """
        chunk = out[j]
        if chunk.end <= bound:
            return True
        if chunk.oversize or depth <= 0:
            return False
        lo = out[j - 1].end if j > 0 else chunk.start
        for end in self._ends(chunk, next_start, bound + 1):
            shorter = self._settle(chunk.start, end, chunk.prefix, False)
            if shorter.end < next_start or shorter.end > bound:
                continue
            if shorter.end <= lo:
                if j == 0 or not self._end_before(out, j - 1, shorter.end - 1, chunk.start, depth - 1):
                    return False
            out[j] = shorter
            return True
        return False

    def next_window(self, prev: Chunk, e: int, cur: int, room: int) -> tuple[int, Chunk, int, int]:
        """The window after `prev` (raw end `e`, nominal first token `cur`, aimed at `room` body tokens).

        Candidates are the starts of tokens from `cur + room - overlap` on (white space
        skipped), then the first non-white-space character after `prev`; the first one
        that repeats at most `overlap` tokens of `prev` and whose window ends after
        `prev` ends is taken. The last candidate always qualifies.

        Returns:
            (nominal first token, chunk, raw end, room) of the new window.
        """
        p, g = self.packer, self.graphemes
        s, body_end = prev.start, prev.end
        gap_free = self.skip_space(body_end)  # starting later would leave a gap
        # no overlap across a heading or into code, table or formula lines
        floor = min(gap_free, self.skip_space(g.ceil(self.index.overlap_floor(s, body_end, self.text))))
        last_tok = p.tokens_before(e)  # the first token that starts at or after this window's raw end
        tok = self.step(cur, room, e)
        while tok < last_tok:
            cand = min(gap_free, max(floor, self.skip_space(g.ceil(self.table.char(tok)))))
            if cand >= gap_free:
                break
            if cand > s and (cand >= body_end or p.count(cand, body_end) <= self.overlap):
                if cand == floor and floor > s:
                    tok = max(tok, p.tokens_before(cand))  # aim the window from where it starts
                chunk, e, r = self.window(cand, tok)
                if chunk.end > body_end:
                    return tok, chunk, e, r
            tok += 1
        tok = max(tok, last_tok)
        chunk, e, r = self.window(gap_free, tok)
        return tok, chunk, e, r
