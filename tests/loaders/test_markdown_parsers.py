"""Issue 19: the fast Markdown parser (markdown-it-pyrs) gives the same blocks as the reference
(markdown-it-py) on the CommonMark spec examples, GFM tables, generated Markdown and every
Markdown file of the shared corpus; and the loader falls back to the reference where it must."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkctl.loaders import markdown, markdown_rs
from chunkctl.loaders.markdown_rs import _REF_DEF, _TABLE_ROWS

DATA = Path(__file__).resolve().parent.parent / "data"
SHARED = Path(__file__).resolve().parents[3] / "shared"

pytestmark = pytest.mark.skipif(not markdown_rs.available(), reason="markdown-it-pyrs is not installed here")
# (CI installs it: pyproject.toml requires it on CPython 3.12 and older)


def both(text: str, start: int = 0, fast_only: bool = True):
    """(reference blocks, fast blocks), asserting (unless `fast_only` is False) that the fast parser read the text."""
    assert markdown_rs.block_items(text[start:]) is not None or not fast_only
    ref = markdown.build_markdown_blocks(text, start, parser="reference")
    fast = markdown.build_markdown_blocks(text, start, parser="auto")
    return ref, fast


def assert_same(text: str, start: int = 0, fast_only: bool = True) -> None:
    ref, fast = both(text, start, fast_only)
    assert fast == ref
    assert [b.meta for b in fast[0]] == [b.meta for b in ref[0]]  # header cells, nested atoms


def prefixed(md: str, prefix: str) -> str:
    """`md` with `prefix` before each line (inside a list item: two spaces; inside a quote: "> ")."""
    return "".join(prefix + x for x in md.splitlines(True))


def examples(name: str, count: int) -> list[dict]:
    found = json.loads((DATA / name).read_text("utf-8"))
    assert len(found) == count
    return found


def test_commonmark_spec_examples_give_the_same_blocks():
    fallbacks = 0
    for ex in examples("commonmark-0.31.2-examples.json", 652):
        md = ex["markdown"]
        fallbacks += markdown_rs.block_items(md) is None
        # alone, after a heading, inside a list item and inside a quote
        for text in (md, "# Title\n\n" + md, "- item\n\n" + prefixed(md, "  "), prefixed(md, "> ")):
            try:
                assert_same(text, fast_only=False)
            except AssertionError:
                pytest.fail(f"CommonMark example {ex['example']} ({ex['section']}): {text!r}")
    assert fallbacks <= 60  # 47 with markdown-it-pyrs 0.4.0 (link titles, tabs, lazy lines): the fast parser reads the rest


def test_gfm_table_examples_give_the_same_blocks():
    tables = fast = 0
    for ex in examples("gfm-tables-examples.json", 42):
        md = ex["markdown"]
        for text in (md, "- item\n\n" + prefixed(md, "  "), md.replace("\n", "\r\n")):
            assert_same(text, fast_only=False)
        tables += sum(b.kind.value == "table" for b in markdown.build_markdown_blocks(md)[0])
        fast += markdown_rs.block_items(md) is not None
    assert tables >= 30  # the examples do hold tables
    assert fast >= 20  # 26 of 42 with markdown-it-pyrs 0.4.0; the rest are the odd cases they test


def test_exact_blocks_of_a_small_document_with_both_parsers():
    text = ("---\ntitle: T\n---\n# Héllo *wörld* #\n\nPara one\nline two\n\n- a\n\n  ```py\n  x\n  ```\n- b\n\n"
            "```md\n| a | b |\n|---|---|\n```\n\n    code\n\n> q\n\n<div>\nx\n</div>\n\n[r]: /url\n\n***\n"
            "Setext\n===\n\n| a | b\\|c |\n|:--|---|\n| 1 | 2 |\n3 | 4\n")
    start = text.index("# H")
    ref, fast = both(text, start)
    assert fast == ref
    blocks, h1 = fast
    assert h1 == "Héllo wörld"
    got = [(b.kind.value, text[b.start:b.end]) for b in blocks]
    assert got == [
        ("heading", "# Héllo *wörld* #"),
        ("paragraph", "Para one\nline two"),
        ("list", "- a\n\n  ```py\n  x\n  ```\n- b"),
        ("code", "```md\n| a | b |\n|---|---|\n```"),  # a table row inside code: the fast parser still reads it
        ("code", "    code"),
        ("quote", "> q"),
        ("html", "<div>\nx\n</div>"),
        ("paragraph", "[r]: /url"),  # markdown-it drops reference definitions; the loader keeps the text
        ("rule", "***"),
        ("heading", "Setext\n==="),
        ("table", "| a | b\\|c |\n|:--|---|\n| 1 | 2 |\n3 | 4"),
    ]
    assert blocks[3].language == "md"
    table = blocks[-1]
    assert table.meta["header_cells"] == ["a", "b|c"]
    assert [text[s:e] for s, e in table.rows] == ["| 1 | 2 |", "3 | 4"]
    assert text[table.header[0]:table.header[1]] == "| a | b\\|c |\n|:--|---|"
    assert [text[s:e] for s, e in blocks[2].meta["atomic"]] == ["```py\n  x\n  ```"]


def test_the_shared_corpus_gives_the_same_blocks():
    files = sorted((SHARED / "corpus").rglob("*.md")) + sorted((SHARED / "cases").rglob("*.md"))
    assert len(files) >= 20
    deep = []  # read by the reference parser
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        start, _fm, _warning = markdown.parse_front_matter(text)
        assert_same(text, start, fast_only=False)
        if markdown_rs.block_items(text[start:]) is None:
            deep.append(path.name)
    assert len(files) - len(deep) >= 55, deep  # 61 of 66 with markdown-it-pyrs 0.4.0


@pytest.mark.parametrize("text", [
    "| h |\n---\n",  # one-column table without a pipe in its delimiter row (or a setext heading)
    "`\n|-",  # a line without a pipe over "|-"
    "```|\n--", "~~~||\n-|-", ">||\n-|-",  # a table's header row that opens a fence or a quote
    "a||||\n-|-|-|-\n2)",  # a list marker under a table
    ">a\na||\n-|-",  # a table under a lazy line of a quote
    "| a |\n|---|\n" + "|\n" * 70_000,  # a table big enough for markdown-it-py's cell-filling guard
    ">)\n2)", ">`\n-", ">é\nm\n1.",  # lazy continuation lines in a quote
    ">>1.\t *", ">>> \t-",  # a tab after a container marker
    "0. <!--\n\n   ```",  # an HTML comment opened inside a list item
    # found by a helper on 49,000 real files and parser test suites (cmark, pulldown-cmark, markdig):
    "<!o", "<!doctype html>\n", "Watch this:\n<source src=\"a.mp4\">\n",  # HTML block starts of spec 0.31
    "[1]: https://a.b\n() => x\n", "[i]: /u\n\"a\\\nb\"", "[c]:p\n(\n2)",  # a title on the next line?
    "[a]: http://x.com/\\\n  more\n", "[m]: m\n[a]: u\\\n",  # a destination ending in a backslash
    "> quote\n\xa0\n2) item\n",  # a no-break space is text, not a blank line
    ">> nested quote\n> 2.     code\n",  # a lazy line after a deeper quote
    "[\ufffd]:\ufffd\r()`",
    "[c]:l (\n2)\nt", "[a]:\n/url\n", "[a]:< > (\r2)\ra",  # link reference definitions over two lines
    "|h|\n|---|\n\xa0\n", "| a |\n|---|\n| 1 |\n\u2003\nx\n",  # a table row of Unicode white space only
    "".join(f"[a{i}]: /u\n" for i in range(1001)),  # markdown-it.rs takes quadratic time over these
])
def test_where_the_parsers_differ_the_reference_reads(text):
    """Each input is the shortest of a class where markdown-it.rs and markdown-it-py read the
    lines differently (found on generated Markdown): the loader gives the reference's blocks."""
    assert markdown_rs.block_items(text) is None
    assert_same(text, fast_only=False)


