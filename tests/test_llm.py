"""Model-assisted chunking against a real HTTP server on 127.0.0.1: client, contexts, the llm strategy, summaries, dry run."""

from __future__ import annotations

import copy
import socket

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkctl.chunking import STRATEGIES, chunk_document
from chunkctl.chunking.sections import sections
from chunkctl.config import ChunkConfig
from chunkctl.enrich import apply_llm, plan_llm
from chunkctl.errors import ConfigError
from chunkctl.llm import ChatClient, ChatRequest, LLMError, LLMOptions, check_llm, close_clients, llm_chunk_config
from chunkctl.llm.boundaries import (
    Window,
    cut_points,
    locate,
    parse_starts,
    read_answer,
    validate,
    window_requests,
    windows,
)
from chunkctl.llm.client import DiskCache, retry_after
from chunkctl.llm.prompts import clean_answer
from chunkctl.model import BlockKind
from chunkctl.pipeline import load
from chunkctl.pipeline.finalize import iter_records
from chunkctl.tokenizers import get_tokenizer
from tests.conftest import check_records
from tests.fake_llm import LONG_SENTENCE, FakeLLM

SECRET = "sk-test-0123456789-never-log-me"
KEY_ENV = "CHUNKCTL_TEST_LLM_KEY"

PARTS = {
    "Soil": ["Good soil holds water and air in balance, and it feeds the roots of every plant in the bed.",
             "Topic compost begins with kitchen scraps and garden waste that slowly rot into dark crumbly humus.",
             "Turn the heap every few weeks so that air reaches the middle and the microbes keep working."],
    "Water": ["Water early in the morning, when the air is cool and the leaves dry quickly in the sun.",
              "Topic rainwater collection uses barrels under the downpipes to store water for dry summer weeks.",
              "A soaker hose wastes less water than a sprinkler because it wets the soil and not the leaves."],
    "Pests": ["Slugs come out at night and eat young seedlings down to the stem in a single evening.",
              "Topic companion planting puts marigolds and onions between crops to confuse the insects.",
              "Birds and frogs eat many pests, so a small pond and a hedge help the whole garden."],
}


def guide_md(repeat: int = 2) -> str:
    """A small Markdown guide: an intro, three sections, paragraphs of which one per section opens a new topic."""
    out = ["# Gardening Guide", "", "This guide explains how to look after a small vegetable garden through the year.",
           ""]
    for name, paras in PARTS.items():
        out += [f"## {name}", ""]
        for p in paras:
            out += [" ".join([p] * repeat), ""]
    return "\n".join(out)


def plain_txt() -> str:
    """Unstructured text (no headings): paragraphs, some opening a new topic."""
    return "\n\n".join(" ".join([p] * 3) for paras in PARTS.values() for p in paras) + "\n"


@pytest.fixture
def server():
    fake = FakeLLM()
    yield fake
    close_clients()
    fake.close()


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def make_config(server: FakeLLM, tmp_path, strategy: str = "recursive", chunk_size: int = 96, overlap=0, **extras):
    base = {"llm_base_url": server.base_url, "llm_model": "fake-1", "llm_api_key_env": KEY_ENV,
            "cache_dir": str(tmp_path / "cache"), "llm_retries": 2, "llm_backoff": 0.0, "llm_timeout": 10}
    base.update(extras)
    return ChunkConfig(strategy=strategy, chunk_size=chunk_size, overlap=overlap, extras=base)


