"""Strategy registry: name -> strategy; a strategy turns a Document into Chunks and never reads files.

A new strategy is one module in this package with a function decorated by
`@register("name")` plus its import line at the bottom of this file. Strategies only
say where text may be cut; `packer.Packer` fits the pieces to the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ..config import ChunkConfig
    from ..model import Chunk, Document
    from ..tokenizers import TokenTable, Tokenizer

StrategyFn = Callable[["Document", "Tokenizer", "ChunkConfig", "TokenTable"], "list[Chunk]"]


@dataclass(frozen=True)
class Strategy:
    """A registered chunking strategy.

    Attributes:
        name: the `--strategy` value and `meta.strategy`.
        chunk: `chunk(doc, tokenizer, config, table) -> list[Chunk]`, chunks in output
            order (parents before their children for hierarchical output).
        summary: one line for `--help` and README.
    """

    name: str
    chunk: StrategyFn
    summary: str
    check: Callable[["ChunkConfig"], None] | None = None

    def ready(self, config: "ChunkConfig") -> None:
        """Raise (e.g. MissingExtraError) when the strategy cannot run here; called before any file is read."""
        if self.check is not None:
            self.check(config)


STRATEGIES: dict[str, Strategy] = {}


def register(name: str, summary: str, check: Callable[["ChunkConfig"], None] | None = None
             ) -> Callable[[StrategyFn], StrategyFn]:
    """Decorator: register `fn` as strategy `name` (`check` tells early whether it can run here)."""

    def deco(fn: StrategyFn) -> StrategyFn:
        STRATEGIES[name] = Strategy(name, fn, summary, check)
        return fn

    return deco


def chunk_document(doc: "Document", tokenizer: "Tokenizer", config: "ChunkConfig",
                   table: "TokenTable | None" = None) -> "list[Chunk]":
    """Chunk one document with the configured strategy.

    Args:
        doc: a loaded document.
        tokenizer: the run's tokenizer.
        config: the run's options.
        table: the document's token table, if already built.

    Returns:
        chunks in output order, with exact `n_tokens`.
    """
    if table is None:
        table = tokenizer.table(doc.text)
    return STRATEGIES[config.strategy].chunk(doc, tokenizer, config, table)


from . import auto, fixed, hierarchical, llm, recursive, section, semantic, sentence  # noqa: E402,F401  (registration side effects)
