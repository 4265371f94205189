"""The model seam: an OpenAI-compatible chat client with an answer cache, its options, prompts and failure records; knows nothing of chunking.

Used by the `llm` strategy (section starts, `boundaries`) and by the enrich stage
(contexts, summaries). Public API (see each docstring):
    check_llm(config) -> LLMOptions                 check options once, before reading files
    llm_chunk_config(config) -> ChunkConfig         the config to chunk with (room for contexts)
    get_client(options) -> ChatClient               the shared client of this process
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chunkctl.llm.client import ChatClient, ChatRequest, LLMError, close_clients, get_client
    from chunkctl.llm.failures import LLMFailure
    from chunkctl.llm.options import RUN_ONLY_KEYS, LLMOptions, check_llm, llm_chunk_config

# Names are imported when first used (PEP 562): a run that asks no model never loads the
# HTTP client (about 15 ms of start-up).
_HOME = {
    "ChatClient": "client", "ChatRequest": "client", "LLMError": "client", "close_clients": "client",
    "get_client": "client", "LLMFailure": "failures", "RUN_ONLY_KEYS": "options", "LLMOptions": "options",
    "check_llm": "options", "llm_chunk_config": "options",
}


_SUBMODULES = frozenset(("boundaries", "client", "failures", "options", "prompts"))


def __getattr__(name: str) -> Any:
    """The public name `name`, imported from its module on first use (or a submodule, as
    `chunkctl.llm.client` was an attribute when the package imported it at once)."""
    home = _HOME.get(name)
    if home is None:
        if name in _SUBMODULES:
            return importlib.import_module(f"chunkctl.llm.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"chunkctl.llm.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily imported public ones included."""
    return sorted(set(globals()) | set(_HOME))


__all__ = [
    "check_llm", "llm_chunk_config", "LLMOptions", "LLMFailure", "LLMError",
    "ChatClient", "ChatRequest", "get_client", "close_clients", "RUN_ONLY_KEYS",
]
