"""Loader registry: file extension -> loader; a loader turns file bytes into a Document and never counts tokens.

A new format is one module in this package with a function decorated by
`@register("fmt", ".ext", ...)` plus its import line at the bottom of this file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..errors import LoaderError

if TYPE_CHECKING:
    from ..config import ChunkConfig
    from ..model import Document

LoadFn = Callable[[bytes, str, "ChunkConfig"], "Document"]


@dataclass(frozen=True)
class Loader:
    """A registered loader.

    Attributes:
        format: the record's `format` value (`txt`, `md`, `pdf`, `html`).
        extensions: lower-case file extensions it handles, with the dot.
        load: `load(data, source, config) -> Document`; raises `LoaderError`.
    """

    format: str
    extensions: tuple[str, ...]
    load: LoadFn


LOADERS: dict[str, Loader] = {}
EXTENSIONS: dict[str, str] = {}


def register(fmt: str, *extensions: str) -> Callable[[LoadFn], LoadFn]:
    """Decorator: register `fn` as the loader of format `fmt` for the given extensions."""

    def deco(fn: LoadFn) -> LoadFn:
        LOADERS[fmt] = Loader(fmt, tuple(extensions), fn)
        for ext in extensions:
            EXTENSIONS[ext.lower()] = fmt
        return fn

    return deco


def format_for(path: str | Path) -> str | None:
    """The format registered for a file's extension, or None when no loader handles it."""
    return EXTENSIONS.get(Path(path).suffix.lower())


def load_bytes(data: bytes, source: str, fmt: str, config: "ChunkConfig") -> "Document":
    """Load a document of format `fmt` from its bytes.

    Raises:
        LoaderError: no loader for `fmt`, or the loader cannot read the data.
    """
    loader = LOADERS.get(fmt)
    if loader is None:
        raise LoaderError(source, f"no loader for format {fmt!r} (known: {', '.join(sorted(LOADERS))})")
    return loader.load(data, source, config)


from . import html, markdown, pdf, text  # noqa: E402,F401  (registration side effects)
