"""PDF headings: groups marked as headings by font or by the outline, with levels and titles; no PDF parsing, no tokens."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from chunkctl.loaders.pdf.groups import LEADER, LETTER, NUMBERED_HEADING, Group
from chunkctl.loaders.pdf.packed import PageGroups, read, reading
from chunkctl.loaders.pdf.page import Line, PageData

_NUMBERING = re.compile(
    r"^\s*(?:(?:chapter|section|part|appendix|kapitel|abschnitt)\s+)?"
    r"(?:\d{1,3}(?:\.\d{1,3})*|[ivxlc]{1,6}|[a-z])?[.:)]?\s+", re.I)


def body_size(groups: Iterable[Group]) -> float:
    """The body text's font size: the most common size in points, weighted by characters (10 when empty)."""
    return text_size(ln for g in groups for ln in g.lines)


def text_size(lines: Iterable[Line]) -> float:
    """The most common font size of `lines` in points, to half a point, weighted by
    characters (10 when empty)."""
    c: Counter = Counter()
    for ln in lines:
        c[round(ln.size * 2) / 2] += len(ln.text)
    return c.most_common(1)[0][0] if c else 10.0


# Signs of a formula: a mathematical operator (not U+2217, an asterisk that marks a title's footnote);
# weaker, an equals sign or a plus sign that is not a "C++"'s.
_OPERATOR = re.compile(r"[\u00b1\u00d7\u00f7\u2200-\u2216\u2218-\u22ff\u27c0-\u27ef\u2980-\u2aff]")
_EQUATION = re.compile(r"=|(?<![+\w])\+(?!\+)")
_SPACELESS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# Letters in words: a run of two letters or more ("Q&A" is one), or a character of a script written
# without spaces; long words: three letters or more.
_WORDY = re.compile(rf"[^\W\d_](?:&[^\W\d_])+|[^\W\d_]{{2,}}|[{_SPACELESS}]")
_LONG_WORDS = re.compile(rf"[^\W\d_]{{3,}}|[{_SPACELESS}]")


def title_like(text: str) -> bool:
    """True when `text` (a short line) reads as a title, not a formula or a fragment: no mathematical
    operator, at least half its letters in words of two letters or more, and, with an equals or a
    plus sign, two words of three letters or more holding three quarters of its letters. A display
    formula's big sum or integral sign makes its line large: "p(i)= ∑", "ZZ P(x; y) log P(x; y)",
    "s s s s" were headings (helper-102: 209 of 4,442 headings in 32 papers-we-love PDFs); "Data
    Type = Prototype + Traits" is a title."""
    if _OPERATOR.search(text):
        return False
    letters = len(LETTER.findall(text))
    if sum(map(len, _WORDY.findall(text))) * 2 < letters:
        return False
    if not _EQUATION.search(text):
        return True
    long = _LONG_WORDS.findall(text)
    return len(long) >= 2 and sum(map(len, long)) * 4 >= letters * 3


QUESTION_WORDS = 10
"""Words up to which a group ending in a question mark may be a heading ("What is Monad?", "Why
chunk at all?"; helper-116: Microsoft's Monad Manifesto lost its first section heading); a
numbered one may be longer."""


def _heading_like(g: Group, body: float) -> str | None:
    """"size" or "bold" when a group looks like a heading by its font, else None."""
    if g.kind not in ("para", "item") or not g.lines or len(g.lines) > 3:
        return None
    text = g.plain()
    if len(text) > 200 or len(LETTER.findall(text)) < 2 or text.endswith("-") or g.lines[-1].hyphen \
            or not title_like(text):
        return None
    question = text.endswith(("?", "\uff1f")) and (len(text.split()) <= QUESTION_WORDS or NUMBERED_HEADING.match(text))
    if (text.endswith(("\u3002", "\uff0e", "!", "?", "\uff01", "\uff1f", ",", ";", "\uff0c")) and not question) \
            or (text.endswith(".") and not text.endswith("..") and len(text.split()) > 3):
        return None  # a sentence, not a title (but a short or numbered question: "1 What is Monad?")
    if g.kind == "item" and not NUMBERED_HEADING.match(text):
        return None
    size = g.size
    if size >= 1.15 * body and size - body >= 1.0:
        return "size"
    if g.bold and size >= 0.9 * body and len(g.lines) <= 2 and len(text.split()) <= 15 \
            and not text.rstrip().endswith((".", ",", ";", ":")):
        return "bold"
    return None


