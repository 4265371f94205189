"""Plain-text loader: decoded file -> paragraph blocks and numbered-clause headings; never counts tokens."""

from __future__ import annotations

import bisect
import heapq
import itertools
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from operator import itemgetter
from typing import Any

from chunkctl.loaders.decode import decode_bytes
from chunkctl.loaders.headings import HeadingPath, iter_wiki_headings
from chunkctl.loaders.mathblocks import mark_display_math
from chunkctl.loaders.payloads import cut_payloads
from chunkctl.loaders.pipetables import as_pipe_table
from chunkctl.loaders.registry import register
from chunkctl.model import Block, BlockKind, BlockList, Document
from chunkctl.text.lines import iter_paragraph_spans

# A paragraph separator: a line break followed by one or more blank lines, or a form feed.
PARA_SEP = re.compile(r"(?:\r\n|\r|\n)(?:[^\S\r\n\f]*(?:\r\n|\r|\n))+|[^\S\r\n\f]*\f[^\S\r\n\f]*")
_NONSPACE = re.compile(r"\S")

_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_CJK_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CJK_UNITS = {"十": 10, "百": 100, "千": 1000}

# Clause heading candidates at a line start (docs/records.md#clause-headings-in-txt).
_CLAUSE = re.compile(
    r"[^\S\r\n]*(?:"
    r"(?P<num>\d{1,3}(?:\.\d{1,3}){0,4})\.?[^\S\r\n]+(?P<title>[^\r\n]+)"
    r"|(?P<kw>Section|SECTION|Article|ARTICLE|Chapter|CHAPTER|Part|PART|Clause|CLAUSE)[^\S\r\n]+"
    r"(?P<knum>\d{1,3}(?:\.\d{1,3})*|[IVXLCDM]{1,8})\b\.?(?P<ktitle>[^\r\n]*)"
    r"|§[^\S\r\n]*(?P<snum>\d{1,3}(?:\.\d{1,3})*)\.?(?P<stitle>[^\r\n]*)"
    r"|第(?P<cnum>[0-9０-９一二三四五六七八九十百千零〇两]{1,6})[章回节節卷篇部条條](?P<ctitle>[^\r\n]*)"
    r")(?=[\r\n]|\Z)",
)
# Lines whose first visible character is 第: chapter lines ("第3章") count wherever they stand.
_CJK_CHAPTER_LINE = re.compile(r"[\r\n](?=[^\S\r\n]*第)")
# First characters of a clause number or keyword other than 第 (with any decimal digit, `str.isdecimal`).
_CLAUSE_OPENERS = frozenset("§SACP")
_DOT_LEADERS = re.compile(r"\.{3,}|(?:\. ){3,}|…{2,}|·{3,}")


def _roman(s: str) -> int:
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = _ROMAN[a]
        total += -v if b != " " and _ROMAN[b] > v else v
    return total


def _cjk_number(s: str) -> int:
    s = s.translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if s.isdigit():
        return int(s)
    total, cur = 0, 0
    for ch in s:
        if ch in _CJK_DIGITS:
            cur = _CJK_DIGITS[ch]
        elif ch in _CJK_UNITS:
            total += (cur or 1) * _CJK_UNITS[ch]
            cur = 0
    return total + cur


def _title_like(title: str, continues: bool, deep: bool = False) -> bool:
    """Title text after a clause number: short, starts like a title, not mid-sentence.

    `deep`: the number has three parts or more ("10.4.5"), which no decimal or quantity
    has, so the title may also start with a digit or a lower-case letter when a later word
    starts with a capital and it ends without a full stop ("10.4.5 404 Not Found", "3.2.2
    http URL" in an RFC; not a row of data such as "1.0.0 12 ms 15 ms", nor a sentence
    such as "2.7.18 is the last release of Python 2.").
    """
    t = title.strip().lstrip("-–—:. ").strip()
    if not t:
        return not continues
    words = t.split()
    first = t[0]
    if not (first.isalpha() and not first.islower()) and first not in "\"'“(" and not (
            deep and first.isalnum() and any(w[0].isupper() for w in words[1:]) and t[-1] not in ".!?"):
        return False
    if len(words) > 10 or t[-1] in ",;-–(":
        return False
    if continues and not (t.endswith(".") or len(words) <= 6 or t.isupper()):
        return False
    return True


def _rising(nums: Sequence[tuple[int, ...]]) -> list[int]:
    """Positions, last first, of the longest strictly rising subsequence of `nums` (a position's
    predecessor in an array: 8 bytes a candidate, not a dict entry's some 100)."""
    tails: list[tuple[int, ...]] = []
    tails_idx: list[int] = []
    prev = array("q", [-1]) * len(nums)
    for pos, num in enumerate(nums):
        k = bisect.bisect_left(tails, num)
        if k == len(tails):
            tails.append(num)
            tails_idx.append(pos)
        else:
            tails[k] = num
            tails_idx[k] = pos
        prev[pos] = tails_idx[k - 1] if k else -1
    keep: list[int] = []
    pos = tails_idx[-1] if tails_idx else -1
    while pos != -1:
        keep.append(pos)
        pos = prev[pos]
    return keep


