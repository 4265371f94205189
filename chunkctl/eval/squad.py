"""SQuAD-format question-answering data converted to an evaluation set (corpus files + questions JSON lines); no chunking, no scores.

SQuAD (Rajpurkar et al., "Know What You Don't Know: Unanswerable Questions for SQuAD",
ACL 2018; data CC BY-SA 4.0) gives, per Wikipedia article, paragraphs and questions
whose answers are character offsets (`answer_start`) into one paragraph. Each article
becomes one plain-text corpus file (its title, then its paragraphs separated by blank
lines: prose without headings), and each answerable question one question whose
reference excerpt is the sentence holding its first answer, at its offsets in that file;
the form `chunkctl eval` reads (`load_questions`), as Chroma's `questions_df.csv`.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkctl.errors import ConfigError

EXCERPTS = ("sentence", "answer")

# A sentence ends at . ! or ? (closing quotes/brackets allowed) followed by white space.
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s+")


@dataclass(frozen=True)
class Converted:
    """What `convert_squad` wrote.

    Attributes:
        corpora: number of corpus files (articles).
        questions: number of questions written.
        skipped: answerable questions left out (answer text not at its offset), plus
            unanswerable ones, plus those dropped by sampling.
        chars: characters in all corpus files.
    """

    corpora: int
    questions: int
    skipped: int
    chars: int


def sentence_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the sentence(s) of `text` holding `[start, end)` (characters, end exclusive).

    A sentence ends after `.`, `!` or `?` (and closing quotes or brackets) followed by
    white space; the span never leaves `text` and never includes the trailing space.
    """
    lo = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        lo = m.end()
    after = _SENTENCE_END.search(text, max(end - 1, lo))
    hi = after.end() if after else len(text)
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    return lo, max(hi, end)


def _articles(data: Any, path: Path) -> list[dict[str, Any]]:
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise ConfigError(f"{path}: not SQuAD JSON (no top-level 'data' list of articles)")
    return data["data"]


STEM_BYTES = 120
"""Longest file stem written (UTF-8 bytes; file systems allow 255 a name): a longer title is cut and
given 8 hex digits of its SHA-1, so two long titles with the same start stay two files."""


def _file_stem(title: str, used: set[str]) -> str:
    stem = re.sub(r"[^\w.-]+", "_", title).strip("._") or "article"
    if len(stem.encode("utf-8")) > STEM_BYTES:
        digest = hashlib.sha1(title.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        cut = stem.encode("utf-8")[:STEM_BYTES - 9].decode("utf-8", "ignore")
        stem = f"{cut}_{digest}"
    base, n = stem, 2
    while stem.lower() in used:
        stem, n = f"{base}_{n}", n + 1
    used.add(stem.lower())
    return stem


def convert_squad(path: str | Path, out_dir: str | Path, excerpt: str = "sentence", sample: int | None = None,
                  seed: int = 0) -> Converted:
    """Write `out_dir/corpora/<title>.txt` and `out_dir/questions.jsonl` from a SQuAD JSON file.

    Args:
        path: a SQuAD v1.1 or v2.0 JSON file (`{"data": [{"title", "paragraphs": [{"context",
            "qas": [{"question", "answers": [{"text", "answer_start"}], "is_impossible"}]}]}]}`).
        out_dir: the folder to write (created; existing files of the same names are replaced).
        excerpt: "sentence" (the sentence holding the first answer, default) or "answer"
            (the answer text alone; a few characters, so IoU is tiny).
        sample: keep this many questions, drawn at random with `seed` (None: all).
        seed: the sampling seed.

    Returns:
        the counts written.

    Raises:
        ConfigError: unreadable or malformed file, unknown `excerpt`, no answerable question.
    """
    if excerpt not in EXCERPTS:
        raise ConfigError(f"--excerpt {excerpt!r} is not one of: {', '.join(EXCERPTS)}")
    if sample is not None and sample < 1:
        raise ConfigError("--sample must be at least 1")
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    files: dict[str, str] = {}
    rows: list[dict[str, Any]] = []
    skipped = 0
    used: set[str] = set()
    for article in _articles(data, path):
        try:
            title = str(article.get("title") or "article").replace("_", " ")
            paragraphs = article["paragraphs"]
            stem = _file_stem(str(article.get("title") or "article"), used)
            text = title + "\n\n"
            for para in paragraphs:
                context = str(para["context"]).replace("\x00", " ")  # (a NUL makes the file read as binary)
                base = len(text)
                text += context.strip("\n") + "\n\n"
                for qa in para["qas"]:
                    answers = qa.get("answers") or []
                    if qa.get("is_impossible") or not answers:
                        skipped += 1
                        continue
                    a = answers[0]
                    answer = str(a["text"]).replace("\x00", " ")
                    s = int(a["answer_start"])
                    e = s + len(answer)
                    if not answer or context[s:e] != answer:
                        skipped += 1
                        continue
                    if excerpt == "sentence":
                        s, e = sentence_around(context, s, e)
                    rows.append({"question": " ".join(str(qa["question"]).split()), "corpus_id": stem,
                                 "references": [{"content": context[s:e], "start_index": base + s,
                                                 "end_index": base + e}]})
        except (KeyError, TypeError, ValueError):
            raise ConfigError(f"{path}: article {len(files) + 1} is not in SQuAD form "
                              f"(paragraphs of context and qas with answers)") from None
        files[stem] = text.rstrip("\n") + "\n"
    if not rows:
        raise ConfigError(f"{path}: no answerable question with a matching answer offset")
    if sample is not None and sample < len(rows):
        keep = sorted(random.Random(seed).sample(range(len(rows)), sample))
        skipped += len(rows) - sample
        rows = [rows[i] for i in keep]
    _write_set(Path(out_dir), files, rows)
    return Converted(len(files), len(rows), skipped, sum(len(t) for t in files.values()))


def _write_set(out: Path, files: dict[str, str], rows: list[dict[str, Any]]) -> None:
    """Write the corpus files and questions.jsonl into a temporary folder of `out`, then move each into
    place: a failure while writing (a full disk) leaves no partial set in `out`.

    Raises:
        ConfigError: the folder cannot be written (one line, the reason).
    """
    try:
        (out / "corpora").mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".chunkctl-squad-", dir=out))
    except OSError as exc:
        raise ConfigError(f"{out}: cannot write the set ({exc.strerror or exc})") from None
    try:
        for stem, text in files.items():
            (tmp / f"{stem}.txt").write_bytes(text.encode("utf-8"))
        with (tmp / "questions.jsonl").open("w", encoding="utf-8", newline="\n") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        for stem in files:
            os.replace(tmp / f"{stem}.txt", out / "corpora" / f"{stem}.txt")
        os.replace(tmp / "questions.jsonl", out / "questions.jsonl")
    except OSError as exc:
        raise ConfigError(f"{out}: cannot write the set ({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