def font_headings(groups_by_page: PageGroups | list[list[Group]], body: float) -> None:
    """Mark heading groups by font size and weight relative to the body text, in place.

    Larger sizes rank higher (level 1 = largest); bold body-size headings come one
    level below the smallest size heading. A bold or large group qualifies when it
    has at most three lines, at most 200 characters and is not a sentence fragment.
    Heading lines of the same level that follow each other closely (a title set on
    two lines) become one heading.
    """
    kinds: dict[tuple[int, int], str] = {}  # (page, index in it) -> "size" or "bold"
    found: set[float] = set()
    bold: tuple[tuple[int, int], Group] | None = None  # a bold candidate, until the group after it is seen
    for pi, gs in enumerate(reading(groups_by_page)):
        for gi, g in enumerate(gs):
            if bold is not None:
                if not (g.kind in ("para", "item") and g.bold and g.size <= bold[1].size):
                    kinds[bold[0]] = "bold"  # (else a run of bold text, not a heading)
                bold = None
            k = _heading_like(g, body)
            if k == "bold":
                bold = ((pi, gi), g)
            elif k == "size":
                kinds[(pi, gi)] = k
                found.add(round(g.size * 2) / 2)
    if bold is not None:
        kinds[bold[0]] = "bold"
    sizes = sorted(found, reverse=True)
    # Merge sizes closer than 0.75 pt so that tiny differences do not make levels.
    levels: dict[float, int] = {}
    lvl = 0
    last = None
    for s in sizes:
        if last is None or last - s >= 0.75:
            lvl += 1
        levels[s] = min(lvl, 6)
        last = s
    bold_level = min(lvl + 1, 6)
    for pi in sorted({pi for pi, _ in kinds}):
        gs = groups_by_page[pi]
        out: list[Group] = []
        for gi, g in enumerate(gs):
            k = kinds.get((pi, gi))
            if k:
                g.kind = "heading"
                g.level = levels.get(round(g.size * 2) / 2, 1) if k == "size" else bold_level
                p = out[-1] if out else None
                if (p is not None and p.kind == "heading" and p.level == g.level and abs(p.size - g.size) < 0.5
                        and len(p.lines) + len(g.lines) <= 3
                        and 0 <= g.lines[0].base - p.lines[-1].base <= 1.6 * g.size):
                    p.lines.extend(g.lines)
                    p.title = p.plain()
                    continue
                g.title = g.plain()
            out.append(g)
        gs[:] = out


def norm_title(s: str) -> str:
    """A title reduced for matching: leading numbering, case, punctuation and spaces removed ("2.1 Scope" -> "scope")."""
    return _norm_title(s)


def _norm_title(s: str) -> str:
    s = _NUMBERING.sub("", s.strip().lower(), count=1) if _NUMBERING.match(s.strip()) else s.strip().lower()
    return "".join(ch for ch in s if ch.isalnum())


def outline_headings(groups_by_page: PageGroups | list[list[Group]], outline: list[tuple[int, str, int, float | None]],
                     pages: list[PageData], body: float) -> int:
    """Mark the groups that outline (bookmark) entries point at as headings, in place.

    An entry matches a group on its destination page whose first one to three lines
    read as the entry's title (numbering, case and punctuation ignored); among
    several, the one nearest the destination's height wins. Without a text match,
    the first short bold or large group at the destination height is taken (for a
    destination without a height, the first such group of the page).
    The heading path uses the outline's titles (the printed text for matches by
    position only); levels are outline depths + 1. An entry without a destination
    (page index -1; a broken bookmark) is the first group from the page of the entry
    before it with a page to the page of the entry after it that reads exactly as its
    title and looks like a heading by its font (`_heading_like`: not a bullet or a line
    of running text); not looked for when no entry has a page (links and actions
    only), and not counted in the result.

    Args:
        groups_by_page: groups of each page.
        outline: (depth, title, page index, destination y in user space or None).
        pages: the pages (for their frames).
        body: body font size (points).

    Returns:
        the number of entries matched.
    """
    matched = 0
    known = [e[2] for e in outline]
    placed = any(p >= 0 for p in known)  # (an outline of links and actions alone places nothing)
    norms = _Titles({_norm_title(e[1]) for e in outline if e[2] == -1} - {""})
    for i, (depth, title, pidx, y) in enumerate(outline):
        if pidx == -1:
            if placed:  # (not counted: font headings still apply when no placed entry matches)
                _match_without_destination(groups_by_page, depth, title, i, known, body, norms)
            continue
        if not 0 <= pidx < len(groups_by_page):
            continue
        want = _norm_title(title)
        if not want:
            continue
        groups = read(groups_by_page, pidx)
        frame = pages[pidx].frame
        ty = -y - frame.oy if y is not None and frame.angle == 0 else None
        best = None
        for gi, g in enumerate(groups):
            if g.kind not in ("para", "item", "heading") or not g.lines:
                continue
            if g.kind == "heading" and g.title and g.level:
                continue
            k = _title_lines(g, want, norms)
            if k:
                dist = abs(g.lines[0].top - ty) if ty is not None else gi
                if best is None or dist < best[0]:
                    best = (dist, gi, k)
        if best is None:
            # No text match: the first short bold or large group at or below the
            # destination (the page's top when the destination has no height).
            for gi, g in enumerate(groups):
                if g.kind not in ("para", "item") or not g.lines:
                    continue
                if ty is not None and g.lines[0].bottom < ty - 2:
                    continue
                if len(g.lines) <= 3 and len(g.plain()) <= 150 and (g.bold or g.size >= 1.15 * body):
                    best = (-1.0, gi, len(g.lines))
                    break
                if ty is not None:
                    break
        if best is None:
            continue
        _, gi, k = best
        _make_heading(groups_by_page[pidx], gi, k, depth, " ".join(title.split()) if best[0] >= 0 else None)
        norms.changed(pidx)
        matched += 1
    return matched


