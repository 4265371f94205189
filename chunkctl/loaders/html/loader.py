"""HTML loader: the document text and blocks assembled from rendered raw blocks as they come, and `load_html`; never counts tokens."""

from __future__ import annotations

import codecs
import re
import sys
from collections.abc import Callable
from typing import Any

from chunkctl.errors import LoaderError, MissingExtraError
from chunkctl.loaders.decode import decode_bytes
from chunkctl.loaders.headings import HeadingPath
from chunkctl.loaders.html.charset import declared_charsets
from chunkctl.loaders.html.elements import ALWAYS_DROPPED, SECTIONING
from chunkctl.loaders.html.main import SEMANTIC_SHARE, VOTE_CHARS
from chunkctl.loaders.html.main import read as read_main
from chunkctl.loaders.html.nesting import MAX_DEPTH, flat_paragraphs, nesting_cut
from chunkctl.loaders.html.pieces import (
    PIECE_CHARS,
    PIECES_FROM,
    PIECES_FROM_TAGS,
    Cut,
    cut_page,
    is_piecewise_codec,
    read_in_pieces,
)
from chunkctl.loaders.html.render import RawBlock, Renderer
from chunkctl.loaders.html.select import is_furniture, node_attrs, parse, semantic_root
from chunkctl.loaders.html.text import collapse
from chunkctl.loaders.registry import register
from chunkctl.model import Block, BlockKind, BlockList, Document, Spans, compact_spans


class Assembler:
    """Joins raw blocks with blank lines into the document text, giving each block its span and
    heading path, as they come (`add`); `finish` returns the result. A page of one-word
    paragraphs holds no list of raw blocks: each becomes a `Block` (compact columns) at once.
    The text gathers as UTF-8, `JOIN_EVERY` parts at a time (a part's string costs some 50
    bytes beside its characters: 5x a page of one-word paragraphs, held as parts; and parts
    joined as strings are held twice when the text is made, 4 bytes a character each time
    once one emoji is in it)."""

    JOIN_EVERY = 4096
    ENCODE_SLICE = 1 << 20  # characters of the last parts encoded at a time by `finish`

    def __init__(self) -> None:
        self.parts: list[str] = []  # the latest parts of the document text
        self.utf8 = bytearray()  # the parts before them
        self.blocks = BlockList()
        self.path = HeadingPath()  # the path in force, one tuple for the blocks under a heading
        self.first_h1: str | None = None
        self.pos = 0  # characters of the document text so far

    def add(self, raw: RawBlock) -> None:
        """Append one raw block (its text after a blank line, unless it is the first)."""
        kind, text, level, language, header, rows, meta = raw
        if self.pos:
            self.parts.append("\n\n")
            self.pos += 2
            if len(self.parts) >= self.JOIN_EVERY:
                self.utf8 += "".join(self.parts).encode("utf-8", "surrogatepass")
                self.parts = []
        start = self.pos
        end = start + len(text)
        self.parts.append(text)
        self.pos = end
        if kind == BlockKind.HEADING:
            title = text.replace("\ufffd", "").strip()
            if level == 1 and self.first_h1 is None and title:
                self.first_h1 = title
            self.blocks.append(Block(kind, start, end, level=level, headings=self.path.enter(level, title)))
            return
        self.blocks.append(Block(
            kind, start, end,
            headings=self.path.titles,
            language=language,
            header=(start + header[0], start + header[1]) if header is not None else None,
            rows=rows.shift(start) if isinstance(rows, Spans) else compact_spans((start + a, start + b) for a, b in rows),
            meta=meta or {},
        ))

    def finish(self) -> tuple[str, BlockList, str | None]:
        """(document text, blocks, text of the first h1 or None). The text is never held more than
        twice, as a string and as UTF-8, beside a slice (a page that is one list of 4 M items: its
        text was held four times here in 0.1.28)."""
        parts, self.parts = self.parts, []
        tail = "".join(parts)  # (one part: that part itself)
        del parts
        if not self.utf8:
            return tail, self.blocks, self.first_h1
        step = self.ENCODE_SLICE
        for a in range(0, len(tail), step):  # (each character encodes alone: a slice may end anywhere)
            self.utf8 += tail[a:a + step].encode("utf-8", "surrogatepass")
        del tail
        text = self.utf8.decode("utf-8", "surrogatepass")
        self.utf8 = bytearray()
        return text, self.blocks, self.first_h1


