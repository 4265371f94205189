"""chunkctl: structure-aware, token-exact chunking of documents for retrieval-augmented generation.

Public API:
    load(path) -> Document
    chunk_file(path, **options) -> list[dict]   (contract records)
    chunk_text(text, format="txt", **options) -> list[dict]
    Document, Block, Chunk, ChunkConfig, get_tokenizer
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from .__about__ import __version__
from .config import ChunkConfig
from .errors import ChunkctlError, ConfigError, LoaderError, TokenizerError
from .model import Block, BlockKind, Chunk, Document
from .tokenizers import get_tokenizer

__all__ = [
    "__version__", "load", "chunk_file", "chunk_text", "Document", "Block", "BlockKind", "Chunk", "ChunkConfig",
    "ChunkctlError", "ConfigError", "LoaderError", "TokenizerError", "get_tokenizer",
]


def load(path: str | Path, **options: Any) -> Document:
    """Load a file into a Document (typed blocks with character spans), without chunking.

    Args:
        path: a .txt, .md, .pdf or .html file.
        **options: ChunkConfig fields that affect loading (encoding, password, main_content, ...).

    Raises:
        LoaderError: unsupported, unreadable or undecodable file.
        ConfigError: a bad option.
    """
    from .pipeline import load as _load

    return _load(path, ChunkConfig(**options))


def chunk_file(path: str | Path, **options: Any) -> list[dict[str, Any]]:
    """Chunk one file and return its records (dicts exactly as the JSONL lines).

    Args:
        path: the file; its `source` is the path as given.
        **options: ChunkConfig fields, e.g. strategy="recursive", chunk_size=256, overlap=32.

    Raises:
        LoaderError, ConfigError, TokenizerError.
    """
    from .pipeline import chunk_records, load as _load

    config = ChunkConfig(**options)
    return chunk_records(_load(path, config), config)


def chunk_text(text: str, format: str = "txt", source: str = "-", **options: Any) -> list[dict[str, Any]]:
    """Chunk a string as if it were a UTF-8 file of the given format.

    Args:
        text: the document (for txt and md, offsets index this string exactly).
        format: "txt", "md" or "html" ("pdf" needs bytes: use chunk_file).
        source: the `source` written in the records.
        **options: ChunkConfig fields.

    Raises:
        LoaderError, ConfigError, TokenizerError.
    """
    from .loaders import load_bytes
    from .pipeline import chunk_records

    config = ChunkConfig(**options)
    data = text.encode("utf-8", "surrogatepass")
    doc = load_bytes(data, source, format, config)
    return chunk_records(doc, config)