class _Titles:
    """The normalized text (`_norm_title`) of each group's first one to three lines, computed once a
    group (again when its lines change), and the pages on which the titles of entries without a
    destination read as a run of one to three lines of a group (`pages_of`). Each outline entry
    compared them afresh with every group it looked at: helper-58's PDFs of 1,000 bookmarks without
    a destination over 50 pages took 11 s, of 4,000 over 200 pages over 120 s; 4,000 bookmarks into
    one page of 1,600 lines 39 s.

    Args:
        wanted: the normalized titles of the outline entries without a destination.
    """

    KEEP = 2048
    """Groups whose texts are kept (then forgotten all at once: the cache holds their lines, which
    a big document's packed pages would otherwise let go)."""

    def __init__(self, wanted: set[str]) -> None:
        self._of: dict[int, tuple[list, list[str]]] = {}  # id(group) -> (its lines list, the texts)
        self._wanted = wanted
        self._pages: dict[str, list[int]] | None = None
        # title -> pages looked at for it without a match since they last changed: entries of one
        # title (a helper's 500 "Summary of results" over 400 pages) look at each page once, not
        # once an entry (each look unpacks a packed page)
        self.missed: dict[str, set[int]] = {}

    def changed(self, page: int) -> None:
        """A heading was made on `page`: its groups may match titles they did not."""
        for pages in self.missed.values():
            pages.discard(page)

    def first(self, g: Group) -> list[str]:
        """The normalized text of `g`'s first 1, 2 and 3 lines (as many as it has)."""
        hit = self._of.get(id(g))
        if hit is not None and hit[0] is g.lines:
            return hit[1]
        texts = [_norm_title(" ".join(ln.text for ln in g.lines[:k])) for k in range(1, min(3, len(g.lines)) + 1)]
        if len(self._of) >= self.KEEP:
            self._of.clear()
        self._of[id(g)] = (g.lines, texts)
        return texts

    def pages_of(self, groups_by_page: PageGroups | list[list[Group]]) -> dict[str, list[int]]:
        """{wanted title: the pages, in order, where it reads as a run of one to three lines of a group,
        from any line}: where an exact title match can be, also in the rest of a group a heading was
        split from (splits only cut runs). Read once, at the first call."""
        if self._pages is None:
            self._pages = {}
            for pi, groups in enumerate(reading(groups_by_page)):
                for g in groups:
                    n = len(g.lines)
                    for j in range(n):
                        for k in range(1, min(3, n - j) + 1):
                            t = _norm_title(" ".join(ln.text for ln in g.lines[j:j + k]))
                            if t in self._wanted:
                                at = self._pages.setdefault(t, [])
                                if not at or at[-1] != pi:
                                    at.append(pi)
        return self._pages


def _title_lines(g: Group, want: str, norms: _Titles, exact: bool = False) -> int:
    """How many of the first one to three lines of `g` read as the title `want` (normalized), or 0;
    unless `exact`, a few characters before the title are allowed ("Chapter 2 Scope" for "Scope").
    `norms`: the document's normalized titles, kept across calls."""
    for k, got in enumerate(norms.first(g), 1):
        if got == want or (not exact and len(want) >= 4 and got.endswith(want) and len(got) - len(want) <= 6):
            return k
    return 0


