"""Where a model says thematic sections begin: windows, answer parsing and validation against the text; never cuts chunks.

A model's answer is only ever a hint: every position is checked against the
document (quoted words must be found in the window, offsets must lie inside it) and
snapped to a block start where a cut is allowed, so a wrong, malformed or hostile
answer can at worst add no boundary.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunkctl.llm.client import ChatRequest
from chunkctl.llm.prompts import sections_request, strip_reasoning
from chunkctl.model import BlockKind

if TYPE_CHECKING:
    from chunkctl.llm.client import ChatClient
    from chunkctl.model import Document
    from chunkctl.tokenizers import TokenTable

MIN_QUOTE_WORDS = 3    # a quote shorter than this (in words) must match exactly and be 12+ characters
MIN_PREFIX_WORDS = 4   # the shortest start of a quote tried when the whole quote is not found
MAX_QUOTE_WORDS = 32   # words of a quote looked for (its start): the prompt asks for 6 to 12

_LIST_KEYS = ("sections", "section_starts", "starts", "boundaries", "breaks", "topics")
_OFFSET_KEYS = ("offset", "start_offset", "char", "character", "position", "index", "start")
_QUOTE_KEYS = ("quote", "first_words", "words", "text", "start", "begins", "title")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\(?\d{1,3}[.):]|[a-z][.)])\s+")
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|«([^»]+)»|‘([^’]+)’")
_OFFSET_LINE = re.compile(r"^\s*(?:(?:offset|position|char(?:acter)?)\s*[:=]?\s*)?(-?\d+)\s*$", re.I)
_WORD = re.compile(r"[^\W_]+")  # words without "_" (Markdown emphasis marks)


@dataclass(frozen=True)
class Window:
    """A span of the document sent in one prompt: `[start, end)` in characters."""

    start: int
    end: int


def windows(doc: Document, table: TokenTable, max_tokens: int) -> list[Window]:
    """Cut the document into windows of at most about `max_tokens` tokens (table estimate).

    Windows are runs of whole blocks; a block longer than a window is cut into pieces.
    Each window after the first also shows the end of the previous one (its last
    blocks within an eighth of `max_tokens`, else its last tokens), so that a section
    beginning right at a window's edge is seen with what precedes it. Front matter is
    left out.
    """
    lead = max_tokens // 8
    core = max_tokens - lead
    spans: list[list[int]] = []
    cur: list[int] | None = None
    body = [b for b in doc.blocks if b.kind != BlockKind.FRONT_MATTER]
    for b in body:
        if cur is not None and table.estimate(cur[0], b.end, side="right") <= core:
            cur[1] = b.end
            continue
        if cur is not None:
            spans.append(cur)
        if table.estimate(b.start, b.end, side="right") <= core:
            cur = [b.start, b.end]
            continue
        cur = None
        pos = b.start
        while pos < b.end:
            nxt = min(b.end, max(pos + 1, table.char(table.index(pos) + core)))
            spans.append([pos, nxt])
            pos = nxt
    if cur is not None:
        spans.append(cur)
    starts = [b.start for b in body]
    out: list[Window] = []
    for k, (a, e) in enumerate(spans):
        s = a
        if k:
            prev = spans[k - 1][0]
            i = bisect.bisect_left(starts, a) - 1
            while i >= 0 and starts[i] >= prev and table.estimate(starts[i], a, side="right") <= lead:
                s = starts[i]
                i -= 1
            if s == a:
                s = max(prev, table.char(table.index(a) - lead))
        out.append(Window(s, e))
    return out


def _json_payload(text: str) -> Any:
    """The first JSON value in `text` (the whole text, or from its first `{` or `[`), or None."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    for m in re.finditer(r"[\[{]", text):
        try:
            value, _end = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        if isinstance(value, (list, dict)):
            return value
    return None


def _as_offset(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return None


def _items(data: Any) -> list[int | str]:
    if isinstance(data, dict):
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                return _items(data[key])
        lists = [v for v in data.values() if isinstance(v, list)]
        return _items(lists[0]) if lists else _items([data])
    if not isinstance(data, list):
        return []
    out: list[int | str] = []
    for item in data:
        off = _as_offset(item)
        if off is not None:
            out.append(off)
        elif isinstance(item, str) and item.strip():
            out.append(item.strip())
        elif isinstance(item, dict):
            got = next((o for o in (_as_offset(item.get(k)) for k in _OFFSET_KEYS) if o is not None), None)
            if got is None:
                got = next((item[k].strip() for k in _QUOTE_KEYS
                            if isinstance(item.get(k), str) and item[k].strip()), None)
            if got is not None:
                out.append(got)
    return out


def parse_starts(answer: str) -> list[int | str]:
    """Read a model's list of section starts: offsets (ints) and quoted first words (strs), in answer order.

    Accepted: JSON (`{"sections": [...]}`, any object holding a list, a bare list; items
    that are numbers, strings, or objects with an offset or quote field), in a code
    fence or after a reasoning block, or a plain list (one start per line, bullets and
    numbering removed, a quoted part taken as the quote, a bare number as an offset).
    Anything else yields nothing. Validation against the text is `locate`'s job.
    """
    text = strip_reasoning(answer or "")
    data = _json_payload(text)
    if data is not None:
        return _items(data)
    out: list[int | str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line:
            continue
        m = _QUOTED.search(line)
        if m:
            out.append(next(g for g in m.groups() if g).strip())
            continue
        m = _OFFSET_LINE.match(line)
        if m:
            out.append(int(m.group(1)))
        elif len(_WORD.findall(line)) >= MIN_QUOTE_WORDS:
            out.append(line)
    return out


def _words_pattern(words: list[str]) -> re.Pattern:
    return re.compile(r"(?<![^\W_])" + r"[\W_]+".join(re.escape(w) for w in words), re.I)


def locate(quote: str, text: str, lo: int, hi: int, after: int) -> int | None:
    """Where quoted words stand in `text[lo:hi]`: an exact match, else the same words with any punctuation or markup between them.

    A match at or after `after` (the previous section start) is preferred. When the
    whole quote is not found, shorter starts of it (down to MIN_PREFIX_WORDS words)
    are tried, but only a start found exactly once in the window counts. A quote of
    more than MAX_QUOTE_WORDS words is looked for by that many of its first words.

    Returns:
        the character offset of the quote's first word, or None.
    """
    q = quote.strip().strip("\"'“”‘’«»`").strip()
    q = re.sub(r"(?:\.\.\.|…)\s*$", "", q).strip()
    words = _WORD.findall(q)
    if len(words) < MIN_QUOTE_WORDS and len(q) < 12:
        return None
    if len(words) > MAX_QUOTE_WORDS:
        # A quote is the start of a section: a longer one is looked for by its first words. Each
        # shorter start below is a pattern of its own: a model that echoed 200,000 words on one
        # line took one window 300 s and more (helper-117), so a rerun met the same cached answer.
        words = words[:MAX_QUOTE_WORDS]
    else:
        for start in (after, lo):
            i = text.find(q, max(lo, start), hi)
            if i >= 0:
                return i
    if not words:
        return None
    pat = _words_pattern(words)
    for start in (after, lo):
        m = pat.search(text, max(lo, start), hi)
        if m:
            return m.start()
    for n in range(len(words) - 1, MIN_PREFIX_WORDS - 1, -1):
        found = list(_words_pattern(words[:n]).finditer(text, lo, hi))
        if len(found) == 1:
            return found[0].start()
        if len(found) > 1:
            return None  # ambiguous: shorter starts only match more places
    return None


def cut_points(doc: Document) -> list[int]:
    """Block starts where a thematic section may begin, sorted.

    Those are the starts of heading sections (cutting there changes nothing) and of
    body blocks that follow another body block: never between a heading and its body,
    nor between consecutive headings (docs/records.md#structure-and-headings).
    """
    out: list[int] = []
    prev = None
    for b in doc.blocks:
        if b.kind == BlockKind.FRONT_MATTER:
            continue
        if prev is None or prev.kind != BlockKind.HEADING:
            out.append(b.start)
        prev = b
    return out


def snap(pos: int, points: list[int], lo: int, hi: int) -> int | None:
    """The cut point nearest to `pos` inside `[lo, hi)` (the earlier one on ties), or None."""
    i = bisect.bisect_left(points, pos)
    best = None
    for j in (i - 1, i):
        if 0 <= j < len(points) and lo <= points[j] < hi:
            if best is None or abs(points[j] - pos) < abs(best - pos):
                best = points[j]
    return best


def _place(items: list[int | str], text: str, window: Window, points: list[int]) -> tuple[list[int], int]:
    """`validate`'s cut points, and how many items named a real place in the window (window start included)."""
    found: set[int] = set()
    placed = 0
    after = window.start
    for item in items:
        if isinstance(item, int):
            if not 0 <= item < window.end - window.start:
                continue
            pos: int | None = window.start + item
        else:
            pos = locate(item, text, window.start, window.end, after)
        if pos is None:
            continue
        at = snap(pos, points, window.start, window.end)
        if at is None:
            continue
        placed += 1
        if at != window.start:
            found.add(at)
        after = max(after, pos)
    return sorted(found), placed


def validate(items: list[int | str], text: str, window: Window, points: list[int]) -> list[int]:
    """Turn parsed starts into document offsets of cut points inside the window.

    Offsets count characters from the window's start; quotes are located in the
    window's text. Positions outside the window, quotes not found, starts that snap to
    the window's own beginning (the model was told not to list it), and duplicates are
    dropped.

    Returns:
        sorted, distinct document offsets (characters).
    """
    return _place(items, text, window, points)[0]


def _listed(data: Any) -> list | None:
    """The list of starts a JSON answer holds (the list `parse_starts` reads), or None when it holds none."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                return data[key]
        return next((v for v in data.values() if isinstance(v, list)), None)
    return None


def read_answer(answer: str, text: str, window: Window, points: list[int]) -> tuple[list[int], str | None]:
    """The cut points one window's answer gives, or why the answer is unusable.

    An answer is usable when it lists no start at all (`{"sections": []}`: the window
    keeps to one topic) or when at least one start it lists is a real place in the
    window (`validate`'s other drops, duplicates and the window's own beginning, are
    not failures). It is unusable when it is empty, holds no list of starts, or lists
    only starts that are not in the window (quotes not found, offsets outside it).

    Args:
        answer: the model's raw answer.
        text: the document text.
        window: the window the answer is about.
        points: the document's cut points (`cut_points`).

    Returns:
        (sorted distinct document offsets in characters, None) for a usable answer;
        ([], a one-line reason) for an unusable one.
    """
    stripped = strip_reasoning(answer or "")
    if not stripped:
        return [], "the model's answer is empty"
    items = parse_starts(answer)
    data = _json_payload(stripped)
    if not items:
        if data is not None and _listed(data) == []:
            return [], None
        if data is None:
            return [], "the model's answer is neither JSON nor a list of section starts"
        return [], "the model's JSON answer holds no list of section starts"
    found, placed = _place(items, text, window, points)
    if placed:
        return found, None
    if data is None:
        return [], "the model's answer is not JSON and names no place in the window"
    n = len(items)
    return [], f"none of the {n} section start{'s' if n > 1 else ''} in the model's answer is in the window"


def section_starts(doc: Document, table: TokenTable, max_tokens: int, client: ChatClient
                   ) -> tuple[list[int], list[tuple[Window, str]], list[Window]]:
    """Ask the model where thematic sections begin, one request per window, and validate every answer.

    Args:
        doc: the document.
        table: its token table.
        max_tokens: most document tokens per window (`llm_max_input_tokens`).
        client: the chat client (a dry-run client answers from its cache only).

    An unusable answer (`read_answer`) is a failed window, and it is dropped from the
    client's cache so that the next run asks again (in a dry run it only counts as
    not asked).

    Returns:
        (sorted distinct cut offsets in characters, failed windows with their one-line
        reasons, the windows whose answers were used).
    """
    wins = windows(doc, table, max_tokens)
    requests = window_requests(doc, wins)
    answers = client.complete_many(requests)
    points = cut_points(doc)
    starts: set[int] = set()
    failed: list[tuple[Window, str]] = []
    used: list[Window] = []
    for win, req, ans in zip(wins, requests, answers):
        if ans.text is None:
            if ans.error is not None:
                failed.append((win, ans.error))
            continue
        found, reason = read_answer(ans.text, doc.text, win, points)
        if reason is not None:
            client.forget(req)
            if not client.dry_run:
                failed.append((win, reason))
            continue
        starts.update(found)
        used.append(win)
    return sorted(starts), failed, used


def window_requests(doc: Document, wins: list[Window]) -> list[ChatRequest]:
    """The section-start request of each window."""
    return [sections_request(doc.text[w.start:w.end], doc.title) for w in wins]


__all__ = ["Window", "windows", "parse_starts", "locate", "cut_points", "snap", "validate", "read_answer",
           "section_starts", "window_requests"]
