"""The document model: Document, Block and Chunk as plain data; no I/O, no tokenization here."""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, overload


class BlockKind(str, Enum):
    """Type of a block; the value is what `chunkctl extract --blocks` prints."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    CODE = "code"
    MATH = "math"
    TABLE = "table"
    QUOTE = "quote"
    HTML = "html"
    FRONT_MATTER = "front_matter"
    RULE = "rule"


@dataclass(frozen=True, slots=True)
class Block:
    """One typed block of a document: a span `[start, end)` of `Document.text`.

    Offsets are in characters (Python `str` indices, Unicode code points), end
    exclusive, and never include the block's surrounding blank lines.

    Attributes:
        kind: the block type.
        start: first character of the block in the document text.
        end: one past the last character.
        level: heading level 1..6 (0 for other blocks).
        headings: heading path in force at this block, outermost first; for a
            heading block, the path *including* the heading itself.
        language: fenced-code language tag ("" when unknown).
        header: for tables, the `[start, end)` span of the header lines (header
            row and, in Markdown, the delimiter row); `None` for other blocks.
        rows: for tables, the `[start, end)` span of each body row, in order; for lists,
            each item's span (a tuple, or `Spans` for very many).
        meta: loader-specific extras (e.g. a table's header cells; for lists and block
            quotes, `atomic`: the `[start, end)` character spans of code, tables and
            display math nested in them, which the packer keeps whole).
    """

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    headings: tuple[str, ...] = ()
    language: str = ""
    header: tuple[int, int] | None = None
    rows: Sequence[tuple[int, int]] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (the shape `chunkctl extract --blocks` prints)."""
        out: dict[str, Any] = {"kind": self.kind.value, "start": self.start, "end": self.end}
        if self.level:
            out["level"] = self.level
        out["headings"] = list(self.headings)
        if self.language:
            out["language"] = self.language
        if self.header is not None:
            out["header"] = list(self.header)
            out["rows"] = [list(r) for r in self.rows]
        if self.meta:
            out["meta"] = self.meta
        return out


