"""A big PDF's pages held packed between the loader's passes: lines and groups as marshal bytes; no PDF parsing, no tokens.

The PDF loader decides running headers, the body font size, headings, contents pages and
hyphenation over the whole document, so every page's lines, and then its groups, are
held until the last page is read. As objects (a `Line` of 13 slots, a float a
coordinate, a string) that is some 310 bytes a line of prose, 4.3 bytes a character
of text: 14x the file of a 20 MB text-only PDF. Packed (each line a tuple of its
fields, a page's tuples one `marshal` string compressed by zlib at level 1) prose takes
about 0.8 bytes a character; each pass unpacks one page at a time (`lines_of`,
`PageGroups.reading`) and packs it again only when it changes it.

Pages are packed only once the document's text passes `PACK_AT` characters: a small
document keeps its objects and pays nothing. A line's and a table's fields must be plain
Python values: `marshal` writes a numpy number as its bytes, without a word (helper-66).
"""

from __future__ import annotations

import marshal
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import starmap
from operator import attrgetter
from typing import Any

from chunkctl.loaders.pdf.groups import Group
from chunkctl.loaders.pdf.page import Line, PageData
from chunkctl.loaders.pdf.tables import Table

PACK_AT = 1 << 20
"""Characters of text (pdfium's non-space characters, over the pages read so far) past which pages are packed."""

LIVE_PAGES = 64
"""Pages of groups `PageGroups` keeps unpacked, the most recently used (passes that look at
the pages near an outline entry, or at two pages in a row, unpack each once)."""

_LINE = attrgetter("text", "x0", "top", "x1", "bottom", "size", "bold", "mono", "hyphen", "vertical",
                   "angle", "order", "base")
_TABLE = attrgetter("x0", "top", "x1", "bottom", "header", "rows", "captions", "notes", "col_x", "continues")


def _dumps(obj: Any) -> bytes:
    return zlib.compress(marshal.dumps(obj), 1)


def _loads(data: bytes) -> Any:
    return marshal.loads(zlib.decompress(data))


def _lines(tuples: list[tuple]) -> list[Line]:
    return list(starmap(Line, tuples))


def _table(t: tuple | None) -> Table | None:
    return None if t is None else Table(*t)


def pack_page(p: PageData) -> None:
    """Pack a read page's lines, stray lines and tables into `p.packed` (their lists are emptied).
    Unpack with `unpack_page` (to change them) or read them with `lines_of`."""
    p.packed = _dumps(([_LINE(ln) for ln in p.lines], [_LINE(ln) for ln in p.stray], [_TABLE(t) for t in p.tables]))
    p.lines, p.stray, p.tables = [], [], []


def unpack_page(p: PageData) -> bool:
    """Give a packed page its lines, stray lines and tables back (as new objects); returns whether it was packed."""
    if p.packed is None:
        return False
    lines, stray, tables = _loads(p.packed)
    p.packed = None
    p.lines, p.stray, p.tables = _lines(lines), _lines(stray), [Table(*t) for t in tables]
    return True


@contextmanager
def unpacked(p: PageData) -> Iterator[PageData]:
    """The page with its lines, stray lines and tables unpacked for the block to change them;
    packed again after it when they were packed."""
    packed = unpack_page(p)
    try:
        yield p
    finally:
        if packed:
            pack_page(p)


def lines_of(p: PageData) -> list[Line]:
    """A page's lines to read (packed pages: new objects each call, changes to them are not kept)."""
    if p.packed is None:
        return p.lines
    return _lines(_loads(p.packed)[0])


def should_pack(chars: int) -> bool:
    """Whether pages are packed once `chars` characters of text were read."""
    return chars > PACK_AT


class PageGroups:
    """Each page's groups (`list[Group]`), packed or not; indexed by 0-based page like a list of lists.

    `pages[i]` gives page i's groups to change: the list stays unpacked among the
    `LIVE_PAGES` most recently used and is packed again, changes and all, when it
    leaves them. `read(i)` gives them to look at, never to change (an unchanged page
    leaving the live ones is not packed again); `take(i)` gives them and forgets the
    page. Without `packed`, a plain list of lists.
    """

    def __init__(self, packed: bool) -> None:
        self.packed = packed
        self._pages: list[bytes | list[Group]] = []
        # page -> [its groups, changed]: the live pages, least recently used first
        self._live: OrderedDict[int, list] = OrderedDict()

    def append(self, groups: list[Group]) -> None:
        """Add the next page's groups."""
        self._pages.append(self._pack(groups) if self.packed else groups)

    def __len__(self) -> int:
        return len(self._pages)

    def __getitem__(self, i: int) -> list[Group]:
        return self._get(i, True)

    def __iter__(self) -> Iterator[list[Group]]:
        for i in range(len(self._pages)):
            yield self[i]

    def read(self, i: int) -> list[Group]:
        """Page i's groups to look at, not to change."""
        return self._get(i, False)

    def _get(self, i: int, change: bool) -> list[Group]:
        got = self._pages[i]
        if isinstance(got, list):
            return got
        live = self._live.get(i)
        if live is not None:
            self._live.move_to_end(i)
            live[1] = live[1] or change
            return live[0]
        groups = self._unpack(got)
        self._live[i] = [groups, change]
        if len(self._live) > LIVE_PAGES:
            j, (old, changed) = self._live.popitem(last=False)
            if changed:
                self._pages[j] = self._pack(old)
        return groups

    def reading(self) -> Iterator[list[Group]]:
        """Every page's groups in order, to look at, not to change (a pass over the document: a page
        not live is unpacked for the pass alone, not kept among the live ones)."""
        for i, got in enumerate(self._pages):
            live = self._live.get(i)
            yield got if isinstance(got, list) else live[0] if live is not None else self._unpack(got)

    def take(self, i: int) -> list[Group]:
        """Page i's groups; the page is left empty (its memory goes)."""
        live = self._live.pop(i, None)
        got = self._pages[i]
        self._pages[i] = []
        if live is not None:
            return live[0]
        return got if isinstance(got, list) else self._unpack(got)

    @staticmethod
    def _pack(groups: list[Group]) -> bytes:
        return _dumps([(g.kind, [_LINE(ln) for ln in g.lines], None if g.table is None else _TABLE(g.table),
                        g.page, g.level, g.title) for g in groups])

    @staticmethod
    def _unpack(data: bytes) -> list[Group]:
        return [Group(kind, _lines(lines), _table(table), page, level, title)
                for kind, lines, table, page, level, title in _loads(data)]


def read(groups_by_page: PageGroups | list[list[Group]], i: int) -> list[Group]:
    """Page i's groups to look at, of a `PageGroups` or a list of lists."""
    return groups_by_page.read(i) if isinstance(groups_by_page, PageGroups) else groups_by_page[i]


def reading(groups_by_page: PageGroups | list[list[Group]]) -> Iterator[list[Group]]:
    """Every page's groups to look at, in order, of a `PageGroups` or a list of lists."""
    return groups_by_page.reading() if isinstance(groups_by_page, PageGroups) else iter(groups_by_page)
