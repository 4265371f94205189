"""Loader registry: format name -> loader, file extension -> format; fills the facts every document shares.

A loader turns file bytes into a Document and never counts tokens. The registry
gives every document its `sha256` and, when the loader found no title, the file
stem, so no loader repeats that.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from chunkctl.errors import LoaderError

if TYPE_CHECKING:
    from chunkctl.config import ChunkConfig
    from chunkctl.model import Document

LoadFn = Callable[[bytes, str, "ChunkConfig"], "Document"]


@dataclass(frozen=True)
class Loader:
    """A registered loader.

    Attributes:
        format: the record's `format` value (`txt`, `md`, `pdf`, `html`), the
            `--stdin-format` choice and the docs heading.
        extensions: lower-case file extensions it handles, with the dot.
        load: `load(data, source, config) -> Document`; raises `LoaderError`.
            `meta["title"]` may be None (the registry then uses the file stem);
            `meta["sha256"]` is filled by the registry.
        paged: whether form feeds in the document text separate pages (records
            then carry `page_start`/`page_end`; otherwise they are null).
        sample: a tiny document of this format that worker processes load once
            before the first real file (warm-up), or None.
    """

    format: str
    extensions: tuple[str, ...]
    load: LoadFn
    paged: bool = True
    sample: bytes | None = None


class _Loaders(Mapping[str, Loader]):
    """Format name -> Loader, in the order formats were declared or registered.

    A format named by `declare` is listed (iteration, `in`, `len`) before its module is
    imported; the module is imported, and registers the loader, when the Loader itself is
    first asked for (`LOADERS[fmt]`, `.get`, `.items()`), so a run of Markdown files
    never imports the PDF and HTML stacks, and `chunkctl --help` none of them.
    """

    def __init__(self) -> None:
        self._modules: dict[str, str | None] = {}  # format -> module that registers it (None: registered)
        self.declared: dict[str, tuple[str, ...]] = {}  # format -> extensions `declare` gave
        self._loaded: dict[str, Loader] = {}

    def __getitem__(self, fmt: str) -> Loader:
        loader = self._loaded.get(fmt)
        if loader is None:
            module = self._modules[fmt]  # KeyError: an unknown format
            if module is not None:
                importlib.import_module(module)
            loader = self._loaded[fmt]
        return loader

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._modules))

    def __len__(self) -> int:
        return len(self._modules)

    def __contains__(self, fmt: object) -> bool:
        return fmt in self._modules

    def _add(self, loader: Loader) -> None:
        self._modules.setdefault(loader.format, None)
        self._loaded[loader.format] = loader


LOADERS = _Loaders()
"""Registered (and declared) loaders by format name, in declaration or registration order."""
EXTENSIONS: dict[str, str] = {}
"""Lower-case extension (with the dot) -> format name."""


def declare(fmt: str, module: str, *extensions: str) -> None:
    """Name a built-in format before its loader is imported: `module` registers it (with the
    same extensions) when the format's Loader is first needed (see `LOADERS`).

    Args:
        fmt: the format name.
        module: the dotted name of the module whose `@register` defines the loader.
        *extensions: its file extensions with the dot, as the module registers them.
    """
    LOADERS._modules.setdefault(fmt, module)
    LOADERS.declared[fmt] = tuple(e.lower() for e in extensions)
    for ext in extensions:
        EXTENSIONS[ext.lower()] = fmt


def register(fmt: str, *extensions: str, paged: bool = True, sample: bytes | None = None
             ) -> Callable[[LoadFn], LoadFn]:
    """Decorator: register `fn` as the loader of format `fmt` for the given extensions.

    Args:
        fmt: the format name (`format` of the records).
        *extensions: file extensions with the dot, e.g. ".md", ".markdown".
        paged: False for formats without pages (records get null pages).
        sample: a tiny document for worker warm-up (see `Loader.sample`).
    """

    def deco(fn: LoadFn) -> LoadFn:
        LOADERS._add(Loader(fmt, tuple(e.lower() for e in extensions), fn, paged, sample))
        for ext in extensions:
            EXTENSIONS[ext.lower()] = fmt
        return fn

    return deco


def formats() -> list[str]:
    """Names of the registered formats, in registration order."""
    return list(LOADERS)


def format_list(last: str = "or") -> str:
    """The formats for messages and help: "txt, md, html or pdf"."""
    names = formats()
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def format_for(path: str | Path) -> str | None:
    """The format registered for a file's extension, or None when no loader handles it."""
    return EXTENSIONS.get(Path(path).suffix.lower())


def fallback_title(source: str) -> str:
    """The title of a document whose loader found none: the file stem ("stdin" for `-`)."""
    return PurePosixPath(source).stem if source != "-" else "stdin"


def load_bytes(data: bytes, source: str, fmt: str, config: ChunkConfig) -> Document:
    """Load a document of format `fmt` from its bytes.

    Args:
        data: the file's bytes.
        source: the record's `source`.
        fmt: a registered format name.
        config: the run's options (encoding, password, HTML options).

    Returns:
        the Document, with `meta["sha256"]` (of `data`) and `meta["title"]` set (at most
        `headings.TITLE_CHARS` characters: `short_title`).

    Raises:
        LoaderError: no loader for `fmt`, or the loader cannot read the data.
    """
    loader = LOADERS.get(fmt)
    if loader is None:
        raise LoaderError(source, f"no loader for format {fmt!r} (known: {', '.join(sorted(LOADERS))})")
    doc = loader.load(data, source, config)
    doc.meta["sha256"] = hashlib.sha256(data).hexdigest()
    from chunkctl.loaders.headings import short_title  # (with the loaders: the CLI starts without it)

    doc.meta["title"] = short_title(doc.meta.get("title") or fallback_title(source))
    return doc