def _main_content_html(html: str) -> str:
    """The main article of a page as HTML, by trafilatura (the optional extra `chunkctl[html-main]`)."""
    try:
        import trafilatura
    except ImportError:
        raise MissingExtraError("--main-content", "html-main", "trafilatura") from None
    out = trafilatura.extract(html, output_format="html", include_tables=True, include_comments=False,
                              include_images=False, include_links=False, include_formatting=True)
    return out or ""


# A language tag as BCP 47 spells one ("en", "pt-BR", "zh-Hant-TW"; "en_US" too), at most 8 subtags: a
# page's `lang` is written into each of its records, and helper-56's 100 KB value made 124 MB of them.
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8}){0,7}")


def _page_facts(tree, facts: dict[str, Any]) -> None:
    """Set the page's `title` (its `<title>` text) and `lang` (None unless it is a language tag) in `facts`."""
    title_node = tree.css_first("head title") or tree.css_first("title")
    if title_node is not None:
        facts["title"] = collapse(title_node.text(deep=True)).strip() or None
    html_node = tree.css_first("html")
    if html_node is not None:
        a = node_attrs(html_node)
        lang = (a.get("lang") or a.get("xml:lang") or "").strip()
        facts["lang"] = lang if _LANGUAGE_TAG.fullmatch(lang) else None


def _render(html: str, keep_boilerplate: bool, main_content: bool, facts: dict[str, Any],
            emit: Callable[[RawBlock], None]) -> None:
    """Give the raw blocks of a page (`render_html`) to `emit`, its `title` and `lang` set in
    `facts`. The parser's tree (some 150 bytes a node: 36x a page of one-word paragraphs)
    lives only here."""
    tree = parse(html)
    _page_facts(tree, facts)
    renderer = Renderer(keep_boilerplate or main_content, emit)
    root = None
    if main_content:
        tree = parse(_main_content_html(html))
        root = tree.body or tree.root
    elif keep_boilerplate or tree.body is None:
        root = tree.body or tree.root
    else:
        found = read_main(tree.body, semantic_root(tree), facts["title"])
        renderer.excluded = found.excluded
        said = [0]

        def counted(raw: RawBlock) -> None:
            said[0] += 1
            emit(raw)

        renderer.emit = counted
        if found.title is not None:
            renderer.render(found.title)
        renderer.render(found.root)
        if not said[0]:  # nothing outside furniture: an article inside it, rather than nothing
            article = _article_in_furniture(tree)
            if article is not None:
                renderer = Renderer(False, emit)
                renderer.render(article)
        return
    if root is not None:
        renderer.render(root)


ARTICLE_TEXT = 200
"""Characters of text (white space collapsed) from which an `<article>` inside page furniture is
read when nothing outside furniture is (`_article_in_furniture`)."""


_ARTICLES = "article, [itemtype*='schema.org/Article'], [itemtype*='schema.org/NewsArticle'], " \
            "[itemtype*='schema.org/BlogPosting']"


def _article_in_furniture(tree) -> Any:
    """The `<article>` (or schema.org Article, NewsArticle, BlogPosting) holding the most text,
    ARTICLE_TEXT characters or more, or None: for a page whose content stands in its furniture
    (helper-104: an article in an `<aside>`, the `<main>`'s only content, gave no text). A page
    that is only a login form stays empty."""
    best, size = None, ARTICLE_TEXT - 1
    for article in tree.css(_ARTICLES):
        n = len(" ".join(article.text(deep=True, separator=" ").split()))
        if n > size:
            best, size = article, n
    return best


