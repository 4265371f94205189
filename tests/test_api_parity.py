"""Issue 15 (10): the library calls take the command line's options under the same names and give the same bytes."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import orjson
import pytest

import chunkctl
from chunkctl.errors import ConfigError
from tests.conftest import ROOT
from tests.fake_llm import FakeLLM

GUIDE = ROOT / "examples" / "backup-guide.md"
KEY_ENV = "CHUNKCTL_TEST_LLM_KEY"


@pytest.fixture
def server():
    fake = FakeLLM()
    yield fake
    fake.close()


@pytest.fixture
def llm_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "k")


def _jsonl(records: list[dict]) -> bytes:
    return b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in records)


def test_model_options_as_keywords_give_the_bytes_of_the_cli(tmp_path, server, llm_key):
    # chunk_file(contextualize=True) used to raise TypeError; the options are the CLI's, under the same names
    pytest.importorskip("httpx")
    cache = tmp_path / "cache"
    flags = ["--chunk-size", "128", "--overlap", "16", "--contextualize", "--summaries", "--summary-min-tokens", "60",
             "--llm-base-url", server.base_url, "--llm-model", "fake-1", "--llm-api-key-env", KEY_ENV]
    p = subprocess.run([sys.executable, "-m", "chunkctl", "chunk", str(GUIDE), *flags, "--cache", str(cache), "-q",
                        "--no-config"], capture_output=True, cwd=ROOT, env=dict(os.environ), timeout=300)
    assert p.returncode == 0, p.stderr
    assert b'"context":' in p.stdout and b'"kind":"summary"' in p.stdout
    options = dict(chunk_size=128, overlap=16, contextualize=True, summaries=True, summary_min_tokens=60,
                   llm_base_url=server.base_url, llm_model="fake-1", llm_api_key_env=KEY_ENV)
    asked = server.count()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no model call failed
        from_file = _jsonl(chunkctl.chunk_file(str(GUIDE), cache_dir=str(cache), **options))
        as_extras = _jsonl(chunkctl.chunk_file(str(GUIDE), chunk_size=128, overlap=16, extras={
            k: v for k, v in options.items() if k not in ("chunk_size", "overlap")} | {"cache_dir": str(cache)}))
        from_text = _jsonl(chunkctl.chunk_text(GUIDE.read_text("utf-8"), format="md", source=str(GUIDE),
                                               cache_dir=str(cache), **options))
        from_paths = _jsonl(list(chunkctl.chunk_paths([str(GUIDE)], cache=cache, **options)))
    assert from_file == p.stdout and as_extras == p.stdout and from_text == p.stdout and from_paths == p.stdout
    assert server.count() == asked  # the same prompts: every answer came from the shared cache


def test_options_at_their_defaults_change_nothing():
    from chunkctl.pipeline.document import make_config

    plain = make_config({"chunk_size": 128})
    assert make_config({"chunk_size": 128, "contextualize": False, "summaries": False, "llm_base_url": None}) == plain
    assert make_config({"chunk_size": 128, "extras": {"contextualize": False, "llm_concurrency": 4}}) == plain
    assert make_config({"contextualize": True}, cache="c").extras == {"contextualize": True, "cache_dir": "c"}


def test_unknown_and_conflicting_options_are_named():
    with pytest.raises(TypeError, match=r"unknown option 'contextualise'; did you mean 'contextualize'\?"):
        chunkctl.chunk_text("Some text.", contextualise=True)
    with pytest.raises(ConfigError, match=r"unknown key 'summary' in extras; did you mean 'summaries'\?"):
        chunkctl.chunk_text("Some text.", extras={"summary": True})
    with pytest.raises(ConfigError, match="contextualize is given twice"):
        chunkctl.chunk_text("Some text.", contextualize=True, extras={"contextualize": False})
    with pytest.raises(ConfigError, match="--contextualize needs an OpenAI-compatible model endpoint"):
        chunkctl.chunk_text("Some text.", contextualize=True)


def test_chunk_paths_checks_its_options_before_skipping_files(tmp_path):
    # with errors="skip", a model feature without an endpoint used to fail every file and yield nothing, silently
    with pytest.raises(ConfigError, match="--contextualize needs"):
        list(chunkctl.chunk_paths([str(GUIDE)], errors="skip", contextualize=True))
    with pytest.raises(ConfigError, match="--flavour 'langchian'"):
        list(chunkctl.chunk_paths([str(GUIDE)], flavour="langchian"))


def test_chunk_paths_warns_about_failed_model_calls(tmp_path, server, llm_key):
    pytest.importorskip("httpx")
    server.http = "500"
    with pytest.warns(RuntimeWarning, match="context failed"):
        records = list(chunkctl.chunk_paths([str(ROOT / "examples" / "returns-policy.txt")], contextualize=True,
                                            llm_base_url=server.base_url, llm_model="m", llm_api_key_env=KEY_ENV,
                                            extras={"llm_retries": 0, "llm_cache": False}))
    assert records and not any(r["meta"].get("context") for r in records)


def test_the_main_guard_is_documented():
    for doc in (ROOT / "README.md", ROOT / "docs" / "python-api.md"):
        text = doc.read_text("utf-8")
        assert 'if __name__ == "__main__":' in text and "jobs" in text, doc
