"""The prompts chunkctl sends and the cleaning of the answers; pure text in, text out (no network, no tokens)."""

from __future__ import annotations

import re
from collections.abc import Callable

from chunkctl.llm.client import ChatRequest

# Caps on answer length (the model's tokens). Answers are short; the caps are loose so
# that a reasoning model's <think> block does not use them up before the answer.
CONTEXT_ANSWER_TOKENS = 1024
SUMMARY_ANSWER_TOKENS = 1024
SECTIONS_ANSWER_TOKENS = 2048

_CONTEXT_SYSTEM = ("You write short notes that situate a passage within the document it comes from, so that a "
                   "search engine can find the passage on its own. You answer with the note only.")
_SECTIONS_SYSTEM = ("You divide documents into thematic sections for a search index. You answer with JSON only.")
_SUMMARY_SYSTEM = ("You summarize one section of a document for a search index. You answer with the summary only.")


def context_request(document: str, passage: str, title: str = "", partial: bool = False) -> ChatRequest:
    """The contextual-retrieval prompt for one chunk.

    The whole document (or, for a long one, its outline and the passage's section:
    `partial`) comes first and the passage last, so that servers with prefix caching
    (vLLM, llama.cpp, hosted APIs) reuse the document's work across a document's
    chunks. Idea and shape: Anthropic, "Introducing Contextual Retrieval" (2024).

    Args:
        document: the document text, or the outline and section excerpt.
        passage: the chunk's body.
        title: the document title ("" when unknown).
        partial: `document` is an outline plus an excerpt, not the whole text.
    """
    what = "the outline of a document and the part of it around a passage" if partial else "a document"
    named = f" titled {title!r}" if title else ""
    user = (f"Here is {what}{named}:\n<document>\n{document}\n</document>\n\n"
            f"Here is a passage from that document:\n<passage>\n{passage}\n</passage>\n\n"
            "Write one to three short sentences that say where this passage sits in the document and what it "
            "is about, naming the document's subject and anything the passage refers to but does not name, "
            "so that the passage can be found by search on its own. Answer with those sentences only.")
    return ChatRequest((("system", _CONTEXT_SYSTEM), ("user", user)), CONTEXT_ANSWER_TOKENS)


def sections_request(excerpt: str, title: str = "") -> ChatRequest:
    """The prompt that asks where thematic sections begin in one window of a document.

    The model quotes the first words of each section (language models copy text far
    more reliably than they count characters); character offsets are accepted too.
    Idea: LLM-based chunking as in "LumberChunker" (Duarte et al., 2024), which asks a
    model where the content starts to shift.
    """
    named = f" of the document {title!r}" if title else " of a document"
    user = (f"Here is an excerpt{named}:\n<excerpt>\n{excerpt}\n</excerpt>\n\n"
            "Divide the excerpt into thematic sections: a new section begins where the text moves on to a "
            "different topic. For each section after the first, copy its first 6 to 12 words exactly as they "
            "appear in the excerpt. Do not list the beginning of the excerpt. Answer only with JSON of the form "
            '{"sections": ["first words of a section", "first words of the next section"]}, in reading order; '
            'answer {"sections": []} when the excerpt keeps to one topic.')
    return ChatRequest((("system", _SECTIONS_SYSTEM), ("user", user)), SECTIONS_ANSWER_TOKENS)


def summary_request(section: str, path: tuple[str, ...] = (), title: str = "", cut: bool = False) -> ChatRequest:
    """The prompt for a summary of one section (summary indexing: a summary record finds broad questions).

    Args:
        section: the section's text (its beginning, when `cut`).
        path: the section's heading path.
        title: the document title.
        cut: the section was longer than the prompt allows and is cut.
    """
    where = f" from the document {title!r}" if title else ""
    if path:
        where += f", under the headings {' > '.join(path)}"
    note = " (the section is longer; its beginning is shown)" if cut else ""
    user = (f"Here is a section{where}{note}:\n<section>\n{section}\n</section>\n\n"
            "Summarize what this section says in two to four sentences, naming its subject and its main "
            "points, for someone deciding whether it answers their question. Answer with the summary only.")
    return ChatRequest((("system", _SUMMARY_SYSTEM), ("user", user)), SUMMARY_ANSWER_TOKENS)


_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.S | re.I)
_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?|\n?\s*```\s*$")
_LABEL = re.compile(r"^\s*(?:context|summary|note|answer)\s*:\s*", re.I)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffd\u200b\ufeff]")
_QUOTES = ("\"\"", "''", "“”", "‘’", "«»")


def strip_reasoning(answer: str) -> str:
    """The answer without a reasoning model's `<think>...</think>` block and without code fences."""
    if "</think>" in answer.lower() and "<think>" not in answer.lower():
        answer = answer[answer.lower().rfind("</think>") + len("</think>"):]
    answer = _THINK.sub("", answer)
    return _FENCE.sub("", answer.strip()).strip()


def clean_answer(answer: str) -> str:
    """A model's prose answer as one line: no reasoning block, label, wrapping quotes or control characters."""
    text = strip_reasoning(answer)
    text = _LABEL.sub("", text)
    text = _CONTROL.sub(" ", text)
    text = " ".join(text.split())
    for q in _QUOTES:
        if len(text) > 2 and text[0] == q[0] and text[-1] == q[1] and q[0] not in text[1:-1]:
            text = text[1:-1].strip()
    return text


def shorten(text: str, fits: Callable[[str], bool], sentences: list[tuple[int, int]]) -> str:
    """The longest start of `text` that fits: whole sentences first, then whole words; "" when none does.

    Args:
        text: one line of prose.
        fits: says whether a candidate fits (an exact token count against a budget).
        sentences: sentence spans of `text` (characters), in order.

    Returns:
        `text` itself, a shorter start of it ending at a sentence or word end, or "".
    """
    if fits(text):
        return text
    ends = [e for _s, e in sentences if e < len(text)]
    for e in reversed(ends):  # at most a few sentences: longest first
        cand = text[:e].rstrip()
        if cand and fits(cand):
            return cand
    first_end = ends[0] if ends else len(text)
    words = [m.end() for m in re.finditer(r"\S+", text[:first_end])]
    lo, hi, best = 0, len(words) - 1, ""
    while lo <= hi:  # binary search: token counts grow with the number of words
        mid = (lo + hi) // 2
        cand = text[:words[mid]].rstrip(",;:—–- ")
        if cand and fits(cand):
            best = cand
            lo = mid + 1
        else:
            hi = mid - 1
    return best
