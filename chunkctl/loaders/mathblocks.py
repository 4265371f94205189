"""Display math in text blocks: `$$ ... $$`, `\\[ ... \\]` and `\\begin{equation} ... \\end{equation}`
(and the other AMS display environments) become MATH blocks, which the packer keeps whole
like code.

CommonMark has no math: markdown-it-py reads a display formula as paragraph lines, so
without this pass a chunk could end after the opening `$$` and the next start inside the
formula (ragflow #8725: a cut display formula loses its `$$` lines and `\\tag` breaks
KaTeX). The delimiters follow MathJax's and KaTeX's defaults; a formula must start and
end on line boundaries (a `$$` in the middle of a prose line is inline math and stays
with its sentence). Never counts tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from chunkctl.model import Block, BlockKind, BlockList
from chunkctl.text.segment import trimmed

# AMS and LaTeX display environments (amsmath's list, starred forms included).
_ENVS = ("equation", "align", "alignat", "flalign", "gather", "multline", "eqnarray", "displaymath", "math",
         "dmath", "subequations")
_BEGIN = re.compile(r"\\begin\{(" + "|".join(_ENVS) + r")(\*?)\}")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")
# Container markers a line of a list item or block quote may start with.
_CONTAINER = re.compile(r"[ \t]*(?:>[ \t]?)*")

TEXT_KINDS = (BlockKind.PARAGRAPH, BlockKind.LIST, BlockKind.QUOTE)


def _lines(text: str, a: int, b: int) -> Iterator[tuple[int, int]]:
    """`(start, end)` of each line of `text[a:b]`, end before its line break (characters)."""
    pos = a
    while pos < b:
        m = _LINE.match(text, pos, b)
        if m is None or m.end() == pos:
            break
        e = m.end()
        content_end = e
        while content_end > pos and text[content_end - 1] in "\r\n":
            content_end -= 1
        yield pos, content_end
        pos = e


def _closer(stripped: str) -> tuple[str, int] | None:
    """(closing delimiter, length of the opening one) of display math a line opens, or None."""
    if stripped.startswith("$$"):
        return "$$", 2
    if stripped.startswith("\\["):
        return "\\]", 2
    m = _BEGIN.match(stripped)
    if m:
        return "\\end{" + m.group(1) + m.group(2) + "}", m.end()
    return None


def display_math_spans(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """Display-math regions of `text[a:b]` as `[start, end)` character spans (whole lines,
    without leading container markers or trailing white space), in order.

    An opening line (`$$`, `\\[`, `\\begin{<display env>}` after optional indentation,
    list or quote markers) is closed by the first line, the same one included, that ends
    with the matching delimiter (`$$`, `\\]`, `\\end{env}`); an opening never closed
    within the span is not math.
    """
    out: list[tuple[int, int]] = []
    lines = list(_lines(text, a, b))
    i = 0
    while i < len(lines):
        ls, le = lines[i]
        lead = _CONTAINER.match(text, ls, le)
        cs = lead.end() if lead else ls
        stripped = text[cs:le].rstrip()
        found = _closer(stripped)
        if found is None:
            i += 1
            continue
        close, opener_len = found
        # the opening line may close itself ("$$ x $$", "\[ x \]")
        j = i
        if not (len(stripped) > opener_len and stripped.endswith(close)):
            j = i + 1
            while j < len(lines):
                js, je = lines[j]
                if text[js:je].rstrip().endswith(close):
                    break
                j += 1
        if j >= len(lines):
            i += 1
            continue
        end = lines[j][0] + len(text[lines[j][0]:lines[j][1]].rstrip())
        out.append((cs, end))
        i = j + 1
    return out


def mark_display_math(text: str, blocks: Sequence[Block]) -> BlockList:
    """Blocks with their display math made atomic.

    A paragraph holding display math is split into paragraph and MATH blocks (same
    heading path); in a list or block quote, where splitting would break the item, the
    math spans are recorded in `meta["atomic"]` (list of `[start, end)` character
    spans), which the packer keeps whole and overlap never enters. Other blocks are
    returned unchanged.
    """
    if "$$" not in text and "\\[" not in text and "\\begin{" not in text:
        return blocks if isinstance(blocks, BlockList) else BlockList(blocks)
    out = BlockList()
    for blk in blocks:
        if blk.kind not in TEXT_KINDS or (text.find("$$", blk.start, blk.end) < 0
                                           and text.find("\\", blk.start, blk.end) < 0):
            out.append(blk)
            continue
        spans = display_math_spans(text, blk.start, blk.end)
        if not spans:
            out.append(blk)
            continue
        if blk.kind != BlockKind.PARAGRAPH:
            atomic = [*blk.meta.get("atomic", ()), *spans]
            atomic.sort()
            out.append(Block(blk.kind, blk.start, blk.end, blk.level, blk.headings, blk.language, blk.header,
                             blk.rows, {**blk.meta, "atomic": atomic}))
            continue
        pos = blk.start
        for s, e in spans:
            before = trimmed(text, pos, s)
            if before:
                out.append(Block(BlockKind.PARAGRAPH, *before, headings=blk.headings, meta=dict(blk.meta)))
            out.append(Block(BlockKind.MATH, s, e, headings=blk.headings))
            pos = e
        after = trimmed(text, pos, blk.end)
        if after:
            out.append(Block(BlockKind.PARAGRAPH, *after, headings=blk.headings, meta=dict(blk.meta)))
    return out