@pytest.mark.parametrize("line", [">" * 100_000 + "x\n", "- " * 60_000 + "x\n", "1. " * 60_000 + "x\n",
                                  " " * 64 + "- x\n"])
def test_nesting_markdown_it_rs_cannot_take_is_never_given_to_it(line):
    """Some 20,000 to 60,000 nested markers on one line (it depends on the stack) overflow
    markdown-it.rs's stack and kill the process (a segfault no handler catches): such lines go to the reference parser before
    markdown-it.rs sees them. Run in a child process, so a crash fails this test only."""
    import subprocess
    import sys

    code = ("import sys; from chunkctl.loaders import markdown, markdown_rs; text = sys.stdin.read(); "
            "assert markdown_rs.block_items(text) is None; print(len(markdown.build_markdown_blocks(text)[0]))")
    p = subprocess.run([sys.executable, "-c", code], input=line, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-500:]
    assert int(p.stdout) >= 1


def test_lazy_quote_lines_are_found_in_one_pass():
    """`_lazy_quotes`: every list item that may not interrupt a paragraph, in a run of text
    lines with a quote line above it; a blank line ends the run."""
    find = markdown_rs._lazy_quotes
    assert find("\n> a\nb\n2) c\n") == [len("\n> a\nb")]
    assert find("\n> a\n\n2) c\n") == []  # a blank line between
    assert find("\n> a\n\xa0\n-\n") == [len("\n> a\n\xa0")]  # a no-break space is not blank
    assert find("\n> 2) a\n") == []  # the quote line itself
    assert find("\n>> a\n> 2. b\n") == [len("\n>> a")]
    assert find("\n1. a\n2. b\n") == []  # no quote
    assert find("\n" + "> x\n" * 5000 + "1. y\n") == []  # 1 may interrupt a paragraph
    # found by a helper: the first match inside a fenced code block hid the real one below it
    text = "```\n\n>\n-\n```\n>>y\n>-\nc"
    assert find("\n" + text) == [len("\n```\n\n>"), len("\n```\n\n>\n-\n```\n>>y")]
    assert markdown_rs.block_items(text) is None
    assert_same(text, fast_only=False)


