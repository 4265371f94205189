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

import math
import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from sys import intern
from typing import Any

from chunkctl.loaders.html.elements import ALWAYS_DROPPED, BLOCK_TAGS, CELL_BLOCKS
from chunkctl.loaders.html.select import is_data_table, is_decoration, is_furniture, node_attrs, short_block_cells

# Class/id names that mark content, or its surroundings. "nav" is a word of its own or starts a
# camelCase one (`navbar`, `navi`, `navigation`, `navContainer`), not the start of a random id
# (`p#NavzzU`, a paragraph of helper-91's videos-1 page, was left out), nor Wikipedia's hatnotes
# (`navigation-not-searchable`); a `no_caption` class is no caption (buzzfeed-1's lead).
_POSITIVE = re.compile(r"article|body|content|entry|main|page|post|text|blog|story|prose|markdown|documentation",
                       re.I)
_NEGATIVE = re.compile(
    r"comment|related|share|sharing|social|sidebar|widget|promo|sponsor|advert|(?:^|[\s_-])ads?(?:$|[\s_-])|"
    r"banner|breadcrumb|footer|footnote-?ref|masthead|(?:^|[\s_-])menu|"
    r"(?:^|[\s_-])nav(?:bar|i|igation(?!-not-searchable)|menu|links?|list)?(?!(?-i:[a-z]))|newsletter|subscribe|outbrain|taboola|"
    r"recommend|teaser|popular|trending|more-?stories|read-?more|also-?read|tags?(?:$|[\s_-])|byline-?share|"
    r"signup|login|modal|popup|cookie|consent|pagination|pager|toolbar|tool-?tip|skip|byline|dateline|timestamp|credit|"
    r"(?<!no[_-])caption|(?:^|[\s_-])(?:date|time|author|published)s?(?:$|[\s_-])", re.I)
# Names of whole regions that are never the article (skipped before scoring, as Readability does),
# unless the name also says content or the region holds the page's headline, code or an article
# (not one named as a comment: `_holds_article`).
_UNLIKELY = re.compile(
    r"comment|disqus|related|sidebar|(?:^|[\s_-])share|social|outbrain|taboola|newsletter|recommend|"
    r"breadcrumb|(?:^|[\s_-])menu|popular|trending|more-?stories|also-?read|read-?next|signup|popup|modal|"
    r"(?:^|[\s_-])footer|(?:^|[\s_-])ad-|sponsor|promo|author-?bio|gallery|slideshow|carousel", re.I)
_MAYBE = re.compile(r"article|body|column|content|main|post-?text|story", re.I)
# Names of a wrapper whose heading titles only what it holds (a module of related links, a table of
# contents), not the text after it as a section heading's wrapper (`MainContent._orphans`).
_MODULE = re.compile(_UNLIKELY.pattern + r"|(?:^|[\s_-])toc(?:$|[\s_-])|table-?of-?contents", re.I)
_COMMENT = re.compile(r"(?:^|[\s_-])comment(?:$|[\s_-])", re.I)  # (not "latest-comments__list")
_SAFE = "h1, pre, table, dl, main"
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
_SENTENCE_END = re.compile(r"[.!?。！？](?:[\"'”’)\]]*)(?:\s|$)")
CAPTION_WORDS = 12
"""Words from which a figure's caption that ends a sentence is prose (a worked example, an
explanation), kept with the figure; a shorter one is a photo's caption or credit."""


def _prose_caption(figure) -> bool:
    """Whether `figure`'s caption (its `<figcaption>`, else its text) is prose: at least
    CAPTION_WORDS words and a sentence end. helper-115 (w3c/wcag, "Understanding Reflow"): every
    caption of a page with two figures or more was left out, some 1,000 of its 5,170 words of
    worked examples ("Pass: A carousel presents ..."), while the page's one-figure twin kept it."""
    cap = figure.css_first("figcaption")
    text = (cap if cap is not None else figure).text(deep=True)
    return len(text.split()) >= CAPTION_WORDS and _SENTENCE_END.search(text) is not None


_PRUNABLE = frozenset("div section ul ol p aside header figure center".split())
# Content a documentation page never loses to pruning.
_KEEP_TAGS = frozenset("pre table dl code".split())
_TABLE_PARTS = frozenset("thead tbody tfoot tr td th caption colgroup col".split())
_COMMAS = re.compile(r"[,，、،;；]")
# Elements whose node the selection reads after the walk (text, selectors); others are found again by `mem_id`.
_NODE_TAGS = _HEADINGS | _LABELS | frozenset(("header", "figure", "table"))


