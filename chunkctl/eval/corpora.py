"""Evaluation corpora: the corpus folder loaded as documents, questions aligned to their text; no chunking, no scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from chunkctl.config import ChunkConfig
from chunkctl.errors import ConfigError
from chunkctl.eval.questions import Question
from chunkctl.loaders import format_list
from chunkctl.model import Document

_BOM = b"\xef\xbb\xbf"


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
        raise ConfigError(f"{corpus_dir}: no file chunkctl can read ({format_list()})")
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
