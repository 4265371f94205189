"""Model-assisted chunking over any OpenAI-compatible endpoint: contexts, summaries, section starts; loaders and the CLI stay out.

Public API (the pipeline and CLI wire these; see each docstring):
    check_llm(config) -> LLMOptions                 check options once, before reading files
    llm_chunk_config(config) -> ChunkConfig         the config to chunk with (room for contexts)
    apply_llm(doc, chunks, tokenizer, config, table=None) -> (chunks, failures)
    plan_llm(doc, chunks, tokenizer, config, table=None) -> LLMPlan(calls, prompt_tokens, cached)
"""

from __future__ import annotations

from .apply import LLMFailure, LLMPlan, apply_llm, plan_llm
from .client import ChatClient, ChatRequest, LLMError, close_clients, get_client
from .options import RUN_ONLY_KEYS, LLMOptions, check_llm, llm_chunk_config

__all__ = [
    "apply_llm", "plan_llm", "check_llm", "llm_chunk_config", "LLMOptions", "LLMFailure", "LLMPlan", "LLMError",
    "ChatClient", "ChatRequest", "get_client", "close_clients", "RUN_ONLY_KEYS",
]
