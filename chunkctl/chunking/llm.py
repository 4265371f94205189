"""Strategy `llm`: a language model names where thematic sections begin; headings and the shared packer do the rest.

The strategy never reads input files; its model answers pass through the answer
cache of `chunkctl.llm.client` (the only files it touches).
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from chunkctl.chunking.packer import Packer
from chunkctl.chunking.recursive import pack_sections
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import sections, split_sections

if TYPE_CHECKING:
    from chunkctl.llm.boundaries import Window
    from chunkctl.model import Chunk


def _check(config) -> None:
    from chunkctl.llm.options import check_llm

    check_llm(config)


@register("llm", "a language model names where thematic sections begin (any OpenAI-compatible endpoint: "
                 "--llm-base-url, --llm-model); cut there and at headings, then by the recursive rules",
          check=_check)
def chunk_llm(doc, tokenizer, config, table) -> Chunked:
    """LLM-assisted chunking: the model proposes thematic section starts, chunkctl validates and packs.

    The document is sent in windows of whole blocks (at most `llm_max_input_tokens`
    tokens each); the model quotes the first words of each new section (or gives
    character offsets). Each answer is checked against the text (quotes located in
    the window, offsets inside it) and snapped to the nearest block start where a cut
    is allowed; impossible, duplicate and unusable answers are dropped
    (`chunkctl.llm.boundaries`). The document is then cut at those starts and at its
    real headings, and every section is packed by the recursive rules (the shared
    packer), so no answer, however wrong, can put a chunk over the budget or lose
    text. Idea: LumberChunker (Duarte et al., 2024); budgets and offsets are chunkctl's.

    A window whose call fails is cut at its headings only; the failure is returned in
    `Chunked.failures` for the run to report (with `llm_required` it raises). The
    sections cut at are returned in `Chunked.sections` (summaries use them). In a dry
    run (`llm_dry_run`) only cached answers are used.

    Raises:
        ConfigError: no endpoint configured (`--llm-base-url`, `--llm-model`).
        LLMError: a call failed and `llm_required` is set.
    """
    from chunkctl.llm.boundaries import section_starts
    from chunkctl.llm.client import LLMError, get_client
    from chunkctl.llm.failures import section_failures
    from chunkctl.llm.options import LLMOptions

    opts = LLMOptions.from_config(config)
    opts.require_endpoint("--strategy llm")
    client = get_client(opts)
    starts, failed, used = section_starts(doc, table, opts.max_input_tokens, client)
    problems = []
    if failed:
        problems = section_failures(doc.source, [((w.start, w.end), reason) for w, reason in failed])
        if opts.required:
            raise LLMError(str(problems[0]))
    secs = split_sections(sections(doc.blocks), starts)
    chunks = pack_sections(Packer(doc, tokenizer, config, table), secs)
    assert isinstance(chunks, list)  # (not compact: _name_model changes them)
    _name_model(chunks, used, client.model)
    return Chunked(chunks, sections=[(s.start, s.end) for s in secs], failures=problems)


def _name_model(chunks: list[Chunk], used: list[Window], model: str) -> None:
    """Set `meta["llm_model"]` on the chunks that start inside a window whose answer was used.

    Those are the chunks whose start the model's answer decided (a cut it named, or
    none where it saw one topic). A chunk starting where only failed windows reached
    was cut at headings only, and keeps a null `llm_model`. Windows are sorted by start
    and by end, so the first used window ending after a position is the one to check.
    """
    if not used:
        return
    ends = [w.end for w in used]
    starts = [w.start for w in used]
    for c in chunks:
        k = bisect.bisect_right(ends, c.start)
        if k < len(used) and starts[k] <= c.start:
            c.meta["llm_model"] = model
