"""Finalize: chunks of one document -> contract records (ids, pages, metadata); no I/O, no tokenizing."""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import orjson

from chunkctl.__about__ import __version__
from chunkctl.config import ChunkConfig
from chunkctl.fields import META_KEYS
from chunkctl.loaders.registry import LOADERS
from chunkctl.model import Chunk, Document


def doc_id(source: str) -> str:
    """Document id derived from `source` alone (a changed file keeps its id)."""
    return hashlib.blake2b(source.encode("utf-8"), digest_size=8).hexdigest()


PAGE_STRIDE = 2048
"""Characters between the page counts `PageIndex` keeps (a count over at most this many
characters, about 0.5 µs, finds any offset's page)."""


class PageIndex:
    """Page numbers of character offsets in a text whose pages are separated by form feeds.

    Keeps the number of form feeds before every PAGE_STRIDE-th character (4 bytes a stride)
    and counts the rest in the text itself. An array of every form feed's offset took 4
    bytes a page: 2x a file of 20 MB of one-letter pages, at the peak of its run.
    """

    __slots__ = ("text", "marks")

    def __init__(self, text: str):
        self.text = text
        marks = array("I" if len(text) < 1 << 32 else "q")
        count = text.count
        n = 0
        for k in range(0, len(text) + 1, PAGE_STRIDE):
            marks.append(n)
            n += count("\f", k, k + PAGE_STRIDE)
        self.marks = marks

    def page(self, pos: int) -> int:
        """1-based page of character offset `pos` (0 <= pos <= len(text)): 1 + the form feeds before it."""
        k = pos // PAGE_STRIDE
        return 1 + self.marks[k] + self.text.count("\f", k * PAGE_STRIDE, pos)


def document_meta(doc: Document, config: ChunkConfig, tokenizer_name: str, paged: bool) -> dict[str, Any]:
    """The `meta` a document's records start from: every key of `chunkctl.fields.META_FIELDS`, in its order.

    Keys that do not apply are None (JSON null), so every record of every format has the
    same keys with the same types (docs/records.md#metadata). Per-chunk keys (`chunk_size`,
    page labels, strategy and model facts) are filled by `iter_records`.

    Args:
        doc: the loaded document (`meta`: `encoding`, `sha256`, and the loader's `lang`,
            `n_pages`, `front_matter`).
        config: the run's options.
        tokenizer_name: `meta.tokenizer`.
        paged: the format has pages (`n_pages` is then a count, else None).
    """
    meta: dict[str, Any] = dict.fromkeys(META_KEYS)
    front_matter = doc.meta.get("front_matter")
    n_pages = doc.meta.get("n_pages")
    if not isinstance(n_pages, int):
        n_pages = doc.text.count("\f") + 1 if paged else None
    meta.update(
        title=doc.title,
        encoding=doc.meta.get("encoding", "utf-8"),
        sha256=str(doc.meta.get("sha256", "")),
        tokenizer=tokenizer_name,
        strategy=config.strategy,
        chunk_size=config.chunk_size,
        overlap=config.overlap_tokens,
        version=__version__,
        lang=doc.meta.get("lang") or None,
        n_pages=n_pages,
        # A nested object of any keys has no fixed column type: it travels as JSON text.
        front_matter=orjson.dumps(front_matter).decode("utf-8") if front_matter else None,
    )
    return meta


def iter_records(doc: Document, chunks: Sequence[Chunk], config: ChunkConfig, tokenizer_name: str,
                 doc_meta: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Turn a document's chunks into records that follow the record contract (docs/records.md, v1).

    Ids: blake2b of (file sha256, source, config fingerprint, depth, span, position),
    so the same bytes and options give the same ids on any machine. Pages: form feeds
    in the document text separate pages (null for html).

    Args:
        doc: the document the chunks index.
        chunks: the strategy's chunks in output order (`parent` indexes this list).
        config: the run's options (strategy, overlap, fingerprint).
        tokenizer_name: `meta.tokenizer`.
        doc_meta: document facts the strategy found (`Chunked.doc_meta`, e.g.
            `content_type`), written into every record's `meta`.

    Yields:
        one dict per chunk, keys in contract order (made one at a time, so a caller
        that serializes each at once never holds every record of a big document).
    """
    text = doc.text
    sha = str(doc.meta.get("sha256", ""))
    fp = config.fingerprint()
    did = doc_id(doc.source)
    loader = LOADERS.get(doc.format)
    paged = loader.paged if loader is not None else True
    pages = PageIndex(text) if paged and "\f" in text else None
    labels = doc.meta.get("page_labels")
    ocr_conf = doc.meta.get("ocr_confidence")  # per page, 0-1 or None: loaders that can OCR (pdf)
    base_meta = document_meta(doc, config, tokenizer_name, paged)
    if doc_meta:
        base_meta.update(doc_meta)
    head = f"{sha}\0{doc.source}\0{fp}\0"

    def chunk_id(i: int, c: Chunk) -> str:
        # made when needed, not kept in a list: a document of many tiny chunks would hold
        # about 70 bytes per chunk (its parent's id is made again, from `chunks[parent]`)
        key = f"{head}{c.kind}\0{c.depth}\0{c.start}\0{c.end}\0{i}"
        return hashlib.blake2b(key.encode("utf-8"), digest_size=10).hexdigest()

    n = len(chunks)
    for i, c in enumerate(chunks):
        body = c.text if c.text is not None else text[c.start:c.end]
        if pages is not None:
            ps = pages.page(c.start)
            last = c.end - 1
            while last > c.start and text[last] == "\f":
                last -= 1
            pe = pages.page(max(last, 0))
        elif paged:
            ps = pe = 1
        else:
            ps = pe = None  # type: ignore[assignment]  # null pages (a format without pages)
        meta = dict(base_meta)
        meta["chunk_size"] = c.budget or config.chunk_size
        if labels and ps is not None and pe is not None:
            meta["page_label"] = labels[ps - 1] if ps - 1 < len(labels) else None
            meta["page_label_end"] = labels[pe - 1] if pe - 1 < len(labels) else None
        if isinstance(ocr_conf, list) and ps is not None and pe is not None:
            read = [c for c in ocr_conf[ps - 1:pe] if c is not None]
            meta["ocr"] = bool(read)
            meta["ocr_confidence"] = round(100 * min(read)) if read else None
        if c.meta:
            meta.update(c.meta)
            if meta["context"] is not None and meta["context_truncated"] is None:
                meta["context_truncated"] = False
        yield {
            "id": chunk_id(i, c),
            "doc_id": did,
            "source": doc.source,
            "format": doc.format,
            "chunk_index": i,
            "n_chunks": n,
            "text": c.prefix + body,
            "prefix": c.prefix,
            "start": c.start,
            "end": c.end,
            "n_tokens": c.n_tokens,
            "headings": list(c.headings),
            "kind": c.kind,
            "page_start": ps,
            "page_end": pe,
            "oversize": bool(c.oversize),
            "parent_id": chunk_id(c.parent, chunks[c.parent]) if c.parent is not None else None,
            "meta": meta,
        }
