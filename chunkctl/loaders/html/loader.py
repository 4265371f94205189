"""HTML loader: bytes -> decoded page -> lexbor DOM -> content blocks and the text they span; never counts tokens."""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

from chunkctl.errors import LoaderError, MissingExtraError
from chunkctl.model import Block, BlockKind, Document
from chunkctl.loaders.registry import register
from chunkctl.loaders.decode import decode
from chunkctl.loaders.html.text import Lines, TableGrid, collapse, line_spans

# ---------------------------------------------------------------- element classes

HEADING_LEVELS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
# Never text, whatever the options: code, styling, inert or embedded content, furigana.
ALWAYS_DROPPED = frozenset(
    "script style noscript template head title meta link base svg canvas iframe frame frameset object embed "
    "video audio source track img picture map area input param rt rp noembed noframes".split())
# Page furniture, dropped unless keep_boilerplate (`header` only outside article/section/main: see _is_furniture).
FURNITURE_TAGS = frozenset("nav footer aside form button select textarea dialog search".split())
FURNITURE_ROLES = frozenset("navigation banner contentinfo search complementary dialog alertdialog".split())
# Elements inside which a <header> is the section's own heading block, not the page banner (HTML-AAM).
SECTIONING = frozenset("article aside main nav section".split())
BLOCK_TAGS = frozenset(
    "address article aside blockquote body center dd details dialog dir div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend li listing main menu nav ol p plaintext pre "
    "search section summary table caption thead tbody tfoot tr td th ul xmp optgroup option".split())
PRE_TAGS = frozenset("pre listing xmp plaintext".split())
LIST_TAGS = frozenset("ul ol menu dir dl".split())
_CELL_BLOCKS = "p, div, ul, ol, dl, pre, blockquote, h1, h2, h3, h4, h5, h6, table table"

_CONSENT = re.compile(r"(?:^|[\s_-])(?:cookie|cookies|consent|gdpr|cmp)(?:$|[\s_-])|cookiebot|onetrust|"
                      r"cookie-?(?:banner|notice|bar|law)", re.I)
_DISPLAY_NONE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]{1,40})")

# ---------------------------------------------------------------- charset prescan

