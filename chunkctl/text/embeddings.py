"""Optional sentence embeddings (WordLlama, loaded offline from its wheel); used by `semantic` and `eval`."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

import numpy as np

from chunkctl.errors import MissingExtraError


def available() -> bool:
    """True when the optional embedding model (the `semantic` extra) is installed."""
    try:
        import wordllama  # noqa: F401
    except ImportError:
        return False
    return True


@functools.lru_cache(maxsize=1)
def _model():
    try:
        import wordllama
        from wordllama import WordLlama
    except ImportError:
        raise MissingExtraError("semantic chunking", "semantic", "wordllama") from None
    from pathlib import Path

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    # WordLlama's tokenizer (Hugging Face tokenizers) encodes a batch on a thread pool whose
    # threads keep their own heaps: 42 MB more at the peak of 20 MB of prose, for no gain in
    # time (38.5 s with it, 38.2 s without; the texts come 64 at a time). A user's setting wins.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # The wheel ships the weights in wordllama/weights and the tokenizer in
    # wordllama/tokenizers; with the package folder as cache_dir both resolve locally,
    # and disable_download makes a missing file an error instead of a network call.
    try:
        return WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    except FileNotFoundError as exc:
        raise MissingExtraError(f"semantic chunking (model files missing: {exc})", "semantic", "wordllama") from None


def check() -> None:
    """Raise MissingExtraError (with the pip command) when the model cannot be loaded."""
    _model()


PAD_CHARS = 16_384
"""Characters of a batch handed to WordLlama at once, counted as its number of texts times
its longest text's length (texts up to 64 a batch). WordLlama pads a batch to its longest
text and holds two float32 arrays of 1 KB a token of that shape: 64 prose sentences beside
one of 2,000 tokens took 256 MB, 3.2x a 20 MB file; 16,384 characters of English are some
4,000 tokens, 8 MB an array."""


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit-length embeddings of `texts`, shape (len(texts), 256), float32.

    Model: WordLlama `l2_supercat` (Miller 2024: token embeddings distilled from LLM
    embedding codebooks, average-pooled; no torch). The texts are embedded shortest first
    in batches of up to 64 texts and `PAD_CHARS` padded characters, so a long text is not
    padded against 63 others. A text's vector does not depend on its batch (WordLlama sums
    a text's tokens in order along the padded axis, and padding adds exact zeros):
    tests/chunking/test_semantic_memory.py compares them bit for bit.
    """
    n = len(texts)
    if not n:
        return np.zeros((0, 256), dtype=np.float32)
    model = _model()
    order = sorted(range(n), key=lambda i: len(texts[i]))
    vecs = np.empty((n, 256), dtype=np.float32)
    start = 0
    while start < n:
        end = start + 1  # texts by length: a batch's longest is its last
        while end < n and end - start < 64 and (end + 1 - start) * len(texts[order[end]]) <= PAD_CHARS:
            end += 1
        batch = order[start:end]
        vecs[batch] = model.embed([texts[i] for i in batch], batch_size=len(batch))
        start = end
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vecs / norms