class PackedStrings(Sequence[str]):
    """A list of strings kept as text: every `PACK` strings are joined into one, with each
    one's start in it (4 bytes a string, 8 in a pack past 4 GB; a list holds a string object of some 50 bytes
    plus its text: an HTML list of 2.5 M one-word items took 160 MB as strings, the heading
    titles of a Markdown file of 630,000 one-word sections 39 MB). Appends and pops at the
    end; strings read by index; `join` is `"\n".join(strings)`. (Used for an HTML list's or
    quote's finished lines and for `BlockList`'s heading titles.)"""

    PACK = 4096

    __slots__ = ("_packs", "_starts", "_tail")

    def __init__(self) -> None:
        self._packs: list[str] = []  # PACK lines each, joined by "\n"
        self._starts = array("I")  # start of each packed line in its pack (widened past 2**32 - 1)
        self._tail: list[str] = []  # the lines not packed yet (fewer than PACK)

    def __len__(self) -> int:
        return len(self._starts) + len(self._tail)

    def __bool__(self) -> bool:
        return bool(self._tail) or bool(self._packs)

    def append(self, line: str) -> None:
        tail = self._tail
        tail.append(line)
        if len(tail) == self.PACK:
            at = 0
            starts = self._starts
            for ln in tail:
                try:
                    starts.append(at)
                except OverflowError:
                    starts = self._starts = _append_widening(starts, at)
                at += len(ln) + 1
            self._packs.append("\n".join(tail))
            self._tail = []

    def pop(self) -> str:
        """Remove and return the last line (IndexError when there is none)."""
        if not self._tail and self._packs:
            k = len(self._starts) - self.PACK
            self._tail = self[k:]
            self._packs.pop()
            del self._starts[k:]
        return self._tail.pop()

    def __getitem__(self, i: Any) -> Any:  # (an index: a line; a slice: a list of lines)
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self._starts)
        if i < 0:
            i += len(self)
        if i >= n:
            return self._tail[i - n]
        if i < 0:
            raise IndexError("line index out of range")
        pack = self._packs[i // self.PACK]
        start = self._starts[i]
        end = self._starts[i + 1] - 1 if (i + 1) % self.PACK else len(pack)
        return pack[start:end]

    def __iter__(self) -> Iterator[str]:
        for i in range(len(self._starts)):
            yield self[i]
        yield from self._tail

    def drain(self) -> Iterator[str]:
        """The strings a pack at a time, each pack's joined by "\n" (`PACK` strings, the last
        pack fewer), emptying the sequence as it goes: the starts are let go at once and each
        pack once it is read, so the caller may build the whole text beside a pack's worth of
        these (`Indented.join_all`)."""
        self._starts = array("I")
        packs, self._packs = self._packs, []
        packs.reverse()
        while packs:
            yield packs.pop()
        tail, self._tail = self._tail, []
        if tail:
            yield "\n".join(tail)

    def join(self, first: int = 0) -> str:
        """`"\n".join(self[first:])`, without a string per line."""
        if first >= len(self._starts):
            return "\n".join(self._tail[first - len(self._starts):])
        k = first // self.PACK
        head = self._packs[k][self._starts[first]:]
        return "\n".join([head, *self._packs[k + 1:], *self._tail]) if (
            len(self._packs) > k + 1 or self._tail) else head


class BlockList(Sequence[Block]):
    """A document's blocks in order: a list while there are few, columns when there are many.

    A `Block` object takes about 240 bytes (the object, its two offsets, its `meta` dict),
    which is 40x a file of one-word paragraphs. From `COMPACT_FROM` blocks on, when they
    average fewer than `DENSE` characters (from `MANY` blocks on, whatever their length), a
    block without extras (no language, table spans or meta) is kept as columns: kind and level
    in 1 byte (level 0-15; a block of another level is kept whole); start and end 4 bytes each
    (8 past 2**32 characters); a heading path id 1 byte, widened to 2 or 4 when a document has
    more paths: 10 bytes a block (9 while no block has a heading path: no path column until
    one has). Heading paths are a tree of titles (a path is its parent path's id and its last
    title: 12 bytes beside the title, where a tuple and its index took about 160, which a file
    of short headings paid for each). A block whose one
    extra is its rows (a list's item spans, up to `FEW_SPANS`) keeps them in one flat column:
    8 bytes a span and 8 the block (a document of short lists between paragraphs held some 400
    bytes a list as objects). A block whose extras are a language, a header span, up to
    `FEW_SPANS` rows and a table's `meta` of `header_cells` (and `delimiter_row` False) is kept
    in columns too: some 20 bytes beside its rows and its cells' text (helper-105: a file of
    tiny Markdown tables, one every 14 characters, took 70x its size as objects; code blocks
    with a language are as common). Blocks with other extras are kept whole. Indexing and iteration
    give `Block` objects equal to those appended (made afresh in column mode: compare blocks
    with `==`, not `is`). In column mode a slice with step 1 is a read-only view sharing the
    columns; otherwise slices are lists.

    Loaders build one with `append`; everything downstream reads it as a `Sequence[Block]`.
    """

    COMPACT_FROM = 4096
    """Blocks from which the list may turn into columns (a list of that many costs about 1 MB),
    checked at every multiple of it."""

    DENSE = 128
    """Characters per block, on average up to the last block appended, below which the list
    turns into columns: there a `Block` object costs 2x the text or more; in longer blocks
    the list is kept, as it is faster to read (about 7% of a run on prose), up to `MANY`."""

    MANY = 16 * 4096
    """Blocks from which the list turns into columns whatever their length: 65,536 `Block`
    objects take some 16 MB, which a long document of prose paragraphs pays on top of its
    text (a PDF book of 8,000 pages, 282,000 blocks of 166 characters: 67 MB, 3.4x its
    20 MB file)."""

    __slots__ = ("_list", "_kind", "_start", "_end", "_path", "_parent", "_title", "_prefix_ids",
                 "_rich", "_lo", "_hi", "_root", "_last_path", "_made", "_paths_made", "_row_blocks", "_row_at", "_row_flat",
                 "_ext_blocks", "_ext_lang", "_ext_flags", "_ext_head", "_ext_cells_at", "_cells", "_langs", "_lang_ids")
    _list: list[Block] | None
    _root: BlockList | None
    _kind: array  # kind code (`kind_code`) + 16 * level
    _start: array
    _end: array
    _path: array
    _parent: array
    _title: PackedStrings
    _prefix_ids: list[int]
    _rich: dict[int, Block]
    _row_blocks: array  # the blocks whose rows are flat, in order; the k-th one's rows are the pairs
    _row_at: array  # of `_row_flat` from `_row_at[k]` to `_row_at[k + 1]`
    _row_flat: array
    # The blocks with extras kept in columns (`_extras`), in order: the k-th one's language is
    # `_langs[_ext_lang[k]]`; its header span is pair k of `_ext_head` (when `_EXT_HEADER` is set in
    # `_ext_flags[k]`); its header cells are `_cells[_ext_cells_at[k]:_ext_cells_at[k + 1]]`.
    _ext_blocks: array
    _ext_lang: array
    _ext_flags: array
    _ext_head: array
    _ext_cells_at: array
    _cells: PackedStrings
    _langs: list[str]
    _lang_ids: dict[str, int]
    _last_path: tuple[str, ...]
    _made: tuple[int, tuple[str, ...]]
    _paths_made: dict[int, tuple[str, ...]]

    def __init__(self, blocks: Iterable[Block] = ()) -> None:
        self._list = []
        self._root = None  # the store a view reads (None: self)
        self._lo = 0
        self._hi = 0
        for b in blocks:
            self.append(b)

    # -- building -------------------------------------------------------------------------------
    def append(self, block: Block) -> None:
        """Add `block` at the end (a view cannot be appended to: TypeError)."""
        if self._root is not None:
            raise TypeError("a BlockList view is read-only")
        if self._list is not None:
            self._list.append(block)
            n = len(self._list)
            if n % self.COMPACT_FROM == 0 and (block.end < n * self.DENSE or n >= self.MANY):
                self._compact()
            return
        i = len(self._start)
        if block.end > _MAX_U32 and self._end.typecode == "I":
            self._start, self._end = array("q", self._start), array("q", self._end)
            self._row_flat, self._ext_head = array("q", self._row_flat), array("q", self._ext_head)
        level = block.level if 0 <= block.level < 16 else 0  # (any other level: kept whole below)
        self._kind.append(_KIND_CODE[block.kind] | level << 4)
        self._start.append(block.start)
        self._end.append(block.end)
        path = block.headings
        ids = self._prefix_ids  # ids[j]: the path id of self._last_path[:j]
        if path is not self._last_path:
            last = self._last_path
            c, n = 0, min(len(path), len(last))
            while c < n and (path[c] is last[c] or path[c] == last[c]):
                c += 1
            del ids[c + 1:]
            for title in path[c:]:
                self._parent.append(ids[-1])
                ids.append(len(self._title))
                self._title.append(title)
            self._last_path = path
        k = ids[len(path)]
        if k or self._path:  # (no column while every block's path is the empty one, id 0)
            if not self._path:
                self._path = array("B", bytes(i))
            try:
                self._path.append(k)
            except OverflowError:  # (path ids 1 byte wide at first)
                self._path = _append_widening(self._path, k)
        if block.language or block.header is not None or block.meta or level != block.level \
                or len(block.rows) > FEW_SPANS:  # (many rows: a `Spans` already, read as it is)
            if level != block.level or len(block.rows) > FEW_SPANS or not self._extras(i, block):
                self._rich[i] = block
                self._hi = i + 1
                return
        if block.rows:
            flat = self._row_flat
            for a, b in block.rows:
                flat.append(a)
                flat.append(b)
            self._row_blocks.append(i)
            self._row_at.append(len(flat))
        self._hi = i + 1

    def _extras(self, i: int, block: Block) -> bool:
        """Keep block `i`'s language, header span and table `meta` in the extras columns if they
        are of the kinds those hold (False: nothing kept, the block is to be kept whole)."""
        meta = block.meta
        flags = 0
        cells = None
        if meta:
            cells = meta.get("header_cells")
            if len(meta) > 2 or not isinstance(cells, list) or not all(type(c) is str for c in cells):
                return False
            if len(meta) == 2:
                if meta.get("delimiter_row", True) is not False:
                    return False
                flags |= _EXT_NO_DELIMITER
            flags |= _EXT_CELLS
        header = block.header
        if header is not None:
            if len(header) != 2 or self._ext_head.typecode == "I" and not all(0 <= x <= _MAX_U32 for x in header):
                return False
            flags |= _EXT_HEADER
        lang = self._lang_ids.get(block.language)
        if lang is None:
            if len(self._langs) >= 1 << 16 or type(block.language) is not str:
                return False
            lang = self._lang_ids[block.language] = len(self._langs)
            self._langs.append(block.language)
        self._ext_head.extend(header or (0, 0))
        if cells is not None:
            for c in cells:
                self._cells.append(c)
        self._ext_cells_at.append(len(self._cells))
        self._ext_blocks.append(i)
        self._ext_lang.append(lang)
        self._ext_flags.append(flags)
        return True

    def extend(self, blocks: Iterable[Block]) -> None:
        """`append` each of `blocks`."""
        for b in blocks:
            self.append(b)

    def _compact(self) -> None:
        held = self._list or []
        self._list = None
        self._kind = array("B")
        # offsets as 4-byte unsigned ints (8-byte from the first past 2**32 - 1); path ids 1 byte,
        # widened to 2 or 4 when a document has more paths (a block of `# h\n` is 4 bytes), and
        # no column until a block has a heading path (a file of one-letter pages: 1 byte a page)
        self._start, self._end, self._path = array("I"), array("I"), array("B")
        self._parent = array("i", [-1])  # path id 0: the empty path
        self._title = PackedStrings()
        self._title.append("")
        self._prefix_ids = [0]
        self._last_path = ()
        self._made = (0, ())
        self._paths_made = {}  # paths made lately, by id
        self._rich = {}
        self._row_blocks, self._row_at, self._row_flat = array("I"), array("I", [0]), array("I")
        self._ext_blocks, self._ext_lang, self._ext_flags = array("I"), array("H"), array("B")
        self._ext_head, self._ext_cells_at, self._cells = array("I"), array("I", [0]), PackedStrings()
        self._langs, self._lang_ids = [""], {"": 0}
        for b in held:
            self.append(b)
        held.clear()

    @property
    def compact(self) -> bool:
        """True when the blocks are kept as columns."""
        return (self._root or self)._list is None

    # -- reading --------------------------------------------------------------------------------
    def __len__(self) -> int:
        if self._root is None and self._list is not None:
            return len(self._list)
        return self._hi - self._lo

    def _make(self, i: int) -> Block:
        """Block at absolute index `i` of a compact store."""
        rich = self._rich.get(i)
        if rich is not None:
            return rich
        k = self._path[i] if self._path else 0
        made = self._made  # (the path last made: blocks in a row share it)
        if made[0] != k:
            path = self._paths_made.get(k)
            if path is None:
                path = made[1] + (self._title[k],) if self._parent[k] == made[0] else self._path_of(k)
                if len(self._paths_made) >= 4096:  # (a file of headings has a path a block)
                    self._paths_made.clear()
                self._paths_made[k] = path
            made = self._made = (k, path)
        code = self._kind[i]  # kind code + 16 * level
        rows: Sequence[tuple[int, int]] = ()
        listed = self._row_blocks
        if listed:
            k = bisect.bisect_left(listed, i)
            if k < len(listed) and listed[k] == i:
                a, b = self._row_at[k], self._row_at[k + 1]
                flat = self._row_flat
                rows = tuple(zip(flat[a:b:2], flat[a + 1:b:2]))
        listed = self._ext_blocks
        if listed:
            k = bisect.bisect_left(listed, i)
            if k < len(listed) and listed[k] == i:
                flags = self._ext_flags[k]
                meta: dict[str, Any] = {}
                if flags & _EXT_CELLS:
                    meta["header_cells"] = self._cells[self._ext_cells_at[k]:self._ext_cells_at[k + 1]]
                    if flags & _EXT_NO_DELIMITER:
                        meta["delimiter_row"] = False
                header = (self._ext_head[2 * k], self._ext_head[2 * k + 1]) if flags & _EXT_HEADER else None
                return Block(_KINDS[code & 15], self._start[i], self._end[i], code >> 4, made[1],
                             self._langs[self._ext_lang[k]], header, rows, meta)
        return Block(_KINDS[code & 15], self._start[i], self._end[i], code >> 4, made[1], rows=rows)

    def _path_of(self, k: int) -> tuple[str, ...]:
        """The heading path of path id `k` (outermost title first)."""
        titles = []
        parent, title = self._parent, self._title
        while k > 0:
            titles.append(title[k])
            k = parent[k]
        return tuple(reversed(titles))

    @overload
    def __getitem__(self, i: int) -> Block: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Block]: ...

    def __getitem__(self, i: int | slice) -> Block | Sequence[Block]:
        if self._root is None and self._list is not None:
            return self._list[i]
        n = self._hi - self._lo
        if isinstance(i, slice):
            a, b, step = i.indices(n)
            if step != 1:
                return [self[k] for k in range(a, b, step)]
            view = BlockList.__new__(BlockList)
            view._list = None
            view._root = self._root or self
            view._lo = self._lo + a
            view._hi = self._lo + max(a, b)
            return view
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("block index out of range")
        return (self._root or self)._make(self._lo + i)

    def __iter__(self) -> Iterator[Block]:
        if self._root is None and self._list is not None:
            return iter(self._list)
        store = self._root or self
        return map(store._make, range(self._lo, self._hi))

    def kinds(self) -> Sequence[BlockKind]:
        """The blocks' kinds, in order (a new list; no block is made)."""
        return [_KINDS[c] for c in self.kind_codes()]

    def kind_codes(self) -> bytes:
        """The blocks' kinds as one byte each (`kind_code`), in order: a new bytes object,
        1 byte a block where a list of kinds takes 8 (no block is made)."""
        if self._root is None and self._list is not None:
            return bytes(_KIND_CODE[b.kind] for b in self._list)
        store = self._root or self
        # (a memoryview's slice is not a copy: an array slice and its bytes were two, 2 bytes
        # a block at once beside the result, 1x a file of one-letter pages)
        return memoryview(store._kind)[self._lo:self._hi].tobytes().translate(_LOW_NIBBLE)

    def columns(self) -> tuple[Sequence[int], Sequence[int], Sequence[int], int]:
        """(kinds, starts, ends, first): the blocks' columns as they are kept, no copy made;
        block `i` of this list is at index `first + i` of each (a view shares its store's
        columns). Kinds: `kind_code` in the low 4 bits (read `kinds[first + i] & 15`), the
        rest unspecified. Starts and ends in characters. Shared: do not modify.

        For readers that look up many blocks of a big document: `kind_codes`, `starts` and
        `ends` of a view are copies (a file of one-letter pages: 9 bytes a block)."""
        if self._root is None and self._list is not None:
            return self.kind_codes(), self.starts(), self.ends(), 0
        store = self._root or self
        return store._kind, store._start, store._end, self._lo

    def starts(self) -> Sequence[int]:
        """Start offsets (characters) of the blocks, in order (shared columns: do not modify)."""
        return self._column("_start")

    def ends(self) -> Sequence[int]:
        """End offsets (characters, exclusive) of the blocks, in order (shared: do not modify)."""
        return self._column("_end")

    def _column(self, name: str) -> Sequence[int]:
        if self._root is None and self._list is not None:
            return [getattr(b, name[1:]) for b in self._list]
        col: array = getattr(self._root or self, name)
        return col if self._lo == 0 and self._hi == len(col) else col[self._lo:self._hi]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable, like list

    def __repr__(self) -> str:
        return f"BlockList({list(self)!r})"


