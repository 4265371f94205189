"""The README and docs/ name only fields that real records carry (issue 15, item 11), and their example records are
real records.

`meta.n_pages` was promised for PDFs while no record carried it; these tests read every
`meta.KEY` the README and the docs name and look for it in records chunkctl writes.
"""

from __future__ import annotations

import json
import re

import pytest

import chunkctl
from chunkctl.fields import META_KEYS, RECORD_KEYS
from tests.conftest import CORPUS, ROOT, needs_shared

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# meta keys that only a model fills (tests/test_llm*.py check them with a fake model)
MODEL_KEYS = {"context", "context_truncated", "llm_model"}


def named_meta_keys() -> dict[str, set[str]]:
    """{key: files} for every `meta.KEY` / `meta["KEY"]` the README and docs/*.md name."""
    out: dict[str, set[str]] = {}
    for path in DOCS:
        text = path.read_text("utf-8")
        for key in re.findall(r"\bmeta(?:\.|\[\")([a-z_][a-z0-9_]*)", text):
            out.setdefault(key, set()).add(path.name)
    return out


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Records of examples/ by the strategies that fill strategy-specific keys."""
    out = []
    for opts in ({}, {"strategy": "auto"}, {"strategy": "hierarchical", "levels": (256, 64), "overlap": 0}):
        out += list(chunkctl.chunk_paths([str(ROOT / "examples")], **opts))
    return out


def test_every_meta_key_the_docs_name_is_in_every_record(records):
    named = named_meta_keys()
    assert {"n_pages", "lang", "title", "page_label"} <= set(named)
    unknown = {k: sorted(v) for k, v in named.items() if k not in META_KEYS}
    assert unknown == {}, "docs name meta keys no record carries"
    for r in records:
        assert tuple(r["meta"]) == META_KEYS


def test_the_meta_keys_the_docs_name_have_values_in_real_records(records):
    filled = {k for r in records for k, v in r["meta"].items() if v is not None}
    missing = set(named_meta_keys()) - filled - MODEL_KEYS - {"page_label", "page_label_end", "ocr_confidence"}
    assert missing == set()
    pdf = next(r for r in records if r["format"] == "pdf")
    assert pdf["meta"]["n_pages"] == 3  # the README's and docs/loaders.md's promise


@needs_shared()
def test_page_labels_come_from_the_pdf():
    recs = chunkctl.chunk_file(str(CORPUS / "pdf" / "roman-page-labels.pdf"), chunk_size=16, overlap=0)
    assert {r["meta"]["page_label"] for r in recs} >= {"iii", "iv", "1"}
    assert all(r["meta"]["page_label_end"] is not None for r in recs)


def test_the_field_tables_of_docs_records_list_exactly_the_fields():
    text = (ROOT / "docs" / "records.md").read_text("utf-8")
    fields = text[text.index("\n## Fields\n"):text.index("\n### Metadata\n")]
    meta = text[text.index("\n### Metadata\n"):text.index("\n### Flat metadata\n")]
    rows = [re.findall(r"`([a-z_0-9]+)`", line.split("|")[1]) for line in fields.splitlines() if line.startswith("| `")]
    assert [name for row in rows for name in row] == list(RECORD_KEYS)
    keys = [re.match(r"\| `([a-z_0-9]+)`", line)[1] for line in meta.splitlines() if line.startswith("| `")]
    assert keys == list(META_KEYS)


@pytest.mark.parametrize("page", ["README.md", "docs/records.md"])
def test_the_example_record_is_a_real_record(page, monkeypatch):
    text = (ROOT / page).read_text("utf-8")
    shown = json.loads(re.search(r"```json\n(\{.*?\n\})\n```", text, re.S)[1])
    monkeypatch.chdir(ROOT)
    real = chunkctl.chunk_file("examples/backup-guide.md", chunk_size=128, overlap=16)[5]
    real["meta"]["version"] = shown["meta"]["version"]  # the example need not name every release
    assert shown == real and list(shown["meta"]) == list(real["meta"])
