"""Evaluation grid: `--grid` entries parsed into validated chunking configurations; no I/O, no chunking."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chunkctl.chunking import get_strategy
from chunkctl.config import ChunkConfig
from chunkctl.errors import ConfigError

DEFAULT_GRID = "recursive:200/0,recursive:400/0,sentence:256/32,section:400/0,hierarchical:200/0,fixed:200/0"


_OPTIONS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "parent": ("parent_chunk_size", int),
    "parent_chunk_size": ("parent_chunk_size", int),
    "levels": ("levels", lambda v: tuple(int(x) for x in v.split("/"))),
    "min": ("min_chunk_tokens", int),
    "min_chunk_tokens": ("min_chunk_tokens", int),
    "context": ("context", str),
    "splitter": ("sentence_splitter", str),
    "sentence_splitter": ("sentence_splitter", str),
    "percentile": ("breakpoint_percentile", float),
    "breakpoint_percentile": ("breakpoint_percentile", float),
    "content_type": ("content_type", str),
    "tokenizer": ("tokenizer", str),
}
"""Grid options `key=value` -> (ChunkConfig field, parser); `levels` values are separated by `/`."""

_FLAG_FIELDS = ("parent_chunk_size", "levels", "min_chunk_tokens", "context", "sentence_splitter",
                "breakpoint_percentile", "content_type", "tokenizer")
"""ChunkConfig fields a grid entry may set besides strategy, size and overlap (shown as flags when not default)."""


@dataclass(frozen=True)
class GridEntry:
    """One configuration of the grid: `strategy:size/overlap[:key=value...]`.

    Attributes:
        spec: the entry as written (the row label).
        config: the validated chunking options.
    """

    spec: str
    config: ChunkConfig

    @property
    def flags(self) -> str:
        """The `chunkctl chunk` options that produce these chunks."""
        c = self.config
        parts = [f"--strategy {c.strategy}", f"--chunk-size {c.chunk_size}", f"--overlap {c.overlap_tokens}"]
        defaults = ChunkConfig()
        for name in _FLAG_FIELDS:
            value = getattr(c, name)
            if value != getattr(defaults, name):
                shown = ",".join(map(str, value)) if name == "levels" else value
                parts.append(f"--{name.replace('_', '-')} {shown}")
        return " ".join(parts)


def parse_grid(text: str) -> list[GridEntry]:
    """Parse `--grid`: comma-separated `strategy:size/overlap[:key=value...]` entries.

    `size` is the chunk budget in tokens; `overlap` tokens or a percentage of it
    (`15%`), chunkctl's default (0) when left out. Options: `parent=800`
    (--parent-chunk-size), `levels=2048/512/128`, `min=50` (--min-chunk-tokens),
    `context=none`, `splitter=pysbd`, `percentile=90`, `content_type=legal`,
    `tokenizer=o200k_base`. Example: `recursive:200/0,hierarchical:200/0:parent=800`.

    Raises:
        ConfigError: a malformed entry or an invalid option value (the entry is named).
    """
    entries = []
    for raw in text.split(","):
        spec = raw.strip()
        if not spec:
            continue
        head, _, rest = spec.partition(":")
        size_part, *opts = rest.split(":") if rest else ("",)
        size, _, overlap = size_part.partition("/")
        kw: dict[str, Any] = {"strategy": head.strip()}
        try:
            kw["chunk_size"] = int(size)
        except ValueError:
            raise ConfigError(f"--grid entry {spec!r}: write strategy:size/overlap, e.g. recursive:200/0") from None
        if overlap:
            kw["overlap"] = overlap
        for opt in opts:
            key, eq, value = opt.partition("=")
            known = _OPTIONS.get(key.strip().replace("-", "_"))
            if not eq or known is None:
                raise ConfigError(f"--grid entry {spec!r}: unknown option {opt!r} (known: parent, levels, min, "
                                  f"context, splitter, percentile, content_type, tokenizer)")
            try:
                kw[known[0]] = known[1](value.strip())
            except ValueError:
                raise ConfigError(f"--grid entry {spec!r}: bad value in {opt!r}") from None
        try:
            config = ChunkConfig(**kw)
            get_strategy(config.strategy)
        except ConfigError as exc:
            raise ConfigError(f"--grid entry {spec!r}: {exc}") from None
        entries.append(GridEntry(spec, config))
    if not entries:
        raise ConfigError("--grid is empty; give entries like recursive:200/0,sentence:256/32")
    return entries
