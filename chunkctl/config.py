"""ChunkConfig: every option that changes the chunks, validated when built; no I/O."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import orjson

from chunkctl.errors import ConfigError

CONTEXT_MODES = ("none", "headings", "title+headings")
# `extras` keys that change how a run talks to a model or where it caches, never what
# the records say: left out of the fingerprint (so of chunk ids and the record cache).
RUN_ONLY_EXTRAS = frozenset({"llm_api_key_env", "llm_concurrency", "llm_timeout", "llm_retries", "llm_backoff",
                             "llm_http2", "llm_required", "llm_dry_run", "llm_cache", "cache_dir"})
SENTENCE_SPLITTERS = ("blingfire", "pysbd")
OCR_MODES = ("auto", "always", "never")
"""`--ocr`: auto (pdf pages without a text layer, when chunkctl[ocr] is installed), always (every page), never."""
CONTENT_TYPES = ("legal", "narrative", "code", "other")
"""`--content-type`: the document type `auto` takes instead of detecting it (`chunking.auto`)."""


DEFAULT_OVERLAP = 0
"""`--overlap` when left out, in tokens. 0 since 0.1.3: it is the configuration that held on both
evaluation sets (README "Evaluation": 15% lost recall to LangChain on SQuAD, 0 was level there and
ahead on the shared set)."""


def parse_overlap(value: int | str | None, chunk_size: int) -> int:
    """Turn `--overlap` into tokens: an integer, or a percentage of the chunk size.

    `"15%"` means floor(chunk_size * 0.15) tokens (docs/records.md#sizes-and-overlap).

    Raises:
        ConfigError: not a number, negative, or not smaller than the chunk size.
    """
    if value is None:
        value = DEFAULT_OVERLAP
    if isinstance(value, bool):
        raise ConfigError(f"--overlap must be a number of tokens or a percentage, got {value!r}")
    if isinstance(value, str):
        text = value.strip()
        try:
            if text.endswith("%"):
                pct = float(text[:-1])
                if not 0 <= pct < 100:
                    raise ConfigError(f"--overlap {value}: a percentage must be at least 0% and below 100%")
                tokens = int(chunk_size * pct // 100)
            else:
                tokens = int(text)
        except ValueError:
            raise ConfigError(f"--overlap {value!r}: give a number of tokens (64) or a percentage (15%)") from None
    else:
        tokens = int(value)
    if tokens < 0:
        raise ConfigError(f"--overlap ({tokens}) must not be negative")
    if tokens >= chunk_size:
        raise ConfigError(f"--overlap ({tokens} tokens) must be smaller than --chunk-size ({chunk_size} tokens)")
    return tokens


def parse_levels(value: str | tuple[int, ...] | list[int] | None) -> tuple[int, ...] | None:
    """Turn `--levels` ("2048,512,128") into budgets in tokens, largest first; None stays None.

    Raises:
        ConfigError: not a comma-separated list of integers (an empty item, as in "," or
            "2048,,128", included: it was once read as no `--levels` at all).
    """
    if value is None or not isinstance(value, str):
        return tuple(value) if value is not None else None
    try:
        return tuple(int(x) for x in value.replace(" ", "").split(","))
    except ValueError:
        raise ConfigError(f"--levels {value!r}: give budgets in tokens separated by commas, e.g. 2048,512,128") from None


# Python codecs that take bytes to str but are no character set a file could be written in: the
# escapes of Python string literals, and "undefined", which refuses everything.
_NOT_CHARSETS = frozenset({"undefined", "unicode-escape", "raw-unicode-escape"})


def text_codec(name: str) -> str | None:
    """Python's canonical name of `name` when it is a text encoding (bytes to str) a file can be
    written in, else None: not a codec, a transform (base64, hex, rot13, zlib, bz2, uu, quopri:
    codecs whose decoder gives bytes or raises on its own input, e.g. zlib's error for b""), or
    one of `_NOT_CHARSETS`. (helper-114: `--encoding zlib` and `<meta charset="base64">` ended in a
    traceback and an "internal error".)"""
    import codecs

    try:
        info = codecs.lookup(name)
    except (LookupError, TypeError, ValueError):
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        return None
    try:
        if not isinstance(info.decode(b"")[0], str):
            return None
    except Exception:  # (a decoder that fails on empty input is no text encoding to read a file with)
        return None
    return info.name


def check_encoding(name: str) -> None:
    """Raise ConfigError unless `name` is a text encoding Python knows (bytes to str).

    Transforms such as rot13, hex, base64 or zlib are codecs too, but not text encodings
    (`text_codec`).
    """
    if text_codec(name) is None:
        raise ConfigError(f"--encoding {name!r} is not a text encoding Python knows") from None


MAX_BUDGET = 2**31 - 1
"""Largest token budget accepted (chunk, parent or level size), in tokens."""


@dataclass(frozen=True)
class ChunkConfig:
    """The options of one run that decide the chunks (and so the chunk ids).

    Sizes are in tokens of `tokenizer`. Build it with keyword arguments; the
    constructor checks every value and raises `ConfigError` with a message that
    names the option and the fix.

    Attributes:
        strategy: registered strategy name (`chunkctl.chunking.STRATEGIES`); the
            name is checked against the registry when chunking starts
            (`chunkctl.pipeline.prepare`, `chunkctl.chunking.get_strategy`), since the
            registry lives above this module.
        chunk_size: token budget of a chunk, prefix included (with `levels`: the smallest level).
        overlap: tokens shared by consecutive chunks at most; an int or a percentage of
            `chunk_size` such as "15%" (default `DEFAULT_OVERLAP`, 0).
        tokenizer: encoding name, model name, or path of a `.tiktoken` file or of a Hugging
            Face `tokenizer.json`.
        tokenizer_pattern: pre-tokenizer regex for a local `.tiktoken` file.
        context: what goes in `prefix`: "none", "headings" or "title+headings".
        encoding: force the text encoding of txt/md/html files (None: detect).
        min_chunk_tokens: `section`: merge sibling sections smaller than this.
        parent_chunk_size: `hierarchical`: parent budget (default 4 x chunk_size).
        levels: `hierarchical`: budgets from the largest to the smallest level (a
            tuple, or a string such as "2048,512,128").
        sentence_splitter: "blingfire" (fast) or "pysbd" (accurate, slow).
        breakpoint_percentile: `semantic`: a gap between sentences whose embedding
            distance is above this percentile of the document's gaps ends a chunk (0-100).
        content_type: `auto`: force the content type instead of detecting it.
        main_content: html: keep only the main article.
        keep_boilerplate: html: keep navigation, headers, footers, asides.
        password: pdf: password for encrypted files.
        ocr: pdf: when to read pages with OCR (`OCR_MODES`): "auto" reads pages without a
            text layer when the extra chunkctl[ocr] is installed. Left out of `to_dict` at
            "auto", so fingerprints made before the option stay the same.
        extras: options of optional features (llm, ...), part of the fingerprint.
        count_special_tokens: with a Hugging Face `tokenizer.json` as `tokenizer`, count the
            tokens the model adds to every input ([CLS], [SEP]) in each chunk's size. Kept in
            `tokenizer` too (as "PATH+special", what `get_tokenizer` reads); left out of
            `to_dict` when false, so fingerprints made before the option stay the same.
    """

    strategy: str = "recursive"
    chunk_size: int = 512
    overlap: int | str = DEFAULT_OVERLAP
    tokenizer: str = "cl100k_base"
    tokenizer_pattern: str | None = None
    context: str = "headings"
    encoding: str | None = None
    min_chunk_tokens: int = 0
    parent_chunk_size: int | None = None
    levels: tuple[int, ...] | None = None
    sentence_splitter: str = "blingfire"
    breakpoint_percentile: float = 95.0
    content_type: str | None = None
    main_content: bool = False
    keep_boilerplate: bool = False
    password: str | None = field(default=None, repr=False)
    extras: dict[str, Any] = field(default_factory=dict)
    count_special_tokens: bool = False
    ocr: str = "auto"

    def __post_init__(self) -> None:
        self._fold_special_tokens()
        if not isinstance(self.strategy, str) or not self.strategy:
            raise ConfigError(f"--strategy must be a strategy name, got {self.strategy!r}")
        if isinstance(self.levels, str):
            object.__setattr__(self, "levels", parse_levels(self.levels))
        if self.levels is not None:
            try:
                levels = tuple(int(x) for x in self.levels)
            except (TypeError, ValueError):
                raise ConfigError("--levels must be budgets in tokens, e.g. 2048,512,128") from None
            if len(levels) < 2 or any(x < 1 for x in levels) or list(levels) != sorted(set(levels), reverse=True):
                raise ConfigError("--levels must list at least two positive budgets from the largest to the smallest, "
                                  "e.g. 2048,512,128")
            object.__setattr__(self, "levels", levels)
            object.__setattr__(self, "chunk_size", levels[-1])  # the retrieval (leaf) budget
        if not isinstance(self.chunk_size, int) or isinstance(self.chunk_size, bool) or self.chunk_size < 1:
            raise ConfigError(f"--chunk-size must be a positive number of tokens, got {self.chunk_size!r}")
        for flag, value in (("--chunk-size", self.chunk_size), ("--parent-chunk-size", self.parent_chunk_size),
                            ("--levels", max(self.levels or (0,)))):
            if isinstance(value, int) and value > MAX_BUDGET:
                raise ConfigError(f"{flag} {value} is too large: budgets go up to {MAX_BUDGET:,} tokens")
        object.__setattr__(self, "overlap", parse_overlap(self.overlap, self.chunk_size))
        if self.encoding is not None:
            check_encoding(self.encoding)
        if self.context not in CONTEXT_MODES:
            raise ConfigError(f"--context {self.context!r} is not one of: {', '.join(CONTEXT_MODES)}")
        if self.min_chunk_tokens < 0:
            raise ConfigError("--min-chunk-tokens must not be negative")
        if self.min_chunk_tokens > self.chunk_size:
            raise ConfigError(f"--min-chunk-tokens ({self.min_chunk_tokens}) must not exceed --chunk-size ({self.chunk_size})")
        if self.sentence_splitter not in SENTENCE_SPLITTERS:
            raise ConfigError(f"--sentence-splitter {self.sentence_splitter!r} is not one of: {', '.join(SENTENCE_SPLITTERS)}")
        if self.content_type is not None and self.content_type not in CONTENT_TYPES:
            # (for every strategy: helper-101, `--content-type bogus` passed unless with `auto`)
            raise ConfigError(f"--content-type {self.content_type!r} is not one of: {', '.join(CONTENT_TYPES)}")
        if self.ocr not in OCR_MODES:
            raise ConfigError(f"--ocr {self.ocr!r} is not one of: {', '.join(OCR_MODES)}")
        if not 0 <= float(self.breakpoint_percentile) <= 100:  # (NaN fails too)
            raise ConfigError("--breakpoint-percentile must lie between 0 and 100")
        if self.parent_chunk_size is not None and self.levels is None and self.parent_chunk_size <= self.chunk_size:
            raise ConfigError(f"--parent-chunk-size ({self.parent_chunk_size}) must be larger than --chunk-size ({self.chunk_size})")

    def _fold_special_tokens(self) -> None:
        """Put `count_special_tokens` into `tokenizer` (`get_tokenizer` takes only the name).

        The flag decides: a "+special" already on `tokenizer` (a copy made with `replace`)
        is removed first and put back only when the flag is set.
        """
        suffix = "+special"  # chunkctl.tokenizers.SPECIAL_SUFFIX (config imports no tokenizer code)
        flag = self.count_special_tokens
        if not isinstance(flag, bool):
            raise ConfigError(f"--count-special-tokens must be true or false, got {flag!r}")
        name = self.tokenizer
        if not isinstance(name, str):
            return
        base = name[:-len(suffix)] if name.endswith(suffix) else name
        if flag and not (base.lower().endswith(".json") or "/" in base or "\\" in base):
            raise ConfigError(f"--count-special-tokens counts the tokens a Hugging Face model adds ([CLS], [SEP]): "
                              f"give --tokenizer the path of its tokenizer.json, not {base!r}")
        object.__setattr__(self, "tokenizer", base + suffix if flag else base)

    @property
    def overlap_tokens(self) -> int:
        """The overlap in tokens (always an int once the config is built)."""
        return int(self.overlap)

    def replace(self, **changes: Any) -> ChunkConfig:
        """A copy with some fields changed (validated again)."""
        if "chunk_size" in changes and "overlap" not in changes:
            changes["overlap"] = min(self.overlap_tokens, max(0, changes["chunk_size"] - 1))
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """All fields as a JSON-ready dict (the password is left out)."""
        d = asdict(self)
        d.pop("password", None)
        if not d["count_special_tokens"]:
            del d["count_special_tokens"]
        if d["ocr"] == "auto":
            del d["ocr"]
        if d.get("levels") is not None:
            d["levels"] = list(d["levels"])
        return d

    def fingerprint(self) -> str:
        """Short stable hash of every field that changes the output (used in chunk ids and caches).

        Computed once per config (`to_dict` deep-copies every field: about 7% of the time of
        a run of 3,000 small files went there when it ran for every file) and again only when
        `extras`, the one field that can change in place, did. A tokenizer given as a file
        counts by its content, not by how its path is written (`_tokenizer_identity`).
        """
        snap = repr(sorted(self.extras.items(), key=lambda kv: str(kv[0]))) if self.extras else ""
        memo = self.__dict__.get("_fingerprint")
        if memo is not None and memo[0] == snap:
            return memo[1]
        d = self.to_dict()
        d["extras"] = {k: v for k, v in d["extras"].items() if k not in RUN_ONLY_EXTRAS}
        d["has_password"] = self.password is not None
        d["tokenizer"] = _tokenizer_identity(self.tokenizer)
        fp = hashlib.blake2b(orjson.dumps(d, option=orjson.OPT_SORT_KEYS), digest_size=8).hexdigest()
        object.__setattr__(self, "_fingerprint", (snap, fp))
        return fp

    @classmethod
    def field_names(cls) -> list[str]:
        """Names of the configurable fields, in declaration order."""
        return [f.name for f in fields(cls)]


def _tokenizer_identity(name: str) -> str:
    """What the fingerprint takes of `tokenizer`: a file (a `.tiktoken` or `tokenizer.json`,
    with "+special" kept) by the SHA-256 of its bytes (`tokenizers.tokenizer_digest`, which the
    record cache keys by too), so that `tok.json`, `./tok.json` and its absolute path give the
    same chunk ids, and a file changed in place gives new ones; a name as written. (helper-99:
    the ids changed with the path's spelling.)"""
    from chunkctl.tokenizers import SPECIAL_SUFFIX, tokenizer_digest

    digest = tokenizer_digest(name)
    if not digest:
        return name
    return "file:" + digest + (SPECIAL_SUFFIX if name.endswith(SPECIAL_SUFFIX) else "")
