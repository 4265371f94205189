"""Hypothesis: random Unicode through every registered strategy and text format; the contract checker finds no violation.

The strategies and formats come from the registries (`tests.conftest.ready_strategies`,
`text_formats`), so a new strategy or loader gets this coverage without editing the file.
"""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkctl
from chunkctl.config import ChunkConfig
from chunkctl.loaders import load_bytes
from chunkctl.model import BlockKind
from tests.conftest import check_records, needs_shared, ready_strategies, text_formats

PIECES = st.sampled_from(
    ["word", "Word", " ", "  ", "\n", "\r\n", "\r", "\n\n", "\f", "\t", ". ", "! ", "? ", ", ", "; ", "e.g. ",
     "Dr. ", "3.14", "中文字符", "。", "，", "日本語の文", "한국어", "\u1100\u1161\u11a8", "e\u0301", "a\u0308\u0301",
     " \u0301x", " \u0308", "\u200d", " \ufe0f", "\u0e31", "🚀", "👨‍👩‍👧", "👍🏽", "🇫🇷🇩🇪", "\u00a0", "\u3000", "ﬁ", "ß", "Ж", "مرحبا", "x" * 40, "-" * 30,
     "# Heading\n", "## Sub\n", "- item\n", "1. Scope\n", "| a | b |\n| --- | --- |\n| 1 | 2 |\n",
     "```\ncode line\n```\n", "    indented\n", "---\n"]
)
# Markup for the html loader; in the other formats it is just more text.
HTML_PIECES = st.sampled_from(
    ["<p>", "</p>", "<h1>Title</h1>", "<h2>Part</h2>", "<ul><li>one</li><li>two</li></ul>", "<br>",
     "<pre><code>x = 1\n  y = 2\n</code></pre>", "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>",
     "<div>", "</div>", "<nav>menu</nav>", "<script>var s = 1;</script>", "&amp;", "&nbsp;", "<b>bold</b>"]
)
STRATEGY_NAMES = ready_strategies()
FORMATS = text_formats()


def _docs(fmt: str):
    pieces = st.one_of(PIECES, HTML_PIECES) if fmt == "html" else PIECES
    return st.lists(pieces, min_size=1, max_size=60).map("".join)


DOCS = st.sampled_from(FORMATS).flatmap(lambda fmt: st.tuples(st.just(fmt), _docs(fmt)))


def _has_text_to_chunk(doc) -> bool:
    """Whether the document text holds a non-white-space character outside Markdown front matter.

    Front matter is the one part the contract lets go uncovered (docs/records.md#front-matter);
    any other non-white-space character must end up in some record.
    """
    skip = [(b.start, b.end) for b in doc.blocks if b.kind == BlockKind.FRONT_MATTER]
    text = doc.text
    for s, e in sorted(skip, reverse=True):
        text = text[:s] + text[e:]
    return bool(text.strip())


def test_the_registries_give_strategies_and_formats():
    assert "recursive" in STRATEGY_NAMES and "llm" not in STRATEGY_NAMES
    assert {"txt", "md"} <= set(FORMATS) and "pdf" not in FORMATS


@needs_shared()
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=DOCS, strategy=st.sampled_from(STRATEGY_NAMES), size=st.integers(1, 64), frac=st.floats(0, 0.9))
def test_random_documents_keep_the_contract(doc, strategy, size, frac):
    fmt, text = doc
    overlap = min(size - 1, int(size * frac))
    name = f"doc.{fmt}"
    extra = {"parent_chunk_size": size * 3} if strategy == "hierarchical" else {}
    recs = chunkctl.chunk_text(text, format=fmt, source=name, strategy=strategy, chunk_size=size, overlap=overlap,
                               **extra)
    if not text.strip():
        assert recs == [], "a document with no non-white-space character gives no record"
        return
    loaded = load_bytes(text.encode("utf-8"), name, fmt, ChunkConfig())
    if not _has_text_to_chunk(loaded):  # only front matter, or markup with no text (html)
        assert recs == [], "a document with nothing to chunk gives no record"
        return
    assert recs, f"{strategy} gave no record for a document with text ({fmt}, {len(text)} characters)"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / name).write_bytes(text.encode("utf-8"))
        extract = None
        if fmt not in ("txt", "md"):  # the checker reads other formats' document text from an extract command
            (root / "doc.text").write_bytes(loaded.text.encode("utf-8", "surrogatepass"))
            extract = "sh -c " + shlex.quote(f'cat "{root}/doc.text"')
        report = check_records(recs, root, root, extract_cmd=extract)
        assert report.strip().splitlines()[-1].startswith("OK"), report


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="a\f\né", max_size=80), end=st.integers(-5, 90),
       sub=st.sampled_from(["\f", "a", "\n"]), start=st.sampled_from([0, 1, None]))
def test_the_checkers_indexed_text_counts_as_str_does(text, end, sub, start):
    """The test harness hands the shared checker documents whose form-feed count is looked up
    (tests/conftest.py `_IndexedText`, for speed): every count is `str.count`'s."""
    from tests.conftest import _IndexedText

    doc = _IndexedText(text)
    assert doc.count(sub, start, end) == text.count(sub, start, end)
    assert doc.count(sub, start, end) == text.count(sub, start, end)  # (again, from the index)
    assert doc == text and doc[1:4] == text[1:4]


@needs_shared()
def test_the_checker_still_finds_a_wrong_page(tmp_path):
    """With the indexed text in the harness, a record one page off still fails the check."""
    import pytest

    (tmp_path / "p.txt").write_text("Page one.\fPage two has text.\fPage three.\n")
    records = chunkctl.chunk_text((tmp_path / "p.txt").read_text(), format="txt", source="p.txt", chunk_size=5)
    assert [(r["page_start"], r["page_end"]) for r in records] == [(1, 1), (2, 2), (3, 3)]
    check_records(records, tmp_path, tmp_path)  # as written: 0 violations
    records[1]["page_start"] = 1
    with pytest.raises(AssertionError, match="pages 1..2 but the body lies on pages 2..2"):
        check_records(records, tmp_path, tmp_path)
