"""Hypothesis: random Unicode through every strategy; the contract checker finds no violation."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkctl
import chunkctl.text.embeddings
from tests.conftest import check_records, needs_shared

PIECES = st.sampled_from(
    ["word", "Word", " ", "  ", "\n", "\r\n", "\r", "\n\n", "\f", "\t", ". ", "! ", "? ", ", ", "; ", "e.g. ",
     "Dr. ", "3.14", "中文字符", "。", "，", "日本語の文", "한국어", "\u1100\u1161\u11a8", "e\u0301", "a\u0308\u0301",
     " \u0301x", " \u0308", "\u200d", " \ufe0f", "\u0e31", "🚀", "👨‍👩‍👧", "👍🏽", "🇫🇷🇩🇪", "\u00a0", "\u3000", "ﬁ", "ß", "Ж", "مرحبا", "x" * 40, "-" * 30,
     "# Heading\n", "## Sub\n", "- item\n", "1. Scope\n", "| a | b |\n| --- | --- |\n| 1 | 2 |\n",
     "```\ncode line\n```\n", "    indented\n", "---\n"]
)
DOCS = st.lists(PIECES, min_size=1, max_size=60).map("".join)
STRATEGIES = st.sampled_from(["recursive", "fixed", "sentence", "section", "hierarchical", "auto"]
                             + (["semantic"] if chunkctl.text.embeddings.available() else []))


@needs_shared()
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=DOCS, strategy=STRATEGIES, size=st.integers(1, 64), frac=st.floats(0, 0.9), fmt=st.sampled_from(["txt", "md"]))
def test_random_documents_keep_the_contract(text, strategy, size, frac, fmt):
    overlap = min(size - 1, int(size * frac))
    name = f"doc.{fmt}"
    extra = {"parent_chunk_size": size * 3} if strategy == "hierarchical" else {}
    recs = chunkctl.chunk_text(text, format=fmt, source=name, strategy=strategy, chunk_size=size, overlap=overlap,
                               **extra)
    if not text.strip():
        assert recs == []
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / name).write_bytes(text.encode("utf-8"))
        if not recs:  # only front matter, or nothing but white space once front matter is set aside
            return
        check_records(recs, root, root)