_KINDS = list(BlockKind)
_MAX_U32 = (1 << 32) - 1
# `BlockList._ext_flags` bits: a header span; `meta["header_cells"]`; `meta["delimiter_row"]` False
_EXT_HEADER, _EXT_CELLS, _EXT_NO_DELIMITER = 1, 2, 4


class Spans(Sequence[tuple[int, int]]):
    """`[start, end)` character spans in order, kept flat in one array: 8 bytes a span (16 past
    2**32 characters) where a tuple of pairs takes about 100.

    For the item spans of a huge list (`Block.rows`): a list of a million one-word items
    held 17x its text as pairs. Reads as a sequence of `(start, end)` tuples and compares
    equal to any sequence of the same pairs (a tuple of tuples included), so a `Block`
    with `Spans` rows equals one with the same rows as a tuple.
    """

    __slots__ = ("_flat",)
    _flat: array

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        self._flat = array("I")
        self.extend(spans)

    def append(self, span: tuple[int, int]) -> None:
        """Add one `(start, end)` span at the end."""
        s, e = span
        if self._flat.typecode == "I" and not (0 <= s <= _MAX_U32 and 0 <= e <= _MAX_U32):
            self._flat = array("q", self._flat)
        self._flat.append(s)
        self._flat.append(e)

    def extend(self, spans: Iterable[tuple[int, int]]) -> None:
        """`append` each of `spans`."""
        if isinstance(spans, Spans) and spans._flat.typecode == self._flat.typecode:
            self._flat.extend(spans._flat)
            return
        for span in spans:
            self.append(span)

    def shift(self, delta: int) -> Spans:
        """Add `delta` characters to every start and end, in place (no second array of the spans
        beside this one: the loader moves a block's spans from its text into the document's);
        returns self. Raises ValueError when a span would start before 0."""
        flat = self._flat
        if not delta or not flat:
            return self
        if min(flat) + delta < 0:
            raise ValueError("a span would start before 0")
        if flat.typecode == "I" and max(flat) + delta > _MAX_U32:
            flat = self._flat = array("q", flat)
        add = delta.__add__
        step = 1 << 16
        for a in range(0, len(flat), step):
            flat[a:a + step] = array(flat.typecode, map(add, flat[a:a + step]))
        return self

    def __len__(self) -> int:
        return len(self._flat) // 2

    @overload
    def __getitem__(self, i: int) -> tuple[int, int]: ...

    @overload
    def __getitem__(self, i: slice) -> Spans: ...

    def __getitem__(self, i: int | slice) -> tuple[int, int] | Spans:
        n = len(self._flat) // 2
        if isinstance(i, slice):
            out = Spans()
            out.extend(self[k] for k in range(*i.indices(n)))
            return out
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("span index out of range")
        return self._flat[2 * i], self._flat[2 * i + 1]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        it = iter(self._flat)
        return zip(it, it)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(tuple(a) == tuple(b) for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))  # (as the tuple of pairs it equals)

    def __bool__(self) -> bool:
        return bool(self._flat)

    def __repr__(self) -> str:
        return f"Spans({list(self)!r})"


