"""PDF hyphenation and joining: a group's lines as running text, split words rejoined; no PDF parsing, no tokens."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

from chunkctl.loaders.pdf.groups import Group
from chunkctl.loaders.pdf.packed import PageGroups, reading
from chunkctl.loaders.pdf.page import Line, is_cjk
from chunkctl.text.lines import runs_on_at

_WORD = re.compile(r"[^\W\d_]{2,}")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


# Endings that make another form of the same word ("computer" is evidence for
# "computers", "processing" for "processed"); longest first.
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ers", "ied", "es", "ed", "er", "ly", "s", "d")
# Prefixes that form hyphenated compounds with a word ("pre-processing", "non-trivial").
_PREFIXES = frozenset(("pre", "post", "non", "self", "semi", "anti", "multi", "pseudo", "quasi", "co", "cross", "ultra",
                       "intra", "meta", "micro", "macro", "mid", "neo", "proto"))
# Words that English closes up with the next one ("overturned", "outbreak", "anyway").
_PARTICLES = frozenset(("over", "under", "out", "any", "some", "every", "head", "with", "back", "fore", "down", "off",
                        "after", "through", "can", "her", "his", "for", "con", "com", "dis", "mis", "cap"))
_NOT_WORDS = re.compile(r"\S*(?:[/@]|[^\W_]\.[^\W_])\S*")


class Joiner:
    """Joins a group's lines into running text: hyphenated words rejoined, CJK without spaces.

    A word broken at a line end by a hyphen is joined or keeps its hyphen by the
    document's evidence, in this order: the joined word (or another form of it, by a
    common ending) appears elsewhere more often than the hyphenated compound: joined;
    the compound appears elsewhere: kept. Without either: kept when both parts are
    words the document uses on their own ("well-" / "known", three letters or more,
    not a particle English closes up: "over-" / "turned" is joined) or the first is
    a compounding prefix ("pre-" / "processing", "non-" / "trivial"), or the second
    part starts upper-case ("Anglo-" / "Saxon"); joined otherwise, since a part that
    is no word of the document is a syllable ("discov-" / "ered"). Words are counted
    outside URLs and file names, and the halves of words split at a line end do not
    count.

    Args:
        texts: every line of the document (to learn its words and compounds).
    """

    def __init__(self, texts: Iterable[str]):
        words: Counter = Counter()
        compounds: Counter = Counter()
        broken = False  # the previous line ended in a hyphen: this line's first word is a fragment
        for t in texts:
            low = t.lower().strip()
            ends_broken = len(low) > 1 and low[-1] == "-" and low[-2].isalpha()
            if broken:  # halves of a word split at a line end are not words of the document
                low = low.partition(" ")[2]
            if ends_broken:
                low = low.rpartition(" ")[0]
            broken = ends_broken
            if "/" in low or "@" in low or "." in low:
                low = _NOT_WORDS.sub(" ", low)  # URLs, addresses, file names: their pieces are not words
            words.update(_WORD.findall(low))
            if "-" in low:
                compounds.update(_COMPOUND.findall(low))
        self.words = words
        self.compounds = compounds

    def _seen(self, word: str) -> int:
        """How often `word` or another form of it (a common ending added or removed) appears in the document."""
        n = self.words[word]
        if n:
            return n
        for suf in _SUFFIXES:
            if self.words[word + suf]:
                return self.words[word + suf]
            if word.endswith(suf) and len(word) - len(suf) >= 4 and self.words[word[:-len(suf)]]:
                return self.words[word[:-len(suf)]]
        return 0

    def join(self, lines: list[Line]) -> str:
        """The lines as one paragraph string: no line breaks, joined by spaces (none between CJK characters,
    after an em dash or slash, or before a combining mark), hyphenated words rejoined."""
        out = ""
        pending_hyphen = False
        for ln in lines:
            t = ln.text.strip()
            if not t:
                continue
            if not out:
                out = t
            elif pending_hyphen:
                out = self.hyphen(out, t)
            elif (is_cjk(out[-1]) and is_cjk(t[0])) or out[-1] in "\u2014/" or unicodedata.category(t[0])[0] == "M":
                out += t
            else:
                out += " " + t
            pending_hyphen = ln.hyphen or (t.endswith("-") and len(t) > 1 and t[-2].isalnum())
            if ln.hyphen:
                out += "-"
        return out

    def hyphen(self, left: str, right: str) -> str:
        """Join `left` (ending in "-") and `right` (the next line) across a line break, by the class rules.

        The class rules are in the class docstring; numbers keep the hyphen ("2009-2010").
        """
        m = re.search(r"([^\W\d_]+)-$", left)
        r = re.match(r"[^\W\d_]+", right)
        if not m or not r:
            return left + right
        a, b = m.group(1), r.group(0)
        if left[m.start(1) - 1:m.start(1)].isdigit() or len(a) == 1:
            return left + right  # "3d-raytrace", "x-axis", "φ-nodes": hyphenation leaves two letters or more
        joined, compound = self._seen((a + b).lower()), self.compounds[f"{a}-{b}".lower()]
        if joined or compound:
            return left[:-1] + right if joined > compound else left + right
        al, bl = a.lower(), b.lower()
        second = self.words[bl] > 0
        if b[0].isupper() or (second and (al in _PREFIXES or (len(al) >= 3 and al not in _PARTICLES
                                                              and self.words[al] > 0))):
            return left + right
        return left[:-1] + right


def move_split_words(groups_by_page: PageGroups | list[list[Group]], joiner: Joiner) -> None:
    """A word hyphenated across a page break moves whole to the earlier page, in place.

    Applies when a page's last group is a paragraph or item ending in a hyphen and
    the next page's first group is a paragraph starting lower-case; the joined word
    follows the `Joiner` rules.
    """
    before: list[Group] | None = None
    for pi, groups in enumerate(reading(groups_by_page)):
        if before is not None and _split_word(before, groups) is not None:
            groups = groups_by_page[pi]  # (the page's groups to change, packed again when they change)
            _move_word(groups_by_page[pi - 1], groups, joiner)
        before = groups


def _split_word(gp: list[Group], gn: list[Group]) -> tuple[Line, Line, str] | None:
    """(last line of page gp, first line of page gn, the last line's text ending in its hyphen) when a word is
    split across them, else None."""
    if not gp or not gn:
        return None
    last, first = gp[-1], gn[0]
    if last.kind not in ("para", "item") or first.kind != "para" or not last.lines or not first.lines:
        return None
    a, b = last.lines[-1], first.lines[0]
    left = a.text.rstrip() + ("-" if a.hyphen else "")
    head = b.text.lstrip()
    if not (len(left) > 1 and left.endswith("-") and left[-2].isalpha()) or not head or not head[0].islower():
        return None
    return a, b, left


def _move_word(gp: list[Group], gn: list[Group], joiner: Joiner) -> None:
    """Move the word split across pages gp and gn (`_split_word`) whole to gp's last line."""
    split = _split_word(gp, gn)
    if split is not None:
        a, b, left = split
        first = gn[0]
        word, _, rest = b.text.lstrip().partition(" ")
        a.text = joiner.hyphen(left, word)
        a.hyphen = False
        b.text = rest
        if not rest.strip():
            first.lines.pop(0)
            if not first.lines:
                gn.pop(0)


def runs_on(before: str, after: str) -> bool:
    """Whether the paragraph that ends a page (its text `before`) goes on in the paragraph that
    opens the next one (`after`): `before` ends without a sentence's end (`.!?…` and their CJK
    and other scripts' forms, closing quotes and brackets after them), and `after` starts with
    a lower-case letter, or `before` ends with a comma or a dash (no closing quote after it:
    `and—”` closes an interrupted speech, helper-101) and `after` starts with a letter or digit,
    or both are CJK at the break: `text.lines.runs_on_at`, the rule the splitter's
    `page_break_in_sentence` keeps such a form feed inside the sentence by. The loader asks only of paragraphs of body text, the first one's
    last line running to the margin (not a footnote, caption, folio or index entry: helper-100).
    Such a paragraph is one block across the form feed, so no chunk is cut at the page break in
    mid-sentence (helper-99: 163 of a 352-page book's paragraphs were two blocks, and 19 of the
    PDF corpus's 687 chunk ends fell mid-sentence at a page break)."""
    return runs_on_at(before, after.lstrip())
