"""HTML loader: the document text and blocks assembled from rendered raw blocks as they come, and `load_html`; never counts tokens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chunkctl.errors import LoaderError, MissingExtraError
from chunkctl.loaders.decode import decode_bytes
from chunkctl.loaders.headings import HeadingPath
from chunkctl.loaders.html.charset import declared_charsets
from chunkctl.loaders.html.main import MainContent
from chunkctl.loaders.html.nesting import MAX_DEPTH, flat_paragraphs, nesting_cut
from chunkctl.loaders.html.render import RawBlock, Renderer
from chunkctl.loaders.html.select import node_attrs, parse, semantic_root
from chunkctl.loaders.html.text import collapse
from chunkctl.loaders.registry import register
from chunkctl.model import Block, BlockKind, BlockList, Document, compact_spans


class Assembler:
    """Joins raw blocks with blank lines into the document text, giving each block its span and
    heading path, as they come (`add`); `finish` returns the result. A page of one-word
    paragraphs holds no list of raw blocks: each becomes a `Block` (compact columns) at once."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.blocks = BlockList()
        self.path = HeadingPath()  # the path in force, one tuple for the blocks under a heading
        self.first_h1: str | None = None
        self.pos = 0  # characters of the document text so far

    def add(self, raw: RawBlock) -> None:
        """Append one raw block (its text after a blank line, unless it is the first)."""
        kind, text, level, language, header, rows, meta = raw
        if self.parts:
            self.parts.append("\n\n")
            self.pos += 2
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
            rows=compact_spans((start + a, start + b) for a, b in rows),
            meta=meta or {},
        ))

    def finish(self) -> tuple[str, BlockList, str | None]:
        """(document text, blocks, text of the first h1 or None)."""
        text = "".join(self.parts)
        self.parts = []
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


def _render(html: str, keep_boilerplate: bool, main_content: bool, facts: dict[str, Any],
            emit: Callable[[RawBlock], None]) -> None:
    """Give the raw blocks of a page (`render_html`) to `emit`, its `title` and `lang` set in
    `facts`. The parser's tree (some 150 bytes a node: 36x a page of one-word paragraphs)
    lives only here."""
    tree = parse(html)
    title_node = tree.css_first("head title") or tree.css_first("title")
    if title_node is not None:
        facts["title"] = collapse(title_node.text(deep=True)).strip() or None
    html_node = tree.css_first("html")
    if html_node is not None:
        a = node_attrs(html_node)
        lang = (a.get("lang") or a.get("xml:lang") or "").strip()
        facts["lang"] = lang or None
    renderer = Renderer(keep_boilerplate or main_content, emit)
    root = None
    if main_content:
        tree = parse(_main_content_html(html))
        root = tree.body or tree.root
    elif keep_boilerplate or tree.body is None:
        root = tree.body or tree.root
    else:
        found = MainContent(tree.body).select(semantic_root(tree), facts["title"])
        renderer.excluded = found.excluded
        if found.title is not None:
            renderer.render(found.title)
        root = found.root
    if root is not None:
        renderer.render(root)


def render_html(html: str, keep_boilerplate: bool = False, main_content: bool = False
                ) -> tuple[str, BlockList, dict[str, Any], list[str]]:
    """Turn decoded HTML into the document text and its blocks.

    Args:
        html: the page as text.
        keep_boilerplate: keep page furniture (scripts, styles and other non-text stay out).
        main_content: keep only the main article, found by trafilatura.

    Returns:
        (document text, blocks, page facts {"title": <title> text or None, "lang": ...}, warnings).

    Raises:
        MissingExtraError: `main_content` without trafilatura installed.
    """
    warnings: list[str] = []
    cut = nesting_cut(html)
    rest: list[str] = []
    if cut is not None:
        rest = flat_paragraphs(html[cut:])
        warnings.append(f"markup nested deeper than {MAX_DEPTH} elements at character {cut}; "
                        f"the rest of the page is read as plain paragraphs, without its structure")
        html = html[:cut]
    facts: dict[str, Any] = {"title": None, "lang": None}
    out = Assembler()
    _render(html, keep_boilerplate, main_content, facts, out.add)  # (the parser's tree is gone on return)
    for para in rest:
        out.add((BlockKind.PARAGRAPH, para, 0, "", None, (), None))
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
    decoded = decode_bytes(data, source, forced=config.encoding, declared=declared)
    html, encoding = decoded.text, decoded.encoding
    try:
        text, blocks, facts, warnings = render_html(html, config.keep_boilerplate, config.main_content)
    except RecursionError:
        raise LoaderError(source, "markup nested too deeply to read") from None
    meta: dict[str, Any] = {
        "title": facts["title"] or facts["first_h1"],  # None: the registry gives the file stem
        "encoding": encoding,
    }
    if facts["lang"]:
        meta["lang"] = facts["lang"]
    doc = Document(source=source, format="html", text=text, blocks=blocks, meta=meta)
    if decoded.warning:
        doc.warnings.append(decoded.warning)
    doc.warnings.extend(warnings)
    return doc
