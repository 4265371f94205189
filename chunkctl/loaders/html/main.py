"""HTML main content: which part of a page is its article, found by scoring text density; no rendering, no tokens.

The idea is Arc90 Readability's (as in Mozilla's Readability.js): paragraphs vote for
the elements around them with their length and commas, link-heavy elements lose
their votes, class and id names such as "content" or "comment" tilt the count; the
best-scored element (with its siblings that score nearly as well) is the article.
Boilerplate inside it (related-article lists, comment threads, share bars: link-dense
or named so) is left out. The code is ours; the weights were tuned on
scrapinghub/article-extraction-benchmark (bench/html_main.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from sys import intern
from typing import Any

from chunkctl.loaders.html.elements import ALWAYS_DROPPED, BLOCK_TAGS, CELL_BLOCKS
from chunkctl.loaders.html.select import is_data_table, is_decoration, is_furniture, node_attrs

# Class/id names that mark content, or its surroundings.
_POSITIVE = re.compile(r"article|body|content|entry|main|page|post|text|blog|story|prose|markdown|documentation",
                       re.I)
_NEGATIVE = re.compile(
    r"comment|related|share|sharing|social|sidebar|widget|promo|sponsor|advert|(?:^|[\s_-])ads?(?:$|[\s_-])|"
    r"banner|breadcrumb|footer|footnote-?ref|masthead|(?:^|[\s_-])menu|(?:^|[\s_-])nav|newsletter|subscribe|outbrain|taboola|"
    r"recommend|teaser|popular|trending|more-?stories|read-?more|also-?read|tags?(?:$|[\s_-])|byline-?share|"
    r"signup|login|modal|popup|cookie|consent|pagination|pager|toolbar|tool-?tip|skip|byline|dateline|timestamp|credit|"
    r"caption|(?:^|[\s_-])(?:date|time|author|published)s?(?:$|[\s_-])", re.I)
# Names of whole regions that are never the article (skipped before scoring, as Readability does),
# unless the name also says content or the region holds the page's headline or code.
_UNLIKELY = re.compile(
    r"comment|disqus|related|sidebar|(?:^|[\s_-])share|social|outbrain|taboola|newsletter|recommend|"
    r"breadcrumb|(?:^|[\s_-])menu|popular|trending|more-?stories|also-?read|read-?next|signup|popup|modal|"
    r"(?:^|[\s_-])footer|(?:^|[\s_-])ad-|sponsor|promo|author-?bio|gallery|slideshow|carousel", re.I)
_MAYBE = re.compile(r"article|body|column|content|main|post-?text|story", re.I)
_SAFE = "h1, pre, table, dl, article, main"
# Elements whose text is a paragraph's (a div or section without block children counts too).
_PARAGRAPHS = frozenset("p pre td blockquote dd li h2 h3 h4 h5 h6".split())
_CONTAINERS = frozenset("div section article main td blockquote body center".split())
_TAG_BASE = {"div": 5, "article": 10, "main": 10, "section": 3, "pre": 3, "td": 3, "blockquote": 3,
             "ol": -3, "ul": -3, "dl": -3, "li": -3, "form": -3, "th": -5, "address": -3}
# Widening the best-scored element (tuned on the benchmark, see the module doc): to an ancestor with ASCEND
# times its paragraph text and at most LINKS_UP of link text; then one parent at a time while what a parent
# adds is at least ADDED_PARA paragraph text and at most ADDED_LINKS link text.
ASCEND = 1.5
LINKS_UP = 0.2
ADDED_PARA = 0.8
ADDED_LINKS = 0.05
_NUMBERED = re.compile(r"(?:figure|fig\.?|table|listing|diagram|abbildung|图|表)\s*\d", re.I)
_WORDS = re.compile(r"\w+")
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
# Headings that open what follows an article (related stories, comments, share bars), in a few languages.
_TAIL_HEADING = re.compile(
    r"^\W*(?:related(?: articles| stories| posts| content| news| coverage| links| topics| reading)?|"
    r"(?:you|we think you) (?:may|might|will|would) (?:also )?(?:like|enjoy|be interested)|"
    r"more (?:from|stories|on|in|news|to explore|articles)|we recommend|"
    r"read (?:more|next|also)|also read|recommended(?: for you| stories| articles| reading)?|"
    r"most (?:popular|read|viewed|shared)|don'?t miss|latest (?:stories|news|articles|videos)|our latest stories|"
    r"trending(?: now| stories)?|popular (?:posts|stories)|share this(?: article| story| post| page)?|like this|"
    r"comments?|\d+ comments?|leave a (?:reply|comment)|join the (?:discussion|conversation)|"
    r"about the author|sign up for|subscribe to|newsletter|"
    r"você (?:pode|também pode) gostar|leia (?:também|mais)|veja também|mais lidas|notícias relacionadas|"
    r"te puede interesar|(?:noticias|temas|artículos) relacionad[oa]s|más noticias|lo más leído|lea también|"
    r"à lire aussi|sur le même sujet|lire aussi|"
    r"mehr zum thema|weitere (?:artikel|beiträge|nachrichten|themen)|ähnliche (?:artikel|beiträge)|"
    r"(?:das|dies) (?:thema )?könnte (?:sie|dich) auch interessieren|auch interessant|(?:lesen sie|auch lesen|lies) auch|"
    r"diese (?:beiträge|artikel) (?:solltest du|sollten sie) nicht verpassen|über (?:den|die) autor(?:in)?|"
    r"schlagworte|kommentare?(?: schreiben| geschlossen)?|(?:diese seite|den artikel|artikel) teilen|"
    r"související články|další články|mohlo by vás zajímat|czytaj (?:też|także|również)|zobacz (?:też|także)|"
    r"podobne artykuły|"
    r"相关(?:文章|阅读|新闻|推荐)|推荐阅读|热门(?:文章|推荐)|猜你喜欢)\W*$", re.I)
# Short blocks that can carry such a label when it is not a heading.
_LABELS = frozenset("p div".split())
# Elements pruning may leave out (blocks; never inline text of a paragraph).
_PRUNABLE = frozenset("div section ul ol p aside header figure center".split())
# Content a documentation page never loses to pruning.
_KEEP_TAGS = frozenset("pre table dl code".split())
_TABLE_PARTS = frozenset("thead tbody tfoot tr td th caption colgroup col".split())
_COMMAS = re.compile(r"[,，、،;；]")


@dataclass(slots=True)
class _Stat:
    """What the walk learnt of one element (characters are of collapsed text)."""

    node: Any
    tag: str
    order: int
    parent: int | None
    marks: str
    chars: int = 0
    link_chars: int = 0
    commas: int = 0
    blocks: int = 0          # block children
    inline: int = 0          # characters of its own text and inline children
    heads: int = 0           # headings below with text outside links
    para: int = 0            # characters of the voting paragraphs below (itself included)
    keep: int = 0            # pre/table/dl/code below
    end: int = 0             # order of the last element below (its own when none)
    score: float | None = None
    children: list[int] | tuple[()] = ()  # `mem_id`s of the element children (a list from the first)


def _marks(attrs: dict) -> str:
    """The class and id names of an element; an id that reads like a slug of a heading's words is left out."""
    cls = attrs.get("class") or ""
    ident = attrs.get("id") or ""
    if ident and len(re.split(r"[\s_-]+", ident)) <= 3:
        return f"{ident} {cls}"
    return cls