_META_OR_COMMENT = re.compile(rb"<!--.*?-->|<meta\b([^>]*)>", re.I | re.S)
_ATTR = re.compile(rb"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")
_CONTENT_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([^\s"';,]+)""", re.I)
PRESCAN_BYTES = 32768


def declared_charsets(data: bytes, limit: int = PRESCAN_BYTES) -> list[str]:
    """Encoding labels the page declares in `<meta charset>` or `<meta http-equiv="Content-Type">`.

    A prescan of the raw bytes like the browser's (WHATWG HTML "prescan a byte stream"),
    but over the first `limit` bytes rather than 1024 (saved pages often carry a long
    head) and returning every declaration in order, so that a later one can serve when
    an earlier one does not decode. Comments are skipped; a UTF-16 label reads as UTF-8.

    Args:
        data: the file's bytes.
        limit: how many leading bytes to scan.

    Returns:
        the labels as declared (not yet mapped to codecs), first declaration first.
    """
    out: list[str] = []
    for m in _META_OR_COMMENT.finditer(data, 0, limit):
        body = m.group(1)
        if body is None:
            continue
        attrs: dict[bytes, bytes] = {}
        for a in _ATTR.finditer(body):
            name = a.group(1).lower()
            if name not in attrs:
                attrs[name] = a.group(2) or a.group(3) or a.group(4) or b""
        label = attrs.get(b"charset", b"").strip()
        if not label and attrs.get(b"http-equiv", b"").strip().lower() == b"content-type":
            c = _CONTENT_CHARSET.search(attrs.get(b"content", b""))
            label = c.group(1) if c else b""
        if label:
            text = label.decode("ascii", "ignore").strip()
            out.append("utf-8" if text.lower().startswith("utf-16") else text)
    return out


# ---------------------------------------------------------------- nesting guard

MAX_DEPTH = 4096
# Elements that never nest (void) or whose start closes an open one of their kind: not counted.
_FLAT_NAMES = ("area base br col embed hr img input link meta source track wbr p li dt dd option tr td th "
               "param keygen basefont bgsound frame")
_FLAT = frozenset(_FLAT_NAMES.split())
_NESTING_TAG = re.compile(r"<(/?)(?!(?:%s)[\s/>])[A-Za-z]" % "|".join(_FLAT_NAMES.split()), re.I)
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


# ---------------------------------------------------------------- content selection

def _parse(html: str):
    from selectolax.lexbor import LexborHTMLParser

    return LexborHTMLParser(html)


def _attrs(node) -> dict[str, Any]:
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
        role = (_attrs(p).get("role") or "").strip().lower()
        if role in FURNITURE_ROLES:
            return False
        p = p.parent
    return True


def content_root(tree, keep_boilerplate: bool = False):
    """The element whose content is the page's text.

    Rule: exactly one top-level `<article>` outside page furniture ->
    that article; else the first `<main>` (or `role="main"`) -> it; else `<body>`.
    With `keep_boilerplate` always `<body>`. Furniture inside the chosen element is
    dropped later, while walking.

    Returns:
        a selectolax node (the document root when the page has no body).
    """
    body = tree.body or tree.root
    if keep_boilerplate or body is None:
        return body
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
    main = tree.css_first("main") or tree.css_first('[role="main"]')
    if main is not None:
        return main
    return body


def _is_furniture(node, tag: str, attrs: dict[str, Any], scoped: int) -> bool:
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
    if style and _DISPLAY_NONE.search(style):
        return True
    marks = " ".join(v for v in (attrs.get("id"), attrs.get("class")) if v)
    if marks and _CONSENT.search(marks) and tag not in ("body", "html", "main", "article"):
        return node.css_first("main, article, h1") is None
    return False


def _is_data_table(node, attrs: dict[str, Any]) -> bool:
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
    return node.css_first(_CELL_BLOCKS) is None


# ---------------------------------------------------------------- rendering

# A raw block: (kind, text, level, language, header span, row spans); spans relative to its text.
RawBlock = tuple[BlockKind, str, int, str, "tuple[int, int] | None", "tuple[tuple[int, int], ...]", dict]

_FLOW, _LINES, _CODE, _HEAD, _TABLE = range(5)


class _Frame:
    """One open sink of the walk: where text goes until the element that opened it ends."""

    __slots__ = ("kind", "node", "lines", "level", "language", "block_kind", "lists", "row_starts",
                 "grid", "cell", "cell_th", "cell_span", "caption", "in_head")

    def __init__(self, kind: int, node=None, lines: Lines | None = None):
        self.kind = kind
        self.node = node
        self.lines = lines
        self.level = 0
        self.language = ""
        self.block_kind = BlockKind.PARAGRAPH
        self.lists: list[list] = []      # open lists: [tag, next number, indent, reversed]
        self.row_starts: list[int] = []  # line index of each top-level item
        self.grid: TableGrid | None = None
        self.cell: Lines | None = None
        self.cell_th = False
        self.cell_span = (1, 1)
        self.caption: Lines | None = None
        self.in_head = False


def _int_attr(attrs: dict[str, Any], name: str, default: int) -> int:
    v = attrs.get(name)
    if v is None:
        return default
    m = re.match(r"\s*(-?\d{1,6})", v)
    return int(m.group(1)) if m else default


class _Renderer:
    """Walks a content root once, without recursion, and turns it into raw blocks.

    Sinks: the flow (paragraphs between blocks), a heading, a code block, a list or
    quote (indented lines), a data table (a grid of one-line cells). Elements that
    open a sink push a frame; their end pops it and hands the result to the frame
    below (a block of the document, or lines of an enclosing list).
    """

    def __init__(self, keep_boilerplate: bool):
        self.keep = keep_boilerplate
        self.blocks: list[RawBlock] = []
        self.para = Lines()
        self.frames: list[_Frame] = [_Frame(_FLOW, lines=self.para)]
        self.raw_depth = 0
        self.scoped = 0  # open sectioning elements (article, aside, main, nav, section)

    # -- output
    def _emit(self, kind: BlockKind, text: str, level: int = 0, language: str = "",
              header: tuple[int, int] | None = None, rows: tuple = (), meta: dict | None = None) -> None:
        """Add a block; its text is stripped (code keeps its first line's indentation), spans follow."""
        body = text.rstrip()
        lead = 0 if kind == BlockKind.CODE else len(body) - len(body.lstrip())
        if lead == len(body):
            return
        if lead:
            body = body[lead:]
            header = (max(0, header[0] - lead), header[1] - lead) if header is not None else None
            rows = tuple((max(0, a - lead), b - lead) for a, b in rows if b > lead)
        self.blocks.append((kind, body, level, language, header, rows, meta or {}))

    def _flush(self) -> None:
        if self.para.cur or self.para.lines:
            self._emit(BlockKind.PARAGRAPH, self.para.take())
            self.para = Lines()
            self.frames[0].lines = self.para

    def _sink(self) -> Lines | None:
        f = self.frames[-1]
        if f.kind == _TABLE:
            return f.cell if f.cell is not None else f.caption
        return f.lines

    # -- the walk
    def render(self, root) -> list[RawBlock]:
        """Raw blocks of the content under `root` (root itself included)."""
        stack: list[tuple[Any, bool]] = [(root, False)]
        pop = stack.pop
        push = stack.append
        while stack:
            node, closing = pop()
            if closing:
                self._close(node)
                continue
            tag = node.tag
            if tag == "-text":
                sink = self._sink()
                if sink is not None:
                    t = node.text_content
                    if self.raw_depth:
                        sink.raw(t)
                    elif t.isspace():  # most text nodes: the indentation between tags
                        sink.space = True
                    elif t:
                        sink.text(collapse(t))
                continue
            if tag[0] == "-" or tag in ALWAYS_DROPPED:
                continue
            attrs = _attrs(node)
            if not self.keep and _is_furniture(node, tag, attrs, self.scoped):
                continue
            if not self._open(node, tag, attrs):
                continue
            push((node, True))
            child = node.last_child
            while child is not None:
                push((child, False))
                child = child.prev
        while len(self.frames) > 1:  # frames left open by an unbalanced walk (never expected)
            self._close(self.frames[-1].node)
        self._flush()
        return self.blocks

    def _open(self, node, tag: str, attrs: dict[str, Any]) -> bool:
        """Handle a start tag; False to skip the element's content."""
        if tag in SECTIONING:
            self.scoped += 1
        f = self.frames[-1]
        kind = f.kind
        if tag == "br":
            sink = self._sink()
            if sink is not None:
                sink.raw("\n") if self.raw_depth else sink.br()
            return False
        if tag == "math":
            alt = attrs.get("alttext")
            if alt:
                sink = self._sink()
                if sink is not None:
                    sink.text(" " + collapse(alt) + " ")
                return False
            return True
        if kind == _TABLE:
            return self._open_table_part(f, node, tag, attrs)
        if kind in (_HEAD, _CODE):
            if tag in PRE_TAGS:
                self.raw_depth += 1
            if tag in BLOCK_TAGS:
                f.lines.newline()
            return True
        if tag in PRE_TAGS:
            self.raw_depth += 1
            if kind == _FLOW:
                self._flush()
                fr = _Frame(_CODE, node, Lines())
                fr.language = self._language(node, attrs)
                self.frames.append(fr)
            else:
                f.lines.newline()
            return True
        if tag == "table" and _is_data_table(node, attrs):
            if kind == _FLOW:
                self._flush()
            else:
                f.lines.newline()
            fr = _Frame(_TABLE, node)
            fr.grid = TableGrid()
            self.frames.append(fr)
            return True
        if kind == _FLOW:
            level = HEADING_LEVELS.get(tag)
            if level:
                self._flush()
                fr = _Frame(_HEAD, node, Lines(one_line=True))
                fr.level = level
                self.frames.append(fr)
                return True
            if tag in LIST_TAGS or tag == "blockquote":
                self._flush()
                fr = _Frame(_LINES, node, Lines())
                fr.block_kind = BlockKind.QUOTE if tag == "blockquote" else BlockKind.LIST
                self.frames.append(fr)
                if tag in LIST_TAGS:
                    self._open_list(fr, tag, attrs)
                return True
            if tag in BLOCK_TAGS:
                self._flush()
            return True
        # kind == _LINES: lists and quotes keep everything as indented lines
        if tag in LIST_TAGS:
            self._open_list(f, tag, attrs)
            return True
        if tag in ("li", "dt", "dd"):
            self._open_item(f, tag, attrs)
            return True
        if tag in BLOCK_TAGS:
            f.lines.newline()
        return True

    def _open_list(self, f: _Frame, tag: str, attrs: dict[str, Any]) -> None:
        f.lines.newline()
        start = _int_attr(attrs, "start", 1)
        rev = "reversed" in attrs
        f.lists.append([tag, start, f.lines.indent, rev])

    def _open_item(self, f: _Frame, tag: str, attrs: dict[str, Any]) -> None:
        lines = f.lines
        if not f.lists:  # an item outside any list (inside a quote): a plain line
            lines.newline()
            f.lists.append(["ul", 1, lines.indent, False])
            top_level = False
        else:
            top_level = len(f.lists) == 1
        lst = f.lists[-1]
        if tag == "li":
            if lst[0] == "ol":
                n = _int_attr(attrs, "value", lst[1])
                marker = f"{n}. "
                lst[1] = n - 1 if lst[3] else n + 1
            else:
                marker = "- "
        elif tag == "dt":
            marker = ""
        else:
            marker = ": "
        lines.newline()
        if top_level and f.block_kind == BlockKind.LIST and (tag != "dd" or not f.row_starts):
            f.row_starts.append(lines.n_lines)
        lst.append(lines.start_item(marker, lst[2]))

    def _open_table_part(self, f: _Frame, node, tag: str, attrs: dict[str, Any]) -> bool:
        if f.cell is not None:  # inside a cell: everything is inline text of the cell
            if tag in PRE_TAGS:
                self.raw_depth += 1
            if tag in BLOCK_TAGS:
                f.cell.newline()
            return True
        if tag == "tr":
            f.grid.new_row(f.in_head)
        elif tag in ("td", "th"):
            f.cell = Lines(one_line=True)
            f.cell_th = tag == "th"
            f.cell_span = (_int_attr(attrs, "rowspan", 1), _int_attr(attrs, "colspan", 1))
        elif tag == "thead":
            f.in_head = True
        elif tag == "caption":
            f.caption = Lines(one_line=True)
        return True

    @staticmethod
    def _language(node, attrs: dict[str, Any]) -> str:
        """Language of a code block from class="language-x" (or lang-x) on the pre or its code child."""
        for cls in (attrs.get("class"), *(_attrs(c).get("class") for c in node.iter() if c.tag == "code")):
            if cls:
                m = _LANGUAGE.search(cls)
                if m:
                    return m.group(1).lower()
        return ""

    def _close(self, node) -> None:
        """Handle an end tag."""
        tag = node.tag
        if tag in SECTIONING:
            self.scoped -= 1
        f = self.frames[-1]
        if f.node is node:
            self._close_frame(f)
            return
        if tag in PRE_TAGS:
            self.raw_depth -= 1
        if f.kind == _TABLE:
            if f.cell is not None and tag in ("td", "th"):
                f.grid.add_cell(f.cell.take(), f.cell_th, *f.cell_span)
                f.cell = None
            elif f.cell is not None:
                if tag in BLOCK_TAGS:
                    f.cell.newline()
            elif tag == "thead":
                f.in_head = False
            return
        if f.kind == _LINES:
            if tag in LIST_TAGS and f.lists:
                f.lists.pop()
                f.lines.newline()
                return
            if tag in ("li", "dt", "dd") and f.lists and len(f.lists[-1]) > 4:
                f.lines.end_item(f.lists[-1].pop())
                return
        if tag in BLOCK_TAGS:
            if f.kind == _FLOW:
                self._flush()
            else:
                f.lines.newline()

    def _close_frame(self, f: _Frame) -> None:
        self.frames.pop()
        if f.kind == _CODE:
            self.raw_depth -= 1
            self._emit(BlockKind.CODE, f.lines.take(), language=f.language)
            return
        if f.kind == _HEAD:
            self._emit(BlockKind.HEADING, f.lines.take(), level=f.level)
            return
        parent = self.frames[-1]
        if f.kind == _LINES:
            lines = f.lines.finish()
            rows = tuple(line_spans(lines, f.row_starts)) if f.block_kind == BlockKind.LIST else ()
            self._emit(f.block_kind, "\n".join(lines), rows=rows)
            return
        if f.kind == _TABLE:
            table_lines, n_head, header_cells = f.grid.render()
            caption = f.caption.take() if f.caption is not None else ""
            if parent.kind == _FLOW:
                if caption:
                    self._emit(BlockKind.PARAGRAPH, caption)
                if not table_lines:
                    return
                text = "\n".join(table_lines)
                head_end = len(table_lines[0]) + 1 + len(table_lines[1])
                rows = tuple(line_spans(table_lines, list(range(n_head, len(table_lines)))))
                self._emit(BlockKind.TABLE, text, header=(0, head_end), rows=rows,
                           meta={"header_cells": header_cells})
            else:
                sink = parent.lines
                if caption:
                    sink.line(caption)
                for ln in table_lines:
                    sink.line(ln)
            return


# ---------------------------------------------------------------- document assembly

def assemble(raw: list[RawBlock]) -> tuple[str, list[Block], str | None]:
    """Join raw blocks with blank lines into the document text and give each block its span and heading path.

    Returns:
        (document text, blocks, text of the first h1 or None).
    """
    parts: list[str] = []
    blocks: list[Block] = []
    path: list[tuple[int, str]] = []
    first_h1 = None
    pos = 0
    for kind, text, level, language, header, rows, meta in raw:
        if parts:
            parts.append("\n\n")
            pos += 2
        start, end = pos, pos + len(text)
        parts.append(text)
        pos = end
        if kind == BlockKind.HEADING:
            title = text.replace("\ufffd", "").strip()
            if level == 1 and first_h1 is None and title:
                first_h1 = title
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, title))
            blocks.append(Block(kind, start, end, level=level, headings=tuple(t for _, t in path)))
            continue
        blocks.append(Block(
            kind, start, end,
            headings=tuple(t for _, t in path),
            language=language,
            header=(start + header[0], start + header[1]) if header is not None else None,
            rows=tuple((start + a, start + b) for a, b in rows),
            meta=meta,
        ))
    return "".join(parts), blocks, first_h1


