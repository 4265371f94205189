"""Strategy registry: name -> strategy, and `Chunked`, what every strategy returns; no file reading here.

A strategy turns a Document into chunks and never reads files. It only says where
text may be cut; `chunking.packer.Packer` fits the pieces to the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chunkctl.errors import ConfigError

if TYPE_CHECKING:
    from chunkctl.config import ChunkConfig
    from chunkctl.model import Chunk, Document
    from chunkctl.tokenizers import Tokenizer, TokenTable


@dataclass
class Chunked:
    """What a strategy returns for one document: its chunks and what it found on the way.

    A strategy never writes into the Document (one Document may be chunked several
    times, by several strategies); facts for later stages travel here.

    Attributes:
        chunks: chunks in output order (parents before their children).
        doc_meta: document facts for every record's `meta` (e.g. `auto`'s
            `content_type`).
        sections: the `[start, end)` character spans of the sections the strategy cut
            at, when they are not the heading sections (the `llm` strategy's thematic
            sections; summaries use them). None: the heading sections.
        failures: model calls that failed without failing the document (the `llm`
            strategy), as `chunkctl.llm.failures.LLMFailure`; the run reports them.
    """

    chunks: Sequence[Chunk]
    doc_meta: dict[str, Any] = field(default_factory=dict)
    sections: list[tuple[int, int]] | None = None
    failures: list[Any] = field(default_factory=list)


StrategyFn = Callable[["Document", "Tokenizer", "ChunkConfig", "TokenTable"], Chunked]


@dataclass(frozen=True)
class Strategy:
    """A registered chunking strategy.

    Attributes:
        name: the `--strategy` value, `meta.strategy` and the docs heading.
        chunk: `chunk(doc, tokenizer, config, table) -> Chunked`.
        summary: one line for `--help` and the docs.
        check: `check(config)` raises (e.g. MissingExtraError, ConfigError) when the
            strategy cannot run with these options here; called before any file is read.
    """

    name: str
    chunk: StrategyFn
    summary: str
    check: Callable[[ChunkConfig], None] | None = None

    def ready(self, config: ChunkConfig) -> None:
        """Raise (e.g. MissingExtraError) when the strategy cannot run here; called before any file is read."""
        if self.check is not None:
            self.check(config)


STRATEGIES: dict[str, Strategy] = {}
"""Registered strategies by name, in registration order."""


def register(name: str, summary: str, check: Callable[[ChunkConfig], None] | None = None
             ) -> Callable[[StrategyFn], StrategyFn]:
    """Decorator: register `fn` as strategy `name` (`check` tells early whether it can run here)."""

    def deco(fn: StrategyFn) -> StrategyFn:
        STRATEGIES[name] = Strategy(name, fn, summary, check)
        return fn

    return deco


def get_strategy(name: str) -> Strategy:
    """The registered strategy called `name`.

    Raises:
        ConfigError: no strategy has that name (the message lists the known ones).
    """
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ConfigError(f"--strategy {name!r} is not one of: {', '.join(sorted(STRATEGIES))}") from None


def strategy_names() -> list[str]:
    """Names of the registered strategies, in registration order (the default first)."""
    return list(STRATEGIES)
