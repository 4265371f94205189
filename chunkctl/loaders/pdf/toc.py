"""PDF tables of contents: pages of entries with page numbers get their own heading, leaders shortened; no tokens.

A table of contents is not part of the section printed before it (a book's
"Acknowledgements"): its pages open a section of their own, under the printed title
("Contents", "Table of Contents", "Inhalt", "目录", ...) or, when the page prints none
that can be told apart, under "Contents".
"""

from __future__ import annotations

import re

from chunkctl.loaders.pdf.groups import LEADER, LETTER, Group
from chunkctl.loaders.pdf.headings import norm_title
from chunkctl.loaders.pdf.packed import PageGroups, reading

_PAGE_NO = re.compile(r"(?:^|[\s.\u00b7\u2024\u2219\u2026_])(\d{1,4}|[ivxlcdm]{1,7})\s*$", re.I)
TITLE = re.compile(
    r"^(?:(?:table\s+of\s+)?contents?|brief\s+contents|contents\s+at\s+a\s+glance|detailed\s+contents"
    r"|list\s+of\s+(?:figures|tables|illustrations|listings|algorithms|abbreviations|acronyms|symbols|appendices)"
    r"|inhalt(?:sverzeichnis)?|abbildungsverzeichnis|tabellenverzeichnis|table\s+des\s+mati[eè]res|sommaire"
    r"|[íi]ndice(?:\s+general)?|sum[áa]rio|inhoud(?:sopgave)?|spis\s+tre[śs]ci|obsah|sis[äa]llys(?:luettelo)?"
    r"|inneh[åa]ll(?:sf[öo]rteckning)?|indholds?fortegnelse|innhold|содержание|оглавление"
    r"|目\s*录|目\s*錄|目\s*次|차\s*례|목\s*차)$", re.I)
DEFAULT_TITLE = "Contents"
# A page is a table of contents when at least MIN_ENTRIES of its lines (and
# ENTRY_SHARE of its lines with letters) are entries whose page numbers mostly rise.
MIN_ENTRIES = 4
ENTRY_SHARE = 0.3
RISING_SHARE = 0.8


def is_contents_title(title: str) -> bool:
    """Whether a heading title names a table of contents or a list of figures or tables ("Contents", "目录")."""
    return bool(TITLE.match(" ".join(title.split())))


def _roman(s: str) -> int | None:
    vals = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
    s = s.lower()
    if not s or any(ch not in vals for ch in s):
        return None
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = vals[a]
        total += -v if b != " " and vals.get(b, 0) > v else v
    return total


def _entry(text: str, outline_titles: set[str]) -> tuple[bool, int] | None:
    """(arabic?, page number) when a line reads as a contents entry: leaders then a number, or an
    outline title then a number; None otherwise."""
    m = _PAGE_NO.search(text)
    if not m:
        return None
    num = m.group(1)
    head = text[:m.start()].rstrip()
    if not (LEADER.search(text) or (head and norm_title(head) in outline_titles)):
        return None
    if num.isdigit():
        return True, int(num)
    r = _roman(num)
    return (False, r) if r is not None else None


def _rising(segments: list[list[tuple[bool, int]]]) -> bool:
    """Whether page numbers rise in each segment (a new title starts one; roman and arabic numbers each
    in their own order)."""
    pairs = 0
    ok = 0
    for numbers in segments:
        for kind in (True, False):
            seq = [n for k, n in numbers if k == kind]
            for a, b in zip(seq, seq[1:]):
                pairs += 1
                ok += b >= a
    return pairs == 0 or ok >= RISING_SHARE * pairs


def _outline_titles(outline: list[tuple[int, str, int, float | None]]) -> set[str]:
    """The outline entries' titles, reduced for matching (`norm_title`)."""
    return {norm_title(t) for _, t, _, _ in outline} - {""}