# ------------------------------------------------------------------ generated Markdown
WORD = st.sampled_from(["alpha", "beta", "*em*", "`code`", "[link](/u)", "x|y", "\\|", "é", "日本", "<b>", "1.", "-",
                        "#", ">", "    ", "\t", "~~~", "```", "==", "--", "|"])


@st.composite
def line(draw) -> str:
    return " ".join(draw(st.lists(WORD, min_size=0, max_size=6)))


@st.composite
def block(draw, depth: int = 0) -> str:
    kinds = ["para", "heading", "setext", "fence", "indented", "table", "html", "hr", "ref", "blank"]
    if depth < 3:
        kinds += ["list", "olist", "quote"]
    kind = draw(st.sampled_from(kinds))
    if kind == "para":
        return "\n".join(draw(st.lists(line(), min_size=1, max_size=3))) + "\n"
    if kind == "heading":
        return "#" * draw(st.integers(1, 7)) + " " + draw(line()) + draw(st.sampled_from(["", " ##", " #"])) + "\n"
    if kind == "setext":
        return draw(line()) + "\n" + draw(st.sampled_from(["===", "---", "-", "= ="])) + "\n"
    if kind == "fence":
        fence = draw(st.sampled_from(["```", "~~~", "````"]))
        info = draw(st.sampled_from(["", "py", "js title", "`x`"]))
        close = draw(st.sampled_from([fence, "", "```", "    " + fence]))
        return fence + info + "\n" + "\n".join(draw(st.lists(line(), max_size=3))) + "\n" + close + "\n"
    if kind == "indented":
        return "".join("    " + x + "\n" for x in draw(st.lists(line(), min_size=1, max_size=3)))
    if kind == "table":
        cols = draw(st.integers(1, 4))
        edge = draw(st.sampled_from(["|", "", " |", "|  "]))
        head = edge + " | ".join(draw(line()) or "h" for _ in range(cols)) + edge.strip()
        delim = "|" + "|".join(draw(st.sampled_from(["---", ":--", "--:", ":-:", "-", " --- "])) for _ in range(cols)) + "|"
        if draw(st.booleans()):
            delim = delim.strip("|")
        cell = st.one_of(line(), st.sampled_from(["`a|b`", "a \\| b", "", "  ", "**x**"]))
        rows = [draw(st.sampled_from(["| ", "", "|"])) + " | ".join(draw(cell) for _ in range(draw(st.integers(0, cols + 1))))
                + draw(st.sampled_from([" |", "", "|"])) for _ in range(draw(st.integers(0, 3)))]
        return "\n".join([head, delim, *rows]) + "\n"
    if kind == "html":
        return draw(st.sampled_from(["<div>\n", "<!-- c -->\n", "<pre>\nx\n</pre>\n", "<span>x</span>\n",
                                     "<script>\nx\n\ny\n</script>\n", "<?php\nx\n?>\n", "<!DOCTYPE html>\n",
                                     "<![CDATA[\nx\n]]>\n", "</div>\n", "<custom-tag a=\"b\">\n", "<!-- open\n",
                                     "<!doctype html>\n", "<source src=x>\n", "<PRE>\nx\n</PRE>\n"]))
    if kind == "hr":
        return draw(st.sampled_from(["***", "---", "_ _ _", "- - -"])) + "\n"
    if kind == "ref":
        return ("[" + draw(st.sampled_from(["a", "b c", "é", "a\nb", "a[b", "a\\[b", "a\\]b", "[a", "a\\", "a\\\nb"])) + "]:"
                + draw(st.sampled_from([" /url", "\n/url", " <u v>", " /u\\"]))
                + draw(st.sampled_from(["", ' "t"', "\n't\nu'", " (t", "\n() x", '\n"t"'])) + "\n")
    if kind == "blank":
        return draw(st.sampled_from(["\n", "  \n", "\t\n", "\xa0\n"]))
    inner = "".join(draw(st.lists(block(depth + 1), min_size=1, max_size=3)))
    if kind == "quote":
        return "".join(draw(st.sampled_from(["> ", ">", ""])) + x for x in inner.splitlines(True))
    marker = draw(st.sampled_from(["- ", "* ", "+ ", "-    ", " - "])) if kind == "list" else draw(
        st.sampled_from(["1. ", "2) ", "10. ", "0. "]))
    lines = inner.splitlines(True) or ["\n"]
    pad = " " * (len(marker) + draw(st.integers(-1, 2)))
    return marker + lines[0] + "".join((pad if draw(st.booleans()) else "") + x for x in lines[1:])


