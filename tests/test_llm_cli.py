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


NOTES = ("Water early in the morning, when the air is cool and the leaves dry quickly in the sun. " * 3 + "\n\n"
         + "Topic compost begins with kitchen scraps and garden waste that slowly rot into dark humus. " * 3 + "\n")


@pytest.mark.parametrize("answers, reason", [
    ("empty", "the model's answer is empty"),
    ("not-json", "the model's answer is not JSON and names no place in the window"),
    ("impossible", "none of the 3 section starts in the model's answer is in the window"),
])
def test_unusable_section_answers_exit_1_keep_the_records_and_are_asked_again(tmp_path, server, answers, reason):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text(NOTES, encoding="utf-8")
    out, errors, plain = tmp_path / "o.jsonl", tmp_path / "errors.jsonl", tmp_path / "plain.jsonl"
    args = ["chunk", str(folder), "-s", "llm", "--chunk-size", "64", *llm_args(server, tmp_path / "cache"),
            "-o", str(out), "--errors", str(errors)]
    server.answers = answers
    p = cli(*args)
    assert p.returncode == 1
    message = f"sections failed for characters 0-538: {reason}; cut at headings only there"  # the last block ends at 538
    assert len(NOTES.rstrip()) == 538
    lines = p.stderr.decode().splitlines()
    assert lines[0] == f"chunkctl: error: notes.txt: {message}"
    assert len(lines) == 2 and lines[1].endswith(", 1 written without some model output")
    assert [json.loads(line) for line in errors.read_text().splitlines()] == [
        {"source": "notes.txt", "error_type": "LLMFailure", "message": message}]
    recs = parse_jsonl(out.read_bytes())
    assert cli("chunk", str(folder), "--chunk-size", "64", "-o", str(plain)).returncode == 0
    assert [(r["start"], r["end"], r["text"]) for r in recs] == [  # the fallback: cut at headings only
        (r["start"], r["end"], r["text"]) for r in parse_jsonl(plain.read_bytes())]
    assert all(r["meta"]["llm_model"] is None for r in recs)
    check_records(recs, folder, tmp_path)
    assert server.count("sections") == 1
    assert cli(*args).returncode == 1 and server.count("sections") == 2  # not cached: asked again
    server.answers = "ok"
    p = cli(*args)
    assert p.returncode == 0, p.stderr.decode()
    assert server.count("sections") == 3 and errors.read_text() == ""
    recs = parse_jsonl(out.read_bytes())
    assert NOTES.index("Topic") in {r["start"] for r in recs}
    assert {r["meta"]["llm_model"] for r in recs} == {"fake-1"}


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
