"""Retrieval evaluation of chunkings: questions with reference excerpts, a grid of configurations, retrieval (BM25 or embeddings), character-level scores (Chroma method).

`chunkctl eval` as a library; no terminal output. The flow: `load_corpora(dir)` +
`load_questions(file)` -> `align(...)` (excerpts as spans of each corpus's document
text) -> for each `GridEntry`, chunk every corpus, pool the chunks of all corpora
(`pool_from_records`), index their texts with a retriever, retrieve for every question
and score the retrieved chunk bodies on characters (`scoring`, Chroma's metrics) ->
`EvalReport`. `evaluate_records` scores chunks made by anything else (any records with
`start`, `end`, `text`, `n_tokens`), which is how the harness is checked against the
published reference. `run` does the whole of it.

One module per stage, each importing only earlier ones: `questions`, `corpora`, `grid`,
`pools`, `report` (scoring a pool, the report), `runner` (the whole run); `retrieval`
and `scoring` serve them. Callers use this package: `import chunkctl.eval as evaluation`.
"""

from __future__ import annotations

from chunkctl.eval.corpora import Corpus, align, load_corpora
from chunkctl.eval.grid import DEFAULT_GRID, GridEntry, parse_grid
from chunkctl.eval.pools import Pool, Units, chunk_corpora, pool_from_records
from chunkctl.eval.questions import Question, load_questions
from chunkctl.eval.report import DEFAULT_K, METRICS, OPTIMIZE, EvalReport, Row, evaluate_records
from chunkctl.eval.runner import run

__all__ = [
    "DEFAULT_GRID", "DEFAULT_K", "METRICS", "OPTIMIZE",
    "Corpus", "EvalReport", "GridEntry", "Pool", "Question", "Row", "Units",
    "align", "chunk_corpora", "evaluate_records", "load_corpora", "load_questions", "parse_grid",
    "pool_from_records", "run",
]
