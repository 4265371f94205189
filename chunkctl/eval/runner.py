"""The whole evaluation run: load, chunk with every grid entry, retrieve and score into an EvalReport; no terminal output."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chunkctl.__about__ import __version__
from chunkctl.errors import ConfigError
from chunkctl.eval import retrieval
from chunkctl.eval.corpora import align, load_corpora
from chunkctl.eval.grid import DEFAULT_GRID, GridEntry, parse_grid
from chunkctl.eval.pools import chunk_corpora
from chunkctl.eval.questions import load_questions
from chunkctl.eval.report import DEFAULT_K, EvalReport, evaluate_records

if TYPE_CHECKING:
    from chunkctl.eval.embedder import Embedder


def run(corpus_dir: str | Path, questions_path: str | Path, grid: str | Sequence[GridEntry] = DEFAULT_GRID,
        retriever: str = "bm25", k: int | None = None, token_budget: int | None = None,
        progress: Callable[[str, float], None] | None = None, equal_tokens: int | None = None,
        embedder: Embedder | None = None, sample: int | None = None, seed: int = 0) -> EvalReport:
    """Chunk the corpus folder with every grid configuration, retrieve and score.

    Args:
        corpus_dir: folder of corpus files; a question's `corpus_id` is a file stem.
        questions_path: CSV or JSON-lines questions (`load_questions`).
        grid: `--grid` text or parsed entries.
        retriever: "bm25" (default), "embedding" (WordLlama) or "openai" (`embedder`).
        k: chunks retrieved per question; default 5 without a token budget, no limit with one.
        token_budget: tokens retrieved per question at most (see `evaluate_records`).
        progress: called with (entry, seconds) after each configuration.
        equal_tokens: also score every entry at this many retrieved tokens (no count
            limit), into `EvalReport.token_rows`: a comparison at equal retrieved tokens.
        embedder: the OpenAI-compatible embedder of retriever "openai".
        sample: score only this many questions, drawn at random with `seed` (question
            order kept); None: all.

    Raises:
        ConfigError: bad grid, questions, corpus folder or numbers.
        MissingExtraError: the retriever's or a strategy's optional packages are missing.
        LoaderError: a corpus file that cannot be loaded.
    """
    from chunkctl.chunking import STRATEGIES

    retrieval.check(retriever, embedder)
    entries = parse_grid(grid) if isinstance(grid, str) else list(grid)
    for e in entries:
        STRATEGIES[e.config.strategy].ready(e.config)
    if k is None and token_budget is None:
        k = DEFAULT_K
    if k is not None and k < 1:
        raise ConfigError("--k must be at least 1")
    if token_budget is not None and token_budget < 1:
        raise ConfigError("--token-budget must be a positive number of tokens")
    if equal_tokens is not None and equal_tokens < 1:
        raise ConfigError("--equal-tokens must be a positive number of tokens")
    if sample is not None and sample < 1:
        raise ConfigError("--sample must be at least 1")
    corpora = load_corpora(corpus_dir)
    questions = align(load_questions(questions_path), corpora)
    if sample is not None and sample < len(questions):
        import random

        keep = sorted(random.Random(seed).sample(range(len(questions)), sample))
        questions = [questions[i] for i in keep]
    report = EvalReport({
        "chunkctl": __version__, "corpus_dir": str(corpus_dir), "questions": str(questions_path),
        "n_questions": len(questions), "corpora": {c: int(sum(q.corpus_id == c for q in questions)) for c in corpora},
        "retriever": retrieval.settings(retriever, embedder), "k": k, "token_budget": token_budget,
        "equal_tokens": equal_tokens, "sample_seed": seed if sample is not None else None,
        "scoring": "characters of chunk bodies (prefix excluded); Smith & Troynikov 2024",
    })
    for e in entries:
        t0 = time.perf_counter()
        records = chunk_corpora(corpora, e.config)
        report.rows.extend(evaluate_records(records, questions, retriever, k, token_budget, e.spec, e.flags,
                                            embedder))
        if equal_tokens is not None:
            report.token_rows.extend(evaluate_records(records, questions, retriever, None, equal_tokens, e.spec,
                                                      e.flags, embedder))
        if progress is not None:
            progress(e.spec, time.perf_counter() - t0)
    return report
