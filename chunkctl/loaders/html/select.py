"""HTML content selection: the lexbor DOM, the element holding the page's text, furniture and data-table tests; no text."""

from __future__ import annotations

from typing import Any

from chunkctl.loaders.html.elements import CELL_BLOCKS, CONSENT, DISPLAY_NONE, FURNITURE_ROLES, FURNITURE_TAGS


def parse(html: str):
    from selectolax.lexbor import LexborHTMLParser

    return LexborHTMLParser(html)


def node_attrs(node) -> dict[str, Any]:
    try:
        return node.attributes
    except Exception:  # a malformed attribute name lexbor keeps but Python cannot decode
        return {}


def _outside_furniture(node) -> bool:
    """True when no ancestor of `node` is page furniture (a nav, footer, aside, ... holding it)."""
    p = node.parent
    while p is not None and p.tag not in ("body", "html", "-document"):
        tag = p.tag
        if tag in FURNITURE_TAGS or tag == "header":
            return False
        role = (node_attrs(p).get("role") or "").strip().lower()
        if role in FURNITURE_ROLES:
            return False
        p = p.parent
    return True


def semantic_root(tree):
    """The element the page's markup names as its content, or None.

    Rule: exactly one top-level `<article>` outside page furniture -> that article;
    else the first `<main>` (or `role="main"`) -> it; else None.
    """
    articles = [a for a in tree.css("article") if _outside_furniture(a)]
    top = []
    for a in articles:
        p = a.parent
        nested = False
        while p is not None:
            if p.tag == "article":
                nested = True
                break
            p = p.parent
        if not nested:
            top.append(a)
    if len(top) == 1:
        return top[0]
    return tree.css_first("main") or tree.css_first('[role="main"]')


def is_furniture(node, tag: str, attrs: dict[str, Any], scoped: int) -> bool:
    """True when an element is page furniture (see docs/loaders.md, HTML: what counts as boilerplate)."""
    if tag in FURNITURE_TAGS:
        return not (tag == "form" and node.css_first("h1, h2, article, main") is not None)
    if tag == "header" and not scoped:
        return True
    if not attrs:
        return False
    if "hidden" in attrs:
        return True
    if (attrs.get("aria-hidden") or "").strip().lower() == "true":
        return True
    role = attrs.get("role")
    if role and role.strip().lower() in FURNITURE_ROLES:
        return True
    style = attrs.get("style")
    if style and DISPLAY_NONE.search(style):
        return True
    marks = " ".join(v for v in (attrs.get("id"), attrs.get("class")) if v)
    if marks and CONSENT.search(marks) and tag not in ("body", "html", "main", "article"):
        return node.css_first("main, article, h1") is None
    return False


def is_data_table(node, attrs: dict[str, Any]) -> bool:
    """True for a table of data; False for a layout table (a container of blocks).

    Layout: role presentation/none, a nested table, fewer than two rows or two columns
    (a one-cell table around a `<pre>` is a code listing), or no header cells
    (`th`/`thead`) while cells hold blocks (paragraphs, lists, divs, headings, code).
    """
    role = (attrs.get("role") or "").strip().lower()
    if role in ("presentation", "none"):
        return False
    if node.css_first("table table") is not None:
        return False
    rows = node.css("tr")
    if len(rows) < 2:
        return False
    if max(sum(1 for c in r.iter() if c.tag in ("td", "th")) for r in rows) < 2:
        return False
    if node.css_first("th, thead") is not None:
        return True
    return node.css_first(CELL_BLOCKS) is None