class _Starts:
    """Sorted offsets (an array, or any iterable of them) with `in` by binary search."""

    def __init__(self, offsets: Iterable[int]):
        self.offsets: array[int] = offsets if isinstance(offsets, array) else array("q", offsets)

    def __contains__(self, x: object) -> bool:
        k = bisect.bisect_left(self.offsets, x)  # type: ignore[call-overload]
        return k < len(self.offsets) and self.offsets[k] == x


def _clause_lines(text: str, para_starts: Iterable[int]) -> Iterator[int]:
    """Line starts, in order, of the lines `find_clause_headings` tries: the line of each
    paragraph start that opens with a clause character ("1", "§", "S"ection, "A"rticle,
    "C"hapter or "C"lause, "P"art, "第") after nothing but blanks on its line, and, when
    the text holds "第", every line whose first visible character is "第".

    A clause line other than a chapter line counts only when it opens a paragraph, so
    reading these lines finds the same headings as reading every line, without a regex
    test at each of them (the paragraph starts are known; most are not candidates).
    """
    def paragraph_lines() -> Iterator[int]:
        for a in para_starts:
            ch = text[a]
            if ch not in _CLAUSE_OPENERS and ch != "第" and not ch.isdecimal():
                continue
            j = a
            while j and text[j - 1] not in "\r\n" and text[j - 1].isspace():
                j -= 1
            if not j or text[j - 1] in "\r\n":
                yield j

    lines: Iterator[int] = paragraph_lines()
    if "第" in text:
        chapters = (m.end() for m in _CJK_CHAPTER_LINE.finditer(text))
        lines = heapq.merge(lines, itertools.chain((0,), chapters))
    last = -1
    for ls in lines:
        if ls != last:
            yield ls
            last = ls


def find_clause_headings(text: str, para_starts: Iterable[int] | _Starts) -> dict[int, tuple[int, int, str]]:
    """Numbered-clause heading lines of a plain text.

    A candidate is a line of at most 80 characters that starts with a clause number
    ("1.2 Scope", "Section 4", "§ 3", "ARTICLE IV", "第3章"), is title-like, has no dot
    leaders and opens a paragraph (chapter lines "第N章" may stand anywhere); of the
    candidates of one numbering scheme, the longest rising sequence is kept.

    Args:
        text: the document text.
        para_starts: the offsets (characters) of the paragraphs' first characters, in order:
            at least those of the paragraphs that open with a decimal digit, "§", "S", "A",
            "C", "P" or "第" (the only ones a heading can start).

    Returns:
        {line start offset: (line end offset, level, heading text)}.
    """
    # Candidates as columns a scheme (line start and end, the number, equal numbers one tuple):
    # some 24 bytes a candidate; a dict entry and tuples a candidate took 77x a 20 MB text of
    # "1.1 A" lines (helper-105).
    schemes: dict[str, tuple[list[tuple[int, ...]], array, array]] = {}
    shared: dict[tuple[int, ...], tuple[int, ...]] = {}
    starts = para_starts if isinstance(para_starts, _Starts) else _Starts(para_starts)

    def matches():
        for ls in _clause_lines(text, starts.offsets):
            m = _CLAUSE.match(text, ls)
            if m:
                yield m

    num: tuple[int, ...]
    for m in matches():
        line = m.group(0)
        if len(line.strip()) > 80 or _DOT_LEADERS.search(line):
            continue
        start = m.start() + (len(line) - len(line.lstrip()))
        end = m.start() + len(line.rstrip())
        continues = m.end() < len(text) and not PARA_SEP.match(text, m.end())
        if m.group("cnum"):
            scheme, num = "chapter-cjk", (_cjk_number(m.group("cnum")),)
        else:
            if start not in starts:
                continue
            if m.group("num"):
                if not _title_like(m.group("title"), continues, m.group("num").count(".") >= 2):
                    continue
                num = tuple(int(x) for x in m.group("num").split("."))
                scheme = "numeric"
            elif m.group("kw"):
                kw = m.group("kw").lower()
                raw = m.group("knum")
                if not _title_like(m.group("ktitle") or "", continues) and (m.group("ktitle") or "").strip():
                    continue
                num = (_roman(raw),) if raw.isalpha() else tuple(int(x) for x in raw.split("."))
                scheme = kw
            else:
                if (m.group("stitle") or "").strip() and not _title_like(m.group("stitle"), continues):
                    continue
                num = tuple(int(x) for x in m.group("snum").split("."))
                scheme = "section-sign"
        nums, line_starts, line_ends = schemes.get(scheme) or schemes.setdefault(scheme, ([], array("q"), array("q")))
        nums.append(shared.setdefault(num, num))
        line_starts.append(start)
        line_ends.append(end)
    del shared
    info: dict[int, tuple[int, str, str, tuple[int, ...]]] = {}  # the kept ones: start -> (end, scheme, text, number)
    for scheme, (nums, line_starts, line_ends) in schemes.items():
        for pos in _rising(nums):
            a, b = line_starts[pos], line_ends[pos]
            info[a] = (b, scheme, text[a:b], nums[pos])
    del schemes
    used = {scheme for _, scheme, _, _ in info.values()}
    big = used & {"part", "chapter", "article"}
    out: dict[int, tuple[int, int, str]] = {}
    kw_level = 0  # numbered clauses nest under the last keyword heading ("Section 2" > "2.1")
    for s in sorted(info):
        end, scheme, stripped, num = info[s]
        if scheme == "numeric":
            level = kw_level + len(num)
        elif scheme == "part":
            level = kw_level = 1
        elif scheme in ("chapter", "article"):
            level = kw_level = 2 if "part" in used else 1
        elif scheme in ("section", "clause"):
            level = kw_level = (3 if "part" in used else 2) if big else 1
        else:
            level = 1
            kw_level = 1 if scheme == "section-sign" else kw_level
        out[s] = (end, min(level, 6), stripped)
    return out


