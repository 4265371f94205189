"""One path from a document to records: the library calls, the CLI and the engines give the same records."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import chunkctl
from chunkctl.chunking import chunk_document
from chunkctl.config import ChunkConfig
from chunkctl.pipeline import chunk_records, load, process_document
from chunkctl.tokenizers import get_tokenizer
from tests.conftest import ROOT
from tests.fake_llm import FakeLLM

GUIDE = ROOT / "examples" / "backup-guide.md"


@pytest.fixture
def server():
    fake = FakeLLM()
    yield fake
    fake.close()


def test_library_calls_enrich_like_the_cli(tmp_path, server):
    # chunk_file and chunk_text used to skip the enrich stage that the CLI runs
    pytest.importorskip("httpx")
    extras = {"llm_base_url": server.base_url, "llm_model": "fake-1", "llm_api_key_env": "FAKE_LLM_KEY",
              "contextualize": True, "summaries": True, "summary_min_tokens": 60,
              "cache_dir": str(tmp_path / "cache")}
    env = dict(os.environ, FAKE_LLM_KEY="k")
    p = subprocess.run([sys.executable, "-m", "chunkctl", "chunk", str(GUIDE), "-n", "128", "--overlap", "16",
                        "--contextualize", "--summaries", "--summary-min-tokens", "60", "--llm-base-url",
                        server.base_url, "--llm-model", "fake-1", "--llm-api-key-env", "FAKE_LLM_KEY", "--cache",
                        str(tmp_path / "cache"), "-q"], capture_output=True, cwd=ROOT, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    from_cli = [json.loads(line) for line in p.stdout.splitlines()]
    os.environ["FAKE_LLM_KEY"] = "k"
    try:
        from_file = chunkctl.chunk_file(str(GUIDE), chunk_size=128, overlap=16, extras=extras)
        from_text = chunkctl.chunk_text(GUIDE.read_text("utf-8"), format="md", source=str(GUIDE), chunk_size=128,
                                        overlap=16, extras=extras)
    finally:
        del os.environ["FAKE_LLM_KEY"]
    assert any(r["kind"] == "summary" for r in from_cli) and all(r["meta"]["context"] is not None for r in from_cli
                                                                 if r["kind"] != "summary")
    assert from_file == from_cli and from_text == from_cli


def test_a_strategy_never_leaves_facts_in_the_document(tmp_path):
    # auto used to write content_type into doc.meta, which then showed up in the records
    # of any other strategy run on the same Document
    doc = load(GUIDE, ChunkConfig())
    before = dict(doc.meta)
    auto = chunk_records(doc, ChunkConfig(strategy="auto", chunk_size=128))
    plain = chunk_records(doc, ChunkConfig(strategy="recursive", chunk_size=128))
    assert doc.meta == before
    assert len({r["meta"]["content_type"] for r in auto}) == 1 and auto[0]["meta"]["content_type"] in (
        "legal", "narrative", "code", "other")
    assert all(r["meta"]["content_type"] is None for r in plain)
    chunked = chunk_document(doc, get_tokenizer(), ChunkConfig(strategy="auto", chunk_size=128))
    ctype = auto[0]["meta"]["content_type"]
    # (`other` packs fixed windows with an overlap of its own, which the records say)
    facts = {"content_type": ctype, **({"overlap": auto[0]["meta"]["overlap"]} if ctype == "other" else {})}
    assert chunked.doc_meta == facts and doc.meta == before


def test_process_document_makes_records_lazily_and_the_same_as_process_file():
    from chunkctl.pipeline import InputFile, process_file

    config = ChunkConfig(chunk_size=64, overlap=8)
    out = process_document(load(GUIDE, config, source="backup-guide.md"), config)
    first = next(out.records)
    res = process_file(InputFile(str(GUIDE), "backup-guide.md", "md", GUIDE.stat().st_size), config)
    lines = [json.loads(line) for line in res.lines.splitlines()]
    assert lines[0] == first and len(lines) == res.n_chunks == first["n_chunks"]


def test_config_fingerprint_is_kept_and_follows_extras():
    """The fingerprint (in every chunk id) is computed once per config, yet an `extras` dict
    changed in place, the one field that can change, gives the new one; a pickled config
    (as sent to workers) and an equal new config give the same."""
    import dataclasses
    import pickle

    from chunkctl import ChunkConfig

    config = ChunkConfig(chunk_size=100)
    first = config.fingerprint()
    assert config.fingerprint() == first == ChunkConfig(chunk_size=100).fingerprint()
    assert dataclasses.replace(config, chunk_size=101).fingerprint() != first
    config.extras["contextualize"] = True
    changed = config.fingerprint()
    assert changed != first
    assert changed == ChunkConfig(chunk_size=100, extras={"contextualize": True}).fingerprint()
    assert pickle.loads(pickle.dumps(config)).fingerprint() == changed
    del config.extras["contextualize"]
    assert config.fingerprint() == first
