"""Evaluation questions: reading them (CSV or JSON lines) with their reference excerpts; no corpus, no chunking."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkctl.errors import ConfigError
from chunkctl.eval.scoring import Span


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
            s, e = _offset(ref["start_index"]), _offset(ref["end_index"])
        except (TypeError, KeyError, ValueError):
            raise ConfigError(f"{where}: every reference needs integer start_index and end_index") from None
        if not 0 <= s < e:
            raise ConfigError(f"{where}: reference span {s}:{e} is empty or negative")
        spans.append((s, e))
        contents.append(ref.get("content"))
    return Question(str(row["question"]), str(row["corpus_id"]), tuple(spans), tuple(contents))


def _offset(value: Any) -> int:
    """A character offset: an integer, or a string of digits (as a CSV cell holds it).

    Raises:
        ValueError: anything else (1.7, true, "x": truncating would move the span).
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(value)
    if isinstance(value, str) and not value.strip().isdigit():
        raise ValueError(value)
    return int(value)
