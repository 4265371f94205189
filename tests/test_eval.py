"""`chunkctl eval`: metrics on hand-made spans, retrieval limits, parent expansion, the harness check, the CLI."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

import chunkctl.eval as evaluation
from chunkctl.cli.app import app
from chunkctl.errors import ConfigError
from chunkctl.eval import retrieval
from chunkctl.eval.report import Row
from chunkctl.eval.scoring import measure, merge, overlap, precision_omega, score_retrieval
from tests.conftest import SHARED, needs_shared

CHROMA = SHARED / "eval" / "chroma"


# ---------------------------------------------------------------- span metrics (exact values)


def test_span_union_and_overlap():
    assert merge([(30, 40), (0, 10), (5, 12), (12, 15), (20, 20)]) == [(0, 15), (30, 40)]
    assert measure(merge([(0, 10), (5, 12)])) == 12
    assert overlap([(0, 10), (20, 30)], [(5, 25)]) == 10


def test_recall_precision_iou_on_hand_made_spans():
    # E = 10..20 and 30..40 (20 chars); R here = 0..15 and 35..60; a chunk of corpus b of 100 chars.
    s = score_retrieval([(10, 20), (30, 40)], [("a", 0, 15), ("a", 35, 60), ("b", 0, 100)], "a")
    assert s.retrieved_chars == 140
    assert s.recall == 10 / 20
    assert s.precision == 10 / 140
    assert s.iou == 10 / (140 + 20 - 10)


def test_a_chunk_retrieved_twice_counts_twice_in_the_denominators():
    s = score_retrieval([(10, 20)], [("a", 10, 20), ("a", 10, 20)], "a")
    assert (s.recall, s.precision, s.iou) == (1.0, 0.5, 0.5)


def test_overlapping_retrieved_chunks_are_unioned_for_the_numerator():
    s = score_retrieval([(0, 30)], [("a", 0, 20), ("a", 10, 30)], "a")
    assert (s.recall, s.precision, s.iou) == (1.0, 30 / 40, 30 / 40)


def test_nothing_retrieved_scores_zero():
    s = score_retrieval([(0, 10)], [], "a")
    assert (s.recall, s.precision, s.iou, s.retrieved_chars) == (0.0, 0.0, 0.0, 0)


def test_same_offsets_in_another_corpus_never_intersect():
    s = score_retrieval([(10, 20)], [("b", 10, 20)], "a")
    assert (s.recall, s.precision, s.iou) == (0.0, 0.0, 0.0)


def test_precision_omega_on_hand_made_chunks():
    starts, ends = np.array([0, 10, 25, 50]), np.array([10, 25, 50, 60])
    # E = 12..20 and 24..30 (14 chars); holders 10..25 and 25..50: U = 10..50 (40 chars).
    assert precision_omega([(12, 20), (24, 30)], starts, ends) == 14 / 40
    # Chunks that only touch the excerpt hold none of it.
    assert precision_omega([(10, 25)], starts, ends) == 1.0
    # Excerpt characters outside every chunk still count in |U ∪ E|: 5 / (10 + 10 - 5).
    assert precision_omega([(5, 15)], np.array([0]), np.array([10])) == 5 / 15


# ---------------------------------------------------------------- retrieval limits and pools (fake ranking)


class FakeIndex:
    """Returns the same ranking (leaf indices) for every question."""

    def __init__(self, order):
        self.order = order

    def rank(self, queries, depth):
        return np.array([self.order[:depth]] * len(queries), dtype=np.int64)


@pytest.fixture
def ranking(monkeypatch):
    def use(order):
        monkeypatch.setattr(retrieval, "build", lambda name, texts, embedder=None: FakeIndex(order))
    return use


def rec(start, end, n_tokens, id=None, parent_id=None):
    r = {"start": start, "end": end, "text": "x" * (end - start), "n_tokens": n_tokens}
    if id is not None:
        r["id"], r["parent_id"] = id, parent_id
    return r


def question(corpus, *spans):
    return evaluation.Question("q?", corpus, tuple(spans))


def test_token_budget_stops_at_the_first_chunk_that_does_not_fit(ranking):
    ranking([0, 1, 2, 3])
    records = {"a": [rec(0, 10, 50), rec(10, 20, 60), rec(20, 30, 30), rec(30, 40, 10)]}
    [row] = evaluation.evaluate_records(records, [question("a", (25, 35))], k=None, token_budget=120)
    # 50 + 60 fit in 120; 30 more would not: stop (the 10-token chunk after it is not taken).
    assert row.per_question["retrieved_units"].tolist() == [2]
    assert row.per_question["retrieved_tokens"].tolist() == [110]
    assert row.per_question["recall"].tolist() == [0.0]
    [row] = evaluation.evaluate_records(records, [question("a", (25, 35))], k=None, token_budget=150)
    assert row.per_question["retrieved_units"].tolist() == [4]
    assert row.mean("recall") == 1.0 and row.mean("precision") == 10 / 40


def test_k_limits_the_count_and_chunks_of_other_corpora_only_cost(ranking):
    records = {"a": [rec(0, 100, 20)], "b": [rec(0, 100, 20)]}
    ranking([1, 0])
    [one] = evaluation.evaluate_records(records, [question("a", (10, 20))], k=1)
    [two] = evaluation.evaluate_records(records, [question("a", (10, 20))], k=2)
    assert (one.mean("recall"), one.mean("precision"), one.mean("iou")) == (0.0, 0.0, 0.0)
    assert (two.mean("recall"), two.mean("precision"), two.mean("iou")) == (1.0, 10 / 200, 10 / 200)
    assert one.mean("precision_omega") == two.mean("precision_omega") == 10 / 100


def test_hierarchical_children_and_their_parents_are_both_scored(ranking):
    records = {"a": [rec(0, 100, 40, "p1"), rec(0, 50, 20, "c1", "p1"), rec(50, 100, 20, "c2", "p1"),
                     rec(100, 200, 40, "p2"), rec(100, 150, 20, "c3", "p2"), rec(150, 200, 20, "c4", "p2")]}
    ranking([2, 0, 1, 3])  # leaves in record order: c1 c2 c3 c4 -> retrieved c3, c1, c2
    children, parents = evaluation.evaluate_records(records, [question("a", (60, 70))], k=3, label="h")
    assert (children.scored, parents.scored, parents.name) == ("chunks", "parents", "h → parents")
    assert (children.n_units, parents.n_units) == (4, 2)
    assert children.per_question["retrieved_chars"].tolist() == [150]
    assert (children.mean("recall"), children.mean("precision"), children.mean("iou")) == (1.0, 10 / 150, 10 / 150)
    assert children.mean("precision_omega") == 10 / 50
    # c3, c1, c2 expand to p2, p1, p1: deduplicated to p2, p1 (200 characters).
    assert parents.per_question["retrieved_units"].tolist() == [2]
    assert (parents.mean("recall"), parents.mean("precision"), parents.mean("iou")) == (1.0, 10 / 200, 10 / 200)
    assert parents.mean("precision_omega") == 10 / 100
    # With a budget, the parents' own tokens are what must fit: p2 (40) fits in 50, p1 would not.
    _, parents = evaluation.evaluate_records(records, [question("a", (60, 70))], k=None, token_budget=50)
    assert parents.per_question["retrieved_units"].tolist() == [1] and parents.mean("recall") == 0.0


# ---------------------------------------------------------------- questions and grid


def test_questions_from_csv_and_jsonl_agree(tmp_path):
    refs = [{"content": "world", "start_index": 6, "end_index": 11}]
    (tmp_path / "q.csv").write_text('question,references,corpus_id\n"Who, what?","' +
                                    json.dumps(refs).replace('"', '""') + '",doc\n', encoding="utf-8")
    (tmp_path / "q.jsonl").write_text(json.dumps({"question": "Who, what?", "references": refs,
                                                  "corpus_id": "doc"}) + "\n", encoding="utf-8")
    a, b = evaluation.load_questions(tmp_path / "q.csv"), evaluation.load_questions(tmp_path / "q.jsonl")
    assert a == b == [evaluation.Question("Who, what?", "doc", ((6, 11),), ("world",))]


@pytest.mark.parametrize("bad", [1.7, True, "x", None, [6]])
def test_reference_offsets_must_be_integers(tmp_path, bad):
    # a helper's find: 1.7 was read as 1 and true as 1, moving the reference span without a word
    refs = [{"content": "world", "start_index": bad, "end_index": 11}]
    (tmp_path / "q.jsonl").write_text(json.dumps({"question": "q", "references": refs, "corpus_id": "doc"}) + "\n")
    with pytest.raises(ConfigError, match="integer start_index"):
        evaluation.load_questions(tmp_path / "q.jsonl")
    refs[0]["start_index"] = "6"  # a CSV cell's digits are an integer
    (tmp_path / "q.jsonl").write_text(json.dumps({"question": "q", "references": refs, "corpus_id": "doc"}) + "\n")
    assert evaluation.load_questions(tmp_path / "q.jsonl")[0].excerpts == ((6, 11),)


def test_excerpts_are_checked_and_a_bom_is_counted(tmp_path):
    d = tmp_path / "corpora"
    d.mkdir()
    (d / "doc.md").write_bytes(b"\xef\xbb\xbfHello world.\n")
    corpora = evaluation.load_corpora(d)
    # Offsets of the file read as UTF-8: the BOM is character 0, "world" is 7..12.
    [q] = evaluation.align([evaluation.Question("q", "doc", ((7, 12),), ("world",))], corpora)
    assert q.excerpts == ((6, 11),) and corpora["doc"].doc.text[6:11] == "world"
    with pytest.raises(ConfigError, match="does not match"):
        evaluation.align([evaluation.Question("q", "doc", ((6, 11),), ("world",))], corpora)
    with pytest.raises(ConfigError, match="not a file stem"):
        evaluation.align([evaluation.Question("q", "other", ((0, 1),))], corpora)


def test_grid_entries_and_their_flags():
    entries = evaluation.parse_grid("recursive:200/0, sentence:256/15% ,hierarchical:200/0:parent=800,section:300")
    assert [e.spec for e in entries] == ["recursive:200/0", "sentence:256/15%", "hierarchical:200/0:parent=800",
                                         "section:300"]
    assert entries[1].config.overlap == 38 and entries[3].config.overlap == 0  # left out: the default, 0
    assert entries[2].flags == "--strategy hierarchical --chunk-size 200 --overlap 0 --parent-chunk-size 800"
    for bad in ("recursive", "recursive:abc/0", "nope:200/0", "recursive:200/300", "recursive:200/0:colour=red", ""):
        with pytest.raises(ConfigError):
            evaluation.parse_grid(bad)


def test_cli_default_grid_is_the_library_default():
    import inspect

    from chunkctl.cli.evaluation import eval_

    assert inspect.signature(eval_).parameters["grid"].default == evaluation.DEFAULT_GRID


# ---------------------------------------------------------------- the harness check (reference measurement)


@needs_shared()
def test_fixed_200_token_windows_reproduce_the_reference_figures():
    """Plain 200-token cl100k windows, BM25, k=5: recall 88.2, precision_Ω 20.7, IoU 4.7 (±1.5 points)."""
    pytest.importorskip("bm25s")
    pytest.importorskip("Stemmer")
    from chunkctl.tokenizers import get_tokenizer

    corpora = evaluation.load_corpora(CHROMA / "corpora")
    questions = evaluation.align(evaluation.load_questions(CHROMA / "questions_df.csv"), corpora)
    tok = get_tokenizer("cl100k_base")
    records = {}
    for cid, corpus in corpora.items():
        text = corpus.doc.text
        table = tok.table(text)
        cuts = [table.char(i) for i in range(0, table.n, 200)] + [len(text)]
        records[cid] = [rec(s, e, tok.count(text[s:e])) | {"text": text[s:e]} for s, e in zip(cuts, cuts[1:])]
    [row] = evaluation.evaluate_records(records, questions, "bm25", k=5)
    assert len(questions) == 373
    assert row.mean("recall") * 100 == pytest.approx(88.2, abs=1.5)
    assert row.mean("precision_omega") * 100 == pytest.approx(20.7, abs=1.5)
    assert row.mean("iou") * 100 == pytest.approx(4.7, abs=1.5)


# ---------------------------------------------------------------- the command


runner = CliRunner()


@pytest.fixture
def small_eval(tmp_path):
    """One corpus (the State of the Union) and its first 6 questions, as JSON lines."""
    corpus = tmp_path / "corpora"
    corpus.mkdir()
    (corpus / "state_of_the_union.md").write_bytes((CHROMA / "corpora" / "state_of_the_union.md").read_bytes())
    rows = [q for q in evaluation.load_questions(CHROMA / "questions_df.csv") if q.corpus_id == "state_of_the_union"]
    lines = [json.dumps({"question": q.text, "corpus_id": q.corpus_id,
                         "references": [{"content": c, "start_index": s, "end_index": e}
                                        for (s, e), c in zip(q.excerpts, q.contents)]}) for q in rows[:6]]
    (tmp_path / "q.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return corpus, tmp_path / "q.jsonl"


@needs_shared()
def test_cli_eval_writes_every_figure(small_eval, tmp_path):
    pytest.importorskip("bm25s")
    corpus, questions = small_eval
    out = tmp_path / "r.json"
    r = runner.invoke(app, ["eval", str(corpus), "--questions", str(questions), "--grid",
                            "recursive:200/0,hierarchical:100/0:parent=400", "--json", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    assert "chunkctl chunk DOCS --strategy" in r.stdout and "recall" in r.stdout
    data = json.loads(out.read_text())
    assert set(data) == {"settings", "results", "baseline", "leave_one_corpus_out", "best"}
    assert data["baseline"] == "recursive:200/0" and data["leave_one_corpus_out"]["folds"] == []  # one corpus
    s = data["settings"]
    assert (s["n_questions"], s["corpora"], s["k"], s["token_budget"]) == (6, {"state_of_the_union": 6}, 5, None)
    assert s["retriever"]["name"] == "bm25" and s["retriever"]["k1"] == 1.5 and s["retriever"]["b"] == 0.75
    assert [(x["config"], x["scored"]) for x in data["results"]] == [
        ("recursive:200/0", "chunks"), ("hierarchical:100/0:parent=400", "chunks"),
        ("hierarchical:100/0:parent=400", "parents")]
    for x in data["results"]:
        assert set(x) == {"config", "scored", "flags", "n_units", "mean_unit_tokens", "retrieved", "metrics",
                          "per_corpus", "per_question", "vs_baseline"}
        assert set(x["metrics"]) == set(x["per_question"]) == {"recall", "precision", "precision_omega", "iou"}
        assert all(set(v) == {"mean", "std"} and 0 <= v["mean"] <= 1 for v in x["metrics"].values())
        assert all(len(v) == 6 for v in x["per_question"].values())
        assert x["per_corpus"]["state_of_the_union"]["n_questions"] == 6
        assert set(x["retrieved"]) == {"units", "tokens", "chars"}
    assert data["results"][0]["retrieved"]["units"] == 5
    assert data["results"][2]["flags"] == "--strategy hierarchical --chunk-size 100 --overlap 0 --parent-chunk-size 400"
    best = data["best"]
    assert best["optimize"] == "iou" and best["value"] == max(x["metrics"]["iou"]["mean"] for x in data["results"])


@needs_shared()
def test_cli_eval_usage_errors_are_one_line(small_eval):
    pytest.importorskip("bm25s")
    corpus, questions = small_eval
    for extra in (["--grid", "recursive:abc"], ["--optimize", "f1"], ["--k", "0"], ["--retriever", "tfidf"],
                  ["--grid", "recursive:200/0:tokenizer=nope"]):
        r = runner.invoke(app, ["eval", str(corpus), "--questions", str(questions), *extra])
        assert r.exit_code == 2, extra
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output


@needs_shared()
def test_cli_eval_never_writes_a_report_over_its_inputs(small_eval):
    # a helper's find: --json q.jsonl replaced the questions, --html corpora/doc.md a document, exit 0
    corpus, questions = small_eval
    doc = corpus / "state_of_the_union.md"
    before = (questions.read_bytes(), doc.read_bytes())
    out = str(questions.parent / "r.json")
    for extra in (["--json", str(questions)], ["--html", str(doc)], ["--html", str(corpus / "new.html")],
                  ["--json", out, "--html", out], ["--min-recall", "nan"], ["--min-recall", "200"]):
        r = runner.invoke(app, ["eval", str(corpus), "--questions", str(questions), "--grid", "recursive:200/0",
                                *extra])
        assert r.exit_code == 2, extra
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert (questions.read_bytes(), doc.read_bytes()) == before
    assert sorted(p.name for p in corpus.iterdir()) == ["state_of_the_union.md"]
    pytest.importorskip("bm25s")
    r = runner.invoke(app, ["eval", str(corpus), "--questions", str(questions), "--grid", "recursive:200/0", "--json",
                            str(corpus / "report.json"), "--quiet"])  # (no loader reads .json: it may go there)
    assert r.exit_code == 0 and (corpus / "report.json").exists(), r.output


def test_cli_eval_without_the_extra_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "bm25s", None)  # import bm25s now raises ImportError
    r = runner.invoke(app, ["eval", str(tmp_path), "--questions", str(tmp_path / "q.csv")])
    assert r.exit_code == 2
    [line] = r.stderr.strip().splitlines()
    assert "pip install 'chunkctl[eval]'" in line and "bm25s" in line


def test_cli_eval_help_has_examples():
    r = runner.invoke(app, ["eval", "--help"])
    assert r.exit_code == 0 and "Example" in r.stdout and "--token-budget" in r.stdout


def _row(label: str, recall: float, iou: float) -> Row:
    return Row(label, "chunks", 10, 100.0, {"recall": np.array([recall]), "iou": np.array([iou])}, ["c"])


def test_a_pick_by_iou_far_below_the_best_recall_gets_a_note():
    # helper-102: the iou pick had 76.5% recall beside 88.5%, and nothing said so
    from chunkctl.cli.evaluation import recall_caution

    rows = [_row("recursive:512/0", 0.765, 0.10), _row("recursive:200/0", 0.885, 0.07)]
    note = recall_caution(rows, rows[0], "iou", None)
    assert note == ("note: the pick finds the answer 12.0 points less often than recursive:200/0 (recall 88.5%); "
                    "--min-recall 83 picks by iou among configurations near that recall")
    assert recall_caution(rows, rows[0], "iou", 80.0) is None  # the user set a floor
    assert recall_caution(rows, rows[1], "iou", None) is None  # the pick is the recall's best
    assert recall_caution(rows, rows[0], "recall", None) is None
    close = [_row("a", 0.86, 0.10), _row("b", 0.885, 0.07)]
    assert recall_caution(close, close[0], "iou", None) is None  # 2.5 points: no note
