"""Summary indexing: which sections get a model-written summary record, and where those records go; no network."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from chunkctl.chunking.sections import BlockIndex, sections
from chunkctl.llm.client import ChatRequest
from chunkctl.llm.prompts import clean_answer, shorten, summary_request
from chunkctl.model import Chunk

if TYPE_CHECKING:
    from chunkctl.model import Document
    from chunkctl.text.sentences import SentenceSplitter
    from chunkctl.tokenizers import Tokenizer, TokenTable

def section_spans(doc: Document, found: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """The document's sections as sorted `[start, end)` character spans.

    `found`: the sections the strategy cut at (`Chunked.sections`, the `llm`
    strategy's thematic sections); when None or empty, the heading sections
    (heading lines included; front matter left out).
    """
    if found:
        return [(int(a), int(b)) for a, b in found]
    return [(s.start, s.end) for s in sections(doc.blocks)]


def long_sections(table: TokenTable, spans: list[tuple[int, int]], threshold: int) -> list[tuple[int, int]]:
    """The sections longer than `threshold` tokens (exact count of their text)."""
    return [(a, b) for a, b in spans if table.count(a, b) > threshold]


def summary_requests(doc: Document, table: TokenTable, secs: list[tuple[int, int]], max_input_tokens: int
                     ) -> list[ChatRequest]:
    """One summary request per section; a section over `max_input_tokens` tokens is sent cut to that."""
    index = BlockIndex(doc.blocks)
    out = []
    for a, b in secs:
        cut = table.estimate(a, b, side="right") > max_input_tokens
        e = min(b, table.char(table.index(a) + max_input_tokens)) if cut else b
        out.append(summary_request(doc.text[a:e], index.headings_at(a, b), doc.title, cut))
    return out


def summary_chunk(span: tuple[int, int], path: tuple[str, ...], answer: str, tokenizer: Tokenizer,
                  splitter: SentenceSplitter, budget: int) -> Chunk | str:
    """A `kind="summary"` chunk for one section, or a one-line reason why there is none.

    Its `text` is the model's summary (one line), shortened at sentence, then word ends
    to fit `budget` tokens; `n_tokens` is the exact count of that text; `start`/`end`
    cover the section; `headings` is the section's heading path `path`; `prefix` is
    empty. `parent` and `depth` are set when placed.
    """
    text = clean_answer(answer)
    if not text:
        return "the model's answer holds no summary"
    text = shorten(text, lambda s: tokenizer.count(s) <= budget, splitter.spans(text, 0, len(text)))
    if not text:
        return f"no word of the summary fits {budget} tokens"
    a, b = span
    return Chunk(a, b, "", path, "summary", tokenizer.count(text), budget, text=text)


def place_summaries(chunks: list[Chunk], placed: list[tuple[tuple[int, int], Chunk]]) -> list[Chunk]:
    """Insert summary chunks after their sections' chunks and point each at its section's first chunk.

    A section's first chunk is the first chunk in list order whose span meets the
    section (for hierarchical output, the parent that holds it); the summary goes
    right after the last chunk that meets the section, and `parent` indexes (of every
    chunk) are renumbered for the new list. A section no chunk meets gets no summary.

    Args:
        chunks: the document's chunks in output order (summaries not yet among them).
        placed: (section span, summary chunk) pairs, sections sorted and disjoint.

    Returns:
        the new list (the chunk objects are reused; their `parent` fields are renumbered).
    """
    if not placed:
        return chunks
    starts = [s for (s, _e), _c in placed]
    ends = [e for (_s, e), _c in placed]
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for i, c in enumerate(chunks):
        if c.kind == "summary":
            continue
        for k in range(bisect.bisect_right(ends, c.start), bisect.bisect_left(starts, c.end)):
            first.setdefault(k, i)
            last[k] = i
    after: dict[int, list[Chunk]] = {}
    for k, (_span, summary) in enumerate(placed):
        if k not in first:
            continue
        summary.parent = first[k]
        summary.depth = chunks[first[k]].depth + 1
        after.setdefault(last[k], []).append(summary)
    out: list[Chunk] = []
    new_index: dict[int, int] = {}
    for i, c in enumerate(chunks):
        new_index[i] = len(out)
        out.append(c)
        out.extend(after.get(i, ()))
    for c in out:
        if c.parent is not None:
            c.parent = new_index[c.parent]
    return out
