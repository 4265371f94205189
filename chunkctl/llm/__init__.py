"""The model seam: an OpenAI-compatible chat client with an answer cache, its options, prompts and failure records; knows nothing of chunking.

Used by the `llm` strategy (section starts, `boundaries`) and by the enrich stage
(contexts, summaries). Public API (see each docstring):
    check_llm(config) -> LLMOptions                 check options once, before reading files
    llm_chunk_config(config) -> ChunkConfig         the config to chunk with (room for contexts)
    get_client(options) -> ChatClient               the shared client of this process
"""

from __future__ import annotations

from chunkctl.llm.client import ChatClient, ChatRequest, LLMError, close_clients, get_client
from chunkctl.llm.failures import LLMFailure
from chunkctl.llm.options import RUN_ONLY_KEYS, LLMOptions, check_llm, llm_chunk_config

__all__ = [
    "check_llm", "llm_chunk_config", "LLMOptions", "LLMFailure", "LLMError",
    "ChatClient", "ChatRequest", "get_client", "close_clients", "RUN_ONLY_KEYS",
]