def _main_content_html(html: str) -> str:
    """The main article of a page as HTML, by trafilatura (the optional extra `chunkctl[html-main]`)."""
    try:
        import trafilatura
    except ImportError:
        raise MissingExtraError("--main-content", "html-main", "trafilatura") from None
    out = trafilatura.extract(html, output_format="html", include_tables=True, include_comments=False,
                              include_images=False, include_links=False, include_formatting=True)
    return out or ""


def render_html(html: str, keep_boilerplate: bool = False, main_content: bool = False
                ) -> tuple[str, list[Block], dict[str, Any], list[str]]:
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
    if cut is not None:
        warnings.append(f"markup nested deeper than {MAX_DEPTH} elements at character {cut}; "
                        f"the rest of the page is left out")
        html = html[:cut]
    tree = _parse(html)
    facts: dict[str, Any] = {"title": None, "lang": None}
    title_node = tree.css_first("head title") or tree.css_first("title")
    if title_node is not None:
        facts["title"] = collapse(title_node.text(deep=True)).strip() or None
    html_node = tree.css_first("html")
    if html_node is not None:
        a = _attrs(html_node)
        lang = (a.get("lang") or a.get("xml:lang") or "").strip()
        facts["lang"] = lang or None
    if main_content:
        tree = _parse(_main_content_html(html))
        root = tree.body or tree.root
    else:
        root = content_root(tree, keep_boilerplate)
    raw = _Renderer(keep_boilerplate or main_content).render(root) if root is not None else []
    text, blocks, first_h1 = assemble(raw)
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
    html, encoding = decode(data, source, forced=config.encoding, declared=declared)
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
    doc.warnings.extend(warnings)
    return doc