FEW_SPANS = 64
"""Row and item spans of a block kept as a tuple up to this many (a tuple of pairs takes about
100 bytes a span, which only matters for huge tables and lists)."""


def compact_spans(pairs: Iterable[tuple[int, int]]) -> Sequence[tuple[int, int]]:
    """Row or item spans for `Block.rows`: a tuple, or `Spans` (8 bytes a span) past FEW_SPANS of them."""
    if isinstance(pairs, Spans):
        return pairs if len(pairs) > FEW_SPANS else tuple(pairs)
    it = iter(pairs)
    head = tuple(itertools.islice(it, FEW_SPANS + 1))
    if len(head) <= FEW_SPANS:
        return head
    many = Spans(head)
    many.extend(it)
    return many


_KIND_CODE = {k: i for i, k in enumerate(_KINDS)}
assert len(_KINDS) <= 16, "a compact BlockList keeps the kind in the low 4 bits of a byte"
_LOW_NIBBLE = bytes(i & 15 for i in range(256))  # (a compact BlockList's kind byte -> kind code)


def kind_code(kind: BlockKind) -> int:
    """The byte that stands for `kind` in `BlockList.kind_codes` (stable within a run only)."""
    return _KIND_CODE[kind]


@dataclass(slots=True)
class Document:
    """A loaded document: its canonical text and the typed blocks that are spans of it.

    Attributes:
        source: path relative to the input root, `/` separators (`-` for stdin).
        format: `txt`, `md`, `pdf` or `html`.
        text: the document text that chunk offsets index (characters). For txt and
            md it is the decoded file with one leading BOM removed and no newline
            translation; for pdf and html it is what the loader extracted.
        blocks: typed blocks in document order, non-overlapping (a list, or a
            `BlockList` when the loader may meet very many).
        meta: document facts: `title`, `encoding`, `sha256` and loader extras
            (e.g. `lang`, `page_labels`, `front_matter`, `skipped_spans`: the
            `[start, end)` character spans no chunk may hold, such as data-URI payloads).
        warnings: non-fatal problems found while loading (one line each).
        protected: the file could be read only with a password (an encrypted PDF):
            its text must not be kept where a run without the password could read it
            (the record cache does not store it).
        lost: parts of the file that could not be read and are left out (a damaged PDF's
            pages), one line each: the records are written without them, and the run
            counts the document incomplete and fails (exit 1).
    """

    source: str
    format: str
    text: str
    blocks: Sequence[Block]
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    protected: bool = False
    lost: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The document title (from metadata, else the first h1, else the file name)."""
        return str(self.meta.get("title") or "")


@dataclass(slots=True)
class Chunk:
    """One chunk produced by a strategy, before ids and metadata are attached.

    Attributes:
        start: body start in the document text (characters).
        end: body end, exclusive (characters).
        prefix: text placed before the body in the emitted `text` (breadcrumb,
            model-written context, repeated table header); "" when none.
        headings: heading path in force at the body's first non-heading block.
        kind: `text`, `table`, `code`, `mixed` or `summary`.
        n_tokens: tokens of `prefix + body` (exact, by the run's tokenizer).
        budget: the token budget this chunk was packed to (its level's chunk size).
        oversize: the body is one grapheme cluster larger than the budget.
        parent: index (in the strategy's output list) of the parent chunk, or None.
        depth: number of parent hops (0 for top-level chunks).
        text: for summary records only, the model-written text (else None).
        meta: per-chunk extras merged into the record's `meta`.
    """

    start: int
    end: int
    prefix: str = ""
    headings: tuple[str, ...] = ()
    kind: str = "text"
    n_tokens: int = 0
    budget: int = 0
    oversize: bool = False
    parent: int | None = None
    depth: int = 0
    text: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class ChunkList(Sequence[Chunk]):
    """A document's chunks in output order: a list while there are few, columns when there are many.

    A `Chunk` object takes about 300 bytes (the object, its offsets, its `meta` dict),
    which is 20x and more a document of one-word sections, whose chunks are a few
    characters each. From `COMPACT_FROM` chunks on, when they average fewer than `DENSE`
    characters, a chunk without extras (no model-written `text`, no `meta`) is kept as
    columns: start, end (4 bytes each; 8 past 2**32 characters), n_tokens, budget, parent
    and indices into the distinct prefixes and heading paths (2 bytes each while their
    values fit, widened when one does not), the kind's index, depth and flags (a byte
    each): about 19 bytes a chunk. Chunks with extras are kept whole. Indexing and iteration give `Chunk`
    objects equal to those appended; in column mode they are made afresh, so a change
    to one is not kept: build the list once the chunks are final (strategies that
    change their chunks after packing keep a plain list). Slices are lists.
    """

    COMPACT_FROM = 4096
    """Chunks from which the list may turn into columns, checked at every multiple of it."""

    DENSE = 512
    """Characters per chunk, on average up to the last chunk appended, below which the list
    turns into columns (there a `Chunk` object costs more than half the text)."""

    __slots__ = ("_list", "_start", "_end", "_ntok", "_budget", "_parent", "_depth", "_flags", "_kind",
                 "_prefix", "_heads", "_values", "_index", "_rich")
    _list: list[Chunk] | None
    _start: array
    _end: array
    _ntok: array
    _budget: array
    _parent: array
    _depth: array
    _flags: array
    _kind: array
    _prefix: array
    _heads: array
    _values: list[Any]
    _index: dict[Any, int]
    _rich: dict[int, Chunk]

    def __init__(self, chunks: Iterable[Chunk] = ()) -> None:
        self._list = []
        for c in chunks:
            self.append(c)

    def append(self, chunk: Chunk) -> None:
        """Add `chunk` at the end."""
        if self._list is not None:
            self._list.append(chunk)
            n = len(self._list)
            if n % self.COMPACT_FROM == 0 and chunk.end < n * self.DENSE:
                self._compact()
            return
        i = len(self._start)
        if chunk.end > _MAX_U32 and self._end.typecode == "I":
            self._start, self._end = array("q", self._start), array("q", self._end)
        parent = -1 if chunk.parent is None else chunk.parent
        simple = (chunk.text is None and not chunk.meta and 0 <= chunk.depth < 256 and -1 <= parent < _MAX_I32
                  and 0 <= chunk.n_tokens <= _MAX_U32 and 0 <= chunk.budget <= _MAX_U32
                  and 0 <= chunk.start <= chunk.end)
        if not simple:
            self._rich[i] = chunk
            chunk = _PLACEHOLDER
            parent = -1
        self._start.append(chunk.start)
        self._end.append(chunk.end)
        self._depth.append(chunk.depth)
        self._flags.append(1 if chunk.oversize else 0)
        row = (chunk.n_tokens, chunk.budget, parent, self._intern(chunk.kind), self._intern(chunk.prefix),
               self._intern(chunk.headings))
        try:
            self._ntok.append(row[0])
            self._budget.append(row[1])
            self._parent.append(row[2])
            self._kind.append(row[3])
            self._prefix.append(row[4])
            self._heads.append(row[5])
        except OverflowError:  # a value wider than its column so far: widen, then append the row again
            self._widen(i, row)

    _NARROW = ("_ntok", "_budget", "_parent", "_kind", "_prefix", "_heads")
    """Columns that start 1 or 2 bytes wide and are widened (`_WIDER`) when a value does not fit."""

    def _widen(self, i: int, row: tuple[int, ...]) -> None:
        for name, value in zip(self._NARROW, row):
            col = getattr(self, name)
            del col[i:]
            setattr(self, name, _append_widening(col, value))

    def extend(self, chunks: Iterable[Chunk]) -> None:
        """`append` each of `chunks`."""
        for c in chunks:
            self.append(c)

    def _intern(self, value: Any) -> int:
        # kinds (str), prefixes (str) and heading paths (tuple) share one table: a str and a
        # tuple never compare equal, and a kind equal to a prefix is the same value
        k = self._index.get(value)
        if k is None:
            k = self._index[value] = len(self._values)
            self._values.append(value)
        return k

    def _compact(self) -> None:
        held = self._list or []
        self._list = None
        self._start, self._end = array("I"), array("I")
        # token counts, budgets and indices of kinds, prefixes and heading paths: 2 bytes each
        # (1 for the kind) while they fit, widened when one does not (`_widen`)
        self._ntok, self._budget, self._prefix, self._heads = array("H"), array("H"), array("H"), array("H")
        self._parent = array("h")
        self._depth, self._flags, self._kind = array("B"), array("B"), array("B")
        self._values = []
        self._index = {}
        self._rich = {}
        for c in held:
            self.append(c)
        held.clear()

    @property
    def compact(self) -> bool:
        """True when the chunks are kept as columns."""
        return self._list is None

    def __len__(self) -> int:
        return len(self._list) if self._list is not None else len(self._start)

    def _make(self, i: int) -> Chunk:
        rich = self._rich.get(i)
        if rich is not None:
            return rich
        parent = self._parent[i]
        v = self._values
        return Chunk(self._start[i], self._end[i], v[self._prefix[i]], v[self._heads[i]], v[self._kind[i]],
                     self._ntok[i], self._budget[i], bool(self._flags[i]), None if parent < 0 else parent,
                     self._depth[i])

    @overload
    def __getitem__(self, i: int) -> Chunk: ...

    @overload
    def __getitem__(self, i: slice) -> list[Chunk]: ...

    def __getitem__(self, i: int | slice) -> Chunk | list[Chunk]:
        if self._list is not None:
            return self._list[i]
        n = len(self._start)
        if isinstance(i, slice):
            return [self._make(k) for k in range(*i.indices(n))]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("chunk index out of range")
        return self._make(i)

    def __iter__(self) -> Iterator[Chunk]:
        if self._list is not None:
            return iter(self._list)
        return map(self._make, range(len(self._start)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable, like list

    def __repr__(self) -> str:
        return f"ChunkList({list(self)!r})"


_MAX_I32 = (1 << 31) - 1
_PLACEHOLDER = Chunk(0, 0)
_WIDER = {"B": "H", "H": "I", "I": "q", "b": "h", "h": "i", "i": "q"}
"""The next wider array typecode (`_append_widening`)."""


def _append_widening(col: array, value: int) -> array:
    """`col` with `value` appended: `col` itself, or a copy widened (`_WIDER`) until it fits."""
    while True:
        try:
            col.append(value)
            return col
        except OverflowError:
            col = array(_WIDER[col.typecode], col)