def _path(node, names: tuple[str, ...], first: bool) -> list:
    """The elements below `node` along its first (`first`) or last element children, as long
    as their tags follow `names`; along the first, past a `<noscript>` where another name is
    sought (a prefix's markup of waiting formatting elements, `pieces._waiting_tags`)."""
    out = []
    for name in names:
        child = node.child if first else node.last_child
        while child is not None and ((child.tag or "-")[0] in "-_!" or (  # text, comments
                first and child.tag == "noscript" and name != "noscript")):
            child = child.next if first else child.prev
        if child is None or child.tag != name:
            break
        out.append(child)
        node = child
    return out


def _furniture_around_main(cut: Cut, keep_boilerplate: bool) -> bool:
    """True when the main element of a `cut` stands inside page furniture (`<nav><main>`) or an
    element always left out (`<noscript><main>`, which the scan may cut inside): the renderer
    would leave the pieces out with it, where the whole page's reading renders from the main
    itself; such a page is read whole."""
    first = cut.parts[0]
    if not cut.main or keep_boilerplate or not first.open_names:
        return False
    if any(name in ALWAYS_DROPPED for name in first.open_names):
        return True  # (a main in a `<noscript>`: the renderer leaves out every piece with it; helper-75)
    body = parse(first.prefix).body
    path = _path(body, first.open_names, first=True) if body is not None else []
    if len(path) < len(first.open_names):
        return True  # not as scanned: the whole reading decides
    scoped = 0
    for node, name in zip(path, first.open_names):
        if name == "main":
            return False
        if is_furniture(node, name, node_attrs(node), scoped):
            return True
        scoped += name in SECTIONING
    return False


def _render_pieces(html: str | bytes, cut: Cut, keep_boilerplate: bool, facts: dict[str, Any],
                   emit: Callable[[RawBlock], None], encoding: str | None = None) -> None:
    """Give the raw blocks of a large page to `emit` one piece's tree at a time (`pieces.cut_page`),
    so only one piece's tree is held; the page's `title` and `lang` set in `facts` from its head.
    Without the main-content selection, which needs the whole tree: the page's `<main>` when
    it has one, page furniture left out by element and role (`select.is_furniture`).
    `html` is the page's text, or its bytes in `encoding` (each piece decoded alone)."""
    _page_facts(parse(cut.head), facts)
    renderer = Renderer(keep_boilerplate, emit)
    for i, piece in enumerate(cut.parts):
        markup = html[piece.start:piece.end]
        tree = parse(piece.prefix + (markup.decode(encoding or "utf-8") if isinstance(markup, bytes) else markup))
        del markup
        body = tree.body
        if body is None:
            continue
        resume = _path(body, piece.open_names, first=True)
        suspend = _path(body, piece.close_names, first=False)
        renderer.render(body, resume, suspend, more=i + 1 < len(cut.parts))
        del tree, body, resume, suspend
    if renderer.going:  # the last piece had no body: end what the pieces left open
        renderer.render(parse("").body)


def _voting_chars(raw: RawBlock) -> int:
    """Characters of a raw block's paragraphs of VOTE_CHARS or more (of its lines, for a list or
    quote): the pieces' measure of the text `MainContent` counts in voting paragraphs."""
    kind, text = raw[0], raw[1]
    if kind == BlockKind.PARAGRAPH:
        return len(text) if len(text) >= VOTE_CHARS else 0
    if kind in (BlockKind.LIST, BlockKind.QUOTE):  # (a line at a time: a list's lines as one list took 8.7x)
        return sum(m.end() - m.start() for m in _LONG_LINE.finditer(text))
    return 0


_LONG_LINE = re.compile(rf"[^\n]{{{VOTE_CHARS},}}")


