"""The entry points the pipeline calls after chunking: apply_llm (contexts, summaries) and plan_llm (dry run); no file reading.

Wiring, per document (`chunkctl.pipeline.document.process_document` does it; see each docstring):

    opts = check_llm(config)                                   # once, before reading files
    chunked = chunk_document(doc, tok, llm_chunk_config(config), table)
    chunks, failures = apply_llm(doc, chunked, tok, config, table)   # failures: list --errors, exit 1
    # --llm-dry-run: config.extras["llm_dry_run"] = True, then plan_llm(...) instead of writing records
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from chunkctl.llm.client import ChatClient, LLMError, answer_cache, get_client
from chunkctl.llm.failures import LLMFailure, grouped
from chunkctl.llm.options import LLMOptions, llm_chunk_config

if TYPE_CHECKING:
    from chunkctl.chunking.registry import Chunked
    from chunkctl.config import ChunkConfig
    from chunkctl.llm.client import ChatRequest
    from chunkctl.model import Chunk, Document
    from chunkctl.tokenizers import Tokenizer, TokenTable



class LLMPlan(NamedTuple):
    """What a run would ask the model (`--llm-dry-run`).

    Attributes:
        calls: requests that would be sent (not in the cache).
        prompt_tokens: their prompt tokens, counted with the run's tokenizer (an
            estimate of the model's own count; message overhead as in the OpenAI
            cookbook, "How to count tokens with tiktoken").
        cached: requests the cache already answers (free).
    """

    calls: int
    prompt_tokens: int
    cached: int

    def __add__(self, other: LLMPlan) -> LLMPlan:  # type: ignore[override]
        return LLMPlan(self.calls + other.calls, self.prompt_tokens + other.prompt_tokens,
                       self.cached + other.cached)


def _restore_budgets(chunks: list[Chunk], config: ChunkConfig) -> None:
    """Give chunks packed with `llm_chunk_config` the run's budget back (the context fills the difference)."""
    packed = llm_chunk_config(config).chunk_size
    if packed != config.chunk_size:
        for c in chunks:
            if c.budget == packed:
                c.budget = config.chunk_size


def _requests(doc: Document, chunks: list[Chunk], tokenizer: Tokenizer, table: TokenTable,
              opts: LLMOptions, found: list[tuple[int, int]] | None) -> tuple[list[tuple[int, ChatRequest]], list[tuple[int, int]],
                                                      list[ChatRequest]]:
    """The context requests (chunk index, request), the long sections and their summary requests."""
    from chunkctl.enrich.context import context_requests
    from chunkctl.enrich.summaries import long_sections, section_spans, summary_requests

    spans = section_spans(doc, found)
    ctx = context_requests(doc, chunks, tokenizer, table, opts, spans) if opts.contextualize else []
    secs: list[tuple[int, int]] = []
    sums: list[ChatRequest] = []
    if opts.summaries:
        secs = long_sections(table, spans, opts.summary_threshold)
        sums = summary_requests(doc, table, secs, opts.max_input_tokens)
    return ctx, secs, sums


