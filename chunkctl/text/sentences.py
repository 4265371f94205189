"""Sentence segmentation for the chunkers: blingfire (default) or pySBD, with rule fix-ups; offsets in characters."""

from __future__ import annotations

import ctypes
import functools
import itertools
import re
from array import array
from collections.abc import Iterator
from typing import Any

from chunkctl.errors import ChunkctlError, MissingExtraError
from chunkctl.tokenizers import UTF8_CONTINUATION

# Abbreviations after which a full stop does not end a sentence even before a capital.
ABBREVIATIONS = frozenset(
    """mr mrs ms dr prof sr jr st mt ft vs e.g eg i.e ie cf al fig figs eq eqs vol vols pp approx ca gen gov
    sen rep capt col lt sgt rev hon jan feb mar apr jun jul aug sep sept oct nov dec dept univ mme mlle messrs
    u.s u.k a.m p.m viz""".split()
)

# Titles that stand before a name and never end a sentence: blingfire cuts after them when two
# spaces follow ("bed.  Mr. Samsa": "Mr." | "Samsa ..."; helper-115, Gutenberg's Metamorphosis), and
# its cut after one is dropped (`_after_title`). Not "St." or "Jr.", which may end one.
TITLES = frozenset("mr mrs ms mx dr prof messrs mme mlle rev capt sgt lt col".split())
_TITLE_BEFORE = re.compile(r"(?:^|[\s(\[\"'“‘])([A-Za-z]{1,6})\.\s*$")

# Sentence-end candidates inside a blingfire sentence: terminator, closing quotes, spaces, then a capital.
_MISSED_END = re.compile(r"([.!?]['\"”’)\]]*)(\s+)(?=['\"“‘(\[]*[A-Z])")
_LOWER_END = re.compile(r"([.!?]['\"”’)\]]*)(\s+)(?=['\"“‘(\[]*[^\W\d_])")
# CJK 。！？ end a sentence without a space after them; so do ASCII "!" and "?" (with the marks and
# closing quotes after them) before a CJK character ("OK!次の章", "改用了Rust!它"), or after one and
# before any other character but ASCII ("你好!「次」"), but not in Latin text or markup: "foo()?.bar()",
# "vec!()", "x!=y", "/?q=1", '"Stop!" and' (helper-111: every ASCII "!" or "?" before a non-space was
# a cut), nor "图片![alt](a.png)" or "/検索?q=1" after a CJK character (helper-113).
_CJK = "\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f"
_CLOSERS = "」』”’）)"
_CJK_END = re.compile(f"(?:[。！？]|[!?](?=[!?]*[{_CLOSERS}]*[{_CJK}])|(?<=[{_CJK}])[!?](?=[!?]*[{_CLOSERS}]*[^\\x00-\\x7f]))"
                      f"[。！？!?]*[{_CLOSERS}]*(?=[^\\s{_CLOSERS}。！？!?])")
# Sentence terminators of other scripts blingfire does not know (Unicode Sentence_Terminal: Armenian,
# Arabic, Devanagari danda and double danda, Myanmar, Ethiopic, Khmer, Mongolian; ‼ ‽ ⁇ ⁈ ⁉), each
# ending a sentence before white space.
_SCRIPT_END = re.compile(r"[\u0589\u061f\u06d4\u0964\u0965\u104b\u1362\u1367\u1368\u17d4\u17d5\u1803\u1809"
                         r"\u203c\u203d\u2047-\u2049]+['\"”’»)\]」』]*\s+(?=\S)")
_LETTER = re.compile(r"[^\W\d_]")
_INITIALS = re.compile(r"^(?:[A-Za-z]\.)+$")
_NON_WS = re.compile(r"\S")

SPAN_WINDOW = 1 << 17
"""Characters segmented at a time in a longer range (a paragraph without line breaks)."""
SPAN_MARGIN = 1 << 12
"""Characters at the end of a window whose sentence cuts are left to the next window."""


def _after_title(chunk: str, a: int) -> bool:
    """Whether the cut at `a` of `chunk` falls right after a title and its full stop ("Mr.", `TITLES`)."""
    m = _TITLE_BEFORE.search(chunk, max(0, a - 12), a)
    return m is not None and m.group(1).lower() in TITLES