@st.composite
def document(draw) -> str:
    text = "".join(draw(st.lists(block(), min_size=1, max_size=8)))
    eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return text.replace("\n", eol)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document())
def test_generated_markdown_gives_the_same_blocks(text):
    assert_same(text, fast_only=False)


# ------------------------------------------------------------------ fallbacks
def test_deep_nesting_takes_the_reference_parser():
    """markdown-it-py stops reading at nesting level 20 (`maxNesting`); markdown-it.rs goes on,
    so a document nested that deep is read by the reference."""
    deep = "".join("  " * i + "- item\n" for i in range(30)) + "\n" + "> " * 30 + "quote\n\n```\ncode\n```\n"
    assert markdown_rs.block_items(deep) is None
    assert markdown.build_markdown_blocks(deep) == markdown.build_markdown_blocks(deep, parser="reference")
    shallow = "".join("  " * i + "- item\n" for i in range(5))
    assert markdown_rs.block_items(shallow) is not None


def test_without_markdown_it_pyrs_the_reference_reads_everything(monkeypatch):
    text = "# T\n\n- a\n\n| x |\n|---|\n| 1 |\n"
    fast = markdown.build_markdown_blocks(text)
    monkeypatch.setattr(markdown_rs, "_MD", None)
    monkeypatch.setattr(markdown_rs, "_MISSING", True)
    assert not markdown_rs.available()
    assert markdown_rs.block_items(text) is None
    assert markdown.build_markdown_blocks(text) == fast


def test_an_unknown_parser_name_is_an_error():
    with pytest.raises(ValueError, match="unknown Markdown parser"):
        markdown.build_markdown_blocks("x", parser="pulldown")


@pytest.mark.parametrize("text, starts", [
    ("", [0]), ("a", [0]), ("a\n", [0, 2]), ("a\nbc\n\nd", [0, 2, 5, 6]),
    ("a\r\nb\rc\n", [0, 3, 5, 7]), ("\r\r\n\n", [0, 1, 3, 4]), ("é\n日本\nx", [0, 2, 5]),
])
def test_line_starts(text, starts):
    from chunkctl.text.lines import line_starts

    assert list(line_starts(text)) == starts


# ------------------------------------------------------------------ the reference parser's own state
def _markers(state) -> tuple:
    # (ours are arrays, markdown-it-py's lists: the same numbers)
    return (state.src, *(list(m) for m in (state.bMarks, state.eMarks, state.tShift, state.sCount, state.bsCount)),
            state.lineMax)


def _our_state(src: str, monkeypatch):
    """The block state `markdown._parser()` builds for `src` (after its core rules ran)."""
    md = markdown._parser()
    seen = []
    monkeypatch.setattr(md.block, "tokenize", lambda state, a, b: seen.append(state))
    md.parse(src)
    return seen[0] if seen else None


def _their_state(src: str):
    """markdown-it-py's own normalize rule and StateBlock on the same text."""
    from types import SimpleNamespace

    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_core.normalize import normalize

    core = SimpleNamespace(src=src)
    normalize(core)
    return StateBlock(core.src, MarkdownIt("commonmark"), {}, []) if core.src else None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=" \t\n\r\0a-|>`#\u3000\x0b", max_size=60))
