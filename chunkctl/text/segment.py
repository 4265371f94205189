"""Where text may be cut: boundary levels, grapheme clusters and the splitters of each level (character offsets)."""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from array import array
from collections.abc import Iterator
from enum import IntEnum

import regex

from chunkctl.text.lines import Breaks, iter_paragraph_spans, paragraph_spans
from chunkctl.text.sentences import SentenceSplitter


class Level(IntEnum):
    """Strength of a boundary between two pieces; the packer prefers cutting at stronger ones.

    Order (docs/records.md#recursive-levels): section > block > blank-line paragraph > line >
    sentence > clause > word > grapheme cluster. DEFINITION ranks top-level Python
    `def`/`class` statements above blank lines inside a code block; OUTLINE, the lines of a
    code block that open a statement at its outermost indentation, above its other lines
    (`iter_outline`). GLUE marks a boundary that should only be cut when nothing else fits
    (after a heading line).
    """

    GLUE = 0
    GRAPHEME = 1
    WORD = 2
    CLAUSE = 3
    SENTENCE = 4
    LINE = 5
    OUTLINE = 6
    PARAGRAPH = 7
    DEFINITION = 8
    BLOCK = 9
    SECTION = 10




def _others(first: int, last: int) -> str:
    """Ranges (for a regex character class) of the characters from `first` to `last` whose
    grapheme-cluster break property is "Other" in the `regex` module's Unicode data (the data
    its `\\X` segments by)."""
    other = regex.compile(r"\p{Grapheme_Cluster_Break=Other}")
    out, run = [], None
    for c in range(first, last + 2):
        if c <= last and other.match(chr(c)):
            run = run if run is not None else c
        elif run is not None:
            out.append(f"\\u{run:04x}-\\u{c - 1:04x}" if c - 1 > run else f"\\u{run:04x}")
            run = None
    return "".join(out)


# Characters whose grapheme-cluster break property is "Other" or a control, and that
# never join a neighbour: a cluster boundary lies between two of them (UAX #29 GB999).
# Hebrew, Arabic and Thai letters are such (their points, harakat and vowel signs are not:
# Extend, SpacingMark, Prepend); without them a line of Arabic prose was one stretch,
# segmented whole with 4 bytes a character (helper-74: 14x its file at 18 MB).
_SIMPLE = regex.compile(
    "[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u03ff\u0400-\u0482\u048a-\u04ff\u2010-\u2027\u2030-\u205e"
    "\u3000-\u3029\u3030-\u303f\u3041-\u3096\u309b-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3"
    "\uff01-\uff9d\uffa0-\uffef" + _others(0x0590, 0x06FF) + _others(0x0E00, 0x0E7F) + "]"
)
_CLUSTER = regex.compile(r"\X")
CLUSTER_WINDOW = 1024
"""Characters of a long stretch segmented at a time (`Graphemes._segment`). `regex`'s `\\X`
looks back to the start of a run of regional indicators (flags) at each match, which made a
line of 50,000 flags take 8 s (quadratic); from its slice of the text it looks back no
further than the slice."""
# Text in which every offset is a cluster boundary: characters below U+0300 but CR (`Graphemes._sure`).
_ALL_BOUNDARIES = re.compile("[^\r\u0300-\U0010ffff]*")
_CONTROLS = "\t\n\v\f\r\x1c\x1d\x1e\x85\u2028\u2029"