def _is_abbreviation(word: str) -> bool:
    w = word.rstrip(".!?'\"”’)]").lstrip("'\"“‘([").lower()
    if not w:
        return False
    if len(w) == 1 and w.isalpha():
        return True  # an initial: "J. Smith"
    return w in ABBREVIATIONS or bool(_INITIALS.match(word.rstrip("'\"”’)]")))



def _ends_list_marker(text: str, prev: int, c: int) -> bool:
    """Fix-up 4: the piece `text[prev:c]` ends with a list marker ("24. 18.", "(a)") opening a line, not a sentence.

    True when the last line of the piece (up to 12 characters back, white space at the
    end left out) holds no letter: the cut at `c` is then dropped.
    """
    end = c
    while end > prev and text[end - 1].isspace():
        end -= 1
    lo = max(prev, end - 12)
    nl = max(text.rfind("\n", lo, end), text.rfind("\r", lo, end))
    line = nl + 1 if nl >= 0 else (prev if lo == prev else -1)
    return line >= 0 and not _LETTER.search(text, line, end)


def _char_offsets(data: bytes, offsets: set[int]) -> dict[int, int]:
    """Byte offset -> character offset in UTF-8 `data`: the bytes before it that start a
    character (all but `UTF8_CONTINUATION`), for each of `offsets` (0 .. len)."""
    found: dict[int, int] = {}
    count = prev = 0
    for off in sorted(offsets):
        count += len(data[prev:off].translate(None, UTF8_CONTINUATION))
        found[off] = count
        prev = off
    return found


_INT32 = next(code for code in "il" if array(code).itemsize == 4)  # (blingfire's offsets: int32)


@functools.cache
def _blingfire_entry() -> Any:
    """blingfire's `TextToSentencesWithOffsets`, from its shared library.

    The library is opened directly: the package's `__init__` finds its own folder with
    `inspect.getframeinfo`, which reads its source file and costs about 30 ms of every
    run's start-up. When the file is not where the package keeps it (another layout), the
    package is imported as usual.

    Raises:
        OSError: the library is there but cannot be loaded (as importing blingfire would).
        ImportError: blingfire is not installed.
    """
    import importlib.util
    import os
    import platform

    try:
        spec = importlib.util.find_spec("blingfire")
        folders = list(spec.submodule_search_locations or ()) if spec is not None else []
        name = {"Windows": "blingfiretokdll.dll", "Darwin": "libblingfiretokdll.dylib"}.get(
            platform.system(), "libblingfiretokdll.so")
        paths = [os.path.join(folder, name) for folder in folders]
    except (ImportError, ValueError):
        paths = []
    for path in paths:
        if os.path.isfile(path):
            return ctypes.CDLL(path).TextToSentencesWithOffsets  # (an OSError here is the answer)
    import blingfire

    return blingfire.blingfire.TextToSentencesWithOffsets


