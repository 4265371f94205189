"""Markdown loader: markdown-it-py block structure -> typed blocks with character spans; never counts tokens."""

from __future__ import annotations

import bisect
import html
import itertools
import re
from array import array
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

import orjson

from chunkctl.loaders.decode import decode_bytes
from chunkctl.loaders.headings import TITLE_CHARS, HeadingPath, split_at_headings, wiki_headings
from chunkctl.loaders.mathblocks import mark_display_math
from chunkctl.loaders.payloads import cut_payloads
from chunkctl.loaders.pipetables import as_pipe_table
from chunkctl.loaders.registry import register
from chunkctl.model import Block, BlockKind, BlockList, Document, Spans, compact_spans
from chunkctl.text.lines import line_starts as lines_of

_NONSPACE = re.compile(r"\S")
# Front matter: YAML between --- lines (closed by --- or ...), TOML between +++ lines.
_FRONT_MATTER = re.compile(
    r"\A(?P<open>---|\+\+\+)[ \t]*(?:\r\n|\r|\n)(?:(?P<body>.*?)(?:\r\n|\r|\n))?"  # an empty block too (Jekyll)
    r"(?P<close>---|\+\+\+|\.\.\.)[ \t]*(?:\r\n|\r|\n|\Z)",
    re.S,
)
# Heading text: an attribute block at the end ("## Styles {#styles}": Pandoc, kramdown "{: #id}",
# Python-Markdown's attr_list "{ #id .class }", MDX ids "{/slug/}"),
# reference links ("[text][ref]": their definitions are elsewhere, so the inline parser
# would keep the brackets), characters that may be inline markup, and the longest heading
# given to the inline parser (a longer one is a paragraph that lost its line breaks).
# An attribute block, and an ATX closing sequence, at a heading's end: the rule `_without_tail_marks`
# applies from the end (its tests compare it with these patterns)
_ATTRIBUTES = re.compile(r"\s*\{:?[ \t]*[#./][^{}]*\}\s*$")
_ATTRIBUTE_BLOCK = re.compile(r"\{:?[ \t]*[#./][^{}]*\}")  # (`_ATTRIBUTES` without its white space)
_REFERENCE_LINK = re.compile(r"(?<!\\)!?\[([^\]]*)\]\[[^\]]*\]")
_MARKUP = re.compile(r"[\\`*_\[\]<>&!~]")
MAX_INLINE = 4000
_INLINE_MARK = re.compile(r"(?<!\w)[*_]{1,3}|[*_]{1,3}(?!\w)|`+|~~|<[^>]{1,200}>")

_CLOSING_HASHES = re.compile(r"(?:^|\s+)#+\s*$")

_MD = None


def _parser():
    """A markdown-it-py parser for block structure only (CommonMark + GFM tables).

    Built once per process and set up for speed without changing a token's type, map or
    nesting: no inline parsing; code, HTML and paragraph tokens get no `content`
    (`_no_content`); tables come as two tokens (`_compact_table`); line markers are found a
    line at a time with string methods (`_State`); and the block rules run without their
    `LOGGER.debug` calls (`_quiet`), which were about 6% of a parse with logging off.
    """
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        # (definition tokens: where link reference definitions stand, a place a piece can end)
        md = MarkdownIt("commonmark", {"html": True, "inline_definitions": True}).enable(["table", "strikethrough"])
        # Inline parsing is not needed for block spans; skipping it halves the parse time.
        md.core.ruler.disable(["inline", "text_join"], ignoreInvalid=True)
        md.core.ruler.at("normalize", _normalize)
        for rule in list(md.block.ruler.__rules__):
            fn = _quiet(rule.fn)
            if rule.name == "table":
                fn = _compact_table(_with_stand_in_rows(fn))
            elif rule.name in ("fence", "code", "html_block", "paragraph"):
                fn = _no_content(fn)
            md.block.ruler.at(rule.name, fn, {"alt": list(rule.alt)})
        md.block = _block_parser(md.block)
        _MD = md
    return _MD


_INDENT = re.compile(r"[ \t]*")
_CR = re.compile(r"\r\n?")


def _normalize(state: Any) -> None:
    """markdown-it's `normalize` core rule (CR and CRLF to LF, NUL to U+FFFD) without a copy
    of a text that holds neither: its substitution copied every text whole (a byte of
    memory a byte of text, and a regex match at every line break)."""
    src = state.src
    if "\r" in src:
        src = _CR.sub("\n", src)
    if "\0" in src:
        src = src.replace("\0", "\ufffd")
    state.src = src


class _NoLog:
    """Stands in for a markdown-it rule module's LOGGER: its debug calls do nothing."""

    @staticmethod
    def debug(*args: Any, **kwargs: Any) -> None:
        return None


def _quiet(fn):
    """A copy of a markdown-it block rule whose module-level `LOGGER` does nothing.

    Each rule logs "entering <rule>" at DEBUG level on every call; with logging off that
    still costs two calls (millions on a big corpus).
    """
    return _with_global(fn, "LOGGER", _NoLog)


