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


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit-length embeddings of `texts`, shape (len(texts), 256), float32.

    Model: WordLlama `l2_supercat` (Miller 2024: token embeddings distilled from LLM
    embedding codebooks, average-pooled; no torch).
    """
    if not texts:
        return np.zeros((0, 256), dtype=np.float32)
    vecs = np.asarray(_model().embed(list(texts)), dtype=np.float32)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vecs / norms
