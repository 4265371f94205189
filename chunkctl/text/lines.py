"""Line and paragraph breaks of raw text (CRLF, CR, LF, form feed), shared by loaders and chunkers; no I/O."""

from __future__ import annotations

import heapq
import itertools
import re
import sys
from array import array
from collections.abc import Iterator

# A paragraph break: a line break followed by one or more blank lines.
_BLANK_ANY = re.compile(r"(?:\r\n|\r|\n)(?:[^\S\r\n\f]*+(?:\r\n|\r|\n))++")
# The same for files with a single line-end style: a literal first character lets the
# regex engine skip ahead quickly (about 10x faster on a 3 MB novel). The quantifiers are
# possessive (nothing after them could need a shorter run): a greedy group kept about 150
# bytes of backtracking state a line, 300 MB on a 2 MB file of blank lines (a helper's find).
_BLANK_LF = re.compile(r"\n(?:[^\S\r\n\f]*+\n)++")
_BLANK_CR = re.compile(r"\r(?:[^\S\r\n\f]*+\r)++")
_BLANK_CRLF = re.compile(r"\r\n(?:[^\S\r\n\f]*+\r\n)++")
SENTENCE_END = frozenset(".!?\u2026\u3002\uff01\uff1f\u203c\u2047\u2048\u2049\uff0e\u0964\u06d4\u061f")
"""Marks that end a sentence (`.!?…` and their CJK and other scripts' forms)."""
CLAUSE_GOES_ON = frozenset(",\u2013\u2014\uff0c\u3001")
"""A comma or dash (not `:` or `;`, after which a list, an item or code may follow): a sentence that
ends a page with one goes on at the next page's letter or digit."""
CLOSERS = "\"'\u201d\u2019\u00bb\u203a)]}\u300d\u300f\uff09"
"""Closing quotes and brackets, looked past for a sentence's end (`know.”`); after a comma or dash
they close a speech or aside (`and—”`), which a capital then does not go on."""


_FUNCTION_WORD_END = re.compile(
    r"(?<![^\W\d_])(?:the|a|an|of|to|in|on|at|by|for|with|from|into|onto|upon|and|or|nor|but|than|"
    r"via|whose|its|their|our|your|my|this|these|those|between|about|under|over|through)\Z")
"""A word that ends no sentence, in lower case at the end of a text (`Breaks` looks back 16
characters at most: no longer word is in it)."""
_CAPTION = re.compile(r"(?:Fig(?:ure)?|Table|Listing|Algorithm|Exhibit|Chart)\.?\s{0,3}[0-9IVX][0-9.]{0,8}[:.]?\s{0,3}[^\W\d_]?",
                      re.I)
"""The start of a caption ("Figure 2 Figure showing", "Table 1: Asymptotic"): the text a page
starts with after a figure or table the sentence goes on past; not a letter in lower case
after the number ("in Figure 2 the latency")."""


def runs_on_at(before: str, after: str) -> bool:
    """Whether a sentence that `before` ends (its text up to a page break) goes on in `after` (the
    text after it): `before` ends, past closing quotes and brackets, in no sentence's end, and
    `after` starts with a lower-case letter; or `before` ends with a comma or dash (no closing
    quote after it), or with an English article, preposition or conjunction ("over copyright and
    the" | "Internet seem remote", helper-101), and `after` starts with a letter or digit; or both
    are CJK at the break. One rule for the PDF loader's joins (`pdf.joining.runs_on`) and the
    splitter's form feeds (`page_break_in_sentence`), so a block joined over a page break is not
    cut there again."""
    tail = before.rstrip()
    bare = tail.rstrip(CLOSERS)
    if not bare or not after or after[0].isspace() or bare[-1] in SENTENCE_END:
        return False
    first = after[0]
    return first.islower() or (bare == tail and first.isalnum() and (
        bare[-1] in CLAUSE_GOES_ON or _FUNCTION_WORD_END.search(bare) is not None) and not _caption(after)) \
        or (_cjk(bare[-1]) and _cjk(first))


def _caption(text: str) -> bool:
    """Whether `text` starts with a caption's label and number, then a capital or nothing."""
    m = _CAPTION.match(text)
    return m is not None and not m.group(0)[-1].islower()


def _cjk(ch: str) -> bool:
    """CJK symbols, kana, Han (unified, extension A, compatibility, extensions B-F) and full-width
    forms: the characters `pdf.page.is_cjk` joins over a page break, and Han past the BMP."""
    o = ord(ch)
    return 0x3000 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF \
        or 0xFF00 <= o <= 0xFFEF or 0x20000 <= o <= 0x2FA1F


def page_break_in_sentence(text: str, i: int) -> bool:
    """Whether the form feed at `text[i]` is a page break inside a sentence that goes on over it,
    as a PDF's paragraph joined over a page break has one (`pdf.joining.runs_on`; the rule is
    `runs_on_at`, read over 16 characters before and 31 after): after a character that is no
    white space and ends no sentence (past closing quotes) and before a lower-case letter
    ("and\fcontinues"), after a comma, dash or English function word and before a letter or
    digit that starts no caption, or between two CJK characters. It ends no paragraph or line
    then; one before a capital after a title (`..BULKHEAD\fFrozen`) does (0.1.30)."""
    if i <= 0 or i + 1 >= len(text) or text[i - 1].isspace():
        return False
    return runs_on_at(text[max(0, i - 16):i], text[i + 1:i + 32])


