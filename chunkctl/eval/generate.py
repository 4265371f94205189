"""`chunkctl eval generate`: questions with verbatim reference excerpts asked of a model from sampled passages; no chunking strategy, no scores.

The method is the one Chroma used to build its evaluation set (Smith & Troynikov,
"Evaluating Chunking Strategies for Retrieval", 2024: a model writes a question and
copies the excerpts that answer it from a passage; excerpts that cannot be found in
the corpus are discarded, and near-duplicate questions are removed). Here:

1. passages: each corpus is cut into passages of about `passage_tokens` tokens
   (chunkctl's `recursive` strategy, no overlap); passages are drawn at random (seeded)
   in proportion to corpus size.
2. one chat request per passage asks for up to `per_passage` questions, each with
   excerpts copied verbatim, as JSON.
3. an excerpt is kept only where its exact text occurs in the passage (else anywhere
   in the same corpus, first occurrence); a question with any excerpt not found
   verbatim, or shorter than `MIN_EXCERPT_CHARS`, is dropped whole.
4. a question whose word set overlaps a kept question's by Jaccard >= `dedupe` is
   dropped as a near-duplicate.

Requests go through the model-assisted chunking client (cached by prompt, retries,
bounded concurrency), so an interrupted run resumes from the cache at no cost; at
most `max_requests` requests are sent per run and a run stops asking as soon as it
has `n` questions. The output is the JSON-lines form `load_questions` reads, with
offsets of the corpus file read as UTF-8.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkctl.config import ChunkConfig
from chunkctl.errors import ConfigError
from chunkctl.eval.corpora import Corpus
from chunkctl.llm.client import ChatClient, ChatRequest, LLMError
from chunkctl.llm.options import LLMOptions

MIN_EXCERPT_CHARS = 20
DEFAULT_DEDUPE = 0.7
_WORD = re.compile(r"\w+")

SYSTEM = ("You write evaluation questions for a retrieval system. You answer with JSON only. Every excerpt must be "
          "copied character for character from the source text.")

PROMPT = """Read the source text and write up to {n} questions that a user might ask and that this text answers.
For each question, copy the shortest passages (one to three sentences each) that together answer it, exactly
as they appear in the source, character for character (no changes, no ellipses).
Questions must be specific (names, numbers, terms from the text) and must differ from each other.

<source>
{passage}
</source>

