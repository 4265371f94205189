"""HTML nesting guard: where markup first nests too deep for the parser, found by regex scans, and
the text of what lies past that point read without a tree (the standard library's event parser)."""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from itertools import accumulate

MAX_DEPTH = 4096
# Elements that never nest (void) or whose start closes an open one of their kind: not counted.
_FLAT_NAMES = ("area base br col embed hr img input link meta source track wbr p li dt dd option tr td th "
               "param keygen basefont bgsound frame")
_FLAT = frozenset(_FLAT_NAMES.split())
_NESTING_TAG = re.compile(r"<(/?)(?!(?:" + "|".join(_FLAT_NAMES.split()) + r")[\s/>])[A-Za-z]", re.I)
_TAG = re.compile(r"<!--|<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(/?)>")
# Elements whose content is text to the parser, up to their end tag (`plaintext`: to the end).
_RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes".split())


def _step(depth: int, delta: int) -> int:
    return depth + delta if depth + delta > 0 else 0


def nesting_cut(html: str, max_depth: int = MAX_DEPTH) -> int | None:
    """Offset at which the markup first nests deeper than `max_depth` elements, or None.

    lexbor's tree builder scans the stack of open elements for many start tags, so
    parse time grows with depth squared (100,000 nested `<div>`s take minutes). A quick
    estimate (start minus end tags of elements that can nest, found by one regex) rules
    almost every page out; the rest are scanned tag by tag with an approximate stack
    (void elements, those closed implicitly by their next sibling, and self-closed
    tags are not counted; an end tag closes up to its matching start tag; comments and the
    text of scripts, styles, text areas and other raw text elements are no markup).
    """
    if html.count("<") <= max_depth:
        return None
    marks = _NESTING_TAG.findall(html)
    if len(marks) <= max_depth or max(accumulate((-1 if m else 1 for m in marks), _step)) <= max_depth:
        return None
    stack: list[str] = []
    pos = 0
    while (m := _TAG.search(html, pos)) is not None:
        pos = m.end()
        if m.group(2) is None:  # a comment: its markup is no tag (to `-->`, or the end)
            end_at = html.find("-->", pos)
            pos = end_at + 3 if end_at >= 0 else len(html)  # (never ended: find's -1 went back to 2)
            continue
        name = m.group(2).lower()
        if not m.group(1) and name in _RAW_TEXT:  # its text is no markup (helper-105: a script building
            # HTML in strings, past 4,096 `<b>`s, was cut and its code read as paragraphs)
            end = re.compile(rf"</{name}[\s/>]", re.I).search(html, pos)
            pos = end.start() if end is not None else len(html)
            continue
        if name == "plaintext" and not m.group(1):
            return None  # (the rest of the page is its text)
        if name in _FLAT or m.group(3):
            continue
        if m.group(1):
            for i in range(len(stack) - 1, max(-1, len(stack) - 64), -1):
                if stack[i] == name:
                    del stack[i:]
                    break
            continue
        stack.append(name)
        if len(stack) > max_depth:
            return m.start()
    return None


_BREAKS = frozenset("address article aside blockquote br dd details dialog div dl dt fieldset figcaption figure footer "
                    "form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tr ul".split())
_HIDDEN = frozenset("script style template noscript head title svg math iframe object".split())


FEED_CHARS = 1 << 20
"""Characters of markup given to the event parser at a time (`flat_paragraphs`)."""


class _FlatText(HTMLParser):
    """Text of markup as paragraphs, each given to `emit` as it ends: a block element's start or
    end tag breaks a paragraph, cells are spaced, scripts, styles and other non-text are left out.
    No tree, no stack of open elements, no list of paragraphs: time and memory are linear in the
    markup however deep it nests (2 M one-word paragraphs held as lists took 19x their markup)."""

    def __init__(self, emit: Callable[[str], None]) -> None:
        super().__init__(convert_charrefs=True)
        self.emit = emit
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        else:
            self._mark(tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self._mark(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        else:
            self._mark(tag)

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)

    def _mark(self, tag: str) -> None:
        if tag in _BREAKS:
            self.flush()
        elif tag in ("td", "th") and self.parts:
            self.parts.append(" ")

    def flush(self) -> None:
        """Give the paragraph read so far to `emit` (white space collapsed; not when empty)."""
        if self.parts:
            text = " ".join("".join(self.parts).split())
            self.parts = []
            if text:
                self.emit(text)


def flat_paragraphs(html: str, emit: Callable[[str], None], start: int = 0) -> None:
    """Give the text of `html[start:]` to `emit` as paragraphs (white space collapsed, empty ones
    left out), read by the standard library's event parser `FEED_CHARS` characters at a time:
    for the part of a page that nests too deep for a tree (`nesting_cut`), so its text is
    kept, without its structure."""
    parser = _FlatText(emit)
    for at in range(start, len(html), FEED_CHARS):
        parser.feed(html[at:at + FEED_CHARS])
    parser.close()
    parser.flush()