def _class_weight(marks: str) -> int:
    if not marks:
        return 0
    w = 0
    if _NEGATIVE.search(marks):
        w -= 25
    if _POSITIVE.search(marks):
        w += 25
    return w


@dataclass
class Selection:
    """The main content of a page.

    Attributes:
        root: the element to render (a selectolax node).
        excluded: `mem_id`s of elements under `root` left out (boilerplate, weak siblings).
        title: an `h1` outside `root` to render first (the article's headline), or None.
    """

    root: Any
    excluded: set[int]
    title: Any


class MainContent:
    """Scores the elements of one page (see the module doc) once; `select` then picks the main content.

    Args:
        body: the page's `<body>` (a selectolax node).
    """

    def __init__(self, body):
        self.stats: dict[int, _Stat] = {}
        self.unlikely: list[_Stat] = []  # regions skipped by name (with their order, to place them)
        self.body_id = body.mem_id
        self._walk(body)

    def _walk(self, body) -> None:
        """One pass over the elements under `body` (no recursion): text sizes bottom-up, votes on the way."""
        stats = self.stats
        stack: list[tuple[Any, bool]] = [(body, False)]
        open_ids: list[int] = []
        in_link = 0
        order = 0
        findall = _COMMAS.findall
        while stack:
            node, closing = stack.pop()
            if closing:
                mid = open_ids.pop()
                st = stats[mid]
                st.end = order - 1  # the last element opened inside it
                if st.tag == "a":
                    in_link -= 1
                self._vote(st, open_ids)
                if st.parent is not None:
                    ps = stats[st.parent]
                    ps.para += st.para
                    ps.heads += st.heads + (st.tag in _HEADINGS and st.link_chars < st.chars)
                    ps.chars += st.chars
                    ps.link_chars += st.link_chars
                    ps.commas += st.commas
                    ps.keep += st.keep + (st.tag in _KEEP_TAGS)
                    if st.tag in BLOCK_TAGS or st.blocks:
                        ps.blocks += 1
                    else:
                        ps.inline += st.chars
                    if ps.children:
                        ps.children.append(mid)
                    else:
                        ps.children = [mid]  # (most elements have none: no empty list each)
                continue
            tag = node.tag
            if not tag or tag[0] == "-" or tag in ALWAYS_DROPPED:  # None: a processing instruction
                continue
            tag = intern(tag)  # one string per tag name, not one per element
            attrs = node_attrs(node)
            if open_ids and (is_furniture(node, tag, attrs, 1) or (attrs and is_decoration(node, tag, attrs))):
                continue  # (the body itself is always walked)
            marks = _marks(attrs)
            mid = node.mem_id
            if marks and tag in _PRUNABLE and _UNLIKELY.search(marks) and \
                    not _MAYBE.search(marks) and node.css_first(_SAFE) is None:
                self.unlikely.append(_Stat(node, tag, order, open_ids[-1] if open_ids else None, marks))
                order += 1
                continue
            st = _Stat(node, tag, order, open_ids[-1] if open_ids else None, marks)
            stats[mid] = st
            order += 1
            open_ids.append(mid)
            if tag == "a":
                in_link += 1
            stack.append((node, True))
            child = node.last_child
            while child is not None:
                if child.tag == "-text":  # its own text, counted here rather than walked
                    t = child.text_content.strip()  # characters: inner runs of white space count as typed
                    if t:
                        n = len(t)
                        st.chars += n
                        st.inline += n
                        st.commas += len(findall(t))
                        if in_link:
                            st.link_chars += n
                else:
                    stack.append((child, False))
                child = child.prev

    def _vote(self, st: _Stat, open_ids: list[int]) -> None:
        """A paragraph gives its score to up to five ancestors (full, half, then a third per level).

        An element holding text of its own beside blocks (lines between `<br>`s) votes for itself too.
        """
        if st.chars < 25:
            return
        if st.link_chars > st.chars / 2:
            return
        chars = st.chars
        voters = open_ids[-5:]
        if st.tag in _PARAGRAPHS or (st.tag in _CONTAINERS and st.blocks == 0):
            st.para = max(st.para, chars)
        else:
            if st.inline < 25 or st.tag not in _CONTAINERS:
                return
            chars = st.inline
            st.para += chars
            voters = [*open_ids[-4:], st.node.mem_id]
        inc = 1 + st.commas * chars / st.chars + min(chars / 100, 3)
        for level, aid in enumerate(reversed(voters)):
            a = self.stats[aid]
            if a.score is None:
                a.score = _TAG_BASE.get(a.tag, 0)
            a.score += inc if level == 0 else inc / 2 if level == 1 else inc / (level * 3)

    def final(self, st: _Stat) -> float:
        """An element's score after its links are discounted."""
        if st.score is None or not st.chars:
            return 0.0
        weight = float(_class_weight(st.marks))
        if weight > 0:  # a name says "content": worth less on a few words
            weight *= min(1.0, st.chars / 500)
        return (st.score + weight) * (1 - st.link_chars / st.chars)

    def top(self) -> _Stat | None:
        """The best-scored element, or None for a page without paragraphs."""
        best, best_score = None, 0.0
        for st in self.stats.values():
            s = self.final(st)
            if s > best_score:
                best, best_score = st, s
        return best

    def inside(self, node_id: int, root_id: int) -> bool:
        """True when element `node_id` is `root_id` or below it."""
        a, r = self.stats[node_id], self.stats[root_id]
        return r.order <= a.order <= r.end

    def prune(self, root_id: int, top: _Stat | None) -> set[int]:
        """Boilerplate under `root_id`: link-dense lists and blocks, and blocks named as comments, related, share...

        Never an element holding code, a table or a definition list, the best-scored element or
        a third of the root's text.
        """
        root = self.stats[root_id]
        out = {u.node.mem_id for u in self.unlikely
               if root.order <= u.order <= root.end}
        top_id = top.node.mem_id if top is not None else None
        stack = list(root.children)
        while stack:
            mid = stack.pop()
            st = self.stats[mid]
            if st.tag in _KEEP_TAGS:
                continue
            if st.keep or st.tag in _HEADINGS or (st.tag == "header" and st.node.css_first("h1, h2, h3")) or (
                    top_id is not None and self.inside(top_id, mid)) or (
                    st.chars > root.chars / 3 and st.link_chars < st.chars / 4):
                stack.extend(st.children)
                continue
            if st.tag == "figure" and st.node.css_first("img, picture, video, iframe") is not None and \
                    not _NUMBERED.match(st.node.text(deep=True).strip()):
                out.add(mid)  # a photo and its caption (a numbered figure the text refers to stays)
                continue
            if st.tag not in _PRUNABLE:
                stack.extend(st.children)
                continue
            density = st.link_chars / st.chars if st.chars else 0.0
            weight = _class_weight(st.marks)
            own = self.final(st)
            if weight < 0 and (density > 0.25 or own < 20 or st.commas < 10):
                out.add(mid)
                continue
            # in the best-scored element's own flow, a list of links is the text's (a changelog, a list of
            # sources) unless it is nearly all links
            limit = 0.95 if top_id is not None and st.parent == top_id else 0.5
            nested = st.parent is not None and self.stats[st.parent].tag in ("li", "dd")  # a sub-list
            if density > limit and st.tag != "p" and not st.heads and st.chars < 2000 and not nested:
                out.add(mid)
                continue
            stack.extend(st.children)
        out |= self._tails(root)
        return out

    def _tails(self, root: _Stat) -> set[int]:
        """Headings such as "Related articles" or "Comments" under `root`, with what follows them up to the
        next heading (never code, tables or definition lists)."""
        out: set[int] = set()
        for mid, st in self.stats.items():
            heading = st.tag in _HEADINGS
            if not (heading or st.tag in _LABELS and not st.blocks) or not root.order < st.order <= root.end or \
                    st.chars > 60:
                continue
            if not _TAIL_HEADING.match(" ".join(st.node.text(deep=True).split())):
                continue
            if not heading:  # a label in running text: it and the links right after it
                out.add(mid)
                if st.parent is not None:
                    siblings = self.stats[st.parent].children
                    for sid in siblings[siblings.index(mid) + 1:]:
                        sib = self.stats[sid]
                        if sib.keep or sib.heads or not sib.chars or sib.link_chars < sib.chars / 2:
                            break
                        out.add(sid)
                continue
            # the heading, or the wrapper that holds nothing else
            cur, cid = st, mid
            for _ in range(3):
                if cur.parent is None or cur.parent == root.node.mem_id:
                    break
                pid = cur.parent
                up = self.stats[pid]
                if up.chars != st.chars:
                    break
                cur, cid = up, pid
            out.add(cid)
            if cur.parent is None:
                continue
            siblings = self.stats[cur.parent].children
            for sid in siblings[siblings.index(cid) + 1:]:
                sib = self.stats[sid]
                if sib.keep or sib.tag in _KEEP_TAGS or sib.tag in _HEADINGS or sib.heads:
                    break
                out.add(sid)
        return out

    def select(self, semantic, page_title: str | None = None) -> Selection:
        """The main content: `semantic` (the page's one `<article>` or its `<main>`, or None) when the best-scored
        element is inside it; else the best-scored element with its strong siblings; the page body when nothing
        scores."""
        top = self.top()
        body = self.stats[self.body_id]
        if top is None:
            root = semantic if semantic is not None else body.node
            rid = root.mem_id
            return Selection(root, self.prune(rid, None) if rid in self.stats else set(), None)
        root_st = top
        excluded: set[int] = set()
        sem_id = semantic.mem_id if semantic is not None else None
        if sem_id is not None and sem_id in self.stats and (
                self.inside(top.node.mem_id, sem_id) or self.inside(sem_id, top.node.mem_id)):
            root_st = self.stats[sem_id]
        else:
            top = self._ascend(top, sem_id)
            # the top element's parent, when its siblings carry content too
            root_st, excluded = self._with_siblings(top)
        whole = self._whole_table(root_st)
        if whole is not root_st:  # a part of a table (its tbody, a row, a cell) is read as the table it is in,
            root_st, excluded = whole, set()  # whole: alone, its cells would be read as paragraphs
        rid = root_st.node.mem_id
        excluded |= self.prune(rid, top)
        return Selection(root_st.node, excluded, self._title(root_st, page_title))

    def _whole_table(self, st: _Stat) -> _Stat:
        """`st`, or the data table of short cells it is a part of (`tbody`, `tr`, `td`, ...).

        A cell of a layout table stays the root (its other cells are the page's furniture),
        and so does a part of a table whose cells hold blocks (a Sphinx field list of
        parameters): its paragraphs and lists read better as blocks than flattened into cells.
        """
        up = st
        while up.tag in _TABLE_PARTS and up.parent is not None:
            up = self.stats[up.parent]
        if up is st or up.tag != "table" or not is_data_table(up.node, node_attrs(up.node)) \
                or up.node.css_first(CELL_BLOCKS) is not None:
            return st
        return up

    def _ascend(self, top: _Stat, stop: int | None) -> _Stat:
        """The highest ancestor of `top` whose paragraphs are at least twice `top`'s, with few links
        (one section of a page of steps or chapters is not the whole article)."""
        best = top
        st = top
        while st.parent is not None and st.parent != self.body_id and st.parent != stop:
            st = self.stats[st.parent]
            if st.para >= ASCEND * best.para and st.link_chars <= LINKS_UP * st.chars:
                best = st
        # then step by step while each parent adds mostly paragraphs and few links (a short
        # paragraph of the article in a block of its own)
        st = best
        while st.parent is not None and st.parent != self.body_id and st.parent != stop:
            up = self.stats[st.parent]
            added = up.chars - st.chars
            if added and not (up.para - st.para >= ADDED_PARA * added and
                              up.link_chars - st.link_chars <= ADDED_LINKS * added):
                break
            st = up
            if added:
                best = st
        return best

    def _with_siblings(self, top: _Stat) -> tuple[_Stat, set[int]]:
        if top.parent is None:
            return top, set()
        parent = self.stats[top.parent]
        best = self.final(top)
        threshold = max(10.0, best * 0.2)
        keep, drop = [], []
        for cid in parent.children:
            c = self.stats[cid]
            if c is top:
                keep.append(cid)
                continue
            s = self.final(c)
            density = c.link_chars / c.chars if c.chars else 1.0
            if s >= threshold or c.keep or (c.chars and density < 0.2 and (c.order < top.order or c.chars > 80)):
                keep.append(cid)
            else:
                drop.append(cid)
        if len(keep) == 1:
            return top, set()
        return parent, set(drop)

    def _title(self, root: _Stat, page_title: str | None) -> Any:
        """The headline: the last `h1` before `root` when `root` holds none, and when the page's `<title>`
        carries at least half its words (a site banner's h1 is not the article's), or the page has no title."""
        rid = root.node.mem_id
        title = None
        words = set(_WORDS.findall(page_title.lower())) if page_title else None
        for mid, st in self.stats.items():
            if st.tag != "h1" or not st.chars:
                continue
            if self.inside(mid, rid) or self.inside(rid, mid):  # it holds the root or the root holds it
                return None
            if st.order < root.order:
                if words is not None:
                    own = _WORDS.findall(st.node.text(deep=True).lower())
                    if not own or 2 * sum(w in words for w in own) < len(own):
                        continue
                title = st.node
        return title
