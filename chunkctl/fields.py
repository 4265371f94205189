"""The record's fields and `meta` keys with their types: the one list that finalizing, the JSON Schema, the flat
(store-safe) metadata and the Parquet schema are made from; data only.

Every record carries every field and every `meta` key below, in this order, whatever
its format, strategy or options, so that one table schema (Arrow, SQL) holds a whole run.
A value that does not apply is `null` (None), never a missing key; only the keys marked
`nullable` can be null. See docs/records.md#metadata.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FieldType = Literal["string", "integer", "boolean", "strings", "object"]
"""JSON types of the values: `strings` is a list of strings, `object` the `meta` object."""


@dataclass(frozen=True, slots=True)
class Field:
    """One record field or `meta` key.

    Attributes:
        name: the key.
        type: its JSON type (`FieldType`).
        nullable: the value may be null (a fact that does not apply to this record).
        doc: one line saying what it holds; for a nullable key, when it is null.
    """

    name: str
    type: FieldType
    nullable: bool
    doc: str


RECORD_FIELDS: tuple[Field, ...] = (
    Field("id", "string", False, "chunk id: the same file bytes, source and options give the same id"),
    Field("doc_id", "string", False, "document id, derived from source alone"),
    Field("source", "string", False, "path relative to the folder given, '/' separators; '-' for stdin"),
    Field("format", "string", False, "the loader that read the file: txt, md, html, pdf"),
    Field("chunk_index", "integer", False, "position among the document's records, from 0, in output order"),
    Field("n_chunks", "integer", False, "records of this document in this output"),
    Field("text", "string", False, "prefix + body: what to embed"),
    Field("prefix", "string", False, "model context, heading breadcrumb and/or repeated table header; '' when none"),
    Field("start", "integer", False, "body start in the document text, in code points"),
    Field("end", "integer", False, "body end in the document text, in code points, not included"),
    Field("n_tokens", "integer", False, "tokens of text, prefix included, by meta.tokenizer"),
    Field("headings", "strings", False, "heading path in force at the body, outermost first; [] before any heading"),
    Field("kind", "string", False, "text, table, code, mixed or summary"),
    Field("page_start", "integer", True, "1-based page of the body's first character; null for html"),
    Field("page_end", "integer", True, "1-based page of the body's last character (not a form feed); null for html"),
    Field("oversize", "boolean", False, "true only for a single grapheme cluster larger than the budget"),
    Field("parent_id", "string", True, "id of the parent chunk (hierarchical) or of a summary's first chunk; "
                                       "else null"),
    Field("meta", "object", False, "document and run facts: every key of META_FIELDS"),
)
"""The record fields of contract v1, in output order."""

META_FIELDS: tuple[Field, ...] = (
    Field("title", "string", False, "the document's title"),
    Field("encoding", "string", False, "the codec the file was decoded with"),
    Field("sha256", "string", False, "sha256 of the file's bytes"),
    Field("tokenizer", "string", False, "the tokenizer that counted n_tokens"),
    Field("strategy", "string", False, "the --strategy of the run"),
    Field("chunk_size", "integer", False, "this record's token budget"),
    Field("overlap", "integer", False, "the overlap in tokens"),
    Field("version", "string", False, "chunkctl's version"),
    Field("lang", "string", True, "html: the page's language (<html lang>); null when it says none, and for "
                                  "other formats"),
    Field("n_pages", "integer", True, "pages of the document text (form feeds + 1): a PDF's page count; null for "
                                      "html"),
    Field("page_label", "string", True, "pdf: the printed label of page_start (/PageLabels); null without labels"),
    Field("page_label_end", "string", True, "pdf: the printed label of page_end; null without labels"),
    Field("ocr", "boolean", True, "pdf: true when some of the body's pages were read with OCR (--ocr), false "
                                  "when none; null for formats without OCR"),
    Field("ocr_confidence", "integer", True, "pdf OCR: the engine's confidence in the body's OCR text, percent "
                                             "0-100 (its least sure page); null when ocr is not true"),
    Field("front_matter", "string", True, "md: the front matter as a JSON object in a string; null without"),
    Field("content_type", "string", True, "auto: legal, narrative, code or other; null for other strategies"),
    Field("parent_chunk_size", "integer", True, "hierarchical: the budget of the top level; null otherwise"),
    Field("context", "string", True, "--contextualize: the model-written context as placed ('' when dropped); "
                                     "null otherwise"),
    Field("context_truncated", "boolean", True, "--contextualize: the context was shortened or dropped; null "
                                                "otherwise"),
    Field("llm_model", "string", True, "the model that wrote the context or the summary record, or whose answer "
                                       "placed the record's start (--strategy llm); null otherwise"),
)
"""The `meta` keys every record carries, in output order (the first eight are the contract's)."""

META_KEYS: tuple[str, ...] = tuple(f.name for f in META_FIELDS)
RECORD_KEYS: tuple[str, ...] = tuple(f.name for f in RECORD_FIELDS)

HEADINGS_SEPARATOR = " > "
"""Joins `headings` into one string in the flat metadata (the same separator as the breadcrumb)."""