def _with_global(fn, name: str, value: Any):
    """A copy of the function `fn` that sees its module's globals with `name` set to `value`
    (`fn` itself when it does not read `name`); the module itself, and any other user of
    it, is unchanged."""
    import types

    if not isinstance(fn, types.FunctionType) or name not in fn.__code__.co_names:
        return fn
    copy = types.FunctionType(fn.__code__, {**fn.__globals__, name: value}, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


LONG_ROW = 1 << 16
"""Characters from which a table body row reaches markdown-it's table rule as a stand-in
(`_table_line`)."""

_MD_TRIM: frozenset[str] = frozenset()  # (markdown-it-py's `mdTrim` characters, set by `_with_stand_in_rows`)


def _with_stand_in_rows(rule):
    """markdown-it-py's table rule reading long body rows as stand-ins (`_table_line`), when
    it is the rule this was written for (markdown-it-py 4: `getLine`, `mdTrim`, `escapedSplit`
    as of 4.0); else the rule as it is."""
    global _MD_TRIM
    try:
        from markdown_it.common.utils import MD_TRIM_CHARS
    except ImportError:
        return rule
    names = getattr(getattr(rule, "__code__", None), "co_names", ())
    if not {"getLine", "mdTrim", "escapedSplit"} <= set(names):
        return rule
    _MD_TRIM = frozenset(MD_TRIM_CHARS)
    copy = _with_global(rule, "getLine", _table_line)
    cap = copy.__globals__.get("MAX_AUTOCOMPLETED_CELLS")
    if "MAX_AUTOCOMPLETED_CELLS" in copy.__code__.co_names and isinstance(cap, int) and not _TABLE_CAP:
        _TABLE_CAP.append(cap)
    return copy


_TABLE_CAP: list[int] = []
"""markdown-it-py's cap on the missing cells a table fills in (`MAX_AUTOCOMPLETED_CELLS`), when
the table rule `_with_stand_in_rows` made reads it from its globals: a table read on from a row
(`_rest_items`) is read by a copy of the rule whose cap is lowered by the cells filled in
before (a copy, not the module's value changed: parses may run in threads). Without it, tables
are read whole."""


def _table_line(state: Any, line: int) -> str:
    """The table rule's `getLine`: a line's text from its indent on; for a body row of
    `LONG_ROW` characters or more, a stand-in that the rule reads the same way.

    The rule reads a body row only to know whether it is blank and how many cells it has
    (its cells' text is dropped by `_TableSink`), but copies it three times on the way and
    splits it a character at a time in Python: a row of one 20 MB cell of curly-quoted
    prose (2 bytes a character) peaked at 7.5x its file in this rule alone, and took a
    minute. The stand-in has the row's cells, empty but the first and last when the row's
    are not, so the rule counts the same cells and sees the same blank row."""
    pos = state.bMarks[line] + state.tShift[line]
    end = state.eMarks[line]
    body = getattr(state, "chunkctl_body", None)  # (the table's first body row, set by `_compact_table`)
    if end - pos < LONG_ROW or body is None or line < body:
        return state.src[pos:end]
    return _row_stand_in(state.src, pos, end)


def _row_stand_in(src: str, pos: int, end: int) -> str:
    """A short line that markdown-it's table rule splits into as many cells as
    `src[pos:end]`, with the same first and last cells empty (see `_table_line`): its
    `mdTrim` and `escapedSplit`, where a pipe after a backslash is escaped."""
    while pos < end and src[pos] in _MD_TRIM:
        pos += 1
    while end > pos and src[end - 1] in _MD_TRIM:
        end -= 1
    if pos == end:
        return ""
    pipes = src.count("|", pos, end) - src.count("\\|", pos, end)
    first = "" if src[pos] == "|" else "x"
    last = "" if src[end - 1] == "|" and (end - 1 == pos or src[end - 2] != "\\") else "x"
    return first + "|" * pipes + last if pipes else "x"


def _block_parser(block):
    """markdown-it's block parser with `_State` as its state (same rules, same ruler)."""
    from markdown_it.parser_block import ParserBlock
    from markdown_it.rules_block import StateBlock

    class _State(StateBlock):
        """markdown-it's block state with its line markers found a line at a time by string
        methods instead of a loop over each line's leading white space: the same markers, kept
        in arrays (4 bytes each, 8 past 512 M characters) where lists took some 96 bytes a line
        (two int objects beside five pointers): 116 MB for 5 MB of one-word paragraphs in a
        list item, which is parsed whole."""

        def __init__(self, src: str, md: Any, env: Any, tokens: list) -> None:
            # StateBlock.__init__ on an empty text sets every field; then the markers of `src`,
            # found in place (no list of the lines: it took about 1.8 bytes a byte of text)
            super().__init__("", md, env, tokens)
            self.src = src
            total = len(src)
            n = src.count("\n")
            if not src.endswith("\n") and src[src.rfind("\n") + 1:].strip(" \t"):
                n += 1  # a last line without a line break has a marker unless it is blank
            # (offsets unsigned; indents signed, and up to 4 columns a character: tabs)
            mark, count = ("I", "i") if total < 1 << 29 else ("q", "q")
            b_marks = array(mark, [0]) * (n + 1)
            e_marks = array(mark, [0]) * (n + 1)
            t_shift = array(count, [0]) * (n + 1)
            s_count = array(count, [0]) * (n + 1)
            find, indent = src.find, _INDENT.match
            pos = 0
            for i in range(n):
                end = find("\n", pos)
                if end < 0:
                    end = total
                b_marks[i] = pos
                e_marks[i] = end
                if pos < end and src[pos] in " \t":
                    shift = indent(src, pos, end).end() - pos  # type: ignore[union-attr]
                    t_shift[i] = s_count[i] = shift
                    if find("\t", pos, pos + shift) >= 0:
                        offset = 0
                        for ch in src[pos:pos + shift]:
                            offset += 4 - offset % 4 if ch == "\t" else 1
                        s_count[i] = offset
                pos = end + 1
            b_marks[n] = e_marks[n] = len(src)  # the fake last line markdown-it keeps
            # (markdown-it-py declares lists; its rules only index them, as they do arrays)
            self.bMarks, self.eMarks, self.tShift, self.sCount = b_marks, e_marks, t_shift, s_count  # type: ignore[assignment]
            self.bsCount = array(count, [0]) * (n + 1)  # type: ignore[assignment]
            self.lineMax = n

    class _Block(ParserBlock):
        def parse(self, src: str, md: Any, env: Any, outTokens: list) -> list | None:
            if not src:
                return None
            kept = _Kept()
            state = _State(src, md, env, kept)
            self.tokenize(state, state.line, state.lineMax)
            outTokens.extend(kept)
            return outTokens

    fast = _Block()
    fast.ruler = block.ruler
    return fast


_KEPT_NESTED = frozenset("fence code_block table_open bullet_list_open ordered_list_open".split())
_KEPT_LEVEL1 = frozenset("list_item_open definition inline".split())


class _Kept(list):
    """The token list of a parse, keeping only the tokens `_reference_items` reads: the top-level
    ones, the inline token of a top-level heading and the level-1 list items and link reference
    definitions (their lines), and nested code blocks and tables (atoms); and every list's open
    token, which markdown-it's list rule reads back by its index. A list item of 2.5 M one-word
    paragraphs held some 750 MB of paragraph tokens (three a paragraph), now none.

    A token's type and level are set when it is pushed; its `map`, set later, is read from the
    token itself, so dropping others changes nothing the items read."""

    def append(self, token: Any) -> None:
        if token.level == 0 or token.type in _KEPT_NESTED or token.level == 1 and token.type in _KEPT_LEVEL1:
            super().append(token)


class _TableSink(list):
    """Takes the place of the token list while markdown-it's table rule runs and keeps only
    what `build_markdown_blocks` reads: the table's open and close tokens, the header row's
    line span and cell texts, and the first line of each body row (an array, 8 bytes a row).

    The rule sets a token's fields just after pushing it, so each token is read when the
    next one arrives (and the last one by `finish`).
    """

    def __init__(self) -> None:
        super().__init__()
        self.last: Any = None
        self.open: Any = None
        self.close: Any = None
        self.in_head = False
        self.head: list[int] | None = None
        self.cells: list[str] = []
        self.rows = array("q")

    def append(self, token: Any) -> None:
        if self.last is not None:
            self._take(self.last)
        self.last = token

    def _take(self, tok: Any) -> None:
        t = tok.type
        if t == "tr_open":
            if self.in_head:
                self.head = tok.map
            elif tok.map:
                self.rows.append(tok.map[0])
        elif t == "inline":
            if self.in_head:
                self.cells.append(tok.content)
        elif t == "thead_open":
            self.in_head = True
        elif t == "thead_close":
            self.in_head = False
        elif t == "table_open" and self.open is None:
            self.open = tok
        elif t == "table_close":
            self.close = tok

    def finish(self, tokens: list) -> None:
        if self.last is not None:
            self._take(self.last)
        self.open.meta["chunkctl"] = (self.head, self.cells, self.rows)
        tokens.append(self.open)
        tokens.append(self.close)


def _no_lines(begin: int, end: int, indent: int, keep_last_lf: bool) -> str:
    return ""


def _no_content(rule):
    """A markdown-it block rule whose token gets no `content` (code, HTML and paragraph
    text are read from the document by their line spans): the rule's copy of a long
    block's lines is never made."""

    def without_content(state, start_line: int, end_line: int, silent: bool) -> bool:
        if silent:
            return rule(state, start_line, end_line, silent)
        state.getLines = _no_lines
        try:
            return rule(state, start_line, end_line, silent)
        finally:
            del state.getLines

    return without_content


def _compact_table(rule):
    """markdown-it's GFM table rule, emitting a table as two tokens (see `_TableSink`):
    its tokens (about five a cell) held about 80 bytes of memory a byte of table."""

    def table(state, start_line: int, end_line: int, silent: bool) -> bool:
        if silent:
            return rule(state, start_line, end_line, silent)
        tokens = state.tokens
        sink = _TableSink()
        state.tokens = sink
        state.chunkctl_body = start_line + 2  # (its first body row: `_table_line`)
        filled = state.env.get("chunkctl_filled") if start_line == 0 and isinstance(state.env, dict) else None
        read = rule
        if filled is not None and _TABLE_CAP:  # a table read on from a row: the cells filled in before count
            read = _with_global(rule, "MAX_AUTOCOMPLETED_CELLS", _TABLE_CAP[0] - filled)
        try:
            found = read(state, start_line, end_line, silent)
        finally:
            state.tokens = tokens
            del state.chunkctl_body
        if found:
            sink.finish(tokens)
        return found

    return table


_DEFINITION_START = re.compile(r"\[[^\]\n]")
_COMMENTS = re.compile(r"(?:\s*<!--(?:-?>|.*?-->))+\s*", re.S)


HEADING_QUIET_CHARS = 160
"""Characters after a Markdown heading's line, to the end of the link reference definitions and
HTML comments under it, that its block may take in (`build_markdown_blocks`)."""

def _renders_nothing(text: str, start: int, end: int) -> bool:
    """True when `text[start:end]` (lines markdown-it left out, or an HTML block) renders to
    nothing: link reference definitions (lines left out that open with "[" as
    "[summary]: #summary" does), or HTML comments only."""
    if _DEFINITION_START.match(text, start):
        return text.find("]:", start, end) >= 0
    return text.startswith("<!--", start) and _COMMENTS.fullmatch(text, start, end) is not None


def clean_heading(text: str) -> str:
    """Heading (or table cell) text as a reader sees it: the inline Markdown of `text` read by
    markdown-it-py (CommonMark and GFM strikethrough) and its text kept, white space collapsed.

    Links and images keep their text, code spans their content; emphasis marks and inline
    HTML go; backslash escapes and entities become their characters ("yield\\*" is
    "yield*", "`__proto__`" is "__proto__"). Before, marks were stripped by patterns that
    knew neither escapes nor code spans. An attribute block at the end and an ATX closing
    sequence before it ("### Styles ### {#styles}") are left out; reference links
    ("[text][ref]") keep their text. Of a text over `MAX_INLINE` characters only the text of
    its start, more than `2 * TITLE_CHARS + 256` characters, which `short_title` makes the same
    title as the whole's (read from `MAX_INLINE` characters, grown fourfold until it is).
    """
    text = _without_tail_marks(text)
    if len(text) > MAX_INLINE:
        # Only the start of a long heading (a paragraph above a setext underline): its marks and
        # spaces go within a few hundred characters of where it is cut, and the title keeps
        # TITLE_CHARS (`short_title`). All of it took 10x the text at once (`re.sub`, `split`).
        size = MAX_INLINE
        while size < len(text):
            start = " ".join(_INLINE_MARK.sub("", text[:size]).split())
            if len(start) > 2 * TITLE_CHARS + 256:
                return start
            size *= 4
    if _MARKUP.search(text):
        if len(text) <= MAX_INLINE:
            text = _inline_text(_REFERENCE_LINK.sub(r"\1", text))
        else:
            text = _INLINE_MARK.sub("", text)
    return " ".join(text.split())


def _without_tail_marks(text: str) -> str:
    """`text` without an attribute block at its end, then without an ATX closing sequence
    (`_ATTRIBUTES`, then `_CLOSING_HASHES`, as `re.sub` would remove them), found from the end:
    the patterns, which start with white space, took time in the square of a run of it (helper-76:
    40,000 spaces in a heading, 28 s)."""
    t = text.rstrip()
    if t.endswith("}"):
        k = t.rfind("{")
        if k >= 0 and _ATTRIBUTE_BLOCK.fullmatch(t, k):
            text = text[:k].rstrip()
            t = text
    if t.endswith("#"):
        h = len(t.rstrip("#"))
        if h == 0 or t[h - 1].isspace():
            return t[:h].rstrip()
    return text


_INLINE_MD = None


def _inline_text(text: str) -> str:
    """The text of the inline Markdown in `text` (see `clean_heading`)."""
    global _INLINE_MD
    if _INLINE_MD is None:
        from markdown_it import MarkdownIt

        _INLINE_MD = MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
    out: list[str] = []
    for token in _INLINE_MD.parseInline(text):
        _inline_parts(token.children or (), out)
    return "".join(out)


def _inline_parts(tokens: Any, out: list[str]) -> None:
    """Append to `out` the text of inline `tokens` (markdown-it), an image's alt text included.
    (A module function, not a closure that calls itself: that is a reference cycle, freed by
    the cyclic collector only.)"""
    for t in tokens:
        if t.type in ("text", "text_special", "code_inline"):
            out.append(t.content)
        elif t.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif t.children:  # an image: its alt text
            _inline_parts(t.children, out)


_LINES = re.compile(r"[^\r\n]+")
_YAML_KEY = re.compile(r"\s*(?:[^\s#:\-\[{][^:\r\n]*|-[^\s:][^:\r\n]*):(?:\s|$)")  # a mapping's first key
_TOML_START = re.compile(r"\s*(?:\[|[\w\"'.-]+\s*=)")  # a table header or a key
FRONT_MATTER_CHARS = 262_144
"""Characters of front matter read as YAML or TOML at most: PyYAML holds some 270 bytes a character
of short lines while it reads (helper-74: 1.3 GB for a 5 MB front matter); a larger one is kept
as the document's front matter block, not read (helper-56's 190 KB `desc:`, the largest met in a
real file, is still read)."""


def parse_front_matter(text: str) -> tuple[int, dict[str, Any] | None, str | None]:
    """Find YAML (---) or TOML (+++) front matter at the very start of `text`.

    Returns:
        (end offset of the front matter block or 0, parsed mapping or None, warning or None).
        A block that does not parse to a mapping is not front matter (end 0).
    """
    m = _FRONT_MATTER.match(text)
    if not m:
        return 0, None, None
    opener, closer, body = m.group("open"), m.group("close"), m.group("body") or ""
    if (opener == "+++") != (closer == "+++"):
        return 0, None, None
    if len(body) > FRONT_MATTER_CHARS:
        lead = next((ln for ln in _LINES.finditer(body) if ln.group().strip() and not ln.group().lstrip().startswith("#")),
                    None)
        if lead is None or not (_TOML_START if opener == "+++" else _YAML_KEY).match(lead.group()):
            return 0, None, None  # (no mapping: not front matter, as one that parses to another value)
        return m.end(), {}, (f"front matter of {len(body):,} characters, more than {FRONT_MATTER_CHARS:,}: not read "
                             f"as {'TOML' if opener == '+++' else 'YAML'} (its parser takes some 270 bytes a "
                             f"character); ignored")
    if opener == "+++":
        import tomllib

        try:
            data = tomllib.loads(body.replace("\r\n", "\n").replace("\r", "\n"))
        except tomllib.TOMLDecodeError as exc:
            return m.end(), {}, f"TOML front matter does not parse ({exc}); ignored"
        return m.end(), data, None
    import yaml

    try:
        data = yaml.safe_load(body)
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        return m.end(), {}, f"YAML front matter does not parse ({first}); ignored"
    except RecursionError:
        return m.end(), {}, "YAML front matter nested too deeply to read; ignored"
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return 0, None, None
    return m.end(), data, None


class _TooBig(Exception):
    pass


FRONT_MATTER_BYTES = 16_384
"""Bytes of JSON (`meta.front_matter`) the front matter keeps at most: every record of the document
carries it, and helper-56's 190 KB `desc:` made 187 MB of records for 378 KB of Markdown."""


def _fit_front_matter(fm: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`fm` without its largest top-level values until its JSON has at most `FRONT_MATTER_BYTES`
    bytes (the order of the rest kept), and the keys left out, largest first."""
    sizes = {k: len(orjson.dumps(v)) + len(orjson.dumps(k)) + 2 for k, v in fm.items()}
    total = sum(sizes.values()) + 1
    dropped: list[str] = []
    for k in sorted(sizes, key=lambda k: -sizes[k]):
        if total <= FRONT_MATTER_BYTES:
            break
        dropped.append(k)
        total -= sizes[k]
    left_out = set(dropped)
    return ({k: v for k, v in fm.items() if k not in left_out} if dropped else fm), dropped


FRONT_MATTER_DEPTH = 64
"""Levels of nesting front matter may have (orjson writes 254 at most: a 400-level mapping, which
PyYAML reads, raised a TypeError from the loader)."""


def _jsonable(value: Any, budget: int = 10_000) -> Any:
    """Front-matter values made JSON-safe (dates and other objects become strings).

    Raises:
        _TooBig: more than `budget` values: YAML aliases can make a few lines expand
            exponentially ("billion laughs"); such front matter is not kept.
        RecursionError: nested more than FRONT_MATTER_DEPTH levels.
    """
    return _jsonable_value(value, [budget], 0)


def _jsonable_value(v: Any, left: list[int], depth: int) -> Any:
    """`v` made JSON-safe, one value less in `left[0]` for it and each inside it (see `_jsonable`)."""
    left[0] -= 1
    if left[0] < 0:
        raise _TooBig
    if depth > FRONT_MATTER_DEPTH:
        raise RecursionError
    if isinstance(v, dict):
        return {str(k): _jsonable_value(x, left, depth + 1) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable_value(x, left, depth + 1) for x in v]
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return str(v)


LineRange = tuple[int, int]
"""Lines `[first, end)` of the parsed text, counted from 0 (markdown-it's token `map`)."""

Item = tuple[str, LineRange, dict]
"""One top-level block as a parser saw it, in lines: (name, lines, extra). Names and extras:
"heading" {"level", "content"}; "code" {"info", "indented"}; "table" {"head": header row
lines or None, "cells": header cell texts, "rows": first line of each body row}; "list"
{"items": lines of each item}; "quote" {"definitions": first lines of the link reference
definitions of the quote's own, read by markdown-it-py only; or none}; "paragraph", "html",
"rule", "definition" (a link reference definition: no block of its own) {}."""

Items = tuple[list[Item], list[LineRange]]
"""(top-level items in document order, lines of the code blocks and tables nested in lists
and quotes)."""


def _reference_items(src: str, filled: int | None = None) -> Items:
    """The block items of `src` read from markdown-it-py's tokens (the reference parser).
    `filled`: cells a table at its first line filled in before it (`_rest_items`)."""
    tokens = _parser().parse(src, None if filled is None else {"chunkctl_filled": filled})
    items: list[Item] = []
    nested: list[LineRange] = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        t = tok.type
        if tok.level != 0 or tok.map is None:
            if tok.map is not None and t in ("fence", "code_block", "table_open"):
                nested.append((tok.map[0], tok.map[1]))
            elif t == "definition" and tok.level == 1 and items and items[-1][0] == "quote":
                items[-1][2].setdefault("definitions", []).append(tok.map[0])  # one of the quote's own blocks
            i += 1
            continue
        lines = (tok.map[0], tok.map[1])
        if t == "definition":
            items.append(("definition", lines, {}))
            i += 1
            continue
        if t == "heading_open":
            content = tokens[i + 1].content if i + 1 < n else ""
            items.append(("heading", lines, {"level": int(tok.tag[1]), "content": content}))
            i += 3
            continue
        if t in ("fence", "code_block"):
            items.append(("code", lines, {"info": tok.info, "indented": t == "code_block"}))
        elif t == "table_open" and "chunkctl" in tok.meta:  # a table from `_compact_table`
            head, head_cells, row_lines = tok.meta["chunkctl"]
            items.append(("table", lines, {"head": (head[0], head[1]) if head else None, "cells": head_cells,
                                           "rows": row_lines}))
            i += 2
            continue
        elif t == "table_open":  # markdown-it-py's own table tokens (a parser without `_compact_table`)
            head = None
            cells: list[str] = []
            rows: list[int] = []
            j = i + 1
            depth = 1
            in_head = False
            while j < n and depth:
                tj = tokens[j]
                if tj.type == "table_open":
                    depth += 1
                elif tj.type == "table_close":
                    depth -= 1
                elif tj.type == "thead_open":
                    in_head = True
                elif tj.type == "thead_close":
                    in_head = False
                elif tj.type == "tr_open" and tj.map:
                    if in_head:
                        head = (tj.map[0], tj.map[1])
                    else:
                        rows.append(tj.map[0])
                elif tj.type == "inline" and in_head:
                    cells.append(tj.content)
                j += 1
            items.append(("table", lines, {"head": head, "cells": cells, "rows": rows}))
            i = j
            continue
        elif t in ("bullet_list_open", "ordered_list_open"):
            members = []
            j = i + 1
            while j < n and not (tokens[j].level == 0 and tokens[j].type in ("bullet_list_close", "ordered_list_close")):
                tj = tokens[j]
                if tj.type == "list_item_open" and tj.level == 1 and tj.map:
                    members.append((tj.map[0], tj.map[1]))
                j += 1
            items.append(("list", lines, {"items": members}))
            i += 1  # its tokens are read again for code and tables nested in its items
            continue
        elif t in _SIMPLE:
            items.append((_SIMPLE[t], lines, {}))
        i += 1
    return items, nested


_SIMPLE = {"blockquote_open": "quote", "paragraph_open": "paragraph", "html_block": "html", "hr": "rule"}
_KINDS = {"quote": BlockKind.QUOTE, "paragraph": BlockKind.PARAGRAPH, "html": BlockKind.HTML, "rule": BlockKind.RULE}


_HTML_HEADING = re.compile(r"<h([1-6])(?:\s[^>]*)?>(.*?)</h\1\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>")


def html_heading(block: str) -> tuple[int, str] | None:
    """(level, title) of a Markdown HTML block that is one heading element and nothing else
    (`<h1 align="center">Project</h1>`, as many READMEs open), else None. The title is the
    element's text: tags (a logo's `<img>`, a link) left out, entities decoded, white space
    collapsed; a heading without text is None."""
    m = _HTML_HEADING.fullmatch(block.strip())
    if m is None or _HTML_HEADING.search(m.group(2)):
        return None
    title = " ".join(html.unescape(_TAG.sub(" ", m.group(2))).split())
    return (int(m.group(1)), title) if title else None


def _raw_blocks(parsed: Items, span: Any, text: str) -> tuple[list[tuple[BlockKind, int, int, dict]],
                                                              list[tuple[int, int]]]:
    """Block kinds and character spans of parsed items: (blocks, nested atom spans).

    `span(lines, keep_indent=False)` gives the character span of lines (white space trimmed)
    in `text`; an HTML block that is one heading element is a heading (`html_heading`).
    """
    items, nested_lines = parsed
    raw: list[tuple[BlockKind, int, int, dict]] = []
    for name, lines, extra in items:
        if name == "definition":  # a link reference definition: covered as a paragraph if nothing else
            continue
        if name == "heading":
            s, e = span(lines)
            raw.append((BlockKind.HEADING, s, e, {"level": extra["level"], "title": clean_heading(extra["content"])}))
        elif name == "code":
            s, e = span(lines, keep_indent=extra["indented"])
            info = extra["info"].strip()
            lang = info.split()[0] if info else ""
            raw.append((BlockKind.CODE, s, e, {"language": lang.lower()[:40]}))
        elif name == "table":
            s, e = span(lines)
            head = extra["head"]
            head_span = span((head[0], head[1] + 1)) if head else None  # the header and delimiter rows
            # (a row of characters Python counts as white space, U+0085 or U+001C-U+001E, is a row to
            # markdown-it but has no span once trimmed: no row)
            row_spans = compact_spans(x for x in (span((r, r + 1)) for r in extra["rows"]) if x[1] > x[0])
            if extra.get("continued"):  # the rest of a table read on from a row (`_rest_items`)
                raw.append((BlockKind.TABLE, s, e, {"rows": row_spans}))
                continue
            cell_texts = [clean_heading(c) for c in extra["cells"]]
            if head_span is not None and row_spans:
                raw.append((BlockKind.TABLE, s, e, {"header": head_span, "rows": row_spans,
                                                     "meta": {"header_cells": cell_texts}}))
            else:
                raw.append((BlockKind.TABLE, s, e, {"header": head_span or (s, e), "rows": (),
                                                     "meta": {"header_cells": cell_texts}}))
        elif name == "list":
            s, e = span(lines)
            raw.append((BlockKind.LIST, s, e, {"rows": compact_spans(x for x in map(span, extra["items"]) if x[1] > x[0])}))
        elif name == "html":
            s, e = span(lines)
            found = html_heading(text[s:e])
            if found is None:
                raw.append((BlockKind.HTML, s, e, {}))
                continue
            raw.append((BlockKind.HEADING, s, e, {"level": found[0], "title": found[1]}))
        else:
            raw.append((_KINDS[name], *span(lines), {}))
    return raw, [span(x) for x in nested_lines]


PIECE = 1 << 16
"""Characters of Markdown parsed at a time (`build_markdown_blocks`): a parser's tree takes
up to some 200 bytes per character of a document of one-word paragraphs."""
PIECE_LINE_CHARS = 16
"""A piece also ends after `PIECE // PIECE_LINE_CHARS` lines (4,096; at least 2, which `_piece_items`
reads together to see whether a list goes on): a parse takes some hundreds of bytes a line, and
64 K characters of short headings, one a line, held 11,000 of them (helper-74: 5 MB of `# h` lines
took 16x the file; traced, a piece's parse went from 43x the text to 20x)."""
LONG_PIECE = 1 << 18
"""Characters from which a piece read at its first size is read by markdown-it-py, as one that
grew, when it is over twice that size (one long line made it so): markdown-it.rs's tree, and the
UTF-8 copy it leaves in the string it reads, made the load of a 20 MB table row of curly-quoted
prose peak at 8.4x the file; 6.4x with markdown-it-py (whose table rule reads a long row as a
stand-in: `_table_line`)."""

QUOTE_PIECE = 1 << 17
"""Characters of one top-level block quote parsed at a time (`_quote_cut`): a quote longer
than this is read in parts (markdown-it-py took some 350 bytes per character, and 18 s a
megabyte, on a quote of nested lists and quotes, found by a break run)."""
# Lines of a quote to read the rest of it from (`_quote_cut`): after a line blank but for its
# quote markers, one whose text is not indented past the quote marker; or an item of a bullet
# list that is not indented either (it ends a paragraph before it, and is never a rule).
# (Line ends: LF, CR LF or CR, as the parsers read them.)
_QUOTE_BLANK = re.compile(r"[ \t]*(?:>[ \t]*)+(?:\r\n?|\n)")
_QUOTE_TEXT = re.compile(r" {0,3}> ?[^ \t\r\n]")
_QUOTE_ITEM = re.compile(r" {0,3}> ?[-+*][ \t]+\S")
_QUOTE_RULE = re.compile(r" {0,3}> ?(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})(?:\r\n?|\n)")
# "<" after container marks at a line's start; the line may open an HTML block if what
# follows matches one of markdown-it's seven HTML block openers (`_opens_html`).
_QUOTE_HTML = re.compile(r"[\r\n][ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t>]+)*(?=<)")
_HTML_OPENERS: list[re.Pattern] = []
_LINE_END = re.compile(r"\r\n?|\n")


def _opens_html(text: str, at: int) -> bool:
    """True when the line text from `at` (a "<") matches an opener of an HTML block
    (markdown-it-py's `HTML_SEQUENCES`: `<div`, `<!--`, `<pre`, or a line of one whole tag)."""
    if not _HTML_OPENERS:
        from markdown_it.rules_block.html_block import HTML_SEQUENCES

        _HTML_OPENERS.extend(opener for opener, _closer, _ in HTML_SEQUENCES)
    end = _LINE_END.search(text, at)
    line = text[at:end.start() if end else len(text)]
    return any(opener.search(line) for opener in _HTML_OPENERS)


def _piece_items(text: str, start: int, line_starts: Sequence[int], base_line: int, parser: str,
                 piece: int, quote_piece: int = QUOTE_PIECE, indent: int = 0,
                 end_line: int | None = None) -> Iterator[tuple[Items, int, bool]]:
    """Block items of `text[start:]`, read `piece` characters at a time: (items, first line, open).

    A piece ends at a line start (after `piece` characters, or `piece // PIECE_LINE_CHARS` lines
    if that comes first); the blocks before its last top-level block that follows
    another block after blank lines only (`_restart_line`) are kept and the next piece
    starts at that block's first line. Block structure is decided line by line and never
    depends on what follows a block once a later block has begun after a blank line, and a
    top-level block start has no open container, so reading on from it gives the blocks
    one parse of the whole text gives (tests/loaders/test_markdown_pieces.py compares the
    two on the CommonMark spec examples, the shared corpus and generated Markdown with
    pieces down to one character).

    A top-level list that fills a piece is read on from its last item when that item's
    line, read with the next one, starts a list on its own (checked by reading the next
    piece first); `open` is then True and the piece's last item holds the list's items so
    far, which the next piece's first item continues. A top-level paragraph that runs to a
    piece's end is read on from one of its last lines (`_paragraph_cut`) when the next piece,
    read from there, starts with a paragraph or setext heading there; a top-level table, from
    its last row (`_table_cut`), the next piece read after the table's header and delimiter
    lines (`_rest_items`); `open` is then True and the next piece's first item
    continues the block. Any other piece holding one top-level block grows until the block
    ends (a huge code block is read whole), read by markdown-it-py, whose compact tables take a few bytes a cell where
    markdown-it.rs's tree takes hundreds; but a block quote that fills `quote_piece`
    characters is cut at one of its lines (`_quote_cut`, `open` True: the next piece's first
    item, a quote, continues it). That cut is the one place where reading on is not shown to
    give the blocks of one parse: its lines are chosen so that it does on every case tried
    (tests/loaders/test_markdown_pieces.py generates quotes of the lines that broke first
    versions: HTML, lazy and indented lines, setext underlines). A quote that cannot be cut
    so, and runs to the piece's end in a table of its own, is read on from the table's last
    row as a top-level table is (`_quote_table_cut`: the next piece read after the table's
    header and delimiter lines, quote markers and all). And a top-level list whose
    last item fills a piece has that item's content read in pieces of its own (`_long_item`).
    Line numbers of the items count from the piece's first line (yielded with them).

    `indent` and `end_line` read the content of a list item instead (`_long_item`): lines
    `base_line` to `end_line` (exclusive), each piece's text with `indent` leading spaces taken
    off each line, and the item's marker off its first line (`base_line`).
    """
    if parser not in ("auto", "reference"):
        raise ValueError(f"unknown Markdown parser {parser!r}: use 'auto' or 'reference'")
    n_lines = len(line_starts) if end_line is None else end_line
    total = len(text) if end_line is None or end_line >= len(line_starts) else line_starts[end_line]
    # (characters are bytes: the fast parser maps its byte offsets with `line_starts`)
    known = not indent and text.isascii() and "\r" not in text and "\0" not in text
    dedent = _dedent(indent) if indent else None
    item_start = line_starts[base_line] if indent else -1

    def span_of(first: int, size: int) -> tuple[int, int, bool]:
        """(start, end, reaches the end) of the piece of `size` characters or more from line
        `first` on, to a line start (characters)."""
        a = line_starts[first] if first < n_lines else total
        k = min(bisect.bisect_left(line_starts, a + size), first + max(2, size // PIECE_LINE_CHARS))
        # (the line start after a text's final line break is `total`: a piece up to there is
        # the last one; read as not, its last blocks were read again, a long last line twice)
        last = k >= n_lines or line_starts[k] >= total
        return a, total if last else line_starts[k], last

    def read(first: int, size: int, quote: bool = False, cont: tuple | None = None) -> tuple[Items, bool, int]:
        """(items of `size` characters or more from line `first` on, to a line start; reached the end;
        the character the piece ends at).
        `quote`: the piece's last block is a quote, which markdown-it.rs may read up to
        `quote_piece` characters (past it, a quote that could not be cut is read by markdown-it-py,
        as any other block over a piece). `cont`: the block the piece goes on, never in a list item:
        ("table", its header and delimiter lines, cells filled in before, columns) or ("paragraph",)."""
        a, b, last = span_of(first, size)
        src = text[a:b]
        if dedent is not None:
            if a == item_start:  # the marker line: its marker becomes the indent taken off
                src = " " * indent + src[indent:]
            src = dedent.sub("", src)
        # markdown-it.rs reads it if it may (one block over a piece: the reference's compact tables;
        # a piece a long line made long: `LONG_PIECE`)
        fast = parser == "auto" and (size == piece or quote) and b - a < max(2 * size, LONG_PIECE)
        if cont is not None and cont[0] == "quote":  # the rest of a quote, from a row of the table it ends in
            head_line = cont[1]
            found, in_quote = _rest_items(text[line_starts[head_line]:line_starts[head_line + 2]], src, filled=cont[2])
            # (the table, from its header line on: before the piece)
            return (found, [(head_line - first if x < 0 else x, y) for x, y in in_quote]), last, b
        if cont is not None and cont[0] == "table":  # the rest of a table, from one of its rows
            return _rest_items(cont[1], src, filled=cont[2]), last, b
        if cont is not None:  # the rest of a paragraph, read after a line of paragraph text
            return _rest_items(_PARAGRAPH_HEAD, src, fast), last, b
        items = None
        if fast:
            from chunkctl.loaders import markdown_rs

            items = markdown_rs.block_items(src, (line_starts, a, first) if known else None)
        if items is None:
            items = _reference_items(src)
        return items, last, b

    def list_ahead(j: int) -> tuple[Items, bool, int] | None:
        """The next piece, read from line `j`, when it starts with a list there, else None (an
        item's line read with the line after it could also open a table, which a list's later
        items never do; the other blocks a list item's line could start show on that line alone)."""
        two = (line_starts[j + 2] if j + 2 < n_lines else total) - line_starts[j]
        got = read(j, max(piece, two))
        nxt = got[0][0]
        return got if nxt and nxt[0][0] == "list" and nxt[0][1][0] == 0 else None

    def table_ahead(j: int, table: tuple[str, str, int, int]) -> tuple[Items, bool, int] | None:
        """The next piece, read from line `j` (a body row of a table) as the rest of that table
        (`table`: "table", its header and delimiter lines, cells filled in before, columns), when
        its first block is that table with row `j` in it, else None."""
        got = read(j, piece, cont=table)
        nxt = got[0][0]
        return got if nxt and nxt[0][0] == "table" and nxt[0][2].get("continued") and nxt[0][2]["rows"] else None

    def quote_table_ahead(j: int, rest: tuple[str, int, int]) -> tuple[Items, bool, int] | None:
        """The next piece, read from line `j` (a body row of a table that ends a top-level quote) as
        the rest of that quote (`rest`: "quote", the table's header line, cells filled in before),
        when its first block is a quote from line `j` with the table going on in it, else None."""
        got = read(j, piece, cont=rest)
        found, in_quote = got[0]
        goes_on = found and found[0][0] == "quote" and found[0][1][0] == 0
        return got if goes_on and any(a < 0 < b for a, b in in_quote) else None

    def paragraph_ahead(j: int) -> tuple[Items, bool, int] | None:
        """The next piece, read from line `j` (a line of a paragraph, not its first) as the rest of
        that paragraph, when the paragraph goes on there, else None (line `j`, with the line after
        it for a table, ends the paragraph: the piece holds that line too)."""
        got = read(j, max(piece, (line_starts[j + 2] if j + 2 < n_lines else total) - line_starts[j]),
                   cont=("paragraph",))
        return got if got[0][0][0][1][1] > 0 else None

    first = base_line
    size = piece
    quote = False  # the block that fills the piece is a quote (read on to `quote_piece` by either parser)
    ahead: tuple[Items, bool, int] | None = None  # the next piece, read to check a list or paragraph goes on in it
    cont: tuple | None = None  # the table or paragraph the piece at `first` goes on (`read`)
    while True:
        items, last, piece_end = ahead or read(first, size, quote and size <= quote_piece, cont)
        ahead = None
        going_on, cont = cont, None
        found, nested = items
        if last:
            yield items, first, False
            return
        cut = _restart_line(text, found, line_starts, first)
        is_open = False
        if cut == 0 and found and found[-1][0] == "list" and len(found[-1][2]["items"]) > 1:
            # Read on from the list's last item if that line starts a list on its own too.
            name, (ls, _le), extra = found[-1]
            members = extra["items"]
            ahead = list_ahead(first + members[-1][0])
            if ahead is not None:
                cut = members[-1][0]
                found[-1] = (name, (ls, cut), {**extra, "items": members[:-1]})
                is_open = True
        quote = bool(found) and found[-1][0] == "quote"
        if cut == 0 and quote and size >= quote_piece:
            name, (ls, le), extra = found[-1]
            cut = _quote_cut(text, line_starts, first, ls, le, nested, extra.get("definitions", ()))
            if cut:
                found[-1] = (name, (ls, cut), extra)
                is_open = True
            elif not indent and _parser() and _TABLE_CAP:  # (not in a list item's content)
                # Read on from the last row of a table the quote ends in, if it runs to the piece's end
                k, head_line, so_far = _quote_table_cut(text, line_starts, first, found[-1], nested, piece_end,
                                                        going_on if going_on and going_on[0] == "quote" else None)
                quote_rest = ("quote", head_line, so_far)
                ahead = quote_table_ahead(first + k, quote_rest) if k else None
                if ahead is not None:
                    cut = k
                    found[-1] = (name, (ls, cut), extra)
                    nested = [x for x in nested if x[1] <= cut]  # (the table: the next piece has it whole)
                    is_open = True
                    cont = quote_rest
        if cut == 0 and found and found[-1][0] == "paragraph":
            # Read on from its last line if the paragraph runs to the piece's end
            k = _paragraph_cut(text, line_starts, first, found, bisect.bisect_left(line_starts, piece_end, first) - first,
                               indent > 0)
            if k:
                ahead = paragraph_ahead(first + k)
                cut = k
                name, (ls, _le), extra = found[-1]
                found[-1] = (name, (ls, cut), extra)
                if ahead is not None:
                    is_open = True
                    cont = ("paragraph",)
        if cut == 0 and found and found[-1][0] == "table" and _parser() and _TABLE_CAP \
                and line_starts[first + found[-1][1][0]] != item_start:  # (not on an item's marker line)
            # Read on from its last row if the table runs to the piece's end
            name, (ls, le), extra = found[-1]
            rest = going_on if extra.get("continued") else None
            k, so_far = _table_cut(text, line_starts, first, found[-1], piece_end, rest)
            if k:
                if rest is None:
                    head = text[line_starts[first + ls]:line_starts[first + ls + 2]]
                    rest = ("table", dedent.sub("", head) if dedent is not None else head, 0, len(extra["cells"]))
                rest = ("table", rest[1], so_far, rest[3])
                ahead = table_ahead(first + k, rest)
                if ahead is not None:
                    cut = k
                    found[-1] = (name, (ls, cut), {**extra, "rows": [r for r in extra["rows"] if r < cut]})
                    is_open = True
                    cont = rest
        members = found[-1][2]["items"] if cut == 0 and found and found[-1][0] == "list" and not indent else []
        # (a last item whose first two lines were read together: alone, "- a|b" then "---" read as a table)
        if members and members[-1][1] - members[-1][0] >= 2:
            long_item = _long_item(text, line_starts, first + members[-1][0], parser, piece, quote_piece)
            if long_item is not None and long_item[2]:  # the next item, if it reads as a list from its line on
                ahead = list_ahead(long_item[0])
                is_open = ahead is not None
                if not is_open:  # (alone, "- c | d" then "--- | ---" reads as a table: grow the piece)
                    long_item = None
            if long_item is not None:
                end, atoms, _goes_on = long_item
                name, (ls, _le), extra = found[-1]
                cut = end - first
                found[-1] = (name, (ls, cut), {**extra, "items": [*members[:-1], (members[-1][0], cut)]})
                nested = [x for x in nested if x[0] < members[-1][0]] + [(x - first, y - first) for x, y in atoms]
                yield (found, nested), first, is_open
                first += cut
                size = piece
                continue
        if cut == 0:
            # twice the size, or twice the piece just read when a long line made it longer than
            # its size: doubling up to the line's length read it again each time (a 20 MB table
            # row and a line after it: ten times); not for a quote, which grows in steps up to
            # `quote_piece`, where it is cut
            a, b, _last = span_of(first, size)
            size = 2 * size if quote else 2 * max(size, b - a)
            cont = going_on  # (the same piece, grown)
            continue
        quote = False
        yield ([x for x in found if x[1][0] < cut], [x for x in nested if x[0] < cut]), first, is_open
        first += cut
        size = piece


_PARAGRAPH_HEAD = "p\n"
"""The line of paragraph text a paragraph's rest is read after (`_rest_items`)."""


def _rest_items(head: str, src: str, fast: bool = False, filled: int | None = None) -> Items:
    """The block items of `src`, whose first line goes on a block that `head` (whole lines) opens,
    read after `head`: line numbers those of `src`; its first item, when it is that block going
    on, marked "continued", its lines those in `src`.

    - A paragraph (`head` a line of paragraph text, `_PARAGRAPH_HEAD`; markdown-it.rs reads it if
      `fast` and it may): read whole, each line after a paragraph's first goes on it or ends it by
      what that line starts (with the next, for a table), as a line after `head` does: a line
      that would open a list, indented code, a link reference definition or an HTML block alone
      goes on the paragraph lazily in both. The first item is the paragraph (or the setext
      heading it became), with no lines when the paragraph ended with `head`.
    - A table (`head` its header and delimiter lines, `filled` the cells it filled in before,
      which count toward markdown-it-py's cap): the table rule decides each body row by that line
      alone (blank, indented code, a block that ends a quote, or the cap reached), so the rows go
      on as in one parse of the table. The first item, when it is that table, has no header and
      the rows in `src`.
    - A quote's table (`head` its header and delimiter lines with their quote markers, `filled`
      as for a table): the first item is the quote going on; the table's span in the nested
      spans starts at a negative line (in `head`), which the caller maps to the header's line."""
    items = None
    if fast:
        from chunkctl.loaders import markdown_rs

        items = markdown_rs.block_items(head + src)
    found, nested = items if items is not None else _reference_items(head + src, filled)
    shift = len(lines_of(head)) - 1  # (its lines, each ended by a line break)
    out: list[Item] = []
    for i, (name, (a, b), extra) in enumerate(found):
        if i == 0 and filled is None:
            out.append((name, (0, b - shift), {**extra, "continued": True}))
        elif i == 0 and name == "table" and a == 0 and extra.get("head") == (0, 1):
            out.append((name, (0, b - shift), {"head": None, "cells": [], "continued": True,
                                                "rows": [r - shift for r in extra["rows"]]}))
        elif b > shift:  # (a block of the header lines alone: not the table)
            out.append(_shifted(name, (max(a - shift, 0), b - shift), extra, shift))
    # (a code block or table of a quote opened in `head` lines goes on: its start a negative line)
    return out, [(a - shift, b - shift) for a, b in nested if b > shift]


def _shifted(name: str, lines: LineRange, extra: dict, shift: int) -> Item:
    """An item whose line numbers in `extra` (a table's header and rows, a list's items, a
    quote's definitions) are `shift` less."""
    if name == "table":
        head = extra["head"]
        extra = {**extra, "head": None if head is None else (head[0] - shift, head[1] - shift),
                 "rows": [r - shift for r in extra["rows"]]}
    elif name == "list":
        extra = {**extra, "items": [(a - shift, b - shift) for a, b in extra["items"]]}
    elif name == "quote" and "definitions" in extra:
        extra = {**extra, "definitions": [d - shift for d in extra["definitions"]]}
    return name, lines, extra


def _row_cells(text: str, s: int, e: int) -> int:
    """Cells of the table body row `text[s:e]` (a line, its line break left out) as markdown-it-py's
    table rule counts them (its `mdTrim`, `escapedSplit`, a stand-in for a long row: `_table_line`)."""
    from markdown_it.common.utils import mdTrim
    from markdown_it.rules_block.table import escapedSplit

    while e > s and text[e - 1] in "\r\n":
        e -= 1
    while s < e and text[s] in " \t":
        s += 1
    line = _row_stand_in(text, s, e) if e - s >= LONG_ROW else mdTrim(text[s:e])
    columns = escapedSplit(line)
    if columns and columns[0] == "":
        columns.pop(0)
    if columns and columns[-1] == "":
        columns.pop()
    return len(columns)


def _table_cut(text: str, line_starts: Sequence[int], first: int, item: Item, piece_end: int,
               going_on: tuple[str, str, int, int] | None) -> tuple[int, int]:
    """(a line of the table `item`, the last block of a piece from line `first` of `text` that
    ends at character `piece_end`, to read the rest of the table from, or 0; the cells the table
    filled in before that line): its last line, a body row, when the table runs to the piece's
    end with another body row before it, and the filled-in cells stay under markdown-it-py's cap
    (`MAX_AUTOCOMPLETED_CELLS`: past it, the table ends; counted from `going_on[2]` for a table read
    on already, with its `going_on[3]` columns). markdown-it.rs reads tables that may reach the cap
    (`markdown_rs._filled_cells_may_pass`) by the reference."""
    name, (ls, le), extra = item
    rows = extra["rows"]
    end_line = bisect.bisect_left(line_starts, piece_end, first) - first
    k = le - 1
    if le != end_line or not rows or rows[0] >= k or rows[-1] != k:
        return 0, 0
    r0 = line_starts[first + rows[0]]
    if not text[r0:line_starts[first + rows[0] + 1]].strip():
        return 0, 0  # (its first row white space to Python: no row span to join the rest to)
    filled, columns = (going_on[2], going_on[3]) if going_on is not None else (0, len(extra["cells"]))
    for r in rows:
        if r >= k:
            break
        filled += columns - _row_cells(text, line_starts[first + r], line_starts[first + r + 1])
    return (k, filled) if filled <= _TABLE_CAP[0] else (0, 0)


_BRACKET_LINE = re.compile(r" {0,3}\[")


def _paragraph_cut(text: str, line_starts: Sequence[int], first: int, found: list[Item], piece_lines: int,
                   in_item: bool = False) -> int:
    """The last line of the last block of a piece (lines from `first` of `text`, `piece_lines` of
    them), a paragraph, to read the rest of the paragraph from (`_rest_items`), or 0 for none: only
    when the paragraph runs to the piece's last line (where it ends is not known yet), has a line
    before that one in the piece, and could not be a link reference definition read on (a
    paragraph whose first line starts with "[", or right after a definition: a title may run on
    over many lines and end the definition far past the piece; `in_item`: the lines are a list
    item's content, its indent still on them: a "[" anywhere on the first line)."""
    name, (ls, le), extra = found[-1]
    if le != piece_lines or le - ls < 2:
        return 0
    if not extra.get("continued"):
        at = line_starts[first + ls]
        if _BRACKET_LINE.match(text, at) or in_item and text.find("[", at, line_starts[first + ls + 1]) >= 0:
            return 0
        if len(found) > 1 and found[-2][0] == "definition" and found[-2][1][1] >= ls:
            return 0
    return le - 1


# A list item's first line: indent, marker, and 1-4 spaces before its content (5 or more: the
# content is indented code, at one space; none: it starts on the next line). Tabs aside.
_ITEM_LINE = re.compile(r"( {0,3})([-+*]|\d{1,9}([.)]))( {1,4})[^ \t\r\n]")
# A line that would start an item of a list, or a thematic break (never an item)
_ANY_ITEM = re.compile(r" {0,3}(?:([-+*])|\d{1,9}([.)]))(?:[ \t]|\n|\Z)")
_THEMATIC = re.compile(r" {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})(?:\n|\Z)")


@cache
def _dedent(indent: int) -> re.Pattern:
    """Up to `indent` spaces at each line's start."""
    return re.compile(rf"^ {{1,{indent}}}", re.M)


_DEEP_START = re.compile(r"[ >*+\-\d.)]{16}")  # (on an item's first line, after its marker)


@cache
def _deep_line(indent: int) -> re.Pattern:
    """A line of an item (content at `indent`) that opens 16 or more characters of quote and list
    markers and indent past it: its content could be nested 18 levels deep, where markdown-it-py
    stops (`maxNesting` 20 in the document, 2 levels shallower in the item read alone)."""
    return re.compile(rf"\n {{{indent}}}" + _DEEP_START.pattern)


@cache
def _item_end(indent: int) -> re.Pattern:
    """A line break before a line that is neither blank nor indented `indent` spaces."""
    return re.compile(rf"\n(?! {{{indent}}}|[ \t]*(?:\n|\Z))")


def _long_item(text: str, line_starts: Sequence[int], j: int, parser: str, piece: int,
               quote_piece: int) -> tuple[int, list[LineRange], bool] | None:
    """The end of the top-level list item that starts at line `j` of `text` and fills a piece,
    with the code blocks and tables in it, its content read in pieces (`_piece_items` with
    its indent taken off): (the line after it, atoms' lines, whether that line starts another
    item of the same list); None where that is not known to give one parse's blocks: text
    with CR, a tab in the item (taking its indent off would move tab stops), a line that may
    open 18 levels of nesting in it (`_deep_line`), an item whose content starts past 4 spaces
    or on its next line, that ends at a line right after a line of text (it may be a lazy
    continuation of a paragraph in the item), or whose next item would not read as a list
    from its line on (checked by the caller). (An item's content is its lines with the
    item's indent taken off, CommonMark's list items; its end, the first line that is not
    blank and is indented less, after a blank line.)
    (One list item of 5 MB of one-word paragraphs, parsed whole by markdown-it-py, took 848 MB
    and 52 s before `_Kept`; read so, 109 MB and 5 s.)"""
    a = line_starts[j]
    m = _ITEM_LINE.match(text, a)
    if m is None:
        return None
    indent = m.end() - 1 - a
    stop = _item_end(indent).search(text, a)
    e = len(text) if stop is None else stop.end()
    if text.find("\t", a, e + indent + 1) >= 0 or text.find("\r", a, e + 1) >= 0 \
            or _deep_line(indent).search(text, a, e) \
            or _DEEP_START.match(text, a + indent):  # (its first line's content too)
        return None  # (the end line's indent too: a tab in it may reach the item's)
    end = bisect.bisect_left(line_starts, e) if stop is not None else len(line_starts)
    if stop is not None and (end - 1 <= j or text[line_starts[end - 1]:e].strip(" \t\n")):
        return None  # (the line before the end is not blank: maybe a lazy continuation line)
    atoms: list[LineRange] = []
    for (found, nested), first, _open in _piece_items(text, a, line_starts, j, parser, piece, quote_piece,
                                                      indent, end):
        for name, (x, y), extra in found:
            if name not in ("code", "table"):
                continue
            # (the rest of a table read on from a row: one atom with the part before)
            at = next((i for i in range(len(atoms) - 1, -1, -1) if atoms[i][1] == first + x), None) \
                if extra.get("continued") else None
            if at is None:
                atoms.append((first + x, first + y))
            else:
                atoms[at] = (atoms[at][0], first + y)
        atoms.extend((first + x, first + y) for x, y in nested)
    goes_on = False
    if stop is not None:
        nxt = _ANY_ITEM.match(text, e)
        goes_on = nxt is not None and not _THEMATIC.match(text, e) and (
            nxt.group(1) == m.group(2) if nxt.group(1) else nxt.group(2) == m.group(3))
    return end, atoms, goes_on


def _quote_cut(text: str, line_starts: Sequence[int], first: int, ls: int, le: int,
               nested: list[LineRange], definitions: Sequence[int] = ()) -> int:
    """A line of a top-level block quote (lines `ls` to `le` of a piece that starts at line
    `first` of `text`) to read the rest of the quote from, or 0 for none. One of its second
    half, not inside a code block or table nested in it, not one of its last two lines: the
    last whose text is not indented past its ">" after a line that is blank but for quote
    markers (where the quote's own blocks start again) or that starts a link reference
    definition of the quote's own (`definitions`: its lines; it starts one of the quote's
    blocks with nothing open in it), else the last that is an item of a bullet list, not
    indented either (a quote of nested lists and quotes has no blank line), else the last
    that `_plain_quote_cut` allows (quotes nested to changing depths without a blank line:
    helper-70's 20 MB of them were read whole, 21-38x the file).
    Never at or after a line that may open an HTML block (where it ends is not known here).
    """
    top = le - 2
    if top <= ls:
        return 0
    nested_lines = {k for a, b in nested for k in range(max(a + 1, ls), min(b, le))}  # lines inside an atom
    a = line_starts[first + ls]
    head = _QUOTE_HTML.match("\n" + text[a:a + 200])  # its first line (`text` may start there)
    if head is not None and _opens_html(text, a + head.end() - 1):
        return 0
    for mark in _QUOTE_HTML.finditer(text, a, line_starts[first + top]):
        if _opens_html(text, mark.end()):
            top = bisect.bisect_right(line_starts, mark.start() + 1) - 1 - first - 1
            break
    starts = set(definitions)
    fallback = 0
    for k in range(top, max(ls, (ls + le) // 2), -1):
        at = line_starts[first + k]
        if k in nested_lines or not _QUOTE_TEXT.match(text, at) or _table_alone(text, line_starts, first + k):
            continue
        if k in starts or _QUOTE_BLANK.fullmatch(text, line_starts[first + k - 1], at):
            return k
        if not fallback and _QUOTE_ITEM.match(text, at):
            if not _QUOTE_RULE.fullmatch(text, at, line_starts[first + k + 1]):
                fallback = k
    return fallback or _plain_quote_cut(text, line_starts, first, ls, top, (ls + le) // 2, nested_lines)


# A line of a top-level quote whose text starts right after its one marker (and a space): a block
# of the quote's own, not of a list or quote nested in it, and not indented code (`_quote_table_cut`).
_QUOTE_CHILD = re.compile(r" {0,3}> ?(?=[^ \t\r\n>])")
_QUOTE_MARKER = re.compile(r" {0,3}>")


def _quote_table_cut(text: str, line_starts: Sequence[int], first: int, item: Item, nested: list[LineRange],
                     piece_end: int, going_on: tuple[str, int, int] | None) -> tuple[int, int, int]:
    """(a line of a top-level block quote `item`, the last block of a piece from line `first` of
    `text` that ends at character `piece_end`, to read the rest of the quote from, or 0; the line
    of `text` its table's header is on; the cells that table filled in before the line).

    The line is the quote's last, when the quote runs to the piece's end in a table of its own
    (`nested`: the piece's code blocks and tables, line spans; not one of a list or quote inside
    it) with a body row before that line, and the table's filled-in cells stay under
    markdown-it-py's cap (`_TABLE_CAP`; counted on from `going_on[2]` for a table read on
    already). Read from a body row after the table's header and delimiter lines, the quote goes on
    as in one parse: each line goes on the quote by its own markers, and each body row goes on
    the table by that line alone (see `_table_cut`). Found by helper-105: 5 MB of a one-column
    table in a quote was read whole by markdown-it-py, 19.5x the file (18.7x measured again;
    7.9x read on)."""
    _name, (ls, le), _extra = item
    end_line = bisect.bisect_left(line_starts, piece_end, first) - first
    k = le - 1
    atom = next((x for x in nested if x[1] == le), None)
    if le != end_line or atom is None or k <= max(ls, atom[0] + 2):
        return 0, 0, 0
    head_line = first + atom[0]
    content = []
    for line in (head_line, head_line + 1):
        at, end = line_starts[line], line_starts[line + 1]
        m = _QUOTE_CHILD.match(text, at, end)
        if m is None:
            return 0, 0, 0
        content.append((m.end(), end))
    head = "".join(text[a:b] for a, b in content)
    found, _ = _reference_items(head)
    if not found or found[0][0] != "table" or found[0][2]["head"] != (0, 1):
        return 0, 0, 0  # (a code block, not a table)
    columns = len(found[0][2]["cells"])
    filled = going_on[2] if going_on is not None and going_on[1] == head_line else 0
    for r in range(max(atom[0] + 2, 0), k):
        m = _QUOTE_MARKER.match(text, line_starts[first + r])
        if m is None:  # (a body row without its marker, a lazy line, ends the table: not expected)
            return 0, 0, 0
        filled += columns - _row_cells(text, m.end(), line_starts[first + r + 1])
    return (k, head_line, filled) if filled <= _TABLE_CAP[0] else (0, 0, 0)


def _table_alone(text: str, line_starts: Sequence[int], line: int) -> bool:
    """Whether quote line `line` (not the text's last), read as a piece's first line, may open a
    pipe table with the line after it: it holds a pipe and the next line has no quote marker
    (markdown-it's table rule comes before its quote rule; read whole, a line without a marker
    goes on the quote lazily and ends a table in it: helper-110 found `> h|` over a lazy `-|`
    read as a quote whole and as a table from a cut at the first)."""
    at, end = line_starts[line], line_starts[line + 1]
    if text.find("|", at, end) < 0:
        return False
    return _QUOTE_MARKER.match(text, end) is None


# A quote line of markers and plain paragraph text: a letter first, no pipe (`_plain_quote_cut`).
_PLAIN_QUOTE_LINE = re.compile(r"((?:> ?)+)[^\W\d_][^|\r\n]*(?:\r\n?|\n)?")


def _plain_quote_cut(text: str, line_starts: Sequence[int], first: int, ls: int, top: int, half: int,
                     nested_lines: set[int]) -> int:
    """The last line from `half` to `top` (lines of a piece that starts at line `first`) of a
    quote starting at line `ls` that a piece may start at although no blank line comes before
    it, or 0. Every line since the quote's last line blank but for its markers (or its start)
    is markers and plain paragraph text (`_PLAIN_QUOTE_LINE`: nothing it could start or go on
    but a paragraph), and the line has at least as many markers as any before it there. Read
    whole, the open paragraph stands as deep as the most markers since that blank line (a
    line of fewer goes on it lazily, one of more opens a quote and a paragraph in it); read
    from the line, the paragraph opens there at its own depth: the same depth, so every line
    after it is read alike, and the quote ends where it ends read whole. (A line of a
    definition, a table, indented code or a setext underline read as lazy text whole, and as
    itself from a cut: helper-71.) Lines inside code blocks or tables nested in the quote
    (`nested_lines`) are not plain, blank or not."""
    deepest, found = 0, 0
    plain = True
    for k in range(ls, top + 1):
        if k in nested_lines:
            plain = False
            continue
        at = line_starts[first + k]
        end = line_starts[first + k + 1]
        if _QUOTE_BLANK.fullmatch(text, at, end):
            deepest, plain = 0, True
            continue
        m = _PLAIN_QUOTE_LINE.fullmatch(text, at, end)
        if m is None:
            plain = False
            continue
        depth = m.group(1).count(">")
        if plain and k >= half and depth >= deepest:
            found = k
        deepest = max(deepest, depth)
    return found


def _restart_line(text: str, found: list[Item], line_starts: Sequence[int], first: int) -> int:
    """The first line of the last top-level block of a piece that follows another block after
    blank lines only, or of its last top-level link reference definition after another item
    (0: none). A definition is read only where a block may start and nothing is open, so
    reading on from it gives the same blocks; ends of runs of definitions without blank lines
    between (files of nothing else, found by a break run) are places a piece can end too."""
    n = len(line_starts)
    for j in range(len(found) - 1, 0, -1):
        if found[j][0] == "definition":
            return found[j][1][0]
        a = first + found[j - 1][1][1]
        b = first + found[j][1][0]
        if a <= b and _NONSPACE.search(text, line_starts[min(a, n - 1)], line_starts[min(b, n - 1)]) is None:
            if a == b and text.find("]:", line_starts[max(a - 2, 0)], line_starts[min(a, n - 1)]) >= 0:
                continue  # right after a definition (in a list item, say) whose title may go on
            return found[j][1][0]
    return 0


def build_markdown_blocks(text: str, start: int = 0, parser: str = "auto",
                          piece: int | None = None, quote_piece: int = QUOTE_PIECE) -> tuple[BlockList, str | None]:
    """Typed blocks of the Markdown in `text[start:]` (start must be a line start).

    Args:
        parser: "auto" reads the block structure with markdown-it-pyrs (Rust) when it is
            installed and the document is not nested deeper than it is tested for
            (`chunkctl.loaders.markdown_rs`), else with markdown-it-py; "reference" always
            uses markdown-it-py, the reference both must agree with (tests/loaders/
            test_markdown_parsers.py compares them on the CommonMark spec examples, GFM
            tables and every Markdown file of the shared corpus).
        piece: characters parsed at a time (`_piece_items`; default `PIECE`); memory
            follows it, not the document.
        quote_piece: characters of one block quote parsed at a time (`_piece_items`).

    Returns:
        (blocks, first h1 text or None). Blocks cover every non-white-space character
        of `text[start:]`: lines markdown-it drops (link reference definitions) become
        paragraph blocks.

    Raises:
        ValueError: unknown `parser`.
    """
    line_starts = lines_of(text)  # 8 bytes a line (a list of ints takes about 36)
    n_lines = len(line_starts)
    total = len(text)
    blocks = BlockList()
    nested: list[tuple[int, int]] = []
    first_h1 = None
    pos = start
    path = HeadingPath()  # the heading path in force (one tuple shared by the blocks under a heading)

    # A heading is appended when the next block is known: link reference definitions and HTML
    # comments right under it, which render to nothing, are lines of the heading's block, so
    # heading lines with only those between them still open one section and one chunk
    # (helper-111: the rust-lang/rfcs template's "## Summary" over "[summary]: #summary" made a
    # chunk of a heading and an invisible line before every "###").
    # Only a few such lines (HEADING_QUIET_CHARS): a long run of them, a list of links or a
    # licence in a comment, is text of its own that a chunk's breadcrumb and a section keep apart
    # from the next heading (helper-113: 8 definitions under "## Links" were folded, as heading
    # lines, into the chunk of "## Next", without "Links" in the breadcrumbs before).
    heading: list[Any] = []  # [start, end, extra, end of the heading line] of the heading not yet appended

    def append_heading() -> None:
        hs, he, hx, _line_end = heading
        heading.clear()
        level = hx["level"]
        blocks.append(Block(BlockKind.HEADING, hs, he, level=level, headings=path.enter(level, hx["title"])))

    def add(kind: BlockKind, s: int, e: int, extra: dict, left_out: bool = False) -> None:
        """Append a block; `left_out`: a paragraph of lines markdown-it left out (definitions)."""
        if heading:
            if ((left_out or kind == BlockKind.HTML and not extra) and e - heading[3] <= HEADING_QUIET_CHARS
                    and _renders_nothing(text, s, e)):
                heading[1] = e
                return
            append_heading()
        if kind == BlockKind.HEADING:
            heading.extend((s, e, extra, e))
        elif not extra:
            block = Block(kind, s, e, headings=path.titles)
            blocks.append(as_pipe_table(text, block) if kind == BlockKind.PARAGRAPH else block)
        else:
            blocks.append(as_pipe_table(text, Block(
                kind, s, e,
                headings=path.titles,
                language=extra.get("language", ""),
                header=extra.get("header"),
                rows=extra.get("rows", ()),
                meta=extra.get("meta", {}),
            )))

    base = bisect.bisect_left(line_starts, start)
    # a block continued in the next piece: [start, item or row spans or None, a table's extra or None, end,
    # the start of its first line]
    held: list | None = None
    for items, first, is_open in _piece_items(text, start, line_starts, base, parser, piece or PIECE,
                                                    quote_piece):
        def span(lines: LineRange, keep_indent: bool = False, first: int = first) -> tuple[int, int]:
            a = first + lines[0]
            b = first + lines[1]
            s = line_starts[a] if a < n_lines else total
            e = line_starts[b] if b < n_lines else total
            seg = text[s:e]
            e = s + len(seg.rstrip())
            if not keep_indent:
                m = _NONSPACE.search(text, s, e)
                s = m.start() if m else e
            return s, e

        raw, nested_spans = _raw_blocks(items, span, text)
        nested.extend(nested_spans)
        # Cover what markdown-it leaves out (reference definitions, stray lines) and
        # keep blocks non-overlapping and in order.
        raw.sort(key=lambda r: (r[1], -r[2]))
        if held is not None:  # the list, quote or paragraph of the last piece goes on in this one's first block
            kind, s, e, extra = raw[0]
            if held[1] is not None:
                held[1].extend(extra["rows"])
            if s < e:
                held[3] = e
            if is_open and len(raw) == 1:  # and on into the next
                continue
            e = held[3]  # (the end of its last text: the lines of this piece may have none to Python)
            if kind == BlockKind.HEADING:  # a paragraph read on to a setext underline: one heading of all its lines
                extra = {**extra, "title": _setext_title(text, held[4], e)}
            elif held[2] is not None:  # a table's header and header cells
                extra = held[2]
            # (from its first character Python does not count as white space: a paragraph's lines
            # before the piece may have none, U+2003 to markdown-it is text)
            m = _NONSPACE.search(text, held[0], e)
            raw[0] = (kind, m.start() if m else e, e,
                      extra if held[1] is None else {**extra, "rows": compact_spans(held[1])})
            held = None
        if first_h1 is None:
            first_h1 = next((x["title"] for kind, _s, _e, x in raw
                             if kind == BlockKind.HEADING and x["level"] == 1 and x["title"]), None)
        if is_open:
            kind, s, e, extra = raw.pop()
            rows = kind in (BlockKind.LIST, BlockKind.TABLE)
            line = first + items[0][-1][1][0]  # (its first line: the piece's last item)
            held = [s, Spans(extra["rows"]) if rows else None, extra if kind == BlockKind.TABLE else None, e,
                    line_starts[line] if line < n_lines else total]
        for kind, s, e, extra in raw:
            if e <= s:
                continue
            if s < pos:
                if e <= pos:
                    continue
                s = pos
                m = _NONSPACE.search(text, s, e)
                if m is None:
                    continue
                s = m.start()
                extra = {k: v for k, v in extra.items() if k not in ("header", "rows")}
                if kind == BlockKind.TABLE:
                    kind = BlockKind.PARAGRAPH
            gap = _NONSPACE.search(text, pos, s)
            if gap is not None:
                add(BlockKind.PARAGRAPH, gap.start(), pos + len(text[pos:s].rstrip()), {}, left_out=True)
            add(kind, s, e, extra)
            pos = e
    gap = _NONSPACE.search(text, pos, total)
    if gap is not None:
        add(BlockKind.PARAGRAPH, gap.start(), pos + len(text[pos:].rstrip()), {}, left_out=True)
    if heading:
        append_heading()
    if nested:
        blocks = _with_nested_atoms(blocks, nested)
    blocks = mark_display_math(text, split_at_headings(text, blocks, wiki_headings(text, start)))
    return blocks, first_h1


def _setext_title(text: str, start: int, end: int) -> str:
    """The title of the setext heading `text[start:end]` (`start` its first line's start, its
    last line the underline), as markdown-it-py reads its content (CR and CR LF as LF, NUL as
    U+FFFD, trimmed of CommonMark's white space, which U+001C-U+001F are not) and
    `clean_heading` cleans it: for a heading whose lines were read in pieces."""
    under = max(text.rfind("\n", start, end), text.rfind("\r", start, end)) + 1
    content = text[start:under]
    if "\r" in content:
        content = _CR.sub("\n", content)
    if "\0" in content:
        content = content.replace("\0", "\ufffd")
    try:
        from markdown_it.common.utils import mdTrim
    except ImportError:  # (markdown-it-py 3 trimmed with `str.strip`)
        return clean_heading(content.strip())
    return clean_heading(mdTrim(content))


def _with_nested_atoms(blocks: BlockList, nested: list[tuple[int, int]]) -> BlockList:
    """List and quote blocks with the spans of the code blocks and tables nested in them in
    `meta["atomic"]` (character spans the packer keeps whole and overlap never enters)."""
    nested.sort()
    starts = [s for s, _e in nested]
    out = BlockList()
    for blk in blocks:
        if blk.kind in (BlockKind.LIST, BlockKind.QUOTE):
            lo = bisect.bisect_left(starts, blk.start)
            hi = bisect.bisect_left(starts, blk.end)
            inner = [x for x in nested[lo:hi] if x[1] <= blk.end and x[1] > x[0]]
            if inner:
                blk = Block(blk.kind, blk.start, blk.end, blk.level, blk.headings, blk.language, blk.header,
                            blk.rows, {**blk.meta, "atomic": inner})
        out.append(blk)
    return out


@register("md", ".md", ".markdown", ".mdown", ".mkd", sample=b"# Warm\n\nUp.\n")
def load_markdown(data: bytes, source: str, config) -> Document:
    """Load a Markdown file (CommonMark + GFM tables, YAML/TOML front matter).

    The document text is the decoded file (BOM removed, no newline translation).
    Front matter becomes a FRONT_MATTER block and `meta.front_matter`; the title
    comes from it, else from the first h1, else from the file name.

    Raises:
        LoaderError: binary or undecodable file.
    """
    decoded = decode_bytes(data, source, forced=config.encoding)
    text, encoding = decoded.text, decoded.encoding
    fm_end, fm, warning = parse_front_matter(text)
    blocks, first_h1 = build_markdown_blocks(text, fm_end)
    blocks, skipped = cut_payloads(text, blocks)
    if fm_end:
        blocks = BlockList(itertools.chain([Block(BlockKind.FRONT_MATTER, 0, len(text[:fm_end].rstrip()))], blocks))
    title = None
    if fm:
        try:
            fm = _jsonable(fm)
        except _TooBig:
            fm = {}
            warning = "front matter has more than 10,000 values (YAML aliases?); ignored"
        except RecursionError:
            fm = {}
            warning = f"front matter nested more than {FRONT_MATTER_DEPTH} levels deep; ignored"
        t = fm.get("title")
        if isinstance(t, (str, int, float)) and str(t).strip():
            title = str(t).strip()
        fm, dropped = _fit_front_matter(fm)
        if dropped:
            warning = (f"front matter of more than {FRONT_MATTER_BYTES:,} bytes as JSON, which every record carries: "
                       f"its largest values left out of the metadata: {', '.join(dropped[:5])}"
                       + (" ..." if len(dropped) > 5 else ""))
    meta: dict[str, Any] = {
        "title": title or first_h1,  # None: the registry gives the file stem
        "encoding": encoding,
    }
    if fm:
        meta["front_matter"] = fm
    if skipped:
        meta["skipped_spans"] = skipped
    doc = Document(source=source, format="md", text=text, blocks=blocks, meta=meta)
    if decoded.warning:
        doc.warnings.append(decoded.warning)
    if warning:
        doc.warnings.append(warning)
    return doc