def _make_heading(groups: list[Group], gi: int, k: int, depth: int, title: str | None) -> None:
    """Make the first `k` lines of `groups[gi]` a heading of outline depth `depth`, named `title`
    (None: by its printed text, for a match by position only); the rest of the group follows it."""
    g = groups[gi]
    if k < len(g.lines):
        rest = Group(g.kind if g.kind != "heading" else "para", g.lines[k:], page=g.page)
        g.lines = g.lines[:k]
        groups.insert(gi + 1, rest)
    g.kind = "heading"
    g.level = min(depth + 1, 6)
    g.title = title if title is not None else g.plain()


def _match_without_destination(groups_by_page: PageGroups | list[list[Group]], depth: int, title: str, i: int,
                               known: list[int], body: float, norms: _Titles) -> None:
    """Mark the first group that reads as outline entry `i`'s title, between the pages of the entries
    before and after it that have one (`known`: page index per entry, -1 for none); only pages where
    a run of lines reads so are looked at (`_Titles.pages_of`)."""
    want = _norm_title(title)
    if not want:
        return
    first = next((p for p in reversed(known[:i]) if p >= 0), 0)
    last = next((p for p in known[i + 1:] if p >= 0), len(groups_by_page) - 1)
    missed = norms.missed.setdefault(want, set())
    for pidx in norms.pages_of(groups_by_page).get(want, ()):
        if not max(first, 0) <= pidx <= min(last, len(groups_by_page) - 1) or pidx in missed:
            continue
        for gi, g in enumerate(read(groups_by_page, pidx)):
            if g.kind not in ("para", "item", "heading") or not g.lines or (g.kind == "heading" and g.title):
                continue
            k = _title_lines(g, want, norms, exact=True)
            if k and (g.kind == "heading" or _heading_like(Group(g.kind, g.lines[:k], page=g.page), body)):
                _make_heading(groups_by_page[pidx], gi, k, depth, " ".join(title.split()))
                norms.changed(pidx)
                return
        missed.add(pidx)


_NUMBER_PARTS = re.compile(r"\d{1,2}(?:\.\d{1,2})*")


def _style(g: Group) -> tuple[float, bool]:
    return round(g.size * 2) / 2, g.bold


def complete_outline(groups_by_page: PageGroups | list[list[Group]], body: float) -> int:
    """Mark numbered headings the outline left out ("3.3. Rencontres ..." when the bookmarks stop at
    "3.2."), in place: a group that looks like a heading by its font (`_heading_like`), is set in the
    one font size and weight of the numbered outline headings of a level (two or more), and is
    numbered with as many parts as they are ("3.3." beside "3.1." and "3.2.") becomes a heading of
    that level.

    Returns:
        the number of headings added.
    """
    by_level: dict[int, list[Group]] = {}
    for gs in reading(groups_by_page):
        for g in gs:
            if g.kind == "heading" and g.level and g.lines:
                by_level.setdefault(g.level, []).append(g)
    styles: dict[tuple[float, bool], tuple[int, set[int]]] = {}
    for level, heads in by_level.items():
        numbered = [(h, t) for h in heads if NUMBERED_HEADING.match(t := h.plain())]
        if len(numbered) < 2:
            continue
        kinds = {_style(h) for h, _ in numbered}
        texts = [t for _, t in numbered]
        parts = {len(m.group().split(".")) for t in texts if (m := _NUMBER_PARTS.match(t))}
        if len(kinds) == 1 and parts:
            style = kinds.pop()
            if style not in styles:  # (two levels in one style: the first, the higher, names it)
                styles[style] = (level, parts)
    if not styles:
        return 0
    added = 0
    for pi, gs in enumerate(reading(groups_by_page)):
        found: list[tuple[int, int, str]] = []
        for gi, g in enumerate(gs):
            if g.kind not in ("para", "item") or not g.lines or _style(g) not in styles:
                continue
            text = g.plain()
            m = _NUMBER_PARTS.match(text)
            level, parts = styles[_style(g)]
            if m is None or not NUMBERED_HEADING.match(text) or len(m.group().split(".")) not in parts \
                    or LEADER.search(text) or _heading_like(g, body) is None:
                continue
            found.append((gi, level, " ".join(text.split())))
        if found:
            live = groups_by_page[pi]
            for gi, level, title in found:
                g = live[gi]
                g.kind, g.level, g.title = "heading", level, title
            added += len(found)
    return added