def run(tmp_path, config: ChunkConfig, text: str, name: str = "guide.md", reserve: bool = True):
    """Load, chunk (with room for contexts unless `reserve` is off), apply the model; returns (doc, chunks, failures, records)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    tok = get_tokenizer(config.tokenizer)
    doc = load(path, config, source=name)
    table = tok.table(doc.text)
    chunked = chunk_document(doc, tok, llm_chunk_config(config) if reserve else config, table)
    chunks, failures = apply_llm(doc, chunked, tok, config, table)
    return doc, chunks, failures, records(doc, chunks, config, tok.name, chunked.doc_meta)


def records(doc, chunks, config, tokenizer_name, doc_meta=None):
    return list(iter_records(doc, chunks, config, tokenizer_name, doc_meta))


def assert_budgets_and_bodies(doc, recs) -> None:
    tok = get_tokenizer()
    for r in recs:
        assert r["n_tokens"] == tok.count(r["text"]) <= r["meta"]["chunk_size"], r
        if r["kind"] != "summary":
            assert r["text"][len(r["prefix"]):] == doc.text[r["start"]:r["end"]]


def assert_covered(doc, recs) -> None:
    covered = bytearray(len(doc.text))
    for r in recs:
        if r["kind"] != "summary":
            covered[r["start"]:r["end"]] = b"\x01" * (r["end"] - r["start"])
    lost = [i for i, ch in enumerate(doc.text) if not ch.isspace() and not covered[i]]
    assert not lost, doc.text[lost[0]:lost[0] + 40]


def dumps(recs) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in recs)


# ---------------------------------------------------------------------- the client
def client_for(server, tmp_path, **extras) -> ChatClient:
    return ChatClient(LLMOptions.from_config(make_config(server, tmp_path, **extras)))


def test_client_sends_a_deterministic_request_with_the_key_header(server, tmp_path):
    ans = client_for(server, tmp_path).complete(ChatRequest((("user", "hello"),), 20))
    assert ans.text == "echo: hello" and ans.error is None and not ans.cached
    req = server.requests[0]
    assert req["auth"] == f"Bearer {SECRET}"
    assert req["body"]["model"] == "fake-1" and req["body"]["temperature"] == 0 and req["body"]["max_tokens"] == 20


def test_client_returns_answers_in_input_order_within_the_concurrency_bound(server, tmp_path):
    client = client_for(server, tmp_path, llm_concurrency=3)
    reqs = [ChatRequest((("user", f"message {i} " + "x" * i),), 10) for i in range(24)]
    answers = client.complete_many(reqs)
    assert [a.text for a in answers] == [f"echo: message {i} " + "x" * i for i in range(24)]
    assert server.count() == 24 and 1 <= server.max_in_flight <= 3


def test_retries_on_429_then_succeeds(server, tmp_path):
    server.http, server.fail_first = "429", 2
    ans = client_for(server, tmp_path, llm_retries=4).complete(ChatRequest((("user", "hi"),), 5))
    assert ans.text == "echo: hi"
    assert server.count() == 3  # two 429s, then the answer


def test_retries_on_500_stop_and_the_error_names_the_status(server, tmp_path):
    server.http = "500"
    ans = client_for(server, tmp_path, llm_retries=2).complete(ChatRequest((("user", "hi"),), 5))
    assert ans.text is None and "HTTP 500" in ans.error and "3 attempts" in ans.error
    assert server.count() == 3


def test_timeouts_are_retried_and_stop(server, tmp_path):
    server.http, server.delay = "slow", 2.0
    ans = client_for(server, tmp_path, llm_retries=1, llm_timeout=0.3).complete(ChatRequest((("user", "hi"),), 5))
    assert ans.text is None and "timed out" in ans.error and "2 attempts" in ans.error
    assert server.count() == 2


def test_malformed_response_bodies_are_retried_and_stop(server, tmp_path):
    server.http = "bad-body"
    ans = client_for(server, tmp_path, llm_retries=1).complete(ChatRequest((("user", "hi"),), 5))
    assert ans.text is None and "not a chat completion" in ans.error
    assert server.count() == 2


def test_connection_errors_are_retried_and_stop(server, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    opts = LLMOptions.from_config(make_config(server, tmp_path, llm_base_url=f"http://127.0.0.1:{port}/v1",
                                              llm_retries=1))
    ans = ChatClient(opts).complete(ChatRequest((("user", "hi"),), 5))
    assert ans.text is None and "cannot reach" in ans.error and "2 attempts" in ans.error


def test_client_errors_are_not_retried_and_never_show_the_key(server, tmp_path):
    server.http = "echo-key"
    client = client_for(server, tmp_path)
    ans = client.complete(ChatRequest((("user", "hi"),), 5))
    assert server.count() == 1
    assert "HTTP 401" in ans.error and SECRET not in ans.error and "***" in ans.error
    assert SECRET not in repr(client)


def test_retry_after_forms():
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # a date in the past
    assert retry_after({}) is None


# ---------------------------------------------------------------------- options
def test_llm_strategy_without_an_endpoint_is_a_one_line_config_error():
    with pytest.raises(ConfigError) as err:
        STRATEGIES["llm"].ready(ChunkConfig(strategy="llm"))
    msg = str(err.value)
    assert "\n" not in msg and "--llm-base-url" in msg and "--llm-model" in msg


def test_options_are_checked():
    with pytest.raises(ConfigError, match="llm_modle"):
        LLMOptions.from_config(ChunkConfig(extras={"llm_modle": "x"}))
    with pytest.raises(ConfigError) as err:
        LLMOptions.from_config(ChunkConfig(extras={"llm_api_key_env": SECRET}))
    assert SECRET not in str(err.value)
    with pytest.raises(ConfigError, match="--llm-concurrency"):
        LLMOptions.from_config(ChunkConfig(extras={"llm_concurrency": 0}))
    with pytest.raises(ConfigError, match="--contextualize needs"):
        check_llm(ChunkConfig(extras={"contextualize": True}))


# ---------------------------------------------------------------------- contexts
def test_contexts_go_before_the_breadcrumb_and_the_budget_holds(server, tmp_path):
    config = make_config(server, tmp_path, contextualize=True)
    path = tmp_path / "guide.md"
    path.write_text(guide_md(), encoding="utf-8")
    tok = get_tokenizer()
    doc = load(path, config, source="guide.md")
    table = tok.table(doc.text)
    chunked = chunk_document(doc, tok, llm_chunk_config(config), table)
    before = copy.deepcopy(chunked.chunks)
    chunks, failures = apply_llm(doc, chunked, tok, config, table)
    assert failures == [] and len(chunks) == len(before) and server.count("context") == len(chunks)
    assert any(b.prefix for b in before)  # some chunks carry a breadcrumb
    for old, new in zip(before, chunks):
        ctx = new.meta["context"]
        assert ctx.startswith("This passage comes from the gardening guide.") and "context_truncated" not in new.meta
        assert new.prefix == ctx + "\n\n" + old.prefix  # context first, breadcrumb unchanged after it
        assert (new.start, new.end) == (old.start, old.end) and new.budget == config.chunk_size
    recs = records(doc, chunks, config, tok.name)
    assert_budgets_and_bodies(doc, recs)
    check_records(recs, tmp_path, tmp_path)


@pytest.mark.parametrize("chunk_size", [96, 24])
def test_long_contexts_are_shortened_or_dropped_never_the_body(server, tmp_path, chunk_size):
    server.answers = "long"
    config = make_config(server, tmp_path, chunk_size=chunk_size, contextualize=True)
    doc, chunks, failures, recs = run(tmp_path, config, guide_md(), reserve=False)
    assert failures == []
    assert all(c.meta.get("context_truncated") for c in chunks)
    assert all(len(c.meta["context"]) < len(LONG_SENTENCE) * 8 for c in chunks)
    if chunk_size == 24:
        assert any(c.meta["context"] == "" for c in chunks)  # no room at all: dropped
    assert_budgets_and_bodies(doc, recs)
    assert_covered(doc, recs)
    check_records(recs, tmp_path, tmp_path)


def test_reasoning_blocks_are_not_contexts(server, tmp_path):
    server.answers = "think"
    _doc, chunks, _f, _recs = run(tmp_path, make_config(server, tmp_path, contextualize=True), guide_md())
    assert all("think" not in c.prefix and c.meta["context"].startswith("This passage") for c in chunks)


def test_failed_context_calls_keep_the_old_prefix_and_are_reported(server, tmp_path):
    server.http = "500"
    config = make_config(server, tmp_path, contextualize=True, llm_retries=1)
    doc, chunks, failures, recs = run(tmp_path, config, guide_md())
    plain = chunk_document(doc, get_tokenizer(), llm_chunk_config(config)).chunks
    assert [c.prefix for c in chunks] == [c.prefix for c in plain]
    assert all("context" not in c.meta for c in chunks)
    assert len(failures) == 1 and failures[0].task == "context"
    line = str(failures[0])
    assert line.startswith("guide.md: context failed for chunks 0, 1") and "HTTP 500" in line and SECRET not in line
    assert server.count() == 2 * len(chunks)  # each call tried twice, then given up
    check_records(recs, tmp_path, tmp_path)


def test_llm_required_makes_failures_fatal(server, tmp_path):
    server.http = "500"
    config = make_config(server, tmp_path, contextualize=True, llm_required=True, llm_retries=0)
    with pytest.raises(LLMError) as err:
        run(tmp_path, config, guide_md())
    assert "HTTP 500" in str(err.value) and SECRET not in str(err.value)


def test_empty_answers_are_failures_not_empty_records(server, tmp_path):
    server.answers = "empty"
    config = make_config(server, tmp_path, contextualize=True, summaries=True, summary_min_tokens=40)
    doc, chunks, failures, recs = run(tmp_path, config, guide_md())
    assert sorted(f.task for f in failures) == ["context", "summary"]
    assert all("holds no" in f.reason for f in failures)
    assert not any(r["kind"] == "summary" for r in recs) and all("context" not in c.meta for c in chunks)
    check_records(recs, tmp_path, tmp_path)
    assert list((tmp_path / "cache").rglob("*.json")) == []  # an unusable answer is not kept
    asked = server.count()
    server.answers = "ok"
    _d, chunks, failures, recs = run(tmp_path, config, guide_md())
    assert failures == [] and server.count() == 2 * asked  # the rerun asks every question again
    assert any(r["kind"] == "summary" for r in recs)
    assert all(c.meta.get("context") for c in chunks if c.kind != "summary")


def test_llm_strategy_with_llm_required_fails_on_a_failed_window(server, tmp_path):
    server.http = "500"
    config = make_config(server, tmp_path, strategy="llm", llm_required=True, llm_retries=0)
    with pytest.raises(LLMError, match="sections failed for characters"):
        run(tmp_path, config, plain_txt(), "notes.txt")


@pytest.mark.parametrize("answers, reason", [
    ("empty", "the model's answer is empty"),
    ("not-json", "the model's answer is not JSON and names no place in the window"),
    ("impossible", "none of the 3 section starts in the model's answer is in the window"),
])
def test_unusable_section_answers_are_failures_not_cached_and_asked_again(server, tmp_path, answers, reason):
    server.answers = answers
    config = make_config(server, tmp_path, strategy="llm", chunk_size=64, llm_max_input_tokens=256)
    doc, chunks, failures, recs = run(tmp_path, config, plain_txt(), "notes.txt")
    windows_sent = server.count("sections")
    assert windows_sent > 1
    assert len(failures) == 1 and failures[0].task == "sections" and failures[0].reason == reason
    assert str(failures[0]).startswith("notes.txt: sections failed for characters 0-")
    assert str(failures[0]).endswith(f": {reason}; cut at headings only there")
    plain = chunk_document(doc, get_tokenizer(), config.replace(strategy="recursive")).chunks
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in plain]  # cut at headings only
    assert all(r["meta"]["llm_model"] is None for r in recs)  # no model decided these boundaries
    assert list((tmp_path / "cache").rglob("*.json")) == []
    server.reset()
    server.answers = "ok"
    doc, chunks, failures, recs = run(tmp_path, config, plain_txt(), "notes.txt")
    assert failures == [] and server.count("sections") == windows_sent  # asked again, window by window
    assert set(topic_starts(doc.text)) <= {c.start for c in chunks}
    assert {r["meta"]["llm_model"] for r in recs} == {"fake-1"}


def test_unusable_answers_cached_by_an_older_version_are_asked_again(server, tmp_path):
    config = make_config(server, tmp_path, strategy="llm", chunk_size=64, llm_max_input_tokens=256)
    server.answers = "empty"
    run(tmp_path, config, plain_txt(), "notes.txt")
    client = ChatClient(LLMOptions.from_config(config))
    path = tmp_path / "notes.txt"
    doc = load(path, config, source="notes.txt")
    reqs = window_requests(doc, windows(doc, get_tokenizer().table(doc.text), 256))
    for req in reqs:  # empty answers in the cache, as earlier versions kept them
        client.cache.put(req, "fake-1", "")
    server.reset()
    server.answers = "ok"
    _d, _c, failures, recs = run(tmp_path, config, plain_txt(), "notes.txt")
    assert len(failures) == 1 and failures[0].reason == "the model's answer is empty" and server.count() == 0
    _d, _c, failures, recs = run(tmp_path, config, plain_txt(), "notes.txt")
    assert failures == [] and server.count("sections") == len(reqs)


def test_llm_model_names_the_model_on_records_whose_start_it_decided(server, tmp_path):
    server.http, server.fail_first = "500", 1  # the first window's call fails, the others answer
    config = make_config(server, tmp_path, strategy="llm", chunk_size=64, llm_max_input_tokens=256,
                         llm_retries=0, llm_concurrency=1)
    doc, chunks, failures, recs = run(tmp_path, config, plain_txt(), "notes.txt")
    wins = windows(doc, get_tokenizer().table(doc.text), 256)
    assert len(wins) > 2 and len(failures) == 1 and "HTTP 500" in failures[0].reason
    assert str(failures[0]).startswith(f"notes.txt: sections failed for characters {wins[0].start}-{wins[0].end}:")
    named = [r["start"] for r in recs if r["meta"]["llm_model"] == "fake-1"]
    unnamed = [r["start"] for r in recs if r["meta"]["llm_model"] is None]
    assert named and unnamed and len(named) + len(unnamed) == len(recs)
    assert all(s < wins[1].start for s in unnamed) and all(s >= wins[1].start for s in named)


# ---------------------------------------------------------------------- the cache
def test_answers_are_cached_per_endpoint_and_older_entries_are_not_read(server, tmp_path):
    other = FakeLLM()
    try:
        req = ChatRequest((("user", "hello"),), 20)
        first = client_for(server, tmp_path)
        DiskCache(tmp_path / "cache").put(req, "fake-1", "from the old cache layout")  # keyed by model alone
        assert first.complete(req).text == "echo: hello" and server.count() == 1
        assert first.complete(req).cached and server.count() == 1
        second = client_for(other, tmp_path)  # another server, the same model name
        ans = second.complete(req)
        assert ans.text == "echo: hello" and not ans.cached and other.count() == 1
        assert second.complete(req).cached and other.count() == 1 and server.count() == 1
        assert len(list((tmp_path / "cache").rglob("*.json"))) == 3  # old entry, one per endpoint
    finally:
        other.close()


def test_the_cache_makes_a_second_run_free_and_identical(server, tmp_path):
    config = make_config(server, tmp_path, strategy="llm", contextualize=True, summaries=True,
                         summary_min_tokens=40, llm_max_input_tokens=256)
    _d, _c, failures, first = run(tmp_path, config, guide_md())
    calls = server.count()
    assert failures == [] and calls > 0
    server.reset()
    _d, _c, _f, second = run(tmp_path, config, guide_md())
    assert server.count() == 0 and dumps(second) == dumps(first)
    files = sorted((tmp_path / "cache").rglob("*.json"))
    assert len(files) == calls
    assert not any(SECRET.encode() in f.read_bytes() or SECRET in str(f) for f in files)
    files[0].write_bytes(b'{"v": 1, "answer": 12')  # a corrupt entry is a miss, then rewritten
    _d, _c, _f, third = run(tmp_path, config, guide_md())
    assert server.count() == 1 and dumps(third) == dumps(first)


def test_dry_run_sends_nothing_and_counts_what_a_run_would_send(server, tmp_path):
    extras = dict(strategy="llm", contextualize=True, summaries=True, summary_min_tokens=40,
                  llm_max_input_tokens=256)
    dry = make_config(server, tmp_path, llm_dry_run=True, **extras)
    tok = get_tokenizer()
    path = tmp_path / "guide.md"
    path.write_text(guide_md(), encoding="utf-8")
    doc = load(path, dry, source="guide.md")
    chunks = chunk_document(doc, tok, llm_chunk_config(dry))
    plan = plan_llm(doc, chunks, tok, dry)
    assert server.count() == 0
    assert plan.calls > 0 and plan.prompt_tokens > plan.calls * 50 and plan.cached == 0
    _d, _c, _f, _recs = run(tmp_path, make_config(server, tmp_path, **extras), guide_md())
    sent = server.count()
    server.reset()
    doc = load(path, dry, source="guide.md")
    chunks = chunk_document(doc, tok, llm_chunk_config(dry))
    again = plan_llm(doc, chunks, tok, dry)
    assert server.count() == 0 and again.calls == 0 and again.prompt_tokens == 0 and again.cached == sent


# ---------------------------------------------------------------------- the llm strategy
def topic_starts(text: str) -> list[int]:
    return [i for i in range(len(text)) if text.startswith("Topic ", i) and (i == 0 or text[i - 1] == "\n")]


@pytest.mark.parametrize("name, text", [("guide.md", guide_md()), ("notes.txt", plain_txt())])
def test_llm_strategy_cuts_where_the_model_says_and_at_every_heading(server, tmp_path, name, text):
    config = make_config(server, tmp_path, strategy="llm", chunk_size=128, overlap=16, llm_max_input_tokens=256)
    doc, chunks, failures, recs = run(tmp_path, config, text, name)
    assert failures == [] and server.count("sections") > 1  # several windows
    starts = {c.start for c in chunks}
    assert set(topic_starts(doc.text)) <= starts
    plain = chunk_document(doc, get_tokenizer(), config.replace(strategy="recursive")).chunks
    assert not set(topic_starts(doc.text)) <= {c.start for c in plain}  # the model's answer made those cuts
    for sec in sections(doc.blocks):
        if sec.blocks[0].kind == BlockKind.HEADING:
            assert sec.start in starts
            assert not any(c.start < sec.start < c.end for c in chunks)  # no chunk crosses a heading
    assert_budgets_and_bodies(doc, recs)
    assert_covered(doc, recs)
    check_records(recs, tmp_path, tmp_path)


@pytest.mark.parametrize("answers, http", [("offsets", "ok"), ("garbage", "ok"), ("plain", "ok"), ("empty", "ok"),
                                           ("long", "ok"), ("ok", "bad-body")])
def test_llm_strategy_survives_bad_answers_without_losing_text(server, tmp_path, answers, http):
    server.answers, server.http = answers, http
    config = make_config(server, tmp_path, strategy="llm", chunk_size=64, overlap=8, llm_max_input_tokens=256,
                         llm_retries=0)
    doc, chunks, failures, recs = run(tmp_path, config, plain_txt(), "notes.txt")
    if answers in ("offsets", "plain"):
        assert set(topic_starts(doc.text)) <= {c.start for c in chunks}  # the valid part of the answer is used
    if http == "bad-body" or answers in ("garbage", "empty"):  # an answer with nothing usable is a failure
        assert [f.task for f in failures] == ["sections"] and "cut at headings only" in str(failures[0])
    else:
        assert failures == []
    assert_budgets_and_bodies(doc, recs)
    assert_covered(doc, recs)
    check_records(recs, tmp_path, tmp_path)


# ---------------------------------------------------------------------- summaries
@pytest.mark.parametrize("strategy", ["recursive", "hierarchical", "llm"])
def test_summaries_follow_their_sections_and_point_at_the_first_chunk(server, tmp_path, strategy):
    config = make_config(server, tmp_path, strategy=strategy, chunk_size=64, summaries=True, summary_min_tokens=60,
                         contextualize=True)
    doc, chunks, failures, recs = run(tmp_path, config, guide_md())
    assert failures == []
    tok = get_tokenizer()
    table = tok.table(doc.text)
    found = chunk_document(doc, tok, llm_chunk_config(config), table).sections  # answers come from the cache
    spans = ([tuple(s) for s in found] if strategy == "llm" else [(s.start, s.end) for s in sections(doc.blocks)])
    long = [s for s in spans if table.count(*s) > 60]
    summaries = [(i, r) for i, r in enumerate(recs) if r["kind"] == "summary"]
    assert [(r["start"], r["end"]) for _i, r in summaries] == long and long
    by_id = {r["id"]: (i, r) for i, r in enumerate(recs)}
    for i, s in summaries:
        assert s["text"].startswith("the section that opens with") and s["prefix"] == ""
        assert s["n_tokens"] == tok.count(s["text"]) <= s["meta"]["chunk_size"] == config.chunk_size
        p_index, parent = by_id[s["parent_id"]]
        meets = [j for j, r in enumerate(recs) if r["kind"] != "summary" and r["start"] < s["end"]
                 and r["end"] > s["start"]]
        assert p_index == meets[0] and i == meets[-1] + 1  # first chunk of the section; right after its last
        assert parent["kind"] != "summary"
    assert_budgets_and_bodies(doc, recs)
    check_records(recs, tmp_path, tmp_path)


def test_long_summaries_are_capped_to_the_budget(server, tmp_path):
    server.answers = "long"
    config = make_config(server, tmp_path, chunk_size=48, summaries=True, summary_min_tokens=30)
    doc, _chunks, failures, recs = run(tmp_path, config, guide_md())
    sums = [r for r in recs if r["kind"] == "summary"]
    assert failures == [] and sums
    assert all(r["text"] == LONG_SENTENCE and r["n_tokens"] <= 48 for r in sums)  # cut at a sentence end
    check_records(recs, tmp_path, tmp_path)


# ---------------------------------------------------------------------- parsing and validation
@pytest.mark.parametrize("answer, expected", [
    ('{"sections": ["Topic one starts here", "Topic two"]}', ["Topic one starts here", "Topic two"]),
    ('```json\n[12, "40", {"offset": 7}, {"quote": "some first words"}]\n```', [12, 40, 7, "some first words"]),
    ('<think>hmm [1, 2]</think>Sure! {"starts": [{"first_words": "a b c"}]} Done.', ["a b c"]),
    ('- "Topic one starts here"\n* 120\n2) “Curly quoted words”\nHere are the starts:',
     ["Topic one starts here", 120, "Curly quoted words", "Here are the starts:"]),
    ("}{ [[ nothing useful", []),
    ("", []),
])
def test_parse_starts(answer, expected):
    assert parse_starts(answer) == expected


def test_locate_finds_quotes_through_markup_and_rejects_nonsense():
    text = "Intro line.\n\n**Topic** compost _begins_ with kitchen scraps.\n\nTopic water is next."
    assert locate("Topic compost begins with kitchen", text, 0, len(text), 0) == text.index("Topic")
    assert locate("topic WATER is next", text, 0, len(text), 0) == text.index("Topic water")
    assert locate("words that are nowhere in it", text, 0, len(text), 0) is None
    assert locate("the", text, 0, len(text), 0) is None  # too short to trust


@settings(max_examples=25, deadline=None)
@given(st.integers(40, 20_000), st.booleans())
def test_a_quote_of_many_words_is_looked_for_by_its_start_in_a_bounded_number_of_patterns(n, present):
    # helper-117: a model that echoed 200,000 words on one line made one pattern for every shorter
    # start of the line (300 s and more a window, and the cached answer hung every rerun)
    from chunkctl.llm import boundaries

    made: list[int] = []
    real = boundaries._words_pattern
    words = [f"w{i}x" for i in range(n)]
    text = "Intro line.\n\n" + (" ".join(words) if present else "nothing of it here at all") + "\n\nEnd."
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(boundaries, "_words_pattern", lambda words: made.append(len(words)) or real(words))
        got = locate(" ".join(words), text, 0, len(text), 0)
    assert got == (text.index("w0x") if present else None)
    assert len(made) <= boundaries.MAX_QUOTE_WORDS and max(made) <= boundaries.MAX_QUOTE_WORDS


def test_validate_snaps_to_block_starts_and_drops_impossible_answers(tmp_path):
    config = ChunkConfig()
    path = tmp_path / "notes.txt"
    path.write_text(plain_txt(), encoding="utf-8")
    doc = load(path, config, source="notes.txt")
    points = cut_points(doc)
    window = Window(0, len(doc.text))
    topics = topic_starts(doc.text)
    got = validate([topics[0] + 5, -1, len(doc.text), 10 ** 6, topics[1], topics[1], "no such words at all here", 3],
                   doc.text, window, points)
    assert got == [topics[0], topics[1]]  # 3 snaps to the window's first block: not a new start


@pytest.mark.parametrize("answer, expected", [
    ('{"sections": []}', ([], None)),   # one topic: a usable answer with no start
    ("[]", ([], None)),
    ('{"sections": ["Topic compost begins with kitchen scraps"]}', ("Soil-compost", None)),
    ('{"sections": ["Good soil holds water and air in balance"]}', ([], None)),  # the window's start: no cut
    ("", ([], "the model's answer is empty")),
    ("  <think>none</think>\n", ([], "the model's answer is empty")),
    ("{not json at all", ([], "the model's answer is not JSON and names no place in the window")),
    ("Sure.", ([], "the model's answer is neither JSON nor a list of section starts")),
    ('{"answer": "yes"}', ([], "the model's JSON answer holds no list of section starts")),
    ('{"sections": [{"foo": 1}]}', ([], "the model's JSON answer holds no list of section starts")),
    ('{"sections": [100000, "no such words here at all"]}',
     ([], "none of the 2 section starts in the model's answer is in the window")),
])
def test_read_answer_tells_usable_from_unusable_answers(tmp_path, answer, expected):
    path = tmp_path / "notes.txt"
    path.write_text(plain_txt(), encoding="utf-8")
    doc = load(path, ChunkConfig(), source="notes.txt")
    found, reason = read_answer(answer, doc.text, Window(0, len(doc.text)), cut_points(doc))
    want = [topic_starts(doc.text)[0]] if expected[0] == "Soil-compost" else expected[0]
    assert (found, reason) == (want, expected[1])


def test_clean_answer():
    assert clean_answer('Context: "It is about soil."\n') == "It is about soil."
    assert clean_answer("<think>x</think>\n\nA\u0000 note\ufffd.") == "A note ."


def test_the_answer_cache_removes_temporary_files_of_killed_writers(server, tmp_path):
    """Issue 14: a writer killed by SIGKILL between its temporary file and the rename leaves
    `.<key>.json.chunkctl-<pid>-*.tmp`; the next write to the cache removes those of dead
    processes and leaves a live writer's alone."""
    import os
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    shard = tmp_path / "cache" / "ab"
    shard.mkdir(parents=True)
    stale = shard / f".ab12.json.chunkctl-{dead_pid}-x1.tmp"
    live = shard / f".ab34.json.chunkctl-{os.getpid()}-x2.tmp"
    other = shard / "notes.tmp"
    for f in (stale, live, other):
        f.write_bytes(b"{")
    client = client_for(server, tmp_path)
    assert client.complete(ChatRequest((("user", "hello"),), 20)).text == "echo: hello"
    assert not stale.exists() and live.exists() and other.exists()
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 1


def test_llm_package_names_load_on_first_use():
    """`chunkctl.llm` imports its client only when a name needs it (start-up); its public
    names, its submodules as attributes and `dir` still work, an unknown name does not."""
    import chunkctl.llm as llm

    assert callable(llm.check_llm) and issubclass(llm.LLMError, Exception)
    assert llm.client.__name__ == "chunkctl.llm.client" and llm.prompts.__name__ == "chunkctl.llm.prompts"
    assert {"check_llm", "get_client", "LLMFailure", "llm_chunk_config"} <= set(dir(llm))
    with pytest.raises(AttributeError):
        llm.nonexistent  # noqa: B018
