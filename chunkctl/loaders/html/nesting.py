"""HTML nesting guard: where markup first nests too deep for the parser, found by regex scans; no DOM."""

from __future__ import annotations

import re
from itertools import accumulate

MAX_DEPTH = 4096
# Elements that never nest (void) or whose start closes an open one of their kind: not counted.
_FLAT_NAMES = ("area base br col embed hr img input link meta source track wbr p li dt dd option tr td th "
               "param keygen basefont bgsound frame")
_FLAT = frozenset(_FLAT_NAMES.split())
_NESTING_TAG = re.compile(r"<(/?)(?!(?:" + "|".join(_FLAT_NAMES.split()) + r")[\s/>])[A-Za-z]", re.I)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(/?)>")


def _step(depth: int, delta: int) -> int:
    return depth + delta if depth + delta > 0 else 0


def nesting_cut(html: str, max_depth: int = MAX_DEPTH) -> int | None:
    """Offset at which the markup first nests deeper than `max_depth` elements, or None.

    lexbor's tree builder scans the stack of open elements for many start tags, so
    parse time grows with depth squared (100,000 nested `<div>`s take minutes). A quick
    estimate (start minus end tags of elements that can nest, found by one regex) rules
    almost every page out; the rest are scanned tag by tag with an approximate stack
    (void elements, those closed implicitly by their next sibling, and self-closed
    tags are not counted; an end tag closes up to its matching start tag).
    """
    if html.count("<") <= max_depth:
        return None
    marks = _NESTING_TAG.findall(html)
    if len(marks) <= max_depth or max(accumulate((-1 if m else 1 for m in marks), _step)) <= max_depth:
        return None
    stack: list[str] = []
    for m in _TAG.finditer(html):
        name = m.group(2).lower()
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
