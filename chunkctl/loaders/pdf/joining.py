"""PDF hyphenation and joining: a group's lines as running text, split words rejoined; no PDF parsing, no tokens."""

from __future__ import annotations

import re
import unicodedata

from chunkctl.loaders.pdf.groups import Group
from chunkctl.loaders.pdf.page import Line, is_cjk

_WORD = re.compile(r"[^\W\d_]{2,}")
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


class Joiner:
    """Joins a group's lines into running text: hyphenated words rejoined, CJK without spaces.

    A word broken at a line end by a hyphen is joined without the hyphen unless the
    hyphenated compound appears elsewhere in the document, or the second part starts
    upper-case and the joined word does not appear elsewhere.

    Args:
        texts: every line of the document (to learn its words and compounds).
    """

    def __init__(self, texts: list[str]):
        words: set[str] = set()
        compounds: set[str] = set()
        for t in texts:
            low = t.lower()
            words.update(_WORD.findall(low))
            if "-" in low:
                compounds.update(_COMPOUND.findall(low))
        self.words = words
        self.compounds = compounds

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
        """Join `left` (ending in "-") and `right` (the next line) across a line break, by the class rules."""
        m = re.search(r"([^\W\d_]+)-$", left)
        r = re.match(r"[^\W\d_]+", right)
        if not m or not r:
            return left + right
        a, b = m.group(1), r.group(0)
        if f"{a}-{b}".lower() in self.compounds:
            return left + right
        joined = (a + b).lower()
        if joined in self.words or not b[0].isupper():
            return left[:-1] + right
        return left + right


def move_split_words(groups_by_page: list[list[Group]], joiner: Joiner) -> None:
    """A word hyphenated across a page break moves whole to the earlier page, in place.

    Applies when a page's last group is a paragraph or item ending in a hyphen and
    the next page's first group is a paragraph starting lower-case; the joined word
    follows the `Joiner` rules.
    """
    for gp, gn in zip(groups_by_page, groups_by_page[1:]):
        if not gp or not gn:
            continue
        last, first = gp[-1], gn[0]
        if last.kind not in ("para", "item") or first.kind != "para" or not last.lines or not first.lines:
            continue
        a, b = last.lines[-1], first.lines[0]
        left = a.text.rstrip() + ("-" if a.hyphen else "")
        head = b.text.lstrip()
        if not (len(left) > 1 and left.endswith("-") and left[-2].isalpha()) or not head or not head[0].islower():
            continue
        word, _, rest = head.partition(" ")
        a.text = joiner.hyphen(left, word)
        a.hyphen = False
        b.text = rest
        if not rest.strip():
            first.lines.pop(0)
            if not first.lines:
                gn.pop(0)
