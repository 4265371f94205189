"""Heading lines that are not Markdown or clause numbers (MediaWiki "== Title =="), and heading paths
(breadcrumbs); no I/O."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from chunkctl.model import Block, BlockKind, BlockList
from chunkctl.text.segment import Graphemes

TITLE_CHARS = 256
"""Characters (at most) of a heading title or document title as records carry it (`headings`, the
breadcrumb in `prefix`, `meta.title`). A longer title, such as a whole paragraph above a setext
underline or an `<h2>` or `<title>` never closed, is cut at its last white space before the limit
(or at the limit, on a grapheme-cluster boundary, when that space would halve it) and ends with
"…"; its lines stay in the chunk bodies, only the label is short. Uncut, a 110 KB heading took 50 s
to shorten into breadcrumbs (a tokenizer pass a word dropped) and was written into every record of
its section: 4.9 MB of records for 112 KB of Markdown. The longest title of the shared test corpus has 144."""
_LAST_SPACE = re.compile(r"\s+\S*\Z")

# MediaWiki section titles, also as the WikiText corpora print them with spaced signs:
# "== History ==", "= = = Music = = =". Both runs must have the same number of "=".
_WIKI = re.compile(r"[ \t]*((?:=[ \t]*){1,6})(?=[^=\s])([^\r\n]*?[^=\s])[ \t]*((?:=[ \t]*){1,6})")
_LINE = re.compile(r"[^\r\n]+")
_LINE_START_EQ = re.compile(r"[\r\n](?=[ \t]*=)")
# The same for text without "\r": a literal first character lets the regex engine skip ahead (4x faster).
_LF_START_EQ = re.compile(r"\n[ \t]*=")


def short_title(title: str) -> str:
    """`title` when it has at most `TITLE_CHARS` characters, else its first `TITLE_CHARS - 1` or fewer,
    cut at a word (see `TITLE_CHARS`), with "…" appended: at most `TITLE_CHARS` characters."""
    if len(title) <= TITLE_CHARS:
        return title
    keep = TITLE_CHARS - 1
    space = _LAST_SPACE.search(title, 0, keep + 1)
    cut = space.start() if space is not None and space.start() >= keep // 2 else keep
    clusters = Graphemes(title)
    while cut > 0 and not clusters.is_boundary(cut):
        cut -= 1
    return title[:cut].rstrip() + "…"


class HeadingPath:
    """The heading path (breadcrumb, "Warranty > Enterprise returns") in force while a
    loader reads its blocks in document order.

    A heading of level L closes the open headings of level L or deeper and opens
    itself; every block read after it, up to the next heading, carries `titles`. One
    tuple is shared by all the blocks under a heading (a file of a million one-line
    paragraphs holds one tuple per heading, not one per block).

    Attributes:
        titles: the titles of the open headings, outermost first; () before the first.
    """

    __slots__ = ("_open", "titles")

    def __init__(self) -> None:
        self._open: list[tuple[int, str]] = []  # (level, title) of the open headings, outermost first
        self.titles: tuple[str, ...] = ()

    def enter(self, level: int, title: str) -> tuple[str, ...]:
        """Read a heading of `level` (1 outermost; any int) titled `title` (kept as `short_title`
        makes it); returns the new `titles`."""
        title = short_title(title)
        stack = self._open
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        self.titles = tuple(t for _, t in stack)
        return self.titles


def wiki_headings(text: str, start: int = 0, end: int | None = None) -> dict[int, tuple[int, int, str]]:
    """MediaWiki-style heading lines of `text[start:end]` (`iter_wiki_headings`).

    Returns:
        {first character of the title line: (end of the line without trailing blanks, level, title)};
        the level is the number of "=" on each side (1-6).
    """
    return {s: (e, level, title) for s, e, level, title in iter_wiki_headings(text, start, end)}


def iter_wiki_headings(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int, int, str]]:
    """MediaWiki-style heading lines of `text[start:end]`, in order, one at a time: (first
    character of the title line, end of the line without trailing blanks, level, title), the
    level the number of "=" on each side (1-6). (A dict of them all took 29x a 20 MB text of
    "= a =" lines, helper-105: the txt loader reads them as it goes.)"""
    if end is None:
        end = len(text)
    if text.find("=", start, end) < 0:
        return
    # Only lines whose first visible character is "=" can be titles: find those first.
    # (lazily: a setext heading's underline is such a line, and a list of them took 36 bytes each,
    # 7x a file of one-letter setext headings)
    lo = max(0, start - 1)
    starts: Iterable[int]
    if text.find("\r", lo, end) < 0:
        starts = (m.start() + 1 for m in _LF_START_EQ.finditer(text, lo, end))
    else:
        starts = (m.end() for m in _LINE_START_EQ.finditer(text, lo, end))
    if text.startswith("=", start) or text[start:start + 8].lstrip(" \t").startswith("="):
        starts = itertools.chain((start,), starts)
    for pos in starts:
        line = _LINE.match(text, pos, end)
        if line is None:
            continue
        m = _WIKI.fullmatch(text, line.start(), line.end())
        if not m:
            continue
        left, right = m.group(1).count("="), m.group(3).count("=")
        title = m.group(2).strip()
        if left != right or not title or len(title) > 120:
            continue
        s = line.start() + (len(line.group()) - len(line.group().lstrip()))
        yield s, line.start() + len(line.group().rstrip()), left, title


def split_at_headings(text: str, blocks: Sequence[Block], heads: dict[int, tuple[int, int, str]]) -> BlockList:
    """Cut paragraph blocks at the given heading lines and recompute every block's heading path.

    Args:
        text: the document text.
        blocks: blocks in order (Markdown or plain-text ones).
        heads: {line start: (line end, level, title)} of extra heading lines.
    """
    if not heads:
        return blocks if isinstance(blocks, BlockList) else BlockList(blocks)
    starts = sorted(heads)
    out = BlockList()
    for b in blocks:
        inside = [s for s in starts if b.start <= s < b.end] if b.kind == BlockKind.PARAGRAPH else []
        if not inside:
            out.append(b)
            continue
        pos = b.start
        for s in inside:
            e, level, title = heads[s]
            if s > pos:
                seg = text[pos:s].rstrip()
                if seg.strip():
                    out.append(replace(b, start=pos, end=pos + len(seg)))
            out.append(Block(BlockKind.HEADING, s, e, level=level, meta={"title": title}))
            rest = text[e:b.end]
            pos = e + (len(rest) - len(rest.lstrip()))
        if pos < b.end and text[pos:b.end].strip():
            out.append(replace(b, start=pos))
    return with_paths(text, out)


def with_paths(text: str, blocks: Sequence[Block]) -> BlockList:
    """The blocks with their `headings` recomputed from the heading blocks' levels and titles."""
    path = HeadingPath()
    out = BlockList()
    for b in blocks:
        if b.kind == BlockKind.HEADING:
            title = b.meta.get("title") if b.meta else None
            if title is None:
                title = b.headings[-1] if b.headings else text[b.start:b.end].strip()
            path.enter(b.level, title)
        out.append(replace(b, headings=path.titles))
    return out
