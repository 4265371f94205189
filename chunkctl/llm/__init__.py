"""Model-assisted chunking over any OpenAI-compatible endpoint: contexts, summaries, section starts; loaders and the CLI stay out."""

from __future__ import annotations

from .client import ChatClient, ChatRequest, LLMError, close_clients, get_client
from .options import RUN_ONLY_KEYS, LLMOptions, check_llm, llm_chunk_config

__all__ = ["check_llm", "llm_chunk_config", "LLMOptions", "LLMError", "ChatClient", "ChatRequest", "get_client",
           "close_clients", "RUN_ONLY_KEYS"]