def _read_cut(html: str | bytes, cut: Cut, keep_boilerplate: bool, facts: dict[str, Any], piece_chars: int,
              encoding: str | None = None, begin: int = 0) -> tuple[Assembler, Cut]:
    """The blocks of a large page read in pieces (`_render_pieces`), and the cut read.

    A `<main>` holding no text, or less than its paragraphs outside it (counted as
    `_voting_chars`, over the whole page's pieces, less its own) names no content: it is empty,
    holds only furniture, or a headline with the page's paragraphs after it. The whole page is
    cut and read instead, as `MainContent.select` does with a page read whole
    (`main.SEMANTIC_SHARE`; helper-103). The whole page's text is counted, not kept, and only
    when the main's markup is less than half the page's. (A main of one piece standing in the
    body or plain blocks is read here too: a large page around a small main was one tree.)"""
    out = Assembler()
    own = 0

    def add(raw: RawBlock) -> None:
        nonlocal own
        own += _voting_chars(raw)
        out.add(raw)

    _render_pieces(html, cut, keep_boilerplate, facts, add if cut.main else out.add, encoding)
    if not cut.main or (out.pos and sum(p.end - p.start for p in cut.parts) >= SEMANTIC_SHARE * (len(html) - begin)):
        return out, cut
    whole = cut_page(html, piece_chars, encoding, begin, main=False)
    if out.pos:
        voting = 0

        def count(raw: RawBlock) -> None:
            nonlocal voting
            voting += _voting_chars(raw)

        _render_pieces(html, whole, keep_boilerplate, {}, count, encoding)
        if voting - own <= SEMANTIC_SHARE / (1 - SEMANTIC_SHARE) * out.pos:
            return out, cut
    out = Assembler()
    _render_pieces(html, whole, keep_boilerplate, facts, out.add, encoding)
    return out, whole


# An article in the markup (`_ARTICLES`): a page whose pieces give no text without furniture is read
# with it only then (one of navigation alone, or a login form, stays empty, as read whole).
_ARTICLE_MARKUP = re.compile(r"<article[\s>]|schema\.org/(?:Article|NewsArticle|BlogPosting)\b", re.I)
_ARTICLE_MARKUP_BYTES = re.compile(_ARTICLE_MARKUP.pattern.encode(), re.I)
FURNITURE_READ = ("no text outside page furniture (navigation, headers, footers, asides, forms) in its pieces: "
                  "the furniture is read")


def _read_furniture(html: str | bytes, piece_chars: int, facts: dict[str, Any], warnings: list[str],
                    encoding: str | None = None, begin: int = 0) -> Assembler:
    """The blocks of a large page read in pieces with its furniture, for one whose pieces gave no
    text without it and whose markup holds an article (read whole, scoring or
    `_article_in_furniture` finds it: helper-104's page of 4.25 M characters whose theme never
    closed `<header id=branding>` gave none); FURNITURE_READ said."""
    out, _ = _read_cut(html, cut_page(html, piece_chars, encoding, begin, main=False), True, facts, piece_chars,
                       encoding, begin)
    if out.pos:
        warnings.append(FURNITURE_READ)
    return out


_PLAIN_AROUND = frozenset(("div", "section", "main"))
"""Elements a main of one piece may stand in to be read as pieces (`_read_cut`); in others (a
list, a table) its piece's reading may differ from the whole page's, which is read whole."""


def _pieces_read(cut: Cut) -> bool:
    """True when a large page's `cut` is read in pieces: it has two or more, or one of a main
    in plain blocks (`_PLAIN_AROUND`)."""
    return len(cut.parts) > 1 or (cut.main and set(cut.parts[0].open_names) <= _PLAIN_AROUND)


def _pieces_warning(n_chars: int, cut: Cut) -> str:
    where = "its <main> element, " if cut.main else ""
    pieces = "1 piece" if len(cut.parts) == 1 else f"{len(cut.parts)} pieces"
    return (f"page of {n_chars:,} characters read in {pieces}, so that its memory stays bounded: "
            f"{where}page furniture left out by element and role only, without the main-content selection")


_NOSCRIPT_OPEN = re.compile(r"<noscript(?=[\s/>])[^>]*>", re.I)
_NOSCRIPT_CLOSE = re.compile(r"</noscript\s*>", re.I)
_NOSCRIPT_OPEN_BYTES = re.compile(_NOSCRIPT_OPEN.pattern.encode(), re.I)
_NOSCRIPT_CLOSE_BYTES = re.compile(_NOSCRIPT_CLOSE.pattern.encode(), re.I)