def iter_text_blocks(text: str) -> Iterator[Block]:
    """Typed blocks of a plain text, one at a time: paragraphs, with clause and MediaWiki
    heading lines as headings (the loader's later passes take them as they come)."""
    # Two passes over the paragraphs. The first keeps only the starts of those that open
    # with a clause character, which the clause headings need (4 bytes each); the second
    # makes the blocks. Keeping every paragraph's span between the two (8 bytes each, beside
    # the blocks' columns) made the load's peak 11x a file of one-letter pages.
    starts = array("I" if len(text) < 1 << 32 else "q")
    for a, _ in iter_paragraph_spans(text):
        ch = text[a]
        if ch in _CLAUSE_OPENERS or ch == "第" or ch.isdecimal():
            starts.append(a)
    clauses = find_clause_headings(text, _Starts(starts))
    del starts
    # clause and MediaWiki heading lines in order, a clause line first where both start (as read
    # one at a time: helper-105's 20 MB of "= a =" lines, all headings, held as a dict took 29x)
    heads = heapq.merge(((s, *v) for s, v in sorted(clauses.items())), iter_wiki_headings(text), key=itemgetter(0))
    path = HeadingPath()
    headings: tuple[str, ...] = ()  # the path in force, shared by the blocks under it
    nxt = next(heads, None)
    paragraph = BlockKind.PARAGRAPH

    for a, b in iter_paragraph_spans(text):
        while nxt is not None and nxt[0] < a:
            nxt = next(heads, None)
        if nxt is None or nxt[0] >= b:  # (most paragraphs hold no heading line)
            yield Block(paragraph, a, b, headings=headings)
            continue
        pos = a
        while nxt is not None and nxt[0] < b:
            s, e, level, title = nxt
            if s > pos:
                seg_end = pos + len(text[pos:s].rstrip())
                if seg_end > pos:
                    yield Block(paragraph, pos, seg_end, headings=headings)
            headings = path.enter(level, title)
            yield Block(BlockKind.HEADING, s, e, level=level, headings=headings)
            m = _NONSPACE.search(text, e, b)
            pos = m.start() if m else b
            while nxt is not None and nxt[0] <= s:  # (a MediaWiki line where a clause line starts)
                nxt = next(heads, None)
        if pos < b:
            yield Block(paragraph, pos, b, headings=headings)


@register("txt", ".txt", ".text", sample=b"Warm up.\n")
def load_text(data: bytes, source: str, config) -> Document:
    """Load a plain-text file.

    The document text is the decoded file (BOM removed, no newline translation), so
    offsets index the file's characters. Blocks are blank-line paragraphs; form feeds
    are page breaks; numbered clause lines become headings.

    Raises:
        LoaderError: binary or undecodable file.
    """
    decoded = decode_bytes(data, source, forced=config.encoding)
    text, encoding = decoded.text, decoded.encoding
    blocks = BlockList(as_pipe_table(text, b) for b in iter_text_blocks(text))
    # display math kept whole and data-URI payloads left out, as in Markdown
    blocks, skipped = cut_payloads(text, mark_display_math(text, blocks))
    meta: dict[str, Any] = {
        "title": None,  # the registry gives the file stem
        "encoding": encoding,
    }
    if skipped:
        meta["skipped_spans"] = skipped
    doc = Document(source=source, format="txt", text=text, blocks=blocks, meta=meta)
    if decoded.warning:
        doc.warnings.append(decoded.warning)
    return doc
