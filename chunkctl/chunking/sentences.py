"""Sentence segmentation for the chunkers: blingfire (default) or pySBD, with rule fix-ups; offsets in characters."""

from __future__ import annotations

import re

from ..errors import MissingExtraError

# Abbreviations after which a full stop does not end a sentence even before a capital.
ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt ft vs e.g eg i.e ie cf al fig figs eq eqs vol vols pp approx ca gen gov
    sen rep capt col lt sgt rev hon jan feb mar apr jun jul aug sep sept oct nov dec dept univ mme mlle messrs
    u.s u.k a.m p.m viz""".split()
)

# Sentence-end candidates inside a blingfire sentence: terminator, closing quotes, spaces, then a capital.
_MISSED_END = re.compile(r"([.!?]['\"”’)\]]*)(\s+)(?=['\"“‘(\[]*[A-Z])")
_CJK_END = re.compile(r"[。！？!?]+[」』”’）)]*(?=[^\s」』”’）)。！？!?])")
_WORD_BEFORE = re.compile(r"(\S+)$")
_INITIALS = re.compile(r"^(?:[A-Za-z]\.)+$")


def _is_abbreviation(word: str) -> bool:
    w = word.rstrip(".!?'\"”’)]").lstrip("'\"“‘([").lower()
    if not w:
        return False
    if len(w) == 1 and w.isalpha():
        return True  # an initial: "J. Smith"
    return w in ABBREVIATIONS or bool(_INITIALS.match(word.rstrip("'\"”’)]")))


class SentenceSplitter:
    """Finds sentence spans in a span of text.

    Segmentation is blingfire's `text_to_sentences_and_offsets` (Microsoft BlingFire,
    a finite-state segmenter; character offsets, no data download) or, with
    `name="pysbd"`, pySBD (Sadvilkar & Neumann 2020, rule-based, slower, more
    accurate). Fix-ups on top, from the cases in ../shared/cases: a full stop followed
    by a lower-case word or a digit never ends a sentence ("a.m. on", "approx. 4.5");
    an end blingfire missed before a capital is added unless the word before it is a
    known abbreviation or an initial; CJK 。！？ end sentences without a space.

    Raises:
        MissingExtraError: `pysbd` requested but not installed.
    """

    def __init__(self, name: str = "blingfire"):
        self.name = name
        if name == "pysbd":
            try:
                import pysbd
            except ImportError:
                raise MissingExtraError("--sentence-splitter pysbd", "pysbd", "pysbd") from None
            self._pysbd = pysbd.Segmenter(language="en", clean=False, char_span=True)
        else:
            import blingfire

            self._bf = blingfire.text_to_sentences_and_offsets

    def _raw(self, chunk: str) -> list[tuple[int, int]]:
        if self.name == "pysbd":
            return [(s.start, s.end) for s in self._pysbd.segment(chunk)]
        try:
            _, offs = self._bf(chunk)
        except Exception:  # blingfire fails on a few control characters; fall back to one sentence
            return [(0, len(chunk))]
        return list(offs)

    def spans(self, text: str, start: int, end: int) -> list[tuple[int, int]]:
        """Sentence spans of `text[start:end]`, absolute offsets, trimmed of white space.

        The spans are in order, do not overlap, and together cover every non-white-space
        character of the range (text blingfire skips is attached to a neighbour).
        """
        chunk = text[start:end]
        if not chunk.strip():
            return []
        raw = self._raw(chunk)
        # Cut points (relative) between sentences; rebuild spans so nothing is lost.
        cuts: list[int] = []
        for a, _ in raw[1:]:
            if 0 < a < len(chunk):
                cuts.append(a)
        cuts = sorted(set(cuts))
        # Fix-up 1: a "sentence" that starts with a lower-case letter or a digit continues the previous one.
        kept = []
        for c in cuts:
            nxt = chunk[c:c + 1]
            if nxt.islower() or nxt.isdigit():
                continue
            kept.append(c)
        cuts = kept
        # Fix-up 2 and 3: ends blingfire missed (before a capital; CJK terminators).
        extra = []
        for m in _MISSED_END.finditer(chunk):
            before = chunk[:m.start(1) + len(m.group(1))]
            w = _WORD_BEFORE.search(before)
            if m.group(1)[0] == "." and w and _is_abbreviation(w.group(1)):
                continue
            extra.append(m.end(2))
        for m in _CJK_END.finditer(chunk):
            extra.append(m.end())
        if extra:
            cuts = sorted(set(cuts) | set(extra))
        out: list[tuple[int, int]] = []
        prev = 0
        for c in cuts + [len(chunk)]:
            seg = chunk[prev:c]
            stripped = seg.strip()
            if stripped:
                a = prev + (len(seg) - len(seg.lstrip()))
                b = a + len(stripped)
                out.append((start + a, start + b))
            prev = c
        return out