class Breaks:
    """A compiled pattern of breaks (`finditer`, `search`) less the form feeds inside a sentence
    (`page_break_in_sentence`). (Checked in Python, not with a `regex` pattern: a SIGTERM at the
    first chunk, while such a pattern was being compiled, printed a traceback from its `__del__`.)"""

    __slots__ = ("pattern",)

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        for m in self.pattern.finditer(text, pos, endpos):
            if text[m.start()] == "\f" and page_break_in_sentence(text, m.start()):
                continue
            yield m

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return next(self.finditer(text, pos, endpos), None)


_FF = Breaks(re.compile(r"\f"))
_NONSPACE = re.compile(r"\S")


LINE_END = re.compile(r"\r\n|\r|\n")
"""A line break: CR LF, CR or LF."""


def line_starts(text: str | bytes) -> array:
    """Offset of the start of each line of `text` (lines end at LF, CR LF or CR; the first
    starts at 0), 4 bytes a line (8 for a text of 2**32 characters or more): characters of
    a str, bytes of bytes (which end lines at LF only: UTF-8 of text whose line ends are
    already LF).

    Without a CR the offsets come from `split` and running sums, about twice as fast as a
    regex search for each line end, `_SPLIT_WINDOW` characters at a time (the list of
    line strings `split` makes takes about 60 bytes a line: for the whole of a text of
    short lines it was 10x the text).
    """
    starts = array("I" if len(text) < 1 << 32 else "q", [0])
    if isinstance(text, str) and "\r" in text:
        starts.extend(m.end() for m in LINE_END.finditer(text))
        return starts
    lf = "\n" if isinstance(text, str) else b"\n"
    step = _SPLIT_WINDOW
    for at in range(0, len(text), step):
        parts = text[at:at + step].split(lf)  # type: ignore[arg-type]
        parts.pop()  # (the piece after the window's last line end: its line starts before it)
        ends = itertools.accumulate(map((1).__add__, map(len, parts)), initial=at)
        next(ends)
        starts.extend(ends)
    return starts


_SPLIT_WINDOW = 1 << 16


def _blank_pattern(text: str, a: int, b: int) -> re.Pattern:
    has_cr = text.find("\r", a, b) >= 0
    if not has_cr:
        return _BLANK_LF
    has_lf = text.find("\n", a, b) >= 0
    if not has_lf:
        return _BLANK_CR
    if text.count("\r", a, b) == text.count("\r\n", a, b) == text.count("\n", a, b):
        return _BLANK_CRLF
    return _BLANK_ANY


def paragraph_breaks(text: str, a: int = 0, b: int | None = None) -> list[tuple[int, int]]:
    """Spans of paragraph separators in `text[a:b]`: blank-line runs and form feeds (not one inside
    a sentence going on over a page break, `page_break_in_sentence`), in order."""
    if b is None:
        b = len(text)
    seps = [(m.start(), m.end()) for m in _blank_pattern(text, a, b).finditer(text, a, b)]
    if text.find("\f", a, b) >= 0:
        seps.extend((m.start(), m.end()) for m in _FF.finditer(text, a, b))
        seps.sort()
    return seps


def paragraph_spans(text: str, a: int = 0, b: int | None = None) -> list[tuple[int, int]]:
    """Spans of the paragraphs of `text[a:b]` (blank-line or form-feed separated), trimmed of white space."""
    if b is None:
        b = len(text)
    out = []
    pos = a
    for s, e in paragraph_breaks(text, a, b) + [(b, b)]:
        if s > pos:
            m = _NONSPACE.search(text, pos, s)
            if m is not None:
                start = m.start()
                out.append((start, start + len(text[start:s].rstrip())))
        pos = max(pos, e)
    return out


def iter_paragraph_spans(text: str, a: int = 0, b: int | None = None) -> Iterator[tuple[int, int]]:
    """`paragraph_spans` one at a time, without lists or copies of the range (for long ranges)."""
    if b is None:
        b = len(text)
    seps: Iterator[tuple[int, int]] = (m.span() for m in _blank_pattern(text, a, b).finditer(text, a, b))
    if text.find("\f", a, b) >= 0:
        seps = heapq.merge(seps, (m.span() for m in _FF.finditer(text, a, b)))
    pos = a
    for s, e in seps:
        if s > pos:
            m = _NONSPACE.search(text, pos, s)
            if m is not None:
                end = s
                while text[end - 1].isspace():
                    end -= 1
                yield m.start(), end
        pos = max(pos, e)
    if b > pos:
        m = _NONSPACE.search(text, pos, b)
        if m is not None:
            end = b
            while text[end - 1].isspace():
                end -= 1
            yield m.start(), end
