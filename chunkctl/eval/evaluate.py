"""`chunkctl eval` as a library: questions, grid entries, chunk pools, their retrieval scores; no terminal output.

The flow: `load_corpora(dir)` + `load_questions(file)` -> `align(...)` (excerpts as
spans of each corpus's document text) -> for each `GridEntry`, chunk every corpus,
pool the chunks of all corpora (`pool_from_records`), index their texts with a
retriever, retrieve for every question and score the retrieved chunk bodies on
characters (`chunkctl.scoring`, Chroma's metrics) -> `Report`. `evaluate_records`
scores chunks made by anything else (any records with `start`, `end`, `text`,
`n_tokens`), which is how the harness is checked against the published reference.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from chunkctl.eval import retrieval
from chunkctl.__about__ import __version__
from chunkctl.chunking import get_strategy
from chunkctl.config import ChunkConfig
from chunkctl.errors import ConfigError
from chunkctl.model import Document
from chunkctl.eval.scoring import Span, precision_omega, score_retrieval

DEFAULT_GRID = "recursive:200/0,recursive:400/0,sentence:256/32,section:400/0,hierarchical:200/0,fixed:200/0"
DEFAULT_K = 5
METRICS = ("recall", "precision", "precision_omega", "iou")
OPTIMIZE = ("iou", "recall")
_BOM = b"\xef\xbb\xbf"


# ---------------------------------------------------------------- questions


@dataclass(frozen=True)
class Question:
    """One evaluation question.

    Attributes:
        text: the question, as given to the retriever.
        corpus_id: stem of the corpus file that holds the answer.
        excerpts: the reference excerpts as character spans `[start, end)`; as loaded,
            of the corpus file read as UTF-8 (a leading BOM counts as one character);
            after `align`, of the corpus's document text (what record `start`/`end` index).
        contents: the excerpt texts when the file gives them (`None` otherwise).
    """

    text: str
    corpus_id: str
    excerpts: tuple[Span, ...]
    contents: tuple[str | None, ...] = ()


def load_questions(path: str | Path) -> list[Question]:
    """Read questions from a CSV file or a JSON-lines file.

    Both hold the fields of Chroma's `questions_df.csv`: `question`, `corpus_id` and
    `references`, a list of `{"content", "start_index", "end_index"}` (character
    offsets, end exclusive; `content` optional). In CSV `references` is a JSON string;
    in JSON lines it may be the list itself. Files ending in `.jsonl`/`.ndjson`, or
    whose first character is `{`, are read as JSON lines; anything else as CSV.

    Raises:
        ConfigError: unreadable file, missing field, malformed reference, no question.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--questions {path}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    if path.suffix.lower() in (".jsonl", ".ndjson") or text.lstrip().startswith("{"):
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append((f"line {n}", json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise ConfigError(f"--questions {path}: line {n} is not JSON ({exc.msg})") from None
    else:
        csv.field_size_limit(2**31 - 1)
        rows = [(f"question {n}", row) for n, row in enumerate(csv.DictReader(text.splitlines(keepends=True)), 1)]
    questions = [_question(row, f"--questions {path}: {where}") for where, row in rows]
    if not questions:
        raise ConfigError(f"--questions {path}: no questions in it")
    return questions


def _question(row: Any, where: str) -> Question:
    """One question from a parsed CSV row or JSON object (`where` names it in errors)."""
    if not isinstance(row, dict):
        raise ConfigError(f"{where}: expected an object with question, references, corpus_id")
    missing = [k for k in ("question", "references", "corpus_id") if not row.get(k)]
    if missing:
        raise ConfigError(f"{where}: missing {', '.join(missing)}")
    refs = row["references"]
    if isinstance(refs, str):
        try:
            refs = json.loads(refs)
        except json.JSONDecodeError:
            raise ConfigError(f"{where}: references is not JSON") from None
    if not isinstance(refs, list) or not refs:
        raise ConfigError(f"{where}: references must be a non-empty list of {{content, start_index, end_index}}")
    spans, contents = [], []
    for ref in refs:
        try:
            s, e = int(ref["start_index"]), int(ref["end_index"])
        except (TypeError, KeyError, ValueError):
            raise ConfigError(f"{where}: every reference needs integer start_index and end_index") from None
        if not 0 <= s < e:
            raise ConfigError(f"{where}: reference span {s}:{e} is empty or negative")
        spans.append((s, e))
        contents.append(ref.get("content"))
    return Question(str(row["question"]), str(row["corpus_id"]), tuple(spans), tuple(contents))


# ---------------------------------------------------------------- corpora


@dataclass(frozen=True)
class Corpus:
    """One corpus file, loaded.

    Attributes:
        id: the file's stem (what questions name in `corpus_id`).
        doc: the loaded document; chunk spans index `doc.text`.
        shift: characters before `doc.text` in the file read as UTF-8 (1 when the
            loader removed a byte-order mark, else 0).
    """

    id: str
    doc: Document
    shift: int = 0


def load_corpora(corpus_dir: str | Path) -> dict[str, Corpus]:
    """Load every file chunkctl can read under `corpus_dir` (walked recursively), keyed by file stem.

    Raises:
        ConfigError: not a folder, no readable file in it, or two files with one stem.
        LoaderError: a file that cannot be loaded.
    """
    from chunkctl.pipeline import discover, load

    root = Path(corpus_dir)
    if not root.is_dir():
        raise ConfigError(f"{corpus_dir}: not a folder of corpus files")
    found = discover([str(root)])
    if found.problems:
        raise ConfigError(found.problems[0])
    config = ChunkConfig()
    corpora: dict[str, Corpus] = {}
    for item in found.inputs:
        if item.format is None or item.path is None:
            continue
        stem = Path(item.path).stem
        if stem in corpora:
            raise ConfigError(f"{corpus_dir}: two corpus files have the stem {stem!r}; corpus ids must be unique")
        data = Path(item.path).read_bytes()
        doc = load(item.path, config, source=item.source, data=data, format=item.format)
        shift = 1 if item.format in ("txt", "md") and data.startswith(_BOM) else 0
        corpora[stem] = Corpus(stem, doc, shift)
    if not corpora:
        raise ConfigError(f"{corpus_dir}: no file chunkctl can read (txt, md, pdf, html)")
    return corpora


def align(questions: Sequence[Question], corpora: Mapping[str, Corpus]) -> list[Question]:
    """Check each question against its corpus and move its excerpts onto the document text.

    An excerpt with `content` must equal the corpus text at its offsets (the file
    read as UTF-8; for pdf and html, the text `chunkctl extract` prints).

    Raises:
        ConfigError: unknown corpus id, an excerpt outside the text, or content that
            does not match (offsets of another text, or another encoding).
    """
    out = []
    for n, q in enumerate(questions, 1):
        corpus = corpora.get(q.corpus_id)
        if corpus is None:
            raise ConfigError(f"question {n}: corpus_id {q.corpus_id!r} is not a file stem in the corpus folder "
                              f"(there: {', '.join(sorted(corpora))})")
        text = corpus.doc.text
        size = len(text) + corpus.shift
        spans = []
        for (s, e), content in zip(q.excerpts, q.contents or (None,) * len(q.excerpts)):
            if e > size:
                raise ConfigError(f"question {n}: excerpt {s}:{e} ends past {q.corpus_id} ({size} characters)")
            if content is not None and _file_text(corpus, s, e) != content:
                raise ConfigError(f"question {n}: excerpt {s}:{e} of {q.corpus_id} does not match its content; "
                                  f"offsets must index the corpus file read as UTF-8")
            spans.append((max(0, s - corpus.shift), e - corpus.shift))
        out.append(Question(q.text, q.corpus_id, tuple(spans), q.contents))
    return out


def _file_text(corpus: Corpus, s: int, e: int) -> str:
    """`[s, e)` of the corpus file read as UTF-8 (a removed BOM counted back in front of the document text)."""
    body = corpus.doc.text[max(0, s - corpus.shift): max(0, e - corpus.shift)]
    return "\ufeff" + body if corpus.shift and s == 0 else body


# ---------------------------------------------------------------- grid

_OPTIONS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "parent": ("parent_chunk_size", int),
    "parent_chunk_size": ("parent_chunk_size", int),
    "levels": ("levels", lambda v: tuple(int(x) for x in v.split("/"))),
    "min": ("min_chunk_tokens", int),
    "min_chunk_tokens": ("min_chunk_tokens", int),
    "context": ("context", str),
    "splitter": ("sentence_splitter", str),
    "sentence_splitter": ("sentence_splitter", str),
    "percentile": ("breakpoint_percentile", float),
    "breakpoint_percentile": ("breakpoint_percentile", float),
    "content_type": ("content_type", str),
    "tokenizer": ("tokenizer", str),
}
"""Grid options `key=value` -> (ChunkConfig field, parser); `levels` values are separated by `/`."""

_FLAG_FIELDS = ("parent_chunk_size", "levels", "min_chunk_tokens", "context", "sentence_splitter",
                "breakpoint_percentile", "content_type", "tokenizer")
"""ChunkConfig fields a grid entry may set besides strategy, size and overlap (shown as flags when not default)."""


@dataclass(frozen=True)
class GridEntry:
    """One configuration of the grid: `strategy:size/overlap[:key=value...]`.

    Attributes:
        spec: the entry as written (the row label).
        config: the validated chunking options.
    """

    spec: str
    config: ChunkConfig

    @property
    def flags(self) -> str:
        """The `chunkctl chunk` options that produce these chunks."""
        c = self.config
        parts = [f"--strategy {c.strategy}", f"--chunk-size {c.chunk_size}", f"--overlap {c.overlap_tokens}"]
        defaults = ChunkConfig()
        for name in _FLAG_FIELDS:
            value = getattr(c, name)
            if value != getattr(defaults, name):
                shown = ",".join(map(str, value)) if name == "levels" else value
                parts.append(f"--{name.replace('_', '-')} {shown}")
        return " ".join(parts)


def parse_grid(text: str) -> list[GridEntry]:
    """Parse `--grid`: comma-separated `strategy:size/overlap[:key=value...]` entries.

    `size` is the chunk budget in tokens; `overlap` tokens or a percentage of it
    (`15%`), chunkctl's default (15%) when left out. Options: `parent=800`
    (--parent-chunk-size), `levels=2048/512/128`, `min=50` (--min-chunk-tokens),
    `context=none`, `splitter=pysbd`, `percentile=90`, `content_type=legal`,
    `tokenizer=o200k_base`. Example: `recursive:200/0,hierarchical:200/0:parent=800`.

    Raises:
        ConfigError: a malformed entry or an invalid option value (the entry is named).
    """
    entries = []
    for raw in text.split(","):
        spec = raw.strip()
        if not spec:
            continue
        head, _, rest = spec.partition(":")
        size_part, *opts = rest.split(":") if rest else ("",)
        size, _, overlap = size_part.partition("/")
        kw: dict[str, Any] = {"strategy": head.strip()}
        try:
            kw["chunk_size"] = int(size)
        except ValueError:
            raise ConfigError(f"--grid entry {spec!r}: write strategy:size/overlap, e.g. recursive:200/0") from None
        if overlap:
            kw["overlap"] = overlap
        for opt in opts:
            key, eq, value = opt.partition("=")
            known = _OPTIONS.get(key.strip().replace("-", "_"))
            if not eq or known is None:
                raise ConfigError(f"--grid entry {spec!r}: unknown option {opt!r} (known: parent, levels, min, "
                                  f"context, splitter, percentile, content_type, tokenizer)")
            try:
                kw[known[0]] = known[1](value.strip())
            except ValueError:
                raise ConfigError(f"--grid entry {spec!r}: bad value in {opt!r}") from None
        try:
            config = ChunkConfig(**kw)
            get_strategy(config.strategy)
        except ConfigError as exc:
            raise ConfigError(f"--grid entry {spec!r}: {exc}") from None
        entries.append(GridEntry(spec, config))
    if not entries:
        raise ConfigError("--grid is empty; give entries like recursive:200/0,sentence:256/32")
    return entries


# ---------------------------------------------------------------- pools


@dataclass(frozen=True)
class Units:
    """Scored units of one configuration over all corpora (parallel arrays, one item per unit).

    Attributes:
        corpus: index into the pool's `corpora`.
        start, end: the body's character span in its corpus's document text.
        n_tokens: tokens of the unit's whole text (prefix + body).
    """

    corpus: np.ndarray
    start: np.ndarray
    end: np.ndarray
    n_tokens: np.ndarray

    def __len__(self) -> int:
        return len(self.start)


@dataclass(frozen=True)
class Pool:
    """What one configuration gives the retriever: the chunks of all corpora.

    Attributes:
        corpora: corpus ids; `Units.corpus` indexes this.
        texts: the text of each retrievable chunk (prefix + body), what is indexed.
        leaves: the retrievable chunks (records no other record names as parent).
        parents: for hierarchical records, the units the leaves expand to (a leaf's
            parent record, or the leaf itself when it has none); None otherwise.
        parent_of: for each leaf, the index of its unit in `parents`.
    """

    corpora: tuple[str, ...]
    texts: tuple[str, ...]
    leaves: Units
    parents: Units | None = None
    parent_of: np.ndarray | None = None


def pool_from_records(records: Mapping[str, Sequence[Mapping[str, Any]]]) -> Pool:
    """Pool the records of every corpus (`corpus id -> records`, in order).

    Each record needs `start`, `end` (body span, characters), `text` and `n_tokens`;
    `id` and `parent_id` are used when present (hierarchical output).
    """
    corpora = tuple(records)
    rows: list[tuple[int, int, int, int]] = []
    texts: list[str] = []
    targets: list[tuple[int, int, int, int]] = []
    has_parents = False
    for ci, recs in enumerate(records.values()):
        by_id = {r["id"]: r for r in recs if "id" in r}
        parent_ids = {r.get("parent_id") for r in recs} - {None}
        for r in recs:
            if r.get("id") in parent_ids:
                continue
            rows.append((ci, r["start"], r["end"], r["n_tokens"]))
            texts.append(r["text"])
            p = by_id.get(r.get("parent_id"))
            has_parents |= p is not None
            p = p or r
            targets.append((ci, p["start"], p["end"], p["n_tokens"]))
    leaves = _units(rows)
    if not has_parents:
        return Pool(corpora, tuple(texts), leaves)
    unique = list(dict.fromkeys(targets))
    where = {t: i for i, t in enumerate(unique)}
    return Pool(corpora, tuple(texts), leaves, _units(unique), np.array([where[t] for t in targets], dtype=np.int64))


def _units(rows: Sequence[tuple[int, int, int, int]]) -> Units:
    arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return Units(arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy(), arr[:, 3].copy())


def chunk_corpora(corpora: Mapping[str, Corpus], config: ChunkConfig) -> dict[str, list[dict[str, Any]]]:
    """Chunk every corpus with `config`; returns `corpus id -> contract records`."""
    from chunkctl.pipeline import chunk_records

    return {cid: chunk_records(c.doc, config) for cid, c in corpora.items()}


# ---------------------------------------------------------------- scoring a pool


@dataclass
class Row:
    """The scores of one configuration and one kind of scored unit.

    Attributes:
        label: the grid entry (or the caller's label).
        scored: "chunks" (the retrieved chunks) or "parents" (the parent spans the
            retrieved children expand to, deduplicated).
        n_units: units of this kind in the pool.
        unit_tokens: mean tokens of a unit (prefix + body).
        per_question: metric name -> one value per question, in question order:
            `recall`, `precision`, `precision_omega`, `iou` (fractions) and
            `retrieved_units`, `retrieved_tokens`, `retrieved_chars`.
        corpus_ids: the corpus id of each question.
        flags: the `chunkctl chunk` options of the configuration ("" when not from a grid).
    """

    label: str
    scored: str
    n_units: int
    unit_tokens: float
    per_question: dict[str, np.ndarray]
    corpus_ids: list[str]
    flags: str = ""

    def mean(self, metric: str) -> float:
        """Mean of `metric` over the questions."""
        return float(np.mean(self.per_question[metric]))

    def std(self, metric: str) -> float:
        """Population standard deviation of `metric` over the questions (as Chroma's code: numpy's std)."""
        return float(np.std(self.per_question[metric]))

    @property
    def name(self) -> str:
        """The label, with "→ parents" for the parent rows."""
        return self.label if self.scored == "chunks" else f"{self.label} → parents"

    def to_dict(self) -> dict[str, Any]:
        """Every figure of the row (fractions, not percent), JSON-ready."""
        per_corpus = {}
        ids = np.array(self.corpus_ids)
        for cid in dict.fromkeys(self.corpus_ids):
            mask = ids == cid
            per_corpus[cid] = {"n_questions": int(mask.sum())} | {
                m: float(np.mean(self.per_question[m][mask])) for m in METRICS}
        return {
            "config": self.label,
            "scored": self.scored,
            "flags": self.flags,
            "n_units": self.n_units,
            "mean_unit_tokens": self.unit_tokens,
            "retrieved": {m: self.mean(f"retrieved_{m}") for m in ("units", "tokens", "chars")},
            "metrics": {m: {"mean": self.mean(m), "std": self.std(m)} for m in METRICS},
            "per_corpus": per_corpus,
            "per_question": {m: [round(float(x), 6) for x in self.per_question[m]] for m in METRICS},
        }


def evaluate_records(records: Mapping[str, Sequence[Mapping[str, Any]]], questions: Sequence[Question],
                     retriever: str = "bm25", k: int | None = DEFAULT_K, token_budget: int | None = None,
                     label: str = "", flags: str = "") -> list[Row]:
    """Retrieve and score one chunking given as records (`corpus id -> records`).

    All corpora's chunks form one pool; each question retrieves from all of it. The
    `text` of each chunk is indexed; its body span is scored (`chunkctl.scoring`).

    Args:
        records: the chunks of each corpus, e.g. `chunk_corpora(...)` or any chunker's
            spans as dicts with `start`, `end`, `text`, `n_tokens` (+ `id`, `parent_id`).
        questions: aligned questions (`align`).
        retriever: "bm25" or "embedding".
        k: retrieve this many chunks per question (None: no count limit).
        token_budget: retrieve chunks in rank order while their `n_tokens` sum stays
            within this many tokens; the first chunk that would exceed it ends the list
            (None: no budget). For parent rows the budget applies to the parents' tokens.
        label, flags: copied into the rows.

    Returns:
        one row scoring the retrieved chunks, and for hierarchical records a second
        row scoring the parents they expand to (first occurrence kept, rank order).
    """
    if k is None and token_budget is None:
        raise ConfigError("give k or a token budget, or both")
    pool = pool_from_records(records)
    index = retrieval.build(retriever, pool.texts)
    n = len(pool.leaves)
    ranked = index.rank([q.text for q in questions], k if token_budget is None else n)
    if k is not None:
        ranked = ranked[:, :k]
    rows = [_score(pool.leaves, list(ranked), pool.corpora, questions, token_budget, label, "chunks", flags)]
    if pool.parents is not None and pool.parent_of is not None:
        expanded = [np.array(list(dict.fromkeys(pool.parent_of[r].tolist())), dtype=np.int64) for r in ranked]
        rows.append(_score(pool.parents, expanded, pool.corpora, questions, token_budget, label, "parents", flags))
    return rows


def _within_budget(ranked: np.ndarray, n_tokens: np.ndarray, budget: int | None) -> np.ndarray:
    """The leading units of `ranked` whose tokens sum to at most `budget` (all when None)."""
    if budget is None:
        return ranked
    fits = np.cumsum(n_tokens[ranked]) <= budget
    return ranked[: int(np.argmin(fits)) if not fits.all() else len(ranked)]


def _score(units: Units, ranked: list[np.ndarray], corpora: tuple[str, ...], questions: Sequence[Question],
           budget: int | None, label: str, scored: str, flags: str) -> Row:
    """Score one kind of unit for every question; `ranked[i]` = unit indices retrieved for question i."""
    cid_of = {c: i for i, c in enumerate(corpora)}
    by_corpus = {ci: (units.start[units.corpus == ci], units.end[units.corpus == ci]) for ci in range(len(corpora))}
    values: dict[str, list[float]] = {m: [] for m in (*METRICS, "retrieved_units", "retrieved_tokens",
                                                       "retrieved_chars")}
    for qi, q in enumerate(questions):
        chosen = _within_budget(ranked[qi], units.n_tokens, budget)
        spans = [(corpora[units.corpus[u]], int(units.start[u]), int(units.end[u])) for u in chosen]
        s = score_retrieval(q.excerpts, spans, q.corpus_id)
        starts, ends = by_corpus[cid_of[q.corpus_id]]
        values["recall"].append(s.recall)
        values["precision"].append(s.precision)
        values["iou"].append(s.iou)
        values["precision_omega"].append(precision_omega(q.excerpts, starts, ends))
        values["retrieved_units"].append(len(chosen))
        values["retrieved_tokens"].append(int(units.n_tokens[chosen].sum()))
        values["retrieved_chars"].append(s.retrieved_chars)
    return Row(label, scored, len(units), float(units.n_tokens.mean()) if len(units) else 0.0,
               {m: np.asarray(v, dtype=float) for m, v in values.items()}, [q.corpus_id for q in questions], flags)


# ---------------------------------------------------------------- the whole run


@dataclass
class Report:
    """The result of `chunkctl eval`: settings and one or two rows per grid entry."""

    settings: dict[str, Any]
    rows: list[Row] = field(default_factory=list)

    def best(self, optimize: str = "iou", min_recall: float | None = None) -> Row | None:
        """The row with the highest mean `optimize` ("iou" or "recall").

        Args:
            optimize: the metric to maximise.
            min_recall: only rows whose mean recall is at least this fraction (None: all).

        Returns:
            the best row (ties: the other metric decides, then grid order), or None when
            no row meets `min_recall`.
        """
        if optimize not in OPTIMIZE:
            raise ConfigError(f"--optimize {optimize!r} is not one of: {', '.join(OPTIMIZE)}")
        other = "recall" if optimize == "iou" else "iou"
        rows = [r for r in self.rows if min_recall is None or r.mean("recall") >= min_recall]
        return max(rows, key=lambda r: (r.mean(optimize), r.mean(other)), default=None)

    def to_dict(self, optimize: str = "iou", min_recall: float | None = None) -> dict[str, Any]:
        """Settings, every row's figures and the best row, JSON-ready (metrics as fractions)."""
        best = self.best(optimize, min_recall)
        return {
            "settings": self.settings,
            "results": [r.to_dict() for r in self.rows],
            "best": None if best is None else {
                "config": best.label, "scored": best.scored, "optimize": optimize, "min_recall": min_recall,
                "value": best.mean(optimize), "flags": best.flags,
            },
        }

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Column names and one row of strings per result (metrics in percent, mean ± std)."""
        head = ["configuration", "chunks", "tokens", "retrieved", "recall", "precision", "precision_Ω", "IoU"]
        body = []
        for r in self.rows:
            body.append([r.name, str(r.n_units), f"{r.unit_tokens:.0f}",
                         f"{r.mean('retrieved_units'):.1f} / {r.mean('retrieved_tokens'):.0f} tok",
                         *(f"{100 * r.mean(m):.1f} ± {100 * r.std(m):.1f}" for m in METRICS)])
        return head, body


def run(corpus_dir: str | Path, questions_path: str | Path, grid: str | Sequence[GridEntry] = DEFAULT_GRID,
        retriever: str = "bm25", k: int | None = None, token_budget: int | None = None,
        progress: Callable[[str, float], None] | None = None) -> Report:
    """Chunk the corpus folder with every grid configuration, retrieve and score.

    Args:
        corpus_dir: folder of corpus files; a question's `corpus_id` is a file stem.
        questions_path: CSV or JSON-lines questions (`load_questions`).
        grid: `--grid` text or parsed entries.
        retriever: "bm25" (default) or "embedding".
        k: chunks retrieved per question; default 5 without a token budget, no limit with one.
        token_budget: tokens retrieved per question at most (see `evaluate_records`).
        progress: called with (entry, seconds) after each configuration.

    Raises:
        ConfigError: bad grid, questions, corpus folder or numbers.
        MissingExtraError: the retriever's or a strategy's optional packages are missing.
        LoaderError: a corpus file that cannot be loaded.
    """
    from chunkctl.chunking import STRATEGIES

    retrieval.check(retriever)
    entries = parse_grid(grid) if isinstance(grid, str) else list(grid)
    for e in entries:
        STRATEGIES[e.config.strategy].ready(e.config)
    if k is None and token_budget is None:
        k = DEFAULT_K
    if k is not None and k < 1:
        raise ConfigError("--k must be at least 1")
    if token_budget is not None and token_budget < 1:
        raise ConfigError("--token-budget must be a positive number of tokens")
    corpora = load_corpora(corpus_dir)
    questions = align(load_questions(questions_path), corpora)
    report = Report({
        "chunkctl": __version__, "corpus_dir": str(corpus_dir), "questions": str(questions_path),
        "n_questions": len(questions), "corpora": {c: int(sum(q.corpus_id == c for q in questions)) for c in corpora},
        "retriever": retrieval.settings(retriever), "k": k, "token_budget": token_budget,
        "scoring": "characters of chunk bodies (prefix excluded); Smith & Troynikov 2024",
    })
    for e in entries:
        t0 = time.perf_counter()
        records = chunk_corpora(corpora, e.config)
        report.rows.extend(evaluate_records(records, questions, retriever, k, token_budget, e.spec, e.flags))
        if progress is not None:
            progress(e.spec, time.perf_counter() - t0)
    return report