def apply_llm(doc: Document, chunked: Chunked, tokenizer: Tokenizer, config: ChunkConfig,
              table: TokenTable | None = None, client: ChatClient | None = None
              ) -> tuple[list[Chunk], list[LLMFailure]]:
    """Add model-written contexts and summary records to one document's chunks.

    Call it after `chunk_document` whenever `check_llm(config).active` (it also
    passes on the failures the `llm` strategy met). What it does, by
    `config.extras`:

    - `contextualize`: each chunk (not oversize) gets a 1-3 sentence context written by
      the model from the document (or, over `llm_max_input_tokens` tokens, its outline
      and the chunk's section) and the chunk (Anthropic, "Introducing Contextual
      Retrieval", 2024). It goes first in `prefix`, before the breadcrumb; the budget
      still holds: the context is shortened at sentence, then word ends, or dropped,
      never the body (`context.add_context`). `meta.context` holds it.
    - `summaries`: each section longer than `summary_min_tokens` tokens (default: the
      chunk size) gets a `kind="summary"` chunk right after the section's chunks:
      `text` is the model's summary (capped to the chunk size), `start`/`end` cover the
      section, `parent` is the section's first chunk (finalize writes its id as
      `parent_id`), `n_tokens` is exact.

    Every call goes through the client's disk cache, so a second run sends nothing and
    yields identical records. A failed call leaves the chunk as it was (no context) or
    the section without a summary, and is returned as an LLMFailure; an answer that
    could not be used is removed from the cache, so the next run asks again.

    Args:
        doc: the document (not changed).
        chunked: what `chunk_document` returned for it (with `llm_chunk_config(config)`
            when contextualizing, so contexts have room): its chunks, in output order,
            are changed in place; its `sections` and `failures` (the `llm` strategy's)
            are used and passed on.
        tokenizer: the run's tokenizer.
        config: the run's config (the original, not `llm_chunk_config`'s).
        table: the document's token table, if already built.
        client: a chat client to use instead of the shared one (tests, custom transports).

    Returns:
        (chunks in output order, summaries included; failures, one per task and reason,
        whose `str()` is a line for `--errors`). With failures the run should exit 1.

    Raises:
        ConfigError: bad options, or no endpoint configured.
        LLMError: a call failed and `llm_required` is set (the document fails).
        MissingExtraError: httpx is missing and a request has to be sent.
    """
    opts = LLMOptions.from_config(config)
    if doc.protected and opts.cache:  # a password-protected text's answers are not kept on disk
        import dataclasses

        opts = dataclasses.replace(opts, cache=False)
    chunks = list(chunked.chunks)  # (a compact ChunkList gives fresh objects: changed here, kept here)
    failures: list[LLMFailure] = list(chunked.failures)
    _restore_budgets(chunks, config)
    if not (opts.contextualize or opts.summaries):
        return chunks, failures
    opts.require_endpoint("--contextualize" if opts.contextualize else "--summaries")
    from chunkctl.chunking.sections import BlockIndex
    from chunkctl.enrich.context import add_context
    from chunkctl.enrich.summaries import place_summaries, summary_chunk
    from chunkctl.text.sentences import SentenceSplitter

    table = table if table is not None else tokenizer.table(doc.text)
    client = client if client is not None else get_client(opts)
    budget = config.chunk_size
    ctx, secs, sums = _requests(doc, chunks, tokenizer, table, opts, chunked.sections)
    answers = client.complete_many([r for _i, r in ctx] + sums)
    splitter = SentenceSplitter(config.sentence_splitter)

    ctx_failed: list[tuple[Chunk, str]] = []
    for (i, req), ans in zip(ctx, answers):
        c = chunks[i]
        if ans.text is None:
            if ans.error is not None:
                ctx_failed.append((c, ans.error))
            continue
        reason = add_context(c, ans.text, table, splitter, c.budget or budget)
        if reason is None:
            c.meta["llm_model"] = client.model
        else:
            client.forget(req)  # an unusable answer is not kept: the next run asks again
            ctx_failed.append((c, reason))

    index = BlockIndex(doc.blocks)
    placed = []
    sum_failed: list[tuple[str, str]] = []
    for span, sreq, ans in zip(secs, sums, answers[len(ctx):]):
        if ans.text is None:
            if ans.error is not None:
                sum_failed.append((f"{span[0]}-{span[1]}", ans.error))
            continue
        made = summary_chunk(span, index.headings_at(*span), ans.text, tokenizer, splitter, budget)
        if isinstance(made, str):
            client.forget(sreq)
            sum_failed.append((f"{span[0]}-{span[1]}", made))
            continue
        made.meta["llm_model"] = client.model
        placed.append((span, made))
    chunks = place_summaries(chunks, placed)

    position = {id(c): n for n, c in enumerate(chunks)}
    failures += grouped(doc.source, "context", ("chunk", "chunks"), [(position[id(c)], r) for c, r in ctx_failed],
                         "emitted without context")
    failures += grouped(doc.source, "summary", ("the section at characters", "the sections at characters"),
                         sum_failed, "no summary record")
    if failures and opts.required:
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        raise LLMError(f"{failures[0]}{more}")
    return chunks, failures


def prompt_tokens(request: ChatRequest, tokenizer: Tokenizer) -> int:
    """Prompt tokens of a request: its messages' text plus 4 per message and 3 to prime the reply (OpenAI cookbook)."""
    return sum(tokenizer.count(content) + 4 for _role, content in request.messages) + 3


def plan_llm(doc: Document, chunked: Chunked, tokenizer: Tokenizer, config: ChunkConfig,
             table: TokenTable | None = None) -> LLMPlan:
    """Count the model calls and prompt tokens a run would spend on one document, sending nothing.

    For `--llm-dry-run`: set `config.extras["llm_dry_run"] = True` (so the `llm`
    strategy asks nothing and cuts at headings where the cache holds no answer), chunk
    as usual, then call this instead of `apply_llm` and sum the plans (`LLMPlan` adds
    up with `+`). Requests the cache already answers are counted apart (`cached`); the
    same prompt twice counts once. With `--strategy llm` the chunks of a dry run may
    differ from the real run's, so the context count is an estimate there.

    Args:
        doc: the document.
        chunked: what `chunk_document` returned for it.
        tokenizer: the run's tokenizer (prompt tokens are counted with it).
        config: the run's config.
        table: the document's token table, if already built.

    Returns:
        LLMPlan(calls, prompt_tokens, cached).

    Raises:
        ConfigError: bad options.
    """
    opts = LLMOptions.from_config(config)
    if not opts.active:
        return LLMPlan(0, 0, 0)
    from chunkctl.llm.boundaries import window_requests, windows

    table = table if table is not None else tokenizer.table(doc.text)
    requests: list[ChatRequest] = []
    if opts.segment:
        requests += window_requests(doc, windows(doc, table, opts.max_input_tokens))
    ctx, _secs, sums = _requests(doc, list(chunked.chunks), tokenizer, table, opts, chunked.sections)
    requests += [r for _i, r in ctx] + sums
    cache = answer_cache(opts)
    model = opts.model or ""
    seen: set[str] = set()
    calls = tokens = cached = 0
    for req in requests:
        key = req.cache_key(model)
        if key in seen:
            continue
        seen.add(key)
        if cache.get(req, model) is not None:
            cached += 1
        else:
            calls += 1
            tokens += prompt_tokens(req, tokenizer)
    return LLMPlan(calls, tokens, cached)