def empty_noscripts(html: Any) -> Any:
    """`html` (text or bytes) with every `<noscript>` emptied, as a browser with scripting on reads
    it (its content is text that is never shown). The parser reads with scripting off, where a
    noscript holding an element left open ignores its end tag: `<noscript><div id=x></noscript>`
    at the top of the body held the whole page, which was left out with it (helper-104: a real
    page gave no text, even with --keep-boilerplate); and a paragraph in a noscript in the head
    was shown. The same object when there is none; time linear in the markup."""
    as_bytes = isinstance(html, bytes)
    opening, closing = (_NOSCRIPT_OPEN_BYTES, _NOSCRIPT_CLOSE_BYTES) if as_bytes else (_NOSCRIPT_OPEN, _NOSCRIPT_CLOSE)
    parts = []
    pos = 0
    while (m := opening.search(html, pos)) is not None and (e := closing.search(html, m.end())) is not None:
        if e.start() > m.end():
            parts.append(html[pos:m.end()])
            pos = e.start()
        else:
            parts.append(html[pos:e.end()])
            pos = e.end()
    if not parts:
        return html
    parts.append(html[pos:])
    return (b"" if as_bytes else "").join(parts)


def render_html_bytes(data: bytes, encoding: str, n_chars: int, keep_boilerplate: bool = False,
                      piece_chars: int = PIECE_CHARS) -> tuple[str, BlockList, dict[str, Any], list[str]] | None:
    """`render_html` of a large page read in pieces straight from its bytes, so the page is never
    held as one string; None when no cut is found (read it whole then).

    Args:
        data: the page's bytes, a UTF-8 byte-order mark allowed.
        encoding: their codec, one `pieces.is_piecewise_codec` accepts.
        n_chars: the page's length in characters (for the warning).
        keep_boilerplate: as in `render_html`.
        piece_chars: bytes of markup a piece reaches before it is cut.
    """
    data = empty_noscripts(data)
    begin = 0
    if data.startswith(codecs.BOM_UTF8) and codecs.lookup(encoding).name in ("utf-8", "utf-8-sig"):
        begin, encoding = len(codecs.BOM_UTF8), "utf-8"
    cut = cut_page(data, piece_chars, encoding, begin, main=not keep_boilerplate)
    if not _pieces_read(cut) or _furniture_around_main(cut, keep_boilerplate):
        return None
    facts: dict[str, Any] = {"title": None, "lang": None}
    out, cut = _read_cut(data, cut, keep_boilerplate, facts, piece_chars, encoding, begin)
    warnings = [_pieces_warning(n_chars, cut)]
    if out.pos == 0 and not keep_boilerplate and _ARTICLE_MARKUP_BYTES.search(data):
        out = _read_furniture(data, piece_chars, facts, warnings, encoding, begin)
    text, blocks, first_h1 = out.finish()
    facts["first_h1"] = first_h1
    return text, blocks, facts, warnings


def render_html(html: str, keep_boilerplate: bool = False, main_content: bool = False,
                pieces_from: int = PIECES_FROM, piece_chars: int = PIECE_CHARS, tags_from: int = PIECES_FROM_TAGS,
                ) -> tuple[str, BlockList, dict[str, Any], list[str]]:
    """Turn decoded HTML into the document text and its blocks.

    Args:
        html: the page as text.
        keep_boilerplate: keep page furniture (scripts, styles and other non-text stay out).
        main_content: keep only the main article, found by trafilatura.
        pieces_from, piece_chars, tags_from: a page of at least `pieces_from` characters or
            `tags_from` `<` characters (after any cut for deep nesting; `pieces.read_in_pieces`)
            is parsed in pieces of about `piece_chars` characters (`_render_pieces`), unless
            `main_content`.

    Returns:
        (document text, blocks, page facts {"title": <title> text or None, "lang": ...}, warnings).

    Raises:
        MissingExtraError: `main_content` without trafilatura installed.
    """
    warnings: list[str] = []
    html = empty_noscripts(html)
    cut = nesting_cut(html)
    page = html
    if cut is not None:
        warnings.append(f"markup nested deeper than {MAX_DEPTH} elements at character {cut}; "
                        f"the rest of the page is read as plain paragraphs, without its structure")
        html = html[:cut]
    facts: dict[str, Any] = {"title": None, "lang": None}
    pieced = cut_page(html, piece_chars, main=not keep_boilerplate) if not main_content and read_in_pieces(html, pieces_from, tags_from) \
        else None
    if pieced is not None and _pieces_read(pieced) and not _furniture_around_main(pieced, keep_boilerplate):
        out, pieced = _read_cut(html, pieced, keep_boilerplate, facts, piece_chars)
        warnings.append(_pieces_warning(len(html), pieced))
        if out.pos == 0 and not keep_boilerplate and _ARTICLE_MARKUP.search(html):
            out = _read_furniture(html, piece_chars, facts, warnings)
    else:
        out = Assembler()
        _render(html, keep_boilerplate, main_content, facts, out.add)  # (the parser's tree is gone on return)
    if cut is not None:
        flat_paragraphs(page, lambda para: out.add((BlockKind.PARAGRAPH, para, 0, "", None, (), None)), cut)
    del page
    text, blocks, first_h1 = out.finish()
    facts["first_h1"] = first_h1
    return text, blocks, facts, warnings


