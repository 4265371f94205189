"""Chunking: blocks -> chunks within a token budget; a registry of strategies over one shared packer; never reads files.

A new strategy is one module in this package whose function is decorated by
`@register("name", "summary")` (see `registry`), plus its import line below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chunkctl.chunking.registry import STRATEGIES, Chunked, Strategy, get_strategy, register, strategy_names

if TYPE_CHECKING:
    from chunkctl.config import ChunkConfig
    from chunkctl.model import Document
    from chunkctl.tokenizers import Tokenizer, TokenTable


def chunk_document(doc: Document, tokenizer: Tokenizer, config: ChunkConfig,
                   table: TokenTable | None = None) -> Chunked:
    """Chunk one document with the configured strategy.

    Args:
        doc: a loaded document (not changed).
        tokenizer: the run's tokenizer.
        config: the run's options (`config.strategy` names the strategy).
        table: the document's token table, if already built.

    Returns:
        the strategy's Chunked: chunks in output order with exact `n_tokens`, and
        what the strategy found.

    Raises:
        ConfigError: unknown strategy.
    """
    strategy = get_strategy(config.strategy)
    if table is None:
        table = tokenizer.table(doc.text)
    return strategy.chunk(doc, tokenizer, config, table)


# One line per strategy: importing the module registers it (the default first).
# isort: off
from chunkctl.chunking import recursive  # noqa: E402, F401
from chunkctl.chunking import fixed  # noqa: E402, F401
from chunkctl.chunking import sentence  # noqa: E402, F401
from chunkctl.chunking import section  # noqa: E402, F401
from chunkctl.chunking import hierarchical  # noqa: E402, F401
from chunkctl.chunking import semantic  # noqa: E402, F401
from chunkctl.chunking import auto  # noqa: E402, F401
from chunkctl.chunking import llm  # noqa: E402, F401
# isort: on

__all__ = ["STRATEGIES", "Chunked", "Strategy", "chunk_document", "get_strategy", "register", "strategy_names"]