Answer with a JSON list only: [{{"question": "...", "excerpts": ["...", "..."]}}]"""


@dataclass(frozen=True)
class Passage:
    """A span of one corpus given to the model: `corpus_id`, `[start, end)` characters of its document text."""

    corpus_id: str
    start: int
    end: int


@dataclass
class Generated:
    """What `generate` produced and why questions were left out.

    Attributes:
        questions: kept rows, in the form `load_questions` reads.
        requests: passages asked about (answered from the cache or the server).
        cached: of those, answered from the cache.
        failed: requests that failed for good (reason -> count).
        unparsed: answers that held no usable JSON list.
        not_found: questions dropped because an excerpt is not in the corpus verbatim.
        too_short: questions dropped for an excerpt under MIN_EXCERPT_CHARS (or not text).
        duplicates: questions dropped as near-duplicates.
        stopped_by_budget: the run stopped at `max_requests` before reaching `n`.
    """

    questions: list[dict[str, Any]] = field(default_factory=list)
    requests: int = 0
    cached: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    unparsed: int = 0
    not_found: int = 0
    too_short: int = 0
    duplicates: int = 0
    stopped_by_budget: bool = False


def sample_passages(corpora: Mapping[str, Corpus], passage_tokens: int, seed: int) -> list[Passage]:
    """Every passage of every corpus, in a seeded random order that visits corpora in proportion to their size.

    Passages are chunkctl `recursive` chunks of `passage_tokens` tokens (no overlap, no prefix).
    """
    from chunkctl.pipeline import chunk_records

    config = ChunkConfig(strategy="recursive", chunk_size=passage_tokens, overlap=0, context="none")
    pool: list[Passage] = []
    for cid, corpus in corpora.items():
        for r in chunk_records(corpus.doc, config):
            if r["end"] - r["start"] >= 4 * MIN_EXCERPT_CHARS:
                pool.append(Passage(cid, r["start"], r["end"]))
    random.Random(seed).shuffle(pool)
    return pool


def request_for(text: str, per_passage: int) -> ChatRequest:
    """The chat request asking for `per_passage` questions about passage `text`."""
    return ChatRequest((("system", SYSTEM), ("user", PROMPT.format(n=per_passage, passage=text))),
                       max_tokens=300 * per_passage)


def parse_answer(text: str) -> list[tuple[str, list[Any]]] | None:
    """(question, excerpts) pairs from a model answer: a JSON list, possibly fenced or inside other text.

    Returns None when no JSON list of objects can be read; items without a question are skipped.
    """
    body = re.sub(r"<think>.*?</think>", "", text, flags=re.S)
    start, end = body.find("["), body.rfind("]")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(body[start:end + 1])
    except json.JSONDecodeError:
        return None
    if not isinstance(data, list):
        return None
    out = []
    for item in data:
        if isinstance(item, dict) and isinstance(item.get("question"), str) and item["question"].strip():
            ex = item.get("excerpts", item.get("references", []))
            out.append((" ".join(item["question"].split()), ex if isinstance(ex, list) else [ex]))
    return out


def words(question: str) -> frozenset[str]:
    """The lower-cased word set of a question (for near-duplicate detection)."""
    return frozenset(w.lower() for w in _WORD.findall(question))


def near_duplicate(a: frozenset[str], b: frozenset[str], threshold: float) -> bool:
    """Jaccard similarity of two word sets is at least `threshold` (Broder, "On the resemblance and containment
    of documents", 1997)."""
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= threshold


def locate(excerpt: str, corpus: Corpus, passage: Passage) -> tuple[int, int] | None:
    """Offsets `[start, end)` of `excerpt` in the corpus file read as UTF-8: in `passage` first, else the
    first occurrence in the corpus; None when the exact text is nowhere."""
    text = corpus.doc.text
    i = text.find(excerpt, passage.start, passage.end)
    if i < 0:
        i = text.find(excerpt)
    if i < 0:
        return None
    return i + corpus.shift, i + len(excerpt) + corpus.shift


def generate(corpora: Mapping[str, Corpus], options: LLMOptions, n: int = 50, per_passage: int = 2,
             passage_tokens: int = 400, seed: int = 0, max_requests: int | None = None,
             dedupe: float = DEFAULT_DEDUPE, client: ChatClient | None = None,
             progress: Callable[[Generated], None] | None = None) -> Generated:
    """Ask the model for questions until `n` are kept, the passages run out or `max_requests` are spent.

    Args:
        corpora: loaded corpora (`load_corpora`).
        options: endpoint, model, key variable, concurrency, timeout, cache (as for model-assisted chunking).
        n: questions wanted.
        per_passage: questions asked per passage.
        passage_tokens: passage size in tokens.
        seed: passage sampling seed.
        max_requests: most passages asked about in this run (cached answers count too, so
            a rerun with the same settings sends nothing); default 3 × the passages n needs.
        dedupe: Jaccard threshold of near-duplicate questions (1.0 keeps all but exact repeats).
        client: the client to use (default: one built from `options`).
        progress: called after each round of requests.

    Raises:
        ConfigError: numbers out of range, no endpoint/model, no passage long enough.
        LLMError: every request of the first round failed for good (the endpoint is down
            or refuses the model); later failures are counted, not raised.
    """
    if n < 1 or per_passage < 1 or passage_tokens < 50:
        raise ConfigError("--n and --per-passage must be at least 1, --passage-tokens at least 50")
    if not 0 < dedupe <= 1:
        raise ConfigError("--dedupe must be in (0, 1]")
    options.require_endpoint("chunkctl eval generate")
    passages = sample_passages(corpora, passage_tokens, seed)
    if not passages:
        raise ConfigError("no passage long enough to ask about in the corpus folder")
    budget = max_requests if max_requests is not None else 3 * math.ceil(n / per_passage)
    if budget < 1:
        raise ConfigError("--max-requests must be at least 1")
    client = client or ChatClient(options)
    out = Generated()
    kept_words: list[frozenset[str]] = []
    i = 0
    round_size = max(1, options.concurrency)
    while len(out.questions) < n and i < len(passages) and out.requests < budget:
        batch = passages[i:i + min(round_size, budget - out.requests)]
        i += len(batch)
        requests = [request_for(corpora[p.corpus_id].doc.text[p.start:p.end], per_passage) for p in batch]
        answers = client.complete_many(requests)
        out.requests += len(batch)
        if all(a.text is None for a in answers) and not out.questions and out.requests == len(batch):
            reason = next((a.error for a in answers if a.error),
                          "nothing sent: dry run and no cached answer" if options.dry_run else "no answer")
            raise LLMError(f"{client!r}: {reason}")
        for p, a in zip(batch, answers):
            out.cached += a.cached
            if a.text is None:
                key = a.error or "not sent (dry run, not cached)"
                out.failed[key] = out.failed.get(key, 0) + 1
                continue
            items = parse_answer(a.text)
            if items is None:
                out.unparsed += 1
                continue
            for question, excerpts in items:
                refs = _references(excerpts, corpora[p.corpus_id], p, out)
                if refs is None:
                    continue
                w = words(question)
                if any(near_duplicate(w, k, dedupe) for k in kept_words):
                    out.duplicates += 1
                    continue
                kept_words.append(w)
                out.questions.append({"question": question, "corpus_id": p.corpus_id, "references": refs})
        if progress is not None:
            progress(out)
    del out.questions[n:]
    out.stopped_by_budget = len(out.questions) < n and out.requests >= budget and i < len(passages)
    return out


def _references(excerpts: Sequence[Any], corpus: Corpus, passage: Passage, out: Generated
                ) -> list[dict[str, Any]] | None:
    """The question's references with offsets, or None (counted in `out`) when one is unusable."""
    refs: list[dict[str, Any]] = []
    for ex in excerpts:
        if not isinstance(ex, str) or len(ex.strip()) < MIN_EXCERPT_CHARS:
            out.too_short += 1
            return None
        found = locate(ex, corpus, passage)
        if found is None:
            out.not_found += 1
            return None
        refs.append({"content": ex, "start_index": found[0], "end_index": found[1]})
    if not refs:
        out.too_short += 1
        return None
    return refs
