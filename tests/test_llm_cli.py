"""Model-assisted options through the real command line, against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, check_records, parse_jsonl
from tests.fake_llm import FakeLLM

pytest.importorskip("httpx")
KEY = "sk-test-not-a-real-key"


@pytest.fixture
def server():
    fake = FakeLLM()
    yield fake
    fake.close()


def cli(*args, env_key=True):
    env = dict(os.environ)
    if env_key:
        env["FAKE_LLM_KEY"] = KEY
    return subprocess.run([sys.executable, "-m", "chunkctl", *args], capture_output=True, cwd=ROOT, env=env,
                          timeout=300)


def llm_args(server, cache):
    return ["--llm-base-url", server.base_url, "--llm-model", "fake-1", "--llm-api-key-env", "FAKE_LLM_KEY",
            "--cache", str(cache), "--llm-timeout", "10"]


def test_contextualize_prefixes_contexts_and_the_cache_makes_reruns_free(tmp_path, server):
    out1, out2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    args = ["chunk", "examples", "--chunk-size", "128", "--overlap", "0", "--contextualize", "--summaries",
            "--summary-min-tokens", "100", *llm_args(server, tmp_path / "cache")]
    p = cli(*args, "-o", str(out1))
    assert p.returncode == 0, p.stderr.decode()
    calls = len(server.requests)
    assert calls > 0
    assert all(r["auth"] == f"Bearer {KEY}" for r in server.requests)
    recs = parse_jsonl(out1.read_bytes())
    body_recs = [r for r in recs if r["kind"] != "summary"]
    assert body_recs and all(r["meta"].get("context") for r in body_recs)
    assert all(r["prefix"].startswith(r["meta"]["context"]) for r in body_recs)
    assert all(r["n_tokens"] <= 128 for r in recs)
    assert any(r["kind"] == "summary" and r["parent_id"] for r in recs)
    check_records(recs, ROOT / "examples", tmp_path)
    p2 = cli(*args, "-o", str(out2))
    assert p2.returncode == 0
    assert len(server.requests) == calls          # every answer came from the cache
    assert out2.read_bytes() == out1.read_bytes()
    assert KEY.encode() not in b"".join(f.read_bytes() for f in (tmp_path / "cache").rglob("*") if f.is_file())


def test_failed_model_calls_exit_1_and_keep_the_records(tmp_path, server):
    server.http = "500"
    out, errors = tmp_path / "o.jsonl", tmp_path / "errors.jsonl"
    p = cli("chunk", "examples/returns-policy.txt", "--chunk-size", "128", "--contextualize",
            *llm_args(server, tmp_path / "cache"), "-o", str(out), "--errors", str(errors))
    assert p.returncode == 1
    recs = parse_jsonl(out.read_bytes())
    assert recs and all(r["meta"]["context"] is None for r in recs)
    logged = [json.loads(line) for line in errors.read_text().splitlines()]
    assert logged and all(e["error_type"] == "LLMFailure" for e in logged)
    assert KEY.encode() not in p.stderr


def test_dry_run_counts_and_sends_nothing(tmp_path, server):
    out = tmp_path / "o.jsonl"
    p = cli("chunk", "examples", "--contextualize", *llm_args(server, tmp_path / "cache"), "--llm-dry-run",
            "-o", str(out))
    assert p.returncode == 0, p.stderr.decode()
    assert server.requests == []
    assert not out.exists()
    line = [ln for ln in p.stderr.decode().splitlines() if "dry run" in ln][0]
    assert "model calls" in line and "prompt tokens" in line and not line.startswith("chunkctl: dry run: 0 ")


def test_missing_endpoint_is_a_usage_error():
    p = cli("chunk", "examples", "--contextualize")
    assert p.returncode == 2 and len(p.stderr.decode().strip().splitlines()) == 1
    assert b"--llm-base-url" in p.stderr
