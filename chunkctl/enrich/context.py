"""Contextual retrieval: the context prompts of a document's chunks and a context put before each breadcrumb; never changes a body."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from chunkctl.llm.client import ChatRequest
from chunkctl.llm.prompts import clean_answer, context_request, shorten
from chunkctl.model import BlockKind, Chunk

if TYPE_CHECKING:
    from chunkctl.llm.options import LLMOptions
    from chunkctl.model import Document
    from chunkctl.text.sentences import SentenceSplitter
    from chunkctl.tokenizers import Tokenizer, TokenTable

MAX_SENTENCES = 3
SEPARATOR = "\n\n"  # between the context and the rest of the prefix (breadcrumb, table header) or the body


def wants_context(chunk: Chunk) -> bool:
    """A chunk that gets a context: not a summary, and not an oversize cluster (which must keep an empty prefix)."""
    return chunk.kind != "summary" and chunk.text is None and not chunk.oversize


def outline(doc: Document, tokenizer: Tokenizer, cap: int) -> str:
    """The document's headings as an indented list, cut to at most `cap` tokens (whole lines)."""
    lines: list[str] = []
    used = 0
    for b in doc.blocks:
        if b.kind != BlockKind.HEADING:
            continue
        title = b.headings[-1] if b.headings else doc.text[b.start:b.end].strip()
        line = "  " * max(0, b.level - 1) + "- " + " ".join(title.split())
        n = tokenizer.count(line + "\n")
        if used + n > cap:
            lines.append("- …")
            break
        lines.append(line)
        used += n
    return "\n".join(lines) if lines else "(the document has no headings)"


def _excerpt(doc: Document, table: TokenTable, span: tuple[int, int], chunk: Chunk, room: int) -> str:
    """The section `span` around `chunk`, cut to about `room` tokens centred on the chunk."""
    a, b = span
    text = doc.text
    if table.estimate(a, b, side="right") <= room:
        return text[a:b]
    ca, cb = max(a, chunk.start), min(b, chunk.end)
    spare = max(0, room - table.estimate(ca, cb, side="right"))
    s = max(a, table.char(table.index(ca) - spare // 2))
    e = min(b, max(cb, table.char(table.index(s) + room)))
    return ("…" if s > a else "") + text[s:e] + ("…" if e < b else "")


def context_requests(doc: Document, chunks: list[Chunk], tokenizer: Tokenizer, table: TokenTable,
                     opts: LLMOptions, spans: list[tuple[int, int]]) -> list[tuple[int, ChatRequest]]:
    """The context request of each chunk that wants one.

    A document of at most `opts.max_input_tokens` tokens is sent whole; a longer one as
    its outline (at most a quarter of that) and the chunk's section, cut around the
    chunk to the rest.

    Args:
        spans: the document's sections, sorted `[start, end)` character spans.

    Returns:
        (chunk index, request) pairs in chunk order.
    """
    whole = table.n_tokens <= opts.max_input_tokens
    head = ""
    if not whole:
        head = "Outline:\n" + outline(doc, tokenizer, opts.max_input_tokens // 4)
        room = max(64, opts.max_input_tokens - tokenizer.count(head))
    starts = [s for s, _e in spans]
    out: list[tuple[int, ChatRequest]] = []
    for i, c in enumerate(chunks):
        if not wants_context(c):
            continue
        body = doc.text[c.start:c.end]
        if whole:
            part = doc.text
        else:
            k = max(0, bisect.bisect_right(starts, c.start) - 1)
            span = spans[k] if spans else (0, len(doc.text))
            part = f"{head}\n\nThe part of the document around the passage:\n{_excerpt(doc, table, span, c, room)}"
        out.append((i, context_request(part, body, doc.title, partial=not whole)))
    return out


def add_context(chunk: Chunk, answer: str, table: TokenTable, splitter: SentenceSplitter, budget: int
                ) -> str | None:
    """Put a model's context before the chunk's prefix, shortened or dropped to keep the budget.

    The context (at most MAX_SENTENCES sentences, one line) goes first, then the old
    prefix (breadcrumb, table header), then the unchanged body. When `context +
    prefix + body` is over `budget` tokens (exact count), the context loses whole
    sentences from its end, then words; if not even one word fits it is dropped. The
    body and the old prefix are never touched. `meta["context"]` records the context
    as placed ("" when dropped) and `meta["context_truncated"]` a cut.

    Args:
        chunk: changed in place (`prefix`, `n_tokens`, `meta`).
        answer: the model's raw answer.
        table: the document's token table (exact counts).
        splitter: the run's sentence splitter.
        budget: the chunk's token budget.

    Returns:
        None, or a one-line reason when the answer holds no usable context.
    """
    ctx = clean_answer(answer)
    sentences = splitter.spans(ctx, 0, len(ctx)) if ctx else []
    if len(sentences) > MAX_SENTENCES:
        ctx = ctx[:sentences[MAX_SENTENCES - 1][1]].rstrip()
        sentences = sentences[:MAX_SENTENCES]
    if not ctx:
        return "the model's answer holds no context"
    old = chunk.prefix

    def fits(candidate: str) -> bool:
        return table.count(chunk.start, chunk.end, candidate + SEPARATOR + old) <= budget

    used = shorten(ctx, fits, sentences)
    if used:
        chunk.prefix = used + SEPARATOR + old
        chunk.n_tokens = table.count(chunk.start, chunk.end, chunk.prefix)
    chunk.meta["context"] = used
    if used != ctx:
        chunk.meta["context_truncated"] = True
    return None
