"""Retrievers of `chunkctl eval` (BM25 via bm25s, WordLlama or an OpenAI-compatible embedder) over chunk texts; no chunking, no scoring.

Every retriever ranks deterministically: equal scores are ordered by pool position
(corpus files in folder order, then chunk order), so a run gives the same ranking
every time, whatever the library's top-k selection does with ties.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from chunkctl.errors import ConfigError, MissingExtraError

if TYPE_CHECKING:
    from chunkctl.eval.embedder import Embedder

RETRIEVERS = ("bm25", "embedding", "openai")

BM25_SETTINGS = {"package": "bm25s", "method": "lucene", "k1": 1.5, "b": 0.75, "stopwords": "en",
                 "stemmer": "english (Snowball, PyStemmer)", "token_pattern": r"(?u)\b\w\w+\b", "lower": True,
                 "ties": "earlier chunk first (pool order: corpus files in folder order, then chunk order)"}
"""What the BM25 retriever does, as recorded in `chunkctl eval --json` output."""

EMBEDDING_SETTINGS = {"model": "WordLlama l2_supercat (256 dims)", "similarity": "cosine",
                      "ties": "earlier chunk first (pool order)"}
"""What the embedding retriever does, as recorded in `chunkctl eval --json` output."""


class Index(Protocol):
    """A retrieval index over a fixed list of texts."""

    def rank(self, queries: Sequence[str], depth: int) -> np.ndarray:
        """The indices of the `depth` best texts for each query, best first: shape (len(queries), depth)."""


def settings(name: str, embedder: Embedder | None = None) -> dict:
    """The parameters of retriever `name`, for reports."""
    if name == "openai" and embedder is not None:
        return dict(embedder.settings.describe(), name=name)
    return dict(BM25_SETTINGS if name == "bm25" else EMBEDDING_SETTINGS, name=name)


def check(name: str, embedder: Embedder | None = None) -> None:
    """Raise before any work when retriever `name` is unknown or its optional packages are missing.

    Raises:
        ConfigError: not one of `RETRIEVERS`.
        MissingExtraError: `bm25` without bm25s or PyStemmer (the `eval` extra),
            `embedding` without WordLlama (the `semantic` extra), or `openai` without httpx
            (the `llm` extra); the message names the pip command.
    """
    if name not in RETRIEVERS:
        raise ConfigError(f"--retriever {name!r} is not one of: {', '.join(RETRIEVERS)}")
    if name == "openai":
        if embedder is None:
            raise ConfigError("--retriever openai needs --embed-base-url URL and --embed-model NAME")
        try:
            import httpx  # noqa: F401
        except ImportError:
            raise MissingExtraError("chunkctl eval --retriever openai", "llm", "httpx") from None
        return
    if name == "bm25":
        for module, package in (("bm25s", "bm25s"), ("Stemmer", "PyStemmer")):
            try:
                __import__(module)
            except ImportError:
                raise MissingExtraError("chunkctl eval (BM25 retrieval)", "eval", package) from None
    else:
        from chunkctl.text import embeddings

        if not embeddings.available():
            raise MissingExtraError("chunkctl eval --retriever embedding", "semantic", "wordllama")
        embeddings.check()


def build(name: str, texts: Sequence[str], embedder: Embedder | None = None) -> Index:
    """Index `texts` (what a user embeds: each chunk's prefix + body) with retriever `name`.

    Raises:
        ConfigError, MissingExtraError: as `check`.
        LLMError: (openai) the endpoint failed for good.
    """
    check(name, embedder)
    if name == "openai" and embedder is not None:
        return OpenAIIndex(texts, embedder)
    return BM25Index(texts) if name == "bm25" else EmbeddingIndex(texts)


def _top(scores: np.ndarray, depth: int) -> np.ndarray:
    """Indices of the `depth` highest scores per row, best first, equal scores in index order."""
    return np.argsort(-scores, axis=1, kind="stable")[:, :depth].astype(np.int64)


class BM25Index:
    """Lucene BM25 (k1 = 1.5, b = 0.75) over lower-cased word tokens of two or more characters.

    Tokenisation is bm25s's: the regex `(?u)\\b\\w\\w+\\b`, its English stop-word list
    (the 33 words of Lucene's), then the Snowball English stemmer of PyStemmer; the
    same for texts and queries. Query words absent from the texts are ignored; equal
    scores rank the earlier text first (every text is scored, then sorted stably). The
    scoring follows Lucene (Robertson-Sparck Jones idf with +1 inside the log); see
    Lù, "BM25S: Orders of magnitude faster lexical search via eager sparse scoring", 2024.
    """

    def __init__(self, texts: Sequence[str]):
        import bm25s
        import Stemmer

        # bm25s sets its own logger to DEBUG; once anything (wordllama does) adds a root
        # handler, every index build would print a debug line on stderr.
        logging.getLogger("bm25s").setLevel(logging.WARNING)
        self._stemmer = Stemmer.Stemmer("english")
        self._n = len(texts)
        tokens = bm25s.tokenize(list(texts), stopwords="en", stemmer=self._stemmer, show_progress=False)
        self._bm25 = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
        self._bm25.index(tokens, show_progress=False)

    def rank(self, queries: Sequence[str], depth: int) -> np.ndarray:
        """The `depth` best texts per query (capped at the number of texts), best first."""
        import bm25s

        depth = min(depth, self._n)
        if depth <= 0 or not queries:
            return np.zeros((len(queries), 0), dtype=np.int64)
        words = bm25s.tokenize(list(queries), stopwords="en", stemmer=self._stemmer, return_ids=False,
                               show_progress=False)
        vocab = self._bm25.vocab_dict
        scores = np.zeros((len(queries), self._n), dtype=np.float64)
        for i, ws in enumerate(words):
            known = [w for w in ws if w in vocab]
            if known:
                scores[i] = self._bm25.get_scores(known)
        return _top(scores, depth)


class EmbeddingIndex:
    """Cosine similarity of WordLlama embeddings (`chunkctl.text.embeddings.embed`), ties in text order."""

    def __init__(self, texts: Sequence[str]):
        from chunkctl.text import embeddings

        self._vectors = embeddings.embed(list(texts))

    def rank(self, queries: Sequence[str], depth: int) -> np.ndarray:
        """The `depth` best texts per query (capped at the number of texts), best first."""
        depth = min(depth, len(self._vectors))
        if depth <= 0 or not queries:
            return np.zeros((len(queries), 0), dtype=np.int64)
        return _top(_embed_queries(tuple(queries)) @ self._vectors.T, depth)


class OpenAIIndex:
    """Cosine similarity of the user's embeddings (`Embedder`, an OpenAI-compatible endpoint), ties in text order."""

    def __init__(self, texts: Sequence[str], embedder: Embedder):
        self._embedder = embedder
        self._vectors = embedder.embed(list(texts))

    def rank(self, queries: Sequence[str], depth: int) -> np.ndarray:
        """The `depth` best texts per query (capped at the number of texts), best first."""
        depth = min(depth, len(self._vectors))
        if depth <= 0 or not queries:
            return np.zeros((len(queries), 0), dtype=np.int64)
        return _top(self._embedder.embed(list(queries), query=True) @ self._vectors.T, depth)


@functools.lru_cache(maxsize=4)
def _embed_queries(queries: tuple[str, ...]) -> np.ndarray:
    """Query embeddings, computed once per question set (they do not depend on the chunking)."""
    from chunkctl.text import embeddings

    return embeddings.embed(list(queries))
