"""No U+FFFD in a prefix (CONTRACT G6), whatever the headings or table header hold.

A heading can carry U+FFFD from the file itself (text once decoded with replacement and
saved) or from a NUL byte, which both Markdown parsers give as U+FFFD; a table's header
row is repeated in the prefix of the chunks after the first. Every strategy builds its
prefixes with the packer's breadcrumb and table header; they leave U+FFFD out. Before,
each such heading put U+FFFD in every prefix under it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkctl
from chunkctl.chunking.packer import without_replacement

STRATEGIES = ["recursive", "sentence", "section", "hierarchical", "fixed", "semantic", "auto"]
BODY = "Body text goes on here, with a clause or two. " * 30

words = st.text(alphabet="ab \ufffd", min_size=1, max_size=8).filter(lambda w: w.strip(" \ufffd"))


def _markdown(heads: list[str], cell: str) -> str:
    parts = [f"{'#' * (1 + i % 3)} {h}\n\n{BODY}\n\n" for i, h in enumerate(heads)]
    rows = "".join(f"| {i} | value {i} with words |\n" for i in range(40))
    return "".join(parts) + f"| n | {cell} |\n| --- | --- |\n" + rows


def _text(heads: list[str]) -> str:
    return "".join(f"{i + 1}. {h}\n\n{BODY}\n\n" for i, h in enumerate(heads))


def _html(heads: list[str], cell: str) -> str:
    rows = "".join(f"<tr><td>{i}</td><td>value {i} with words</td></tr>" for i in range(40))
    return ("<html><body>" + "".join(f"<h{1 + i % 3}>{h}</h{1 + i % 3}><p>{BODY}</p>" for i, h in enumerate(heads))
            + f"<table><tr><th>n</th><th>{cell}</th></tr>{rows}</table></body></html>")


def _check(records: list[dict], doc: str | None) -> None:
    assert records
    for r in records:
        assert "\ufffd" not in r["prefix"], r["prefix"]
        if doc is not None:
            assert r["text"] == r["prefix"] + doc[r["start"]:r["end"]]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(heads=st.lists(words, min_size=1, max_size=3), cell=words, strategy=st.sampled_from(STRATEGIES),
       fmt=st.sampled_from(["md", "txt", "html"]), context=st.sampled_from(["headings", "title+headings"]))
def test_no_prefix_holds_a_replacement_character(heads, cell, strategy, fmt, context):
    doc = {"md": lambda: _markdown(heads, cell), "txt": lambda: _text(heads), "html": lambda: _html(heads, cell)}[fmt]()
    records = chunkctl.chunk_text(doc, format=fmt, chunk_size=64, overlap=8, strategy=strategy, context=context)
    _check(records, doc if fmt != "html" else None)


def test_exact_prefixes_of_a_heading_and_a_table_header_with_replacement_characters():
    doc = "# Caf\ufffd menu\n\n" + BODY + "\n\n| n | price\ufffd |\n| --- | --- |\n" + "".join(
        f"| {i} | {i} euros and some words |\n" for i in range(30))
    records = chunkctl.chunk_text(doc, format="md", chunk_size=64, overlap=0)
    _check(records, doc)
    assert records[0]["prefix"] == "" and records[0]["headings"] == ["Caf\ufffd menu"]  # (the heading's own line)
    assert records[1]["prefix"] == "Caf menu\n\n"
    assert records[-1]["prefix"] == "Caf menu\n\n| n | price |\n| --- | --- |\n"


def test_a_nul_in_a_markdown_heading_is_left_out_of_the_breadcrumb():
    doc = "# Title\n\n" + "filler words here. " * 500 + "\n\n## Sec a\x00b\n\n" + BODY + "\n"
    records = chunkctl.chunk_text(doc, format="md", chunk_size=64, overlap=0)
    _check(records, doc)
    assert "Title > Sec ab\n\n" in {r["prefix"] for r in records}


@pytest.mark.parametrize("text, collapse, out", [
    ("plain", True, "plain"), ("a\ufffd b", True, "a b"), ("\ufffd", True, ""),
    ("| a\ufffd |  b |", False, "| a |  b |")])
def test_without_replacement(text, collapse, out):
    assert without_replacement(text, collapse) == out