VOTE_CHARS = 25
"""Characters from which a paragraph votes (`MainContent._vote`; the pieces count their paragraphs
the same way, `loader._voting_chars`)."""

SEMANTIC_SHARE = 0.5
"""Share of a page's text that a `<main>` or `<article>` must hold to be taken for the content,
against the voting paragraphs outside it (in characters, outside furniture): one holding a
headline or a teaser, with the page's paragraphs after it, is not (all but its headline was
lost); one beside short teasers is."""


RETRY_CHARS = 500
"""Characters of text outside links under which a selection is read again without skipping the
regions named as boilerplate, when those held more text than it (`read`; Readability's
`charThreshold` and its retry without FLAG_STRIP_UNLIKELYS)."""


def read(body, semantic, page_title: str | None = None) -> Selection:
    """The main content of a page's `body` (`MainContent.select`), read again without skipping the
    regions named as boilerplate when it holds under RETRY_CHARS characters and those regions
    held more: a wrapper of the article named "entry themeform share" or "socialicons-sticky"
    left only the headline (helper-104: 15 of 990 real pages kept under 150 characters). The
    second selection is taken when it holds more text and is the first one or stands inside it
    (the same article, or one found in a page read whole): not a comment thread beside a short
    article, nor a wrapper widened around both."""
    first = MainContent(body)
    found = first.select(semantic, page_title)
    if found.chars >= RETRY_CHARS or first.unlikely_chars() <= found.chars:
        return found
    del first
    again = MainContent(body, strip_unlikely=False).select(semantic, page_title)
    return again if again.chars > found.chars and _ancestor(found.root, again.root) else found


def _ancestor(a, b) -> bool:
    """True when node `a` is `b` or holds it."""
    mid = a.mem_id
    while b is not None:
        if b.mem_id == mid:
            return True
        b = b.parent
    return False


def _holds_article(node) -> bool:
    """True when an `<article>` not named as a comment is under `node`: a region named unlikely
    that holds one may hold the page's article. WordPress themes give each comment an `<article
    class="comment-body">`, which kept whole comment threads (helper-91's wordpress page)."""
    for article in node.css("article"):
        attrs = article.attributes
        if not _COMMENT.search(" ".join(v for v in (attrs.get("class"), attrs.get("id")) if v)):
            return True
    return False


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
    chars: int = 0
    """Characters of the root's text outside links (as the walk counts them), excluded parts included."""


