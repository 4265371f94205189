"""Enrichment, the stage after chunking: model-written contexts and summary records; imports chunking, never the reverse.

Public API (see each docstring):
    apply_llm(doc, chunked, tokenizer, config, table=None) -> (chunks, failures)
    plan_llm(doc, chunked, tokenizer, config, table=None) -> LLMPlan(calls, prompt_tokens, cached)
"""

from __future__ import annotations

from chunkctl.enrich.apply import LLMPlan, apply_llm, plan_llm

__all__ = ["LLMPlan", "apply_llm", "plan_llm"]