class SentenceSplitter:
    """Finds sentence spans in a span of text.

    Segmentation is blingfire's `text_to_sentences_and_offsets` (Microsoft BlingFire,
    a finite-state segmenter; character offsets, no data download) or, with
    `name="pysbd"`, pySBD (Sadvilkar & Neumann 2020, rule-based, slower, more
    accurate). Fix-ups on top, from the public bug-report cases the tests replay: a full stop followed
    by a lower-case word or a digit never ends a sentence ("a.m. on", "approx. 4.5");
    an end blingfire missed before a capital is added unless the word before it is a
    known abbreviation or an initial; CJK 。！？ (and ASCII ! ? before a CJK character, or after one
    and before no ASCII one) end sentences without a space; the
    terminators of other scripts (the Devanagari danda ।, the Ethiopic full stop ።, the
    Armenian ։ ...: `_SCRIPT_END`) before one.

    Raises:
        MissingExtraError: `pysbd` requested but not installed.
        ChunkctlError: blingfire's library cannot be loaded on this machine.
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
            # Loaded here, not inside `_raw`: a library that cannot load (a wheel without a
            # build for this machine) must fail the file loudly, never read as "one sentence".
            try:
                self._bf_fn: Any = _blingfire_entry()
            except OSError as exc:
                raise ChunkctlError(f"blingfire, the sentence splitter, cannot be loaded on this machine ({exc}); "
                                    f"--sentence-splitter pysbd uses pySBD instead") from None

    def _raw(self, chunk: str) -> list[tuple[int, int]]:
        if self.name == "pysbd":
            return [(s.start, s.end) for s in self._pysbd.segment(chunk)]
        try:
            return self._blingfire(chunk)
        except Exception:  # defensive: a segmenter failure must not lose text; one sentence then
            return [(0, len(chunk))]

    def _blingfire(self, chunk: str) -> list[tuple[int, int]]:
        """blingfire's C entry point `TextToSentencesWithOffsets`, with byte offsets mapped to characters.

        (Same segmentation as `blingfire.text_to_sentences_and_offsets`, whose Python
        wrapper maps offsets with a loop over every byte; here the buffers are `ctypes`
        arrays and the mapping counts the bytes that start a character between
        consecutive offsets, or none for ASCII text: no numpy, which a run of small files
        need not import.)
        """
        data = chunk.encode("utf-8")
        n = len(data)
        if n == 0:
            return []
        cap = 2 * n + 16
        # Buffers are arrays passed by address: a ctypes array of a new length makes a new
        # ctypes type, which lives in a reference cycle until the cyclic collector runs (a
        # Markdown file left 548 such types, some 0.5 MB, a document).
        out, starts, ends = array("b", bytes(1)) * cap, array(_INT32, [0]) * cap, array(_INT32, [0]) * cap
        k = self._bf_fn(ctypes.c_char_p(data), ctypes.c_int(n), *(ctypes.c_void_p(a.buffer_info()[0])
                                                                 for a in (out, starts, ends)), ctypes.c_int(cap))
        if k <= 0 or k > cap:
            return [(0, len(chunk))]
        m = memoryview(out)[:k].tobytes().count(b"\n") + 1
        bs = [min(max(b, 0), n) for b in starts[:m]]
        be = [min(max(e + 1, 0), n) for e in ends[:m]]  # blingfire's end offsets are inclusive
        if not chunk.isascii():
            chars = _char_offsets(data, {*bs, *be})
            bs = [chars[b] for b in bs]
            be = [chars[e] for e in be]
        return list(zip(bs, be))

    def spans(self, text: str, start: int, end: int) -> list[tuple[int, int]]:
        """Sentence spans of `text[start:end]`, absolute offsets, trimmed of white space.

        The spans are in order, do not overlap, and together cover every non-white-space
        character of the range (text the segmenter skips is attached to a neighbour).
        A range longer than SPAN_WINDOW characters is segmented window by window
        (`_window_cuts`), so the segmenter's buffers (about 18 bytes a byte) stay small.
        """
        if end - start > SPAN_WINDOW:
            return list(self.iter_spans(text, start, end))
        chunk = text[start:end]
        if not chunk or chunk.isspace():
            return []
        n = len(chunk)
        cuts = self._cuts(chunk, chunk.lower() != chunk)
        out: list[tuple[int, int]] = []
        prev = 0
        for c in sorted(cuts) + [n]:
            if c <= prev:
                continue
            if c < n and _ends_list_marker(chunk, prev, c):
                continue
            seg = chunk[prev:c]
            lead = len(seg) - len(seg.lstrip())
            body = len(seg.rstrip())
            if body > lead:
                out.append((start + prev + lead, start + prev + body))
            prev = c
        return out

    def iter_spans(self, text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
        """`spans` one sentence at a time (a long range is segmented window by window)."""
        if end - start <= SPAN_WINDOW:
            return iter(self.spans(text, start, end))
        return self._build(text, start, end, self._window_cuts(text, start, end))

    def _cuts(self, chunk: str, cased: bool) -> set[int]:
        """Cut points between the sentences of `chunk` (offsets in it): the segmenter's, fixed up.

        `cased`: the text capitalizes sentences somewhere (for a window of a long range,
        whether the whole range does).
        """
        raw = self._raw(chunk)
        n = len(chunk)
        # Cut points between sentences; spans are rebuilt from them so nothing is lost.
        # Fix-up 1: a "sentence" that starts with a lower-case letter or a digit
        # continues the previous one ("a.m. on", "approx. 4.5").
        # (Only in text that capitalizes sentences somewhere: all-lower-case text, such as
        # normalized corpora, would lose every sentence end to this rule.)
        cuts = {a for a, _ in raw[1:]
                if 0 < a < n and not (cased and chunk[a].islower() or chunk[a].isdigit())
                and not _after_title(chunk, a)}
        # Fix-up 2: an end before a capital that the segmenter missed, unless an
        # abbreviation or an initial precedes the full stop.
        for m in _MISSED_END.finditer(chunk):
            term_end = m.end(1)
            if m.group(1)[0] == ".":
                words = chunk[max(0, term_end - 24):term_end].split()
                if words and _is_abbreviation(words[-1]):
                    continue
            cuts.add(m.end(2))
        # Fix-up 2b: text with no capitals at all (lower-cased corpora): a terminator and
        # white space before a letter ends a sentence, abbreviations and initials aside.
        if not cased:
            for m in _LOWER_END.finditer(chunk):
                words = chunk[max(0, m.end(1) - 24):m.end(1)].split()
                if words and (_is_abbreviation(words[-1]) or words[-1].rstrip(".").replace(",", "").isdigit()):
                    continue
                cuts.add(m.end(2))
        # Fix-up 3: CJK terminators end sentences without a space, and other scripts' (the
        # danda, the Ethiopic full stop, ...) before one.
        for m in _CJK_END.finditer(chunk):
            if m.end() < n:
                cuts.add(m.end())
        for m in _SCRIPT_END.finditer(chunk):
            cuts.add(m.end())
        return cuts

    def _window_cuts(self, text: str, start: int, end: int) -> Iterator[int]:
        """Cut points (absolute, sorted) of a long range, segmented SPAN_WINDOW characters at a time.

        Cuts in the last SPAN_MARGIN characters of a window are dropped; the next window
        starts at the last cut kept (a sentence start, as in one pass), or SPAN_MARGIN
        before the window's end when the window kept none (a sentence longer than the
        window). The segmenter decides from a few words around a cut, so these are the
        cuts of one pass (checked on War and Peace as one 1.5 MB line, and in
        tests/test_memory_bounds.py); ranges this long occur only in text without
        paragraph or line breaks.
        """
        cased = False
        for i in range(start, end, SPAN_WINDOW):
            piece = text[i:min(end, i + SPAN_WINDOW)]
            if piece.lower() != piece:
                cased = True
                break
        w0 = start
        while True:
            w1 = min(end, w0 + SPAN_WINDOW)
            found = sorted(w0 + c for c in self._cuts(text[w0:w1], cased))
            if w1 == end:
                yield from found
                return
            limit = w1 - SPAN_MARGIN
            kept = [c for c in found if c <= limit]
            yield from kept
            w0 = kept[-1] if kept else limit

    @staticmethod
    def _build(text: str, start: int, end: int, cuts: Iterator[int]) -> Iterator[tuple[int, int]]:
        """Trimmed spans between sorted absolute `cuts` in `[start, end)` (fix-up 4 as in `spans`),
        without copying long stretches of the text."""
        prev = start
        for c in itertools.chain(cuts, (end,)):
            if c <= prev:
                continue
            if c < end and _ends_list_marker(text, prev, c):
                continue
            m = _NON_WS.search(text, prev, c)
            if m is not None:
                e = c
                while text[e - 1].isspace():
                    e -= 1
                yield m.start(), e
            prev = c

    def quick_starts(self, text: str, start: int, end: int) -> list[int]:
        """Sentence starts in `text[start:end]` by rule alone (no segmenter call): a fast subset.

        Used to pick where an overlap may start, which only needs a few sentence starts
        near a chunk's end. A start follows a terminator, closing quotes and white space
        before a capital (any letter in text without capitals), unless an abbreviation
        or an initial precedes the full stop; or follows CJK 。！？ directly, or another
        script's terminator (`_SCRIPT_END`) and white space. These are
        the same rules as the fix-ups of `spans`, so every start found here is one that
        `spans` would accept in ordinary prose.
        """
        chunk = text[start:end]
        cased = chunk.lower() != chunk
        out = []
        for m in (_MISSED_END if cased else _LOWER_END).finditer(chunk):
            if m.group(1)[0] == ".":
                words = chunk[max(0, m.end(1) - 24):m.end(1)].split()
                if words and (_is_abbreviation(words[-1]) or words[-1].rstrip(".").replace(",", "").isdigit()):
                    continue
            out.append(start + m.end(2))
        for m in _CJK_END.finditer(chunk):
            if m.end() < len(chunk):
                out.append(start + m.end())
        out.extend(start + m.end() for m in _SCRIPT_END.finditer(chunk))
        return out

