"""Strategy `auto`: pick a strategy per document from its content type (legal, narrative, code docs, other)."""

from __future__ import annotations

import re

from chunkctl.chunking.packer import Packer
from chunkctl.chunking.recursive import pack_sections
from chunkctl.chunking.registry import STRATEGIES, Chunked, register
from chunkctl.chunking.sections import iter_sections
from chunkctl.config import CONTENT_TYPES
from chunkctl.model import BlockKind, Document

_CLAUSE_HEADING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?\s|§|(?:section|article|chapter|part|clause)\s+[\dIVXLC])",
                             re.I)
_LEGAL_WORDS = re.compile(r"\b(?:shall|hereby|herein|hereunder|thereof|pursuant|licensor|licensee|warrant(?:y|ies)?"
                          r"|liabilit(?:y|ies)|indemnif\w*|notwithstanding|terms and conditions)\b", re.I)
_API_LINE = re.compile(r"^\s*(?:def |class |async def |function |fn |func |public |private |import |from \S+ import"
                       r"|#include|[\w.]+\([^)]*\)\s*(?:->|:|\{|;))", re.M)
_WORD = re.compile(r"\w+")


def detect_content_type(doc: Document) -> str:
    """Classify a document as "legal", "narrative", "code" or "other".

    - legal: numbered clause headings ("4.2", "§ 3", "Article IV") make up most headings
      (at least 3), or legal vocabulary is dense (>= 8 per 1,000 words).
    - code: code blocks hold at least 15% of the text, or there are at least 3 of them,
      or at least 5 lines look like API signatures.
    - narrative: long paragraphs (mean >= 200 characters), at most one heading per
      5,000 characters, and sentence punctuation throughout.
    - other: anything else.
    """
    text = doc.text
    total = max(1, len(text))
    heads = [text[b.start:b.end].lstrip("#= ").strip() for b in doc.blocks if b.kind == BlockKind.HEADING]
    clause = sum(1 for h in heads if _CLAUSE_HEADING.match(h))
    sample = text[:200_000]
    words = max(1, len(_WORD.findall(sample)))
    legal_density = 1000 * len(_LEGAL_WORDS.findall(sample)) / words
    if (clause >= 3 and clause >= 0.5 * len(heads)) or (legal_density >= 8 and words >= 200):
        return "legal"
    code_blocks = [b for b in doc.blocks if b.kind == BlockKind.CODE]
    code_chars = sum(b.end - b.start for b in code_blocks)
    if code_chars >= 0.15 * total or len(code_blocks) >= 3 or len(_API_LINE.findall(sample)) >= 5:
        return "code"
    paras = [b for b in doc.blocks if b.kind == BlockKind.PARAGRAPH]
    if paras:
        mean_len = sum(b.end - b.start for b in paras) / len(paras)
        punct = sample.count(". ") + sample.count("。") + sample.count("! ") + sample.count("? ")
        if mean_len >= 200 and len(heads) <= total / 5000 and punct >= words / 40:
            return "narrative"
    return "other"


@register("auto", "pick per document by content type: legal -> section by clause, narrative -> paragraph "
                  "packing with a minimum fill, code docs -> code-preserving recursive, other -> fixed 500/100")
def chunk_auto(doc, tokenizer, config, table) -> Chunked:
    """Choose a strategy per document; `meta.content_type` records the type (`--content-type` forces it).

    - legal -> `section` (numbered clauses are sections);
    - narrative -> paragraph packing: recursive, but a chunk only ends at a stronger
      boundary once it is 60% full, so short paragraphs are packed together;
    - code -> `recursive` (code blocks atomic, Python split between definitions);
    - other -> `fixed` windows of 500 tokens with 100 overlap (both capped by
      `--chunk-size`: min(500, chunk size) and at most a fifth of it).
    """
    ctype = config.content_type or detect_content_type(doc)
    if ctype not in CONTENT_TYPES:
        ctype = "other"
    if ctype == "legal":
        chunks = STRATEGIES["section"].chunk(doc, tokenizer, config.replace(strategy="section"), table).chunks
    elif ctype == "narrative":
        packer = Packer(doc, tokenizer, config, table)
        packer.min_fill = 0.6
        chunks = pack_sections(packer, iter_sections(doc.blocks), compact=True)
    elif ctype == "code":
        chunks = STRATEGIES["recursive"].chunk(doc, tokenizer, config.replace(strategy="recursive"), table).chunks
    else:
        size = min(500, config.chunk_size)
        overlap = min(100, size // 5)
        sub = config.replace(strategy="fixed", chunk_size=size, overlap=overlap)
        chunks = STRATEGIES["fixed"].chunk(doc, tokenizer, sub, table).chunks
        return Chunked(chunks, doc_meta={"content_type": ctype, "overlap": overlap})
    return Chunked(chunks, doc_meta={"content_type": ctype})