@register("html", ".html", ".htm", paged=False, sample=b"<h1>Warm</h1><p>Up.</p>")
def load_html(data: bytes, source: str, config) -> Document:
    """Load an HTML page: its content as typed blocks, the document text built from them.

    Decoding: `config.encoding`, else BOM, strict UTF-8, the page's `<meta>` charset
    declarations (read as browsers read labels), detection, cp1252. The document text
    is the blocks' text joined by blank lines ("\\n\\n"), exactly what `chunkctl
    extract` prints; block spans index it in characters. Page furniture is left out
    unless `config.keep_boilerplate`; `config.main_content` keeps only the article.

    Args:
        data: the file's bytes.
        source: the file's path as recorded (`-` for stdin).
        config: the run's ChunkConfig (encoding, keep_boilerplate, main_content).

    Returns:
        a Document with `meta` title (from `<title>`, else the first h1, else the file
        stem), `lang` (when the page says), `encoding` and `sha256`.

    Raises:
        LoaderError: binary file, or bytes that do not decode with `config.encoding`.
        MissingExtraError: `main_content` without trafilatura installed.
    """
    declared = declared_charsets(data) if not config.encoding else None
    decoded = decode_bytes(data, source, forced=config.encoding, declared=declared, lossy=True)
    html, encoding, guessed = decoded.text, decoded.encoding, decoded.warning
    exact = not decoded.replaced[0]  # (bytes that are not UTF-8, replaced: the pieces are cut from the text)
    del decoded
    try:
        rendered = None
        if (not config.main_content and exact and read_in_pieces(html, PIECES_FROM, PIECES_FROM_TAGS)
                and is_piecewise_codec(encoding) and nesting_cut(html) is None):
            n_chars = len(html)
            del html  # (a page with one emoji is 4 bytes a character as a string: read from its bytes)
            rendered = render_html_bytes(data, encoding, n_chars, config.keep_boilerplate, PIECE_CHARS)
            if rendered is None:  # no cut found in the bytes: none in the text either, read it whole
                html = decode_bytes(data, source, forced=encoding).text
                rendered = render_html(html, config.keep_boilerplate, config.main_content, sys.maxsize,
                                       PIECE_CHARS, sys.maxsize)
        if rendered is None:
            rendered = render_html(html, config.keep_boilerplate, config.main_content, PIECES_FROM, PIECE_CHARS,
                                   PIECES_FROM_TAGS)
        text, blocks, facts, warnings = rendered
    except RecursionError:
        raise LoaderError(source, "markup nested too deeply to read") from None
    meta: dict[str, Any] = {
        "title": facts["title"] or facts["first_h1"],  # None: the registry gives the file stem
        "encoding": encoding,
    }
    if facts["lang"]:
        meta["lang"] = facts["lang"]
    doc = Document(source=source, format="html", text=text, blocks=blocks, meta=meta)
    if guessed:
        doc.warnings.append(guessed)
    doc.warnings.extend(warnings)
    return doc