class Graphemes:
    """Extended grapheme cluster boundaries (UAX #29) of one text, found locally.

    A boundary between two "simple" characters (ASCII, Latin, Greek, Cyrillic, CJK,
    Hangul syllables) or next to a control character is decided at once. Elsewhere
    the stretch between the nearest such sure boundaries is segmented once with
    `regex`'s `\\X` and remembered, so a text made only of emoji or combining marks
    costs one pass, not one scan back to the start of the stretch per question.

    At most `KEEP_RUNS` stretches are remembered: past that, only the half nearest the
    offset asked about is kept. Callers move forward through the text, so a forgotten
    stretch is seldom asked for again (and is then segmented again).
    """

    KEEP_RUNS = 1024
    """Stretches remembered at most. Each took some 100 bytes beside its boundaries: a
    text of Devanagari words among Latin ones, a stretch every few words, held 5.4 bytes
    a byte of its file when all were kept (0.1.23: 9.0x at 20 MB)."""

    __slots__ = ("text", "_run_starts", "_runs")

    def __init__(self, text: str):
        self.text = text
        self._run_starts: list[int] = []  # sorted starts of the segmented stretches
        self._runs: list[tuple[int, int, array]] = []  # (start, end, boundaries from start to end)

    def _sure(self, i: int) -> bool | None:
        """True/False when the boundary status at i is certain from its neighbours, else None."""
        t = self.text
        if i <= 0 or i >= len(t):
            return True
        a, b = t[i - 1], t[i]
        if a == "\r" and b == "\n":
            return False
        if a < "\u0300" and b < "\u0300":
            return True  # Latin-1 and Latin Extended: no marks, no joiners (controls break anyway)
        if a in _CONTROLS or b in _CONTROLS:
            return True
        if _SIMPLE.match(a) and _SIMPLE.match(b):
            return True
        return None

    def all_boundaries(self, a: int, b: int) -> bool:
        """True when every offset inside `text[a:b]` (clipped to the text) is a cluster
        boundary because the span holds only characters below U+0300 and no CR (the first
        rule of `_sure`, for a whole span at once: one regex match, no work an offset)."""
        return _ALL_BOUNDARIES.fullmatch(self.text, max(a, 0), min(b, len(self.text))) is not None

    def _run(self, i: int) -> array:
        """Cluster boundaries of the stretch around i between the nearest sure boundaries (both
        included), in an array of 4-byte ints (a list took 36 bytes a cluster: 45 MB for a 5 MB
        text of letters and joiners, which is one stretch)."""
        idx = bisect.bisect_right(self._run_starts, i) - 1
        if idx >= 0:
            a, b, bounds = self._runs[idx]
            if a <= i <= b:
                return bounds
        t = self.text
        a = i
        while a > 0 and self._sure(a) is not True:
            a -= 1
        b = i + 1
        while b < len(t) and self._sure(b) is not True:
            b += 1
        b = min(b, len(t))
        bounds = self._segment(a, b)
        bounds.append(b)
        if len(self._runs) >= self.KEEP_RUNS:  # keep the half around idx (see KEEP_RUNS)
            half = self.KEEP_RUNS // 2
            lo = max(0, min(idx + 1 - half // 2, len(self._runs) - half))
            del self._runs[lo + half:], self._run_starts[lo + half:], self._runs[:lo], self._run_starts[:lo]
            idx -= lo
        self._run_starts.insert(idx + 1, a)
        self._runs.insert(idx + 1, (a, b, bounds))
        return bounds

    def _segment(self, a: int, b: int) -> array:
        """Cluster starts in `text[a:b]` (a, b cluster boundaries), by `\\X` on slices of
        CLUSTER_WINDOW characters (doubled while one cluster fills the slice).

        Each slice but the last starts at a cluster start and gives up its last cluster,
        which the window may cut; the next slice starts there. Every rule of UAX #29 that
        looks left of a break looks only inside the cluster before it, but for regional
        indicators, which pair from the start of their run; a cluster start inside such a
        run follows an even number of them, as the start of a text does.
        """
        t = self.text
        bounds = array("i" if b < 1 << 31 else "q")
        p, w = a, CLUSTER_WINDOW
        while p < b:
            e = min(b, p + w)
            starts = [m.start() for m in _CLUSTER.finditer(t[p:e])]
            if e == b:
                bounds.extend(p + k for k in starts)
                break
            if len(starts) < 2:  # one cluster as long as the window: a larger one
                w *= 2
                continue
            bounds.extend(p + k for k in starts[:-1])
            p += starts[-1]
            w = CLUSTER_WINDOW  # (a long cluster widened the window for itself only)
        return bounds

    def is_boundary(self, i: int) -> bool:
        """True when offset i lies between two grapheme clusters."""
        s = self._sure(i)
        if s is not None:
            return s
        bounds = self._run(i)
        k = bisect.bisect_left(bounds, i)
        return k < len(bounds) and bounds[k] == i

    def floor(self, i: int) -> int:
        """The last cluster boundary at or before i."""
        if self._sure(i):
            return i
        bounds = self._run(i)
        return bounds[bisect.bisect_right(bounds, i) - 1]

    def ceil(self, i: int) -> int:
        """The first cluster boundary at or after i."""
        if self._sure(i):
            return i
        bounds = self._run(i)
        return bounds[bisect.bisect_left(bounds, i)]

    def rstrip_end(self, s: int, e: int) -> int:
        """The end of `text[s:e]` without trailing white space, on a cluster boundary (characters).

        `str.rstrip` alone can cut a cluster: a Prepend character (U+110BD) binds the
        space after it, so the end then moves forward to the boundary (at most `e`).
        """
        k = s + len(self.text[s:e].rstrip())
        return k if self.is_boundary(k) else min(self.ceil(k), e)

    def lstrip_start(self, s: int, e: int) -> int:
        """The start of `text[s:e]` without leading white space, on a cluster boundary (characters).

        A space followed by a combining mark is one cluster: the start then moves back
        to the boundary (at least `s`).
        """
        k = e - len(self.text[s:e].lstrip())
        return k if self.is_boundary(k) else max(self.floor(k), s)

    def next(self, i: int) -> int:
        """End of the cluster that starts at boundary i."""
        t = self.text
        if i >= len(t):
            return len(t)
        if i + 1 < len(t) and self._sure(i + 1):
            return i + 1
        m = _CLUSTER.match(t, i)
        return m.end() if m else i + 1


# (A form feed inside a sentence going on over a page break is not a line's end: `lines.Breaks`.)
_LINE_SEP = Breaks(re.compile(r"\r\n|\r|\n|\f|\v|\u2028|\u2029"))
_BREAKS = re.compile(r"\r\n|[\r\n\v\u2028\u2029]")  # (the breaks a line starts after: `_line_start`)
# Clause ends: `,;:` before white space; the comma, semicolon and colon of CJK (with their small and
# half-width forms), Arabic ، ؛, Armenian ՝, NKo ߸, Ethiopic ፣ ፤ ፥ ፦, Myanmar ၊, Mongolian ᠂ ᠈, Vai ꘍
# and the Tibetan shad ། ༎ end a clause with or without white space after them (but not before a digit
# without a space: "3،75" and "1،000" are numbers).
_CLAUSE_SEP = re.compile(r"(?<=[,;:])\s+|(?<=[，、；：﹐﹑﹔﹕､\u055d\u060c\u061b\u07f8\u0f0d\u0f0e\u104a\u1363-\u1366"
                         r"\u1802\u1808\ua60d])(?:\s+|(?!\d))")
# Word ends: white space, and the syllable and word marks of scripts that write no spaces between
# words: the Tibetan tsheg ་ and the Ethiopic wordspace ፡ (a cut after the mark).
# The words themselves, matched at once (the same pieces as splitting at those ends and trimming:
# no piece holds white space): a run ending at the first mark, or a run without a mark.
_WORD = re.compile(r"[^\s\u0f0b\u1361]*[\u0f0b\u1361]|[^\s\u0f0b\u1361]+")
_SPAN = re.Match.span
_SENT_END = re.compile(r"[.!?:;。！？…]['\"”’)\]」』）]*$")
_NON_WS_RUN = re.compile(r"\S+")
_NON_WS = re.compile(r"\S")  # `re`'s white space is str.isspace()'s
_COPY_LIMIT = 1 << 16
"""Spans longer than this many characters are trimmed without copying them."""
_COLUMNS = re.compile(r"\S(?:\s{3,}|\t| \| )\S")
_QUOTE_MARKS = re.compile(r"(?:>[ \t]?)+")  # a block quote's marks at a line's start
_LIST_MARK = re.compile(r"\s*(?:[-*+•▪◦‣]|\d{1,3}[.)]|[a-zA-Z][.)]|\(\w{1,3}\))\s")
# A line that opens with a bracketed label and a colon: a Markdown link reference definition
# ("[guide]: https://..."), a numbered reference ("[1]: RFC 2119"). Each is a line of its own, as a
# list item is: a run of them is not wrapped prose (0.1.34; before, the break before each read as
# soft, so chunks of a long run of definitions ended between a label and its URL).
_LABEL_MARK = re.compile(r"\[[^\]\r\n]{1,60}\]:[ \t]")


def trimmed(text: str, a: int, b: int) -> tuple[int, int] | None:
    """`[a, b)` without leading and trailing white space, or None when nothing is left."""
    if b - a > _COPY_LIMIT:  # no copies of a long span (same result)
        m = _NON_WS.search(text, a, b)
        if m is None:
            return None
        while text[b - 1].isspace():
            b -= 1
        return m.start(), b
    seg = text[a:b]
    s = seg.lstrip()
    if not s:
        return None
    a2 = a + (len(seg) - len(s))
    return a2, a2 + len(s.rstrip())


def _split_by(pattern: re.Pattern | Breaks, text: str, a: int, b: int) -> list[tuple[int, int]]:
    out = []
    pos = a
    for m in pattern.finditer(text, a, b):
        if m.start() > pos:
            t = trimmed(text, pos, m.start())
            if t:
                out.append(t)
        pos = max(pos, m.end())
    if pos < b:
        t = trimmed(text, pos, b)
        if t:
            out.append(t)
    return out


def _iter_split_by(pattern: re.Pattern | Breaks, text: str, a: int, b: int) -> Iterator[tuple[int, int]]:
    """`_split_by` one piece at a time."""
    pos = a
    for m in pattern.finditer(text, a, b):
        if m.start() > pos:
            t = trimmed(text, pos, m.start())
            if t:
                yield t
        pos = max(pos, m.end())
    if pos < b:
        t = trimmed(text, pos, b)
        if t:
            yield t


def split_paragraphs(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """Blank-line (or form-feed) separated paragraphs of `text[a:b]`."""
    return paragraph_spans(text, a, b)


def _soft_break(text: str, a: int, b: int, ps: int, pe: int, s: int, e: int, prev_width: int, wrap: int) -> bool:
    """Whether the break between the line (so far) `[ps, pe)` and the line `[s, e)` is soft (see split_lines).

    `prev_width` is the width of the line before the break (characters from its line
    start), `wrap` the span's wrap width; `[a, b)` is the span.
    """
    prev_start = _line_start(text, ps, pe)
    next_start = _line_start(text, a, s)
    # Lines of a block quote ("> text") wrap as prose does: their words start after the marks.
    quoted = _QUOTE_MARKS.match(text, s, e) if text[s] == ">" else None
    prev_ink = _NON_WS.search(text, prev_start, pe) if quoted is not None else None
    if quoted is not None and prev_ink is not None and text[prev_ink.start()] == ">":
        s = next_start = quoted.end()
    if (_SENT_END.search(text, max(ps, pe - 8), pe) or _COLUMNS.search(text, prev_start, pe)
            or s >= e or _LIST_MARK.match(text, next_start, min(b, s + 8))
            or (text[s] == "[" and _LABEL_MARK.match(text, s, min(b, s + 64)))):
        return False
    m = _NON_WS_RUN.match(text, s, e)
    first_word = (m.end() - s) if m else e - s
    if prev_width + 1 + first_word > wrap:  # a greedy wrapper could not have kept the word up there
        return True
    return _continues(text, prev_start, pe, s, prev_width, wrap)


_WORD_GAP = re.compile(r"\S\s+(?=\S)")


def _continues(text: str, prev_start: int, pe: int, s: int, prev_width: int, wrap: int) -> bool:
    """Whether the line starting at `s` reads as the continuation of a filled prose line
    `[prev_start, pe)`: the line before is well filled (at least 60% of the wrap width, four
    words or more), and the next one starts with a lower-case letter at no deeper indent
    than the line before's text (a hanging indent of up to 4 columns is allowed, as in
    list items and definitions). Editors and formatters that fill paragraphs do not always
    wrap greedily (RFCs, nroff, Knuth-Plass filling): "headers. A feature of HTTP is" +
    "the typing ..." is one sentence going on, so a sentence end must win over that break.
    """
    if prev_width < 0.6 * wrap or not text[s].islower():
        return False
    if len(_WORD_GAP.findall(text, prev_start, pe)) < 3:
        return False
    first = _NON_WS.search(text, prev_start, pe)
    indent_prev = (first.start() if first else pe) - prev_start
    indent_next = s - _line_start(text, prev_start, s)
    return indent_next <= indent_prev + 4


def split_lines(text: str, a: int, b: int, prose: bool = True) -> list[tuple[int, int]]:
    """Lines of `text[a:b]`; for prose, soft line breaks (hard-wrapped text) are not boundaries.

    A break is soft when it looks made by a word-wrapping editor: the first word of
    the next line would not have fitted on the line before it within the span's widest
    line (greedy wrapping, 30-200 columns), the line before it does not end a sentence
    or a clause and is not laid out in columns (" | ", tabs, runs of spaces), and the
    next line does not open a list item or a labelled line ("[label]: ", `_LABEL_MARK`).
    Wrapped prose then splits at sentences instead of at line ends, while tables, logs and
    lists keep their lines.
    """
    lines = _split_by(_LINE_SEP, text, a, b)
    if not prose or len(lines) < 2:
        return lines
    widths = [e - _line_start(text, a, s) for s, e in lines]
    wrap = max(widths)
    if not 30 <= wrap <= 200:
        return lines
    out = [lines[0]]
    prev_width = widths[0]
    for (s, e), width in zip(lines[1:], widths[1:]):
        ps, pe = out[-1]
        if _soft_break(text, a, b, ps, pe, s, e, prev_width, wrap):
            out[-1] = (ps, e)
        else:
            out.append((s, e))
        prev_width = width
    return out


def line_wrap(text: str, a: int, b: int) -> int | None:
    """The wrap width `split_lines` finds in prose `text[a:b]` (its widest line), or None
    when it keeps every line break (fewer than two lines, or no width of 30-200 columns).

    A span of up to _COPY_LIMIT characters is measured with string methods: the widest
    line is the longest line (split at CR, LF and CR LF) without its trailing white space,
    and there are two lines or more when a line break lies between two visible characters.
    A longer one is read a line at a time, without a list of its lines.
    """
    if b - a <= _COPY_LIMIT:
        seg = text[a:b]
        if not _LINE_SEP.search(seg.strip()):
            return None
        wrap = max(map(len, map(str.rstrip, _BREAKS.split(seg))))
        return wrap if 30 <= wrap <= 200 else None
    wrap = -1
    lines = 0
    for s, e in _iter_split_by(_LINE_SEP, text, a, b):
        lines += 1
        wrap = max(wrap, e - _line_start(text, a, s))
    return wrap if lines >= 2 and 30 <= wrap <= 200 else None


def iter_split_lines(text: str, a: int, b: int, prose: bool = True) -> Iterator[tuple[int, int]]:
    """`split_lines` one line at a time (two passes over the range: the widest line, then
    the lines), without lists of the range's lines."""
    wrap = line_wrap(text, a, b) if prose else None
    if wrap is None:
        yield from _iter_split_by(_LINE_SEP, text, a, b)
        return
    cur: tuple[int, int] | None = None
    prev_width = 0
    for s, e in _iter_split_by(_LINE_SEP, text, a, b):
        width = e - _line_start(text, a, s)
        if cur is None:
            cur = (s, e)
            prev_width = width
            continue
        ps, pe = cur
        if _soft_break(text, a, b, ps, pe, s, e, prev_width, wrap):
            cur = (ps, e)
        else:
            yield cur
            cur = (s, e)
        prev_width = width
    if cur is not None:
        yield cur


def hard_line_starts(text: str, a: int, b: int, lo: int, hi: int, prose: bool, wrap: int | None) -> list[int]:
    """Starts `s` with `lo < s < hi` of the lines `split_lines(text, a, b, prose)` gives, found
    by reading the lines near `[lo, hi)` only (the same starts; tests check it).

    `wrap` is the span's wrap width (`line_wrap(text, a, b)`), computed once per span by
    the caller. Whether a line break is soft depends on the line before it and the one after
    (`_soft_break`), and on the line before's own break only when that line is indented
    (its indentation counts once it is joined to the line above): reading starts at the
    nearest line above `lo` that begins at its first column, or at `a`.
    """
    if not prose or wrap is None:
        start = _line_start(text, a, max(a, lo))
        return [s for s, _e in _iter_split_by(_LINE_SEP, text, start, min(hi, b)) if lo < s < hi]
    pos = max(a, lo)
    while True:  # the nearest line at or above `lo` that starts with a visible character
        start = _line_start(text, a, pos)
        if start <= a:
            start = a
            break
        if not text[start].isspace():
            break
        pos = start - 1
    out: list[int] = []
    cur: tuple[int, int] | None = None
    prev_width = 0
    for s, e in _iter_split_by(_LINE_SEP, text, start, b):
        if s >= hi:
            break
        width = e - _line_start(text, a, s)
        if cur is None:
            if lo < s:
                out.append(s)  # the span's first line (reading began at `a`)
        elif _soft_break(text, a, b, cur[0], cur[1], s, e, prev_width, wrap):
            cur = (cur[0], e)
            prev_width = width
            continue
        elif lo < s:
            out.append(s)
        cur = (s, e)
        prev_width = width
    return out


# The breaks `_LINE_SEP` splits lines at, less the form feed (a page break, which may fall inside a
# sentence: `Breaks`): a line starts after any of them. Until 0.1.34 only after CR or LF, so in
# text whose lines end with "\v" (Word's soft returns in a plain-text export), U+2028 or U+2029,
# every line's start was searched back to the start of the span: quadratic (helper-114: 160 KB
# of "a\v" lines took 50 s, a few MB passed the time limit).
_LINE_BREAK_REV = regex.compile(r"[\r\n\v\u2028\u2029]", flags=regex.REVERSE)


def _line_start(text: str, lo: int, pos: int) -> int:
    """Start of the line holding `pos` (not before `lo`), found scanning back from `pos`: after
    the last line break (CR, LF, vertical tab, U+2028, U+2029; not a form feed).

    One backward scan: `str.rfind` for "\n" and then "\r" would each run back to `lo`
    in text that lacks one of them, which made long wrapped paragraphs quadratic.
    """
    m = _LINE_BREAK_REV.search(text, lo, pos)
    return lo if m is None else m.end()


def split_clauses(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """Clauses: pieces after `,;:` followed by white space, or after the clause marks of other scripts
    (CJK `，、；：`, Arabic `، ؛`, Tibetan `།`, ...: `_CLAUSE_SEP`)."""
    return _split_by(_CLAUSE_SEP, text, a, b)


def split_words(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """Runs of non-white-space characters, also cut after a Tibetan tsheg or an Ethiopic wordspace
    (other scripts without spaces give one piece)."""
    return list(map(_SPAN, _WORD.finditer(text, a, b)))


def iter_words(text: str, a: int, b: int) -> Iterator[tuple[int, int]]:
    """`split_words` one piece at a time (character offsets)."""
    return map(_SPAN, _WORD.finditer(text, a, b))


PY_WINDOW = 1 << 16
"""Characters of Python parsed at a time in a longer code block (`_python_starts_long`)."""
# A line that may start a top-level statement: at column 0, a name or a decorator, not a clause
# that goes on a compound statement (else, elif, except, finally). Windows ended only at `def`,
# `class` and `@` lines: a long block of plain statements was one window, whose syntax tree took
# some 170 bytes a character (helper-56: 6.6 MB of assignments in a ```python block, 1.19 GB).
_PY_TOP = re.compile(r"(?<=[\r\n])(?!(?:else|elif|except|finally)\b)[A-Za-z_@]")
_PY_LINE = re.compile(r"\r\n|\r|\n")
_LINE_ANY = regex.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")  # str.splitlines' breaks
_LINE_ANY_REV = regex.compile(_LINE_ANY.pattern, flags=regex.REVERSE)
_FENCE_END = re.compile(r"\s*[`~]*\s*")


def split_python(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """Top-level statements of a Python code block (a fenced block: fence lines stay with their neighbours).

    Pieces start at each top-level `def`/`class` (decorators included); everything
    else stays with the preceding piece. Code that does not parse gives one piece.
    A block longer than PY_WINDOW characters is parsed a window at a time (same pieces;
    the syntax tree of the whole would take about 130 bytes a character).
    """
    if b - a > PY_WINDOW:
        body_start, body_end = _python_body(text, a, b)
        found = _python_starts_long(text, body_start, body_end)
        if found is None:
            return [(a, b)]
        cuts = found
    else:
        seg = text[a:b]
        lines = seg.splitlines(keepends=True)
        offset = 0
        fence_open = 0
        body = seg
        if lines and (lines[0].lstrip().startswith("```") or lines[0].lstrip().startswith("~~~")):
            fence_open = len(lines[0])
            body = seg[fence_open:]
            if lines[-1].strip().strip("`~") == "" and len(lines) > 1:
                body = body[: len(body) - len(lines[-1])]
        offset = a + fence_open
        try:
            tree = ast.parse(body.replace("\r\n", "\n").replace("\r", "\n"))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return [(a, b)]
        starts = []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                line = min([node.lineno] + [d.lineno for d in node.decorator_list])
                starts.append(line)
        if not starts:
            return [(a, b)]
        line_offsets = [0]
        for m in re.finditer(r"\r\n|\r|\n", body):
            line_offsets.append(m.end())
        cuts = sorted({offset + line_offsets[ln - 1] for ln in starts if 1 < ln <= len(line_offsets)})
    out = []
    pos = a
    for c in cuts:
        t = trimmed(text, pos, c)
        if t:
            out.append(t)
        pos = c
    t = trimmed(text, pos, b)
    if t:
        out.append(t)
    return out


def _python_body(text: str, a: int, b: int) -> tuple[int, int]:
    """The code of the block `text[a:b]` without its fence lines, as `split_python` takes it
    (lines as `str.splitlines` counts them), found without copying the block."""
    m = _LINE_ANY.search(text, a, b)
    first_end = m.end() if m else b
    m = _NON_WS.search(text, a, first_end)
    if m is None or not text.startswith(("```", "~~~"), m.start()):
        return a, b
    m = _LINE_ANY_REV.search(text, a, b)
    if m is not None and m.end() == b:  # the block ends with a line break: its last line ends there
        m = _LINE_ANY_REV.search(text, a, m.start())
    last_start = m.end() if m is not None else a
    if last_start > a and _FENCE_END.fullmatch(text, last_start, b):
        return first_end, last_start
    return first_end, b


def _python_starts_long(text: str, lo: int, hi: int) -> list[int] | None:
    """Offsets of the lines that start top-level `def`/`class` statements (decorators
    included) in the Python code `text[lo:hi]`, except its first line; None when the code
    does not parse. Sorted.

    Parsed in windows of about PY_WINDOW characters that end where a line opens at column 0
    with a name or `@` (not `else`, `elif`, `except` or `finally`). Such a line may fall
    inside a string or brackets; then the window does not parse and is doubled until it
    does. Windows that each parse are whole statements, so the code parses exactly when
    every window does, and its top-level statements are theirs (`ast.parse` checks grammar
    only).
    """
    lines: list[int] = []  # line numbers (1 = the first line of the code)
    x, line0 = lo, 0
    while x < hi:
        size = PY_WINDOW
        while True:
            m = _PY_TOP.search(text, x + size, hi) if hi - x > size else None
            y = m.start() if m is not None else hi
            seg = text[x:y].replace("\r\n", "\n").replace("\r", "\n")
            try:
                tree = ast.parse(seg)
                break
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                if y >= hi:
                    return None
                size *= 2
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                lines.append(line0 + min([node.lineno] + [d.lineno for d in node.decorator_list]))
        del tree
        line0 += seg.count("\n")
        del seg
        x = y
    if not lines:
        return None
    want = sorted({ln for ln in lines if ln > 1})
    out: list[int] = []
    k = 0
    line = 1
    for m in _PY_LINE.finditer(text, lo, hi):
        line += 1
        while k < len(want) and want[k] < line:
            k += 1
        if k == len(want):
            break
        if want[k] == line:
            out.append(m.end())
    return out


# A code line that goes on the statement before it rather than opening one: a closing bracket,
# a clause keyword (`else`, `except`, `end`, `fi`, ...), a closing tag, or a fence line.
_OUTLINE_CONT = re.compile(r"[}\])]|</|[`~]{3}|(?:else|elif|except|finally|catch|end|fi|done|esac|then|do|"
                           r"until|rescue|ensure|when|case|default)\b")
# A code line that belongs with the line after it: a comment or a decorator (`#`, `//`, `/*`, `*`,
# `--`, `;`, `%`, `<!--`, `@`).
_OUTLINE_LEAD = re.compile(r"#|//|/\*|\*|--|;|%|<!--|@")
_INDENT = re.compile(r"[ \t]*")


def _ink(text: str, s: int, b: int) -> int:
    """The first character after the spaces and tabs that start the line at `s` (`b` at most)."""
    m = _INDENT.match(text, s, b)
    return m.end() if m is not None else s


def iter_outline(text: str, a: int, b: int) -> Iterator[tuple[int, int]]:
    """Pieces of the code `text[a:b]`, cut before each line that opens a statement at the code's
    outermost indentation (trimmed, in order, covering all non-white-space; character offsets).

    The outermost indentation is the least of its non-blank lines' (spaces and tabs, counted
    as characters; fence lines left out). A line at it opens a statement unless it goes on the
    one before (`_OUTLINE_CONT`: `}`, `)`, `else`, `except`, `end`, a closing tag, a fence) or
    the line above it is a comment or decorator at that indentation, or the opening fence
    (`_OUTLINE_LEAD`: they stay with what they introduce). So a function, a class or a
    top-level statement of any language is cut from the next one before a line inside it is;
    a piece too big alone is cut between lines next (`Level.LINE`). Two passes over the lines, no list of them: a 50 MB block is
    read as it is taken. The idea of cutting code at its outermost constructs first is
    LangChain's language-aware `RecursiveCharacterTextSplitter` separators ("\nclass ",
    "\ndef ", "\nfunction ", ...), here found from the indentation for any language.
    """
    def line_starts() -> Iterator[int]:
        return itertools.chain((a,), (m.end() for m in _PY_LINE.finditer(text, a, b)))

    least = -1
    for s in line_starts():
        ink = _ink(text, s, b)
        if ink >= b or text[ink] in "\r\n" or text.startswith(("```", "~~~"), ink):
            continue
        if least < 0 or ink - s < least:
            least = ink - s
            if least == 0:
                break
    pos = a
    lead = False  # the last non-blank line was a comment or decorator at the outermost indentation
    for k, s in enumerate(line_starts()):
        ink = _ink(text, s, b)
        if ink >= b or text[ink] in "\r\n":
            continue
        if k == 0 and text.startswith(("```", "~~~"), ink):
            lead = True  # (the opening fence line goes with the first statement)
            continue
        if ink - s != least:
            lead = False
            continue
        opens = not _OUTLINE_CONT.match(text, ink)
        if k and opens and not lead and s > pos:
            t = trimmed(text, pos, s)
            if t:
                yield t
            pos = s
        lead = bool(_OUTLINE_LEAD.match(text, ink))
    t = trimmed(text, pos, b)
    if t:
        yield t


class Splitters:
    """The splitter of each level for one document; sentence segmentation is shared."""

    def __init__(self, text: str, sentence_splitter: SentenceSplitter):
        self.text = text
        self.sentences = sentence_splitter

    def split(self, level: Level, a: int, b: int, prose: bool = True) -> list[tuple[int, int]]:
        """Pieces of `text[a:b]` at `level` (trimmed, in order, covering all non-white-space)."""
        t = self.text
        if level == Level.PARAGRAPH:
            return split_paragraphs(t, a, b)
        if level == Level.LINE:
            return split_lines(t, a, b, prose)
        if level == Level.SENTENCE:
            return self.sentences.spans(t, a, b)
        if level == Level.CLAUSE:
            return split_clauses(t, a, b)
        if level == Level.WORD:
            return split_words(t, a, b)
        if level == Level.DEFINITION:
            return split_python(t, a, b)
        if level == Level.OUTLINE:
            return list(iter_outline(t, a, b))
        raise ValueError(f"no splitter for level {level!r}")

    def iter(self, level: Level, a: int, b: int, prose: bool = True) -> Iterator[tuple[int, int]]:
        """`split` one piece at a time: for a range over ITER_SPAN characters the pieces are
        found as they are taken (a one-line word list of 50 MB is millions of pieces)."""
        if b - a <= ITER_SPAN or level == Level.DEFINITION:
            return iter(self.split(level, a, b, prose))
        t = self.text
        if level == Level.PARAGRAPH:
            return iter_paragraph_spans(t, a, b)
        if level == Level.LINE:
            return iter_split_lines(t, a, b, prose)
        if level == Level.SENTENCE:
            return self.sentences.iter_spans(t, a, b)
        if level == Level.CLAUSE:
            return _iter_split_by(_CLAUSE_SEP, t, a, b)
        if level == Level.WORD:
            return iter_words(t, a, b)
        if level == Level.OUTLINE:
            return iter_outline(t, a, b)
        raise ValueError(f"no splitter for level {level!r}")


ITER_SPAN = 1 << 16
"""Ranges longer than this many characters are split lazily (`Splitters.iter`)."""