def toc_pages(groups_by_page: PageGroups | list[list[Group]], outline: list[tuple[int, str, int, float | None]]) -> list[bool]:
    """Which pages are tables of contents (or lists of figures and tables).

    Signals: lines ending in a page number after dot leaders, or whose words are
    an outline entry's title; at least MIN_ENTRIES such lines (two on a page that
    follows a contents page), ENTRY_SHARE of the page's lines with letters, page
    numbers rising on the page.

    Returns:
        one flag per page.
    """
    titles = _outline_titles(outline)
    out: list[bool] = []
    for groups in reading(groups_by_page):
        lines = [ln for g in groups if g.kind != "table" for ln in g.lines]
        worded = sum(1 for ln in lines if LETTER.search(ln.text))
        segments: list[list[tuple[bool, int]]] = [[]]
        for ln in lines:
            text = " ".join(ln.text.split())
            if TITLE.match(text):
                segments.append([])
            elif (e := _entry(text, titles)) is not None:
                segments[-1].append(e)
        n = sum(len(seg) for seg in segments)
        least = 2 if out and out[-1] else MIN_ENTRIES
        out.append(n >= least and n >= ENTRY_SHARE * max(worded, 1) and _rising(segments))
    return out


def mark_toc(groups_by_page: PageGroups | list[list[Group]], outline: list[tuple[int, str, int, float | None]]) -> int:
    """Give table-of-contents pages a heading of their own and shorten their leaders, in place.

    On every run of contents pages: a group whose text is a contents title (`TITLE`)
    becomes a level-1 heading (an outline heading keeps its level and title); other
    headings on those pages (bold chapter entries) become paragraphs, but for a section the
    outline starts on the page after its last entry (a contents page ending in the first
    section's heading and text, which fell under "Contents"). When the
    run's first page has no title, its first group becomes a level-1 heading titled
    "Contents" (DEFAULT_TITLE), so the entries never fall under the section before.
    A leader-only line ("........ 37") on the baseline of the line before it joins
    that line, and leaders shrink to " ... " (a run of 40 dots is 40 tokens).

    Args:
        groups_by_page: groups of each page, headings already marked.
        outline: (depth, title, page index, destination y or None) per outline entry.

    Returns:
        the number of contents pages.
    """
    flags = toc_pages(groups_by_page, outline)
    titles = _outline_titles(outline)
    placed: dict[int, set[str]] = {}  # page -> the outline titles whose entries point at it
    for _, t, pidx, _ in outline:
        placed.setdefault(pidx, set()).add(norm_title(t))
    for pi in range(len(groups_by_page)):
        if not flags[pi]:
            continue
        groups = groups_by_page[pi]
        _join_leader_lines(groups)
        _split_titles(groups)
        # (the groups after the last entry: where a section the outline starts on the page may begin)
        last = max((gi for gi, g in enumerate(groups) if g.kind != "table" and any(
            _entry(" ".join(ln.text.split()), titles) for ln in g.lines)), default=-1)
        titled = False
        for gi, g in enumerate(groups):
            for ln in g.lines:
                ln.text = LEADER.sub(" ... ", ln.text)
            text = " ".join(g.plain().split())
            if g.kind in ("para", "item", "heading", "code") and TITLE.match(text):
                if g.kind != "heading" or not g.title:
                    g.kind, g.level, g.title = "heading", 1, text
                titled = True
            elif g.kind == "heading" and not (gi > last and norm_title(g.title) in placed.get(pi, ())):
                g.kind, g.level, g.title = "para", 0, ""
        first = next((g for g in groups if g.kind != "table" and g.lines), None)
        if not titled and (pi == 0 or not flags[pi - 1]) and first is not None:
            first.kind, first.level, first.title = "heading", 1, DEFAULT_TITLE
    return sum(flags)


def _split_titles(groups: list[Group]) -> None:
    """A contents title run into the entries after it ("List of Figures Fig. 1. ...") becomes a group of its own."""
    gi = 0
    while gi < len(groups):
        g = groups[gi]
        if g.kind in ("para", "item", "code") and len(g.lines) > 1 and TITLE.match(" ".join(g.lines[0].text.split())):
            groups.insert(gi + 1, Group(g.kind, g.lines[1:], page=g.page))
            g.lines = g.lines[:1]
        gi += 1


def _join_leader_lines(groups: list[Group]) -> None:
    """A group of one line without letters (leaders, a page number) on the previous line's baseline joins it."""
    keep: list[Group] = []
    for g in groups:
        p = keep[-1] if keep else None
        if (p is not None and p.lines and len(g.lines) == 1 and g.kind != "table" and p.kind != "table"
                and not LETTER.search(g.lines[0].text)):
            a, b = p.lines[-1], g.lines[0]
            if abs(a.base - b.base) <= 0.3 * max(a.size, b.size) and b.x0 >= a.x0:
                a.text = a.text.rstrip() + " " + b.text.strip()
                a.x1 = max(a.x1, b.x1)
                continue
        keep.append(g)
    groups[:] = keep