class MainContent:
    """Scores the elements of one page (see the module doc) once; `select` then picks the main content.

    What the walk learns of each element is kept in columns indexed by the element's
    order (its place in document order among the elements walked; the body is 0): one
    machine integer per fact instead of one Python object per element, and the element's
    node only when the selection reads it later (`_NODE_TAGS`; others are found again by
    `mem_id`), so a page of a million table cells costs about 90 bytes an element here, not
    400 (docs/performance.md#memory). Children are not stored: in document order an element's first child is the next
    element, and a child's next sibling is the element after the child's last descendant.

    Args:
        body: the page's `<body>` (a selectolax node).
        strip_unlikely: skip regions named as boilerplate (`_UNLIKELY`) before scoring; without,
            they are scored as any element (Readability's retry: `read`).
    """

    def __init__(self, body, strip_unlikely: bool = True):
        self.body = body
        self.strip_unlikely = strip_unlikely
        self.unlikely_nodes: list[Any] = []  # the regions skipped by name (a few a page)
        self.mem_ids = array("Q")         # the element's `mem_id`
        self.nodes: list[Any] = []        # the element (a selectolax node) when its tag is in _NODE_TAGS, else None
        self.tags: list[str] = []         # its tag name (interned: one string per name)
        self.parent = array("i")          # order of its parent (-1 for the body)
        self.end = array("i")             # order of its last descendant (its own when none)
        self.chars = array("q")           # characters of its collapsed text
        self.link_chars = array("q")      # ... of them inside links
        self.commas = array("i")          # commas in its text
        self.blocks = array("i")          # its block children
        self.inline = array("q")          # characters of its own text and inline children
        self.heads = array("i")           # headings below with text outside links
        self.para = array("q")            # characters of the voting paragraphs below (itself included)
        self.keep = array("i")            # pre/table/dl/code below
        self.score = array("d")           # its votes (nan: none yet)
        self.marks: dict[int, str] = {}   # class and id names, of the elements that have them
        self.unlikely: list[tuple[int, int]] = []  # regions skipped by name: (parent's order, mem_id)
        self._walk(body)

    def _walk(self, body) -> None:
        """One pass over the elements under `body` (no recursion): text sizes bottom-up, votes on the way."""
        nodes, mem_ids, tags, parent, end = self.nodes, self.mem_ids, self.tags, self.parent, self.end
        chars, link_chars, commas, blocks = self.chars, self.link_chars, self.commas, self.blocks
        inline, heads, para, keep, score = self.inline, self.heads, self.para, self.keep, self.score
        nan = math.nan
        # (node, -1) opens a node; (next, order) closes element `order`, then opens `next`, its next sibling
        # (None: none). The stack holds an entry a level, not every child of a long table body at once.
        stack: list[tuple[Any, int]] = [(body, -1)]
        open_ids: list[int] = []
        in_link = 0
        findall = _COMMAS.findall
        while stack:
            node, i = stack.pop()
            if i >= 0:
                open_ids.pop()
                end[i] = len(nodes) - 1  # the last element opened inside it
                tag = tags[i]
                if tag == "a":
                    in_link -= 1
                self._vote(i, open_ids)
                p = parent[i]
                if p >= 0:
                    c = chars[i]
                    para[p] += para[i]
                    heads[p] += heads[i] + (tag in _HEADINGS and link_chars[i] < c)
                    chars[p] += c
                    link_chars[p] += link_chars[i]
                    commas[p] += commas[i]
                    keep[p] += keep[i] + (tag in _KEEP_TAGS)
                    if tag in BLOCK_TAGS or blocks[i]:
                        blocks[p] += 1
                    else:
                        inline[p] += c
                if node is not None:
                    stack.append((node, -1))
                continue
            sib = None
            if open_ids:  # what follows it (the body's siblings are not walked)
                sib = node.next
                while sib is not None and sib.tag == "-text":
                    sib = sib.next
            tag = node.tag
            if not tag or tag[0] == "-" or tag in ALWAYS_DROPPED:  # None: a processing instruction
                if sib is not None:
                    stack.append((sib, -1))
                continue
            tag = intern(tag)  # one string per tag name, not one per element
            attrs = node_attrs(node)
            if open_ids and (is_furniture(node, tag, attrs, 1) or (attrs and is_decoration(node, tag, attrs))):
                if sib is not None:  # (the body itself is always walked)
                    stack.append((sib, -1))
                continue
            marks = _marks(attrs)
            up = open_ids[-1] if open_ids else -1
            if self.strip_unlikely and marks and tag in _PRUNABLE and _UNLIKELY.search(marks) and \
                    not _MAYBE.search(marks) and node.css_first(_SAFE) is None and not _holds_article(node):
                self.unlikely.append((up, node.mem_id))
                self.unlikely_nodes.append(node)
                if sib is not None:
                    stack.append((sib, -1))
                continue
            i = len(nodes)
            if marks:
                self.marks[i] = marks
            if tag == "a":
                in_link += 1
            own = own_commas = 0
            first = None
            child = node.first_child
            while child is not None:
                if child.tag == "-text":  # its own text, counted here rather than walked
                    t = child.text_content.strip()  # characters: inner runs of white space count as typed
                    if t:
                        own += len(t)
                        own_commas += len(findall(t))
                elif first is None:
                    first = child
                child = child.next
            stack.append((sib, i))
            if first is not None:
                stack.append((first, -1))
            nodes.append(node if tag in _NODE_TAGS else None)
            mem_ids.append(node.mem_id)
            tags.append(tag)
            parent.append(up)
            end.append(i)
            chars.append(own)
            link_chars.append(own if in_link else 0)
            commas.append(own_commas)
            blocks.append(0)
            inline.append(own)
            heads.append(0)
            para.append(0)
            keep.append(0)
            score.append(nan)
            open_ids.append(i)

    def _vote(self, i: int, open_ids: list[int]) -> None:
        """A paragraph gives its score to up to five ancestors (full, half, then a third per level).

        An element holding text of its own beside blocks (lines between `<br>`s) votes for itself too.
        """
        total = self.chars[i]
        if total < VOTE_CHARS:
            return
        if self.link_chars[i] > total / 2:
            return
        chars = total
        voters = open_ids[-5:]
        tag = self.tags[i]
        if tag in _PARAGRAPHS or (tag in _CONTAINERS and self.blocks[i] == 0):
            self.para[i] = max(self.para[i], chars)
        else:
            if self.inline[i] < 25 or tag not in _CONTAINERS:
                return
            chars = self.inline[i]
            self.para[i] += chars
            voters = [*open_ids[-4:], i]
        inc = 1 + self.commas[i] * chars / total + min(chars / 100, 3)
        score = self.score
        for level, a in enumerate(reversed(voters)):
            s = score[a]
            if s != s:  # nan: its first vote
                s = _TAG_BASE.get(self.tags[a], 0)
            score[a] = s + (inc if level == 0 else inc / 2 if level == 1 else inc / (level * 3))

    def final(self, i: int) -> float:
        """An element's score after its links are discounted."""
        s, chars = self.score[i], self.chars[i]
        if s != s or not chars:
            return 0.0
        weight = float(_class_weight(self.marks.get(i, "")))
        if weight > 0:  # a name says "content": worth less on a few words
            weight *= min(1.0, chars / 500)
        return (s + weight) * (1 - self.link_chars[i] / chars)

    def top(self) -> int | None:
        """The order of the best-scored element, or None for a page without paragraphs."""
        best, best_score = None, 0.0
        score = self.score
        for i in range(len(self.nodes)):
            if score[i] != score[i]:
                continue
            s = self.final(i)
            if s > best_score:
                best, best_score = i, s
        return best

    def inside(self, i: int, root: int) -> bool:
        """True when element `i` is `root` or below it."""
        return root <= i <= self.end[root]

    def children(self, i: int) -> Iterator[int]:
        """The orders of element `i`'s element children, in document order."""
        end = self.end
        last = end[i]
        c = i + 1
        while c <= last:
            yield c
            c = end[c] + 1

    def _introduced(self, i: int) -> bool:
        """True when element `i` is a list that the text right before it introduces: its previous
        element sibling is a paragraph ending in a colon ("maintained by:" and a list of
        people's links is the text's, helper-48)."""
        if self.tags[i] not in ("ul", "ol"):
            return False
        p = self.parent[i]
        if p < 0 or i - 1 == p:  # (no element before it under its parent)
            return False
        prev = i - 1  # the element before it in document order: its previous sibling or inside it
        while self.parent[prev] != p:
            prev = self.parent[prev]
        if self.tags[prev] not in ("p", "div") or self.link_chars[prev] >= self.chars[prev] / 2:
            return False
        return bool(self._node(prev).text(deep=True).rstrip().endswith((":", "\uff1a")))  # (a fullwidth colon too)

    def _text_before(self, i: int, root: int) -> int:
        """Characters of the text under `root` in the elements before element `i` (its
        ancestors' own text left out), in document order."""
        total = 0
        cur = i
        while cur != root and cur >= 0:
            up = self.parent[cur]
            if up < 0:
                break
            c = up + 1  # its first element child
            while c < cur:
                total += self.chars[c]
                c = self.end[c] + 1
            cur = up
        return total

    def _after(self, i: int) -> Iterator[int]:
        """The orders of the siblings after element `i` (none for the body)."""
        p = self.parent[i]
        if p < 0:
            return
        end = self.end
        last = end[p]
        c = end[i] + 1
        while c <= last:
            yield c
            c = end[c] + 1

    def prune(self, root: int, top: int | None) -> set[int]:
        """Boilerplate under `root`: link-dense lists and blocks, and blocks named as comments, related, share...

        Never an element holding code, a table or a definition list, the best-scored element or
        a third of the root's text.

        Returns:
            the `mem_id`s of the elements left out.
        """
        tags, chars, link_chars, nodes = self.tags, self.chars, self.link_chars, self.nodes
        root_chars = chars[root]
        last = self.end[root]
        out = {mid for up, mid in self.unlikely if root <= up <= last}
        left: list[int] = []
        stack = list(self.children(root))
        while stack:
            i = stack.pop()
            tag = tags[i]
            if tag in _KEEP_TAGS:
                continue
            c = chars[i]
            if self.keep[i] or tag in _HEADINGS or (tag == "header" and nodes[i].css_first("h1, h2, h3")) or (
                    top is not None and self.inside(top, i)) or (
                    c > root_chars / 3 and link_chars[i] < c / 4):
                stack.extend(self.children(i))
                continue
            if tag == "figure" and nodes[i].css_first("img, picture, video, iframe") is not None and \
                    not _NUMBERED.match(nodes[i].text(deep=True).strip()) and not _prose_caption(nodes[i]):
                left.append(i)  # a photo and its caption (a numbered figure the text refers to stays)
                continue
            if tag not in _PRUNABLE:
                stack.extend(self.children(i))
                continue
            density = link_chars[i] / c if c else 0.0
            weight = _class_weight(self.marks.get(i, ""))
            own = self.final(i)
            if weight < 0 and (density > 0.25 or own < 20 or self.commas[i] < 10):
                left.append(i)
                continue
            # in the best-scored element's own flow, a list of links is the text's (a changelog, a list of
            # sources) unless it is nearly all links
            p = self.parent[i]
            limit = 0.95 if top is not None and p == top else 0.5
            nested = p >= 0 and tags[p] in ("li", "dd")  # a sub-list
            if density > limit and tag != "p" and not self.heads[i] and c < 2000 and not nested and \
                    not self._introduced(i):
                left.append(i)
                continue
            stack.extend(self.children(i))
        left.extend(self._tails(root))
        left.extend(self._orphans(root, left))
        out.update(self.mem_ids[i] for i in left)
        return out

    def _orphans(self, root: int, left: list[int]) -> list[int]:
        """Headings whose section the pruning left empty, with the wrappers that held them: an element
        under `root` named as a module (`_MODULE`: related, share... or a table of contents; not a
        `header`, no `h1` in it) whose text was all in link lists left out (`left`, orders, and the
        regions skipped as unlikely), more than its headings hold, but for those headings ("Other
        People Are Reading" over a list of related links, Wikipedia's "Contents" over its table of
        contents; not a section heading's wrapper with a toolbar of "Edit this page" links, whose
        section follows it); and a heading (not an `h1`, not in a `header`, no text of its own between the
        elements of its parent) whose siblings up to the next heading were all link lists left out,
        more text than its own ("Recommended related news"; not a subtitle over a byline or a photo).
        Such a heading stood as the breadcrumb of the text after it: helper-91 found one over a whole
        how-to, on 15 of Mozilla Readability's 130 test pages; helper-92's break test, on 1,369 real
        pages, the cases left out here. Returns their orders; none when nothing but headings would
        be left."""
        tags, chars, parent, end = self.tags, self.chars, self.parent, self.end
        gone = set(left)
        skipped = {up for up, _ in self.unlikely if root <= up <= end[root]}
        # In reverse document order (children before parents), for each element: the characters of its
        # text outside what is left out and outside headings, those left out (or whether something was
        # skipped), those of its headings, and the level of the highest of them.
        n = end[root] + 1
        rest = [0] * (n - root)
        cut = [0] * (n - root)
        heads = [0] * (n - root)
        rank = bytearray(b"\x07" * (n - root))  # the level of its highest heading (7: none)
        bare = bytearray(n - root)  # 1: text of its own between its elements
        dead = bytearray(n - root)  # 1: in an element left out
        at = root + 1
        while at < n:  # (document order: a left-out element's descendants follow it, up to its end)
            if at in gone:
                dead[at - root:end[at] + 1 - root] = b"\x01" * (end[at] + 1 - at)
                at = end[at] + 1
            else:
                at += 1

        def drop(i: int) -> None:
            gone.add(i)
            out.append(i)
            dead[i - root:end[i] + 1 - root] = b"\x01" * (end[i] + 1 - i)

        out: list[int] = []
        # The live heading at or after each order, as the reverse pass leaves it: what follows an element
        # is decided before it is (an element left out later holds it too).
        after = [-1] * (n - root + 1)
        live = -1
        for i in range(end[root], root, -1):
            k = i - root
            if i in gone:  # (links only: a byline or a photo left out is no section of its own)
                cut[k] = chars[i] if 2 * self.link_chars[i] > chars[i] else 0
            elif tags[i] in _HEADINGS:
                heads[k], rank[k] = chars[i], int(tags[i][1])
                if chars[i] and not dead[k]:
                    live = i
            else:
                r, c, h, top, own = chars[i], int(i in skipped), 0, 7, chars[i]
                for ch in self.children(i):
                    j = ch - root
                    r -= chars[ch] - rest[j]
                    c += cut[j]
                    h += heads[j]
                    top = min(top, rank[j])
                    own -= chars[ch]
                rest[k], cut[k], heads[k], rank[k], bare[k] = r, c, h, top, own > 0
                if h and c >= h and r <= 0 and top > 1 and tags[i] != "header" and not self.keep[i] and \
                        _MODULE.search(self.marks.get(i, "")) and self._closes(top, after[end[i] + 1 - root]):
                    drop(i)
                    rest[k], cut[k], heads[k], rank[k] = 0, c, 0, 7
                    live = after[end[i] + 1 - root]
            after[k] = live
        live = -1
        for k in range(n - root - 1, 0, -1):  # (now that the reverse pass is done)
            if not dead[k] and tags[k + root] in _HEADINGS and chars[k + root]:
                live = k + root
            after[k] = live
        after[n - root] = -1
        bare[0] = chars[root] > sum(chars[c] for c in self.children(root))
        banner = -1  # (the end of the last `header` element: a headline's subtitle and byline)
        for i in range(root + 1, n):
            if tags[i] == "header":
                banner = max(banner, end[i])
            if dead[i - root] or tags[i] not in _HEADINGS or tags[i] == "h1" or i <= banner:
                continue
            cur = i  # (the heading, or the wrapper that holds nothing else)
            for _ in range(3):
                up = parent[cur]
                if up < 0 or up == root or chars[up] != chars[i]:
                    break
                cur = up
            if bare[parent[cur] - root]:
                continue  # (text of its own in the parent, between the elements: maybe the section's)
            left_out, last = 0, end[cur]
            for s in self._after(cur):
                k = s - root
                if tags[s] in _HEADINGS:
                    break
                if (s in gone or rest[k] <= 0) and not heads[k]:
                    left_out += cut[k]
                    last = end[s]
                    continue
                left_out = 0  # (text, or a subsection)
                break
            # (more than a byline after a subtitle; nothing after the run, if it ends with its parent,
            # up to the next heading: a toolbar of links in a wrapper with the heading, then its text)
            following = after[last + 1 - root]
            if left_out >= chars[i] and self._closes(int(tags[i][1]), following) and \
                    self._empty(last + 1, following if following >= 0 else n, root, rest, dead):
                drop(cur)
        remaining, i = chars[root], root + 1  # (what is left but headings: none, and the headings stay)
        while i < n:
            if dead[i - root] or tags[i] in _HEADINGS:
                remaining -= chars[i]
                i = end[i] + 1
            else:
                i += 1
        return out if remaining > 0 else []

    def _empty(self, a: int, b: int, root: int, rest: list[int], dead: bytearray) -> bool:
        """True when the elements from order `a` up to order `b` (not the elements that hold `b`) have
        no text but what is left out or headings (`rest`, `dead`: by order from `root`)."""
        end, j = self.end, a
        while j < b:
            if end[j] >= b:  # (holds b: its elements before b count, not it)
                j += 1
            elif dead[j - root] or self.tags[j] in _HEADINGS or rest[j - root] <= 0:
                j = end[j] + 1
            else:
                return False
        return True

    def _closes(self, level: int, following: int) -> bool:
        """True when the heading at order `following` (-1: none) is of `level` or higher: a section
        under a heading of `level` has no subsection there, whose breadcrumb it would be."""
        return following < 0 or int(self.tags[following][1]) <= level

    def _tails(self, root: int) -> set[int]:
        """Headings such as "Related articles" or "Comments" under `root`, with what follows them up to the
        next heading (never code, tables or definition lists); their orders."""
        out: set[int] = set()
        tags, chars, link_chars, parent = self.tags, self.chars, self.link_chars, self.parent
        tail = {}  # order -> the element's text reads as a tail's heading or label
        last_plain = -1  # the last heading under root that does not (a tail's heading has none after it)
        for i in range(root + 1, self.end[root] + 1):
            tag = tags[i]
            heading = tag in _HEADINGS
            if not (heading or tag in _LABELS and not self.blocks[i]):
                continue
            tail[i] = chars[i] <= 60 and bool(_TAIL_HEADING.match(" ".join(self.nodes[i].text(deep=True).split())))
            if heading and chars[i] and not tail[i]:
                last_plain = i
        for i, is_tail in tail.items():
            if not is_tail:
                continue
            heading = tags[i] in _HEADINGS
            if not heading:  # a label in running text: it and the links right after it
                out.add(i)
                for s in self._after(i):
                    if self.keep[s] or self.heads[s] or not chars[s] or link_chars[s] < chars[s] / 2:
                        break
                    out.add(s)
                continue
            # the heading, or the wrapper that holds nothing else
            cur = i
            for _ in range(3):
                up = parent[cur]
                if up < 0 or up == root:
                    break
                if chars[up] != chars[i]:
                    break
                cur = up
            section = []
            for s in self._after(cur):
                if self.keep[s] or tags[s] in _KEEP_TAGS or tags[s] in _HEADINGS or self.heads[s]:
                    break
                section.append(s)
            text = sum(chars[s] for s in section)
            if 2 * sum(link_chars[s] for s in section) < text and (
                    i < last_plain or 2 * self._text_before(cur, root) < chars[root]):
                # Text of its own, not after the article: a chapter named "Comments" in a book
                # (helper-48: the Rust book lost one). Links (related stories) go wherever they are.
                continue
            out.add(cur)
            out.update(section)
        return out

    def _order_of(self, node) -> int | None:
        """The order of `node` among the elements walked, or None when it was not walked."""
        try:
            return self.mem_ids.index(node.mem_id)
        except ValueError:
            return None

    def _node(self, i: int) -> Any:
        """The element of order `i` (kept by the walk for _NODE_TAGS, else found again in the tree)."""
        node = self.nodes[i]
        if node is None:
            mid = self.mem_ids[i]
            node = next(n for n in self.body.traverse(include_text=False) if n.mem_id == mid)
        return node

    def select(self, semantic, page_title: str | None = None) -> Selection:
        """The main content: `semantic` (the page's one `<article>` or its `<main>`, or None) when the best-scored
        element is inside it or above it, unless `semantic` holds no text outside page furniture or less than
        the voting paragraphs outside it (`_holds_content`); else the best-scored element with its strong
        siblings; the page body when nothing scores."""
        top = self.top()
        sem = self._order_of(semantic) if semantic is not None else None
        if sem is not None and not self._holds_content(sem):
            # an empty `<main>` or `<article>`, one holding only furniture or a headline with the page's
            # paragraphs after it names no content: the page's text is elsewhere (helper-103: a
            # page's text beside an empty article was lost)
            semantic = sem = None
        if top is None:
            if semantic is None:
                return Selection(self.body, self.prune(0, None), None, self._own_chars(0))
            return Selection(semantic, self.prune(sem, None) if sem is not None else set(), None,
                             self._own_chars(sem) if sem is not None else 0)
        excluded: set[int] = set()
        if sem is not None and (self.inside(top, sem) or self.inside(sem, top)):
            root = sem
        else:
            top = self._ascend(top, sem)
            # the top element's parent, when its siblings carry content too
            root, excluded = self._with_siblings(top)
        whole = self._whole_table(root)
        if whole != root:  # a part of a table (its tbody, a row, a cell) is read as the table it is in,
            # whole (alone, its cells would be read as paragraphs), with its strong siblings: the
            # paragraphs that introduce and discuss it (helper-101: a report's text around its table of
            # eight rows was left out, the table taken for the whole article)
            root, excluded = self._with_siblings(whole)
        excluded |= self.prune(root, top)
        return Selection(self._node(root), excluded, self._title(root, page_title), self._own_chars(root))

    def unlikely_chars(self) -> int:
        """Characters of text in the regions skipped by name (read only for a short selection: `read`)."""
        return sum(len(node.text(deep=True, separator=" ").strip()) for node in self.unlikely_nodes)

    def _own_chars(self, i: int) -> int:
        """Characters of element `i`'s text outside links."""
        return self.chars[i] - self.link_chars[i]

    def _holds_content(self, i: int) -> bool:
        """True when element `i` holds text outside furniture, and the voting paragraphs outside it
        (not around it) hold no more characters than it does."""
        para = self.para
        if self.chars[i] == 0:
            return False
        outside = para[0] - para[i]
        a = self.parent[i]
        while a >= 0:  # (a paragraph around it, `<li><main>`, voted with its text)
            outside -= para[a] - sum(para[c] for c in self.children(a))
            a = self.parent[a]
        return outside <= SEMANTIC_SHARE / (1 - SEMANTIC_SHARE) * self.chars[i]

    def _whole_table(self, i: int) -> int:
        """`i`, or the data table of short cells it is a part of (`tbody`, `tr`, `td`, ...).

        A cell of a layout table stays the root (its other cells are the page's furniture),
        and so does a part of a table whose cells hold long blocks (a Sphinx field list of
        parameters): its paragraphs and lists read better as blocks than flattened into cells.
        Cells of one short paragraph each in a regular grid (a CMS's or word processor's
        table, `select.short_block_cells`) are a table's (helper-101: such a table of readings,
        met through its tbody, was read as loose paragraphs, "Depot", "Reading", ...).
        """
        up = i
        while self.tags[up] in _TABLE_PARTS and self.parent[up] >= 0:
            up = self.parent[up]
        node = self.nodes[up]
        if up == i or self.tags[up] != "table" or not is_data_table(node, node_attrs(node)) \
                or (node.css_first(CELL_BLOCKS) is not None and not short_block_cells(node)):
            return i
        return up

    def _ascend(self, top: int, stop: int | None) -> int:
        """The highest ancestor of `top` whose paragraphs are at least twice `top`'s, with few links
        (one section of a page of steps or chapters is not the whole article)."""
        parent, para, chars, link_chars = self.parent, self.para, self.chars, self.link_chars
        best = top
        i = top
        while parent[i] > 0 and parent[i] != stop:  # (0: the body)
            i = parent[i]
            if para[i] >= ASCEND * para[best] and link_chars[i] <= LINKS_UP * chars[i]:
                best = i
        # then step by step while each parent adds mostly paragraphs and few links (a short
        # paragraph of the article in a block of its own)
        i = best
        while parent[i] > 0 and parent[i] != stop:
            up = parent[i]
            added = chars[up] - chars[i]
            if added and not (para[up] - para[i] >= ADDED_PARA * added and
                              link_chars[up] - link_chars[i] <= ADDED_LINKS * added):
                break
            i = up
            if added:
                best = i
        return best

    def _with_siblings(self, top: int) -> tuple[int, set[int]]:
        """`top`, or its parent with the `mem_id`s of the weak siblings left out."""
        p = self.parent[top]
        if p < 0:
            return top, set()
        best = self.final(top)
        threshold = max(10.0, best * 0.2)
        chars, link_chars = self.chars, self.link_chars
        keep, drop = 0, []
        for c in self.children(p):
            if c == top:
                keep += 1
                continue
            s = self.final(c)
            n = chars[c]
            density = link_chars[c] / n if n else 1.0
            if s >= threshold or self.keep[c] or (n and density < 0.2 and (c < top or n > 80)) or self._kept_block(c):
                keep += 1
            else:
                drop.append(c)
        if keep == 1:
            return top, set()
        return p, {self.mem_ids[c] for c in drop}

    def _kept_block(self, i: int) -> bool:
        """True for a data table with text, not mostly links: kept beside the content (helper-102:
        underscore.js's table of downloads, a sibling of the text with many links, was left out with
        them; a grid of navigation links, a contact list or a script in a `<pre>` beside the
        article are not the article's, helper-103)."""
        if self.tags[i] != "table" or not self.chars[i] or 2 * self.link_chars[i] >= self.chars[i]:
            return False  # (mostly links: a grid of navigation, helper-103; a download table has its sizes)
        node = self._node(i)
        return is_data_table(node, node_attrs(node))

    def _title(self, root: int, page_title: str | None) -> Any:
        """The headline: the last `h1` before `root` when `root` holds none, and when the page's `<title>`
        carries at least half its words (a site banner's h1 is not the article's), or the page has no title."""
        title = None
        words = set(_WORDS.findall(page_title.lower())) if page_title else None
        for i, tag in enumerate(self.tags):
            if tag != "h1" or not self.chars[i]:
                continue
            if self.inside(i, root) or self.inside(root, i):  # it holds the root or the root holds it
                return None
            if i < root:
                if words is not None:
                    own = _WORDS.findall(self.nodes[i].text(deep=True).lower())
                    if not own or 2 * sum(w in words for w in own) < len(own):
                        continue
                title = self.nodes[i]
        return title
