"""chunkctl configurations against LangChain's recursive splitter and fixed token windows on one evaluation set.

Prints the Markdown rows of README's evaluation tables: chunks · mean tokens, and
recall and IoU (%) with the paired difference to LangChain recursive and its 95%
bootstrap interval, at equal k (5) and at equal retrieved tokens. Needs the bench
extra (langchain-text-splitters) and the eval extra.

    python bench/eval_baselines.py ../shared/eval/chroma/corpora ../shared/eval/chroma/questions_df.csv
    python bench/eval_baselines.py squad-eval/corpora squad-eval/questions.jsonl --size 512 --equal-tokens 2048
    python bench/eval_baselines.py CORPORA Q --retriever openai --embed-base-url http://127.0.0.1:8000/v1 \\
        --embed-model e5-passage --embed-query-model e5-query --only state_of_the_union,chatlogs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chunkctl.eval as ev  # noqa: E402
from chunkctl.eval import compare  # noqa: E402
from chunkctl.eval.report import EvalReport  # noqa: E402
from chunkctl.tokenizers import get_tokenizer  # noqa: E402

TOK = get_tokenizer("cl100k_base")
SEPARATORS = ["\n\n", "\n", ".", "?", "!", " ", ""]  # Chroma's setting of LangChain's splitter


def langchain_records(corpora, size):
    """LangChain RecursiveCharacterTextSplitter chunks (cl100k lengths, no overlap) located in each text."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0, length_function=TOK.count,
                                              separators=SEPARATORS, keep_separator=True)
    out = {}
    for cid, corpus in corpora.items():
        text, pos, recs = corpus.doc.text, 0, []
        for piece in splitter.split_text(text):
            start = text.find(piece, pos)
            start = text.find(piece) if start < 0 else start
            recs.append({"start": start, "end": start + len(piece), "text": piece, "n_tokens": TOK.count(piece)})
            pos = start + 1
        out[cid] = recs
    return out


def window_records(corpora, size):
    """Fixed windows of `size` cl100k tokens, each the text from its first token to the next window's."""
    out = {}
    for cid, corpus in corpora.items():
        text = corpus.doc.text
        table = TOK.table(text)
        cuts = [table.char(i) for i in range(0, table.n, size)] + [len(text)]
        out[cid] = [{"start": s, "end": e, "text": text[s:e], "n_tokens": TOK.count(text[s:e])}
                    for s, e in zip(cuts, cuts[1:]) if e > s]
    return out


def cell(row, base, draws, metric):
    digits = 1 if metric == "recall" else 2
    value = f"{100 * row.mean(metric):.{digits}f}"
    if row is base:
        return value
    d = compare.paired_delta(row.per_question[metric], base.per_question[metric], draws)
    return (f"{value} ({100 * d.mean:+.{digits}f} [{100 * d.low:+.{digits}f}, {100 * d.high:+.{digits}f}])")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpora")
    p.add_argument("questions")
    p.add_argument("--grid", default="recursive:{s},recursive:{s}/0,recursive:{s}/0:context=none,"
                                     "section:{s}/0:min=100,sentence:{s}/0,semantic:{s}/0")
    p.add_argument("--size", type=int, default=200)
    p.add_argument("--equal-tokens", type=int, default=None, help="default: 4 x --size")
    p.add_argument("--retriever", default="bm25")
    p.add_argument("--only", default="", help="comma-separated corpus ids to keep")
    p.add_argument("--embed-base-url")
    p.add_argument("--embed-model")
    p.add_argument("--embed-query-model")
    p.add_argument("--cache")
    a = p.parse_args()
    budget = a.equal_tokens or 4 * a.size
    corpora = ev.load_corpora(a.corpora)
    if a.only:
        corpora = {k: v for k, v in corpora.items() if k in a.only.split(",")}
    questions = ev.align([q for q in ev.load_questions(a.questions) if q.corpus_id in corpora], corpora)
    embedder = None
    if a.retriever == "openai":
        from chunkctl.eval.embedder import Embedder, EmbedderSettings

        embedder = Embedder(EmbedderSettings(a.embed_base_url, a.embed_model, a.embed_query_model, batch=4,
                                             concurrency=1, timeout=600, cache_dir=a.cache))
    report = EvalReport({})
    made = [(f"LangChain recursive {a.size}/0", langchain_records(corpora, a.size)),
            (f"fixed {a.size}-token windows", window_records(corpora, a.size))]
    for e in ev.parse_grid(a.grid.format(s=a.size)):
        made.append((f"`{e.spec}`", ev.chunk_corpora(corpora, e.config)))
    for label, records in made:
        report.rows += ev.evaluate_records(records, questions, a.retriever, 5, None, label, "", embedder)
        report.token_rows += ev.evaluate_records(records, questions, a.retriever, None, budget, label, "", embedder)
        print(f"{label} done", file=sys.stderr, flush=True)
    draws = compare.resamples(len(questions))
    print(f"{len(questions)} questions, {len(corpora)} corpora, {a.retriever}")
    for what, rows in ((f"equal retrieved tokens ({budget})", report.token_rows), ("k = 5", report.rows)):
        print(f"\n{what}\n\n| configuration | chunks · tokens | recall | IoU |\n| --- | --- | --- | --- |")
        for r in rows:
            print(f"| {r.name} | {r.n_units} · {r.unit_tokens:.0f} | {cell(r, rows[0], draws, 'recall')} | "
                  f"{cell(r, rows[0], draws, 'iou')} |")


if __name__ == "__main__":
    main()