def test_the_reference_state_has_markdown_it_pys_text_and_line_markers(monkeypatch, text):
    """`_normalize` and `_State` find the line markers without copying the text or listing its
    lines; they must give markdown-it-py's own (CR, CRLF, NUL, tabs in the indent, a blank
    last line without a line break, an empty text)."""
    ours, theirs = _our_state(text, monkeypatch), _their_state(text)
    assert (ours is None) == (theirs is None)
    if ours is not None:
        assert _markers(ours) == _markers(theirs)


def test_exact_markers_of_a_small_text(monkeypatch):
    state = _our_state("a\r\n \tb\n\n  \t", monkeypatch)
    assert state.src == "a\n \tb\n\n  \t"
    assert (*map(list, (state.bMarks, state.eMarks, state.tShift, state.sCount)), state.lineMax) == (
        [0, 2, 6, 10], [1, 5, 6, 10], [0, 2, 0, 0], [0, 4, 0, 0], 3)


def test_a_text_without_cr_or_nul_is_not_copied(monkeypatch):
    text = "# T\n\n" + "x = 1\n" * 1000
    assert _our_state(text, monkeypatch).src is text


def _traced_code_peak(n: int) -> tuple[int, int]:
    import tracemalloc

    text = "# Code\n\n```\n" + "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(n)) + "```\n"
    markdown._parser()  # (built once per process: not part of the growth)
    tracemalloc.start()
    try:
        blocks, _ = markdown.build_markdown_blocks(text, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [b.kind.value for b in blocks] == ["heading", "code"]
    return peak, len(text)


def test_traced_memory_of_one_big_code_block_grows_less_than_12x_the_text():
    """A code block bigger than a piece is read whole by the reference parser. Its state held a
    normalized copy of the text and a list of its lines besides the line markers: the traced
    peak grew 15.0 bytes a character on these 12-character lines; 9.4 without them (what is
    left is mostly two Python integers a line, markdown-it-py's line markers)."""
    (p1, n1), (p2, n2) = _traced_code_peak(20_000), _traced_code_peak(80_000)
    growth = (p2 - p1) / (n2 - n1)
    assert growth < 12, growth


# The divergence patterns as first written (unbounded runs that backtrack): the rewritten ones must
# find the same spans, and find them in linear time (helper-56: 4 KB of "|-" then "x" took 15 s,
# 8 KB over 120 s; 12 KB of "[a" lines after a "]:" 36 s).
_PLAIN_TABLE_ROWS = re.compile(r"\n[ \t>]*(?::-+:?|-+:)[ \t]*$|\n[ \t>]*[:\-]*\|[|:\- \t]*-[|:\- \t]*$"
                               r"|\n[ \t>]*[|:\- \t]*-[|:\- \t]*\|[|:\- \t]*$|\n[^\n]*\|[^\n]*\n[ \t>]*:?-+:?[ \t]*$", re.M)
_PLAIN_REF_DEF = re.compile(r"(?<!\\)\[(?:[^\[\]\n\\]|\\[^\n]|\\(?![^\n]))*\]:[ \t]*(?:\n|[^\n]*[\"'(\\])"
                            r"|(?<!\\)\[(?:[^\[\]\n\\]|\\[^\n]|\\(?![^\n]))*\n(?:[^\[\]\\]|\\[\s\S]|\\\Z)*\]:"
                            r"|(?<!\\)\[(?:[^\[\]\n\\]|\\[^\n]|\\(?![^\n]))*\]:[^\n]*\n[ \t]*[\"'(]")


@settings(max_examples=2000)
@given(st.lists(st.sampled_from(["|", "-", ":", " ", "\t", ">", "\n", "a", "x", "[", "]", "]:", '"', "(", "\\"]),
                max_size=40).map("".join))
def test_the_divergence_patterns_find_what_their_plain_forms_find(text):
    text = "\n" + text
    assert [m.span() for m in _TABLE_ROWS.finditer(text)] == [m.span() for m in _PLAIN_TABLE_ROWS.finditer(text)]
    assert [m.span() for m in _REF_DEF.finditer(text)] == [m.span() for m in _PLAIN_REF_DEF.finditer(text)]


@pytest.mark.parametrize(("text", "spans"), [
    ('[a[b]: /u "t"\n', [(2, 13)]),  # a label holds no "[": the inner one opens it
    ('[a\\[b]: /u "t"\n', [(0, 14)]),  # an escaped "[" it may hold
    ('\\[b]: /u "t"\n', []),  # an escaped "[" opens none
    ('[a\\]: /u "t"\n', []),  # nor does an escaped "]" close it
])
def test_a_reference_label_opens_at_its_last_unescaped_bracket(text, spans):
    """(Each "[" of a run of them was tried as a label's start up to 999 characters on: 1 MB of
    "[" took 18 s.)"""
    assert [m.span() for m in _REF_DEF.finditer(text)] == spans


@pytest.mark.parametrize("text", [
    "intro\n\n" + "|-" * 4000 + "x\n",  # a line like a delimiter row that fails at its end
    "intro\n\n" + "a|" * 50000 + "\n\nend\n",  # a long line with pipes
    "see [x]: y\n\n" + "[a\n" * 4000 + "x",  # "[" without "]" after a "]:"
    "x]: y\n\n" + "[" * 200_000 + "\n",  # a run of "[" (1 MB: 18 s)
    "x]: y\n\n" + "\\[" * 100_000 + "\n",  # a run of escaped "["
])
def test_lines_that_backtracked_are_read_at_once(text):
    # (each took 15 s to hours before; a test that cannot end fails by the suite's time limit)
    ref, fast = both(text, fast_only=False)
    assert fast == ref and fast[0]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([" ", "\t", "\u00a0", "\u3000", "\u2028", "a", "é", "\u0301", "😀"]), max_size=30)
       .map("".join), st.binary(max_size=3), st.integers(1, 5), st.integers(0, 4), st.integers(0, 4))
def test_rows_of_white_space_are_found_in_slices_as_when_decoded_whole(text, junk, size, cut_a, cut_e):
    # a row of one giant cell was decoded whole (a copy and its text, 2.8x the row) to see this
    data = text.encode() + junk
    a, e = min(cut_a, len(data)), max(min(cut_a, len(data)), len(data) - cut_e)
    old = not data[a:e].decode("utf-8", "replace").strip()
    saved = markdown_rs.BLANK_SLICE
    try:
        markdown_rs.BLANK_SLICE = size  # slices that cut characters
        assert markdown_rs._blank_utf8(data, a, e) is old
    finally:
        markdown_rs.BLANK_SLICE = saved


def test_a_row_of_one_giant_cell_is_not_decoded_whole():
    import tracemalloc

    row = "| “" + "word’s " * 400_000 + "|\n"
    data, blank = row.encode(), b"|" + b" " * 3_000_000 + b"|"
    tracemalloc.start()
    try:
        assert not markdown_rs._blank_utf8(data, 0, len(data))
        assert markdown_rs._blank_utf8(blank, 1, 3_000_001)
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, peak


@pytest.mark.parametrize("columns, rows, fast", [
    (2000, 4096, False), (300, 400, False), (64, 1000, False),  # markdown-it.rs would fill in every missing cell
    (4, 100, True), (50, 1000, True),  # (50 columns x 1,000 rows: 50,000 cells, under the guard)
])
def test_a_wide_table_header_never_reaches_markdown_it_rs(monkeypatch, columns, rows, fast):
    # helper-105: a header of 2,000 columns over 4,096 rows of two cells (32 KB) took 4 GB: markdown-it.rs
    # makes a node for every cell of every row, missing ones filled in, before `_table_diverges` sees it
    text = "# T\n\n|" + "h|" * columns + "\n|" + "-|" * columns + "\n" + "|a|b|\n" * rows + "\nafter\n"
    calls = []
    real = markdown_rs._parser

    def parser():
        md = real()
        return None if md is None else type("Spy", (), {"tree": lambda self, src: (calls.append(len(src)),
                                                                                   md.tree(src))[1]})()

    monkeypatch.setattr(markdown_rs, "_parser", parser)
    assert (markdown_rs.block_items(text) is not None) is fast
    assert bool(calls) is fast
    monkeypatch.undo()
    assert_same(text, fast_only=fast)


def test_the_wide_table_check_reads_delimiter_rows_in_quotes_and_indented():
    assert markdown_rs._filled_cells_may_pass("> |" + "h|" * 200 + "\n> |" + "-|" * 200 + "\n" + "> |a|\n" * 400)
    assert markdown_rs._filled_cells_may_pass("|h|h|\n :-: | --- \n" + "a|b\n" * 30_001)
    assert not markdown_rs._filled_cells_may_pass("|h|h|\n|-|-|\n" + "a|b\n" * 100 + "\n" + "x\n" * 100_000)
    assert not markdown_rs._filled_cells_may_pass("text - more | text\n" * 100_000)
