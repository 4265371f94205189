"""Issue 14, point 7: Markdown parsed a piece at a time gives the blocks of one parse of the whole text.

A parser's tree of a document of one-word paragraphs took some 200 bytes per character
(317x the file); `build_markdown_blocks` now parses `markdown.PIECE` characters at a
time and reads on from the last top-level block of each piece. The pieces here are a
few characters long, so nearly every line is a piece boundary.
"""

from __future__ import annotations

import json
import random
import textwrap
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkctl.loaders import markdown, markdown_rs
from chunkctl.model import Block, BlockKind
from tests.conftest import needs_proc, peak_growth
from tests.loaders.test_markdown_parsers import document

DATA = Path(__file__).resolve().parent.parent / "data"
SHARED = Path(__file__).resolve().parents[3] / "shared"
WHOLE = 1 << 40
PARSERS = ["reference", "auto"] if markdown_rs.available() else ["reference"]


def assert_pieces_agree(text: str, parser: str, pieces=(1, 9, 64, 400), start: int = 0) -> None:
    whole, h1 = markdown.build_markdown_blocks(text, start, parser, piece=WHOLE)
    for piece in pieces:
        got, got_h1 = markdown.build_markdown_blocks(text, start, parser, piece=piece)
        assert got_h1 == h1
        assert list(got) == list(whole), (piece, text[:200])
        assert [b.meta for b in got] == [b.meta for b in whole]


def assert_quote_parts_agree(text: str, quote_piece: int) -> None:
    """Blocks and their meta (the code and tables kept whole in a quote) of `text` read in pieces
    of 8 characters and quotes `quote_piece` at a time are those of one parse, by every parser."""
    for parser in PARSERS:
        whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
        got, _ = markdown.build_markdown_blocks(text, 0, parser, piece=8, quote_piece=quote_piece)
        assert list(got) == list(whole)
        assert [b.meta for b in got] == [b.meta for b in whole]


def _spec_sources() -> list[str]:
    spec = json.loads((DATA / "commonmark-0.31.2-examples.json").read_text("utf-8"))
    gfm = json.loads((DATA / "gfm-tables-examples.json").read_text("utf-8"))
    return [e["markdown"] for e in spec] + [e["markdown"] for e in gfm]


@pytest.mark.parametrize("parser", PARSERS)
def test_spec_examples_alone_and_run_together_parse_the_same_in_pieces(parser):
    sources = _spec_sources()
    rng = random.Random(14)
    docs = list(sources)
    for _ in range(150):  # runs of examples: lists, quotes, fences and tables meet at piece ends
        sep = rng.choice(["", "\n", "\n\n"])
        docs.append(sep.join(rng.choice(sources) for _ in range(rng.randint(2, 12))))
    for text in docs:
        assert_pieces_agree(text, parser, pieces=(1, 30))


@pytest.mark.parametrize("parser", PARSERS)
def test_the_shared_corpus_parses_the_same_in_pieces(parser):
    files = sorted((SHARED / "corpus").rglob("*.md")) + sorted((SHARED / "cases").rglob("*.md"))
    assert len(files) >= 20
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        start, _fm, _warning = markdown.parse_front_matter(text)
        assert_pieces_agree(text, parser, pieces=(200, 3000), start=start)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document())
def test_generated_markdown_parses_the_same_in_pieces(text):
    for parser in PARSERS:
        assert_pieces_agree(text, parser, pieces=(1, 25))


def test_exact_blocks_across_piece_ends():
    text = ("# Title\n\npara one\nstill one\n\n- a\n- b\n\n  b2\n\n```\ncode\n\nmore\n```\n\n"
            "| x | y |\n| - | - |\n| 1 | 2 |\n\n> quote\nlazy\n\nlast\n")
    for parser in PARSERS:
        blocks, h1 = markdown.build_markdown_blocks(text, 0, parser, piece=1)
        assert h1 == "Title"
        assert [(b.kind.value, text[b.start:b.end]) for b in blocks] == [
            ("heading", "# Title"), ("paragraph", "para one\nstill one"), ("list", "- a\n- b\n\n  b2"),
            ("code", "```\ncode\n\nmore\n```"), ("table", "| x | y |\n| - | - |\n| 1 | 2 |"),
            ("quote", "> quote\nlazy"), ("paragraph", "last")]


@pytest.mark.parametrize("parser", PARSERS)
def test_a_list_over_many_pieces_is_one_block_with_every_item(parser):
    items = [f"- item {i}\n" + ("\n  more of it\n" if i % 7 == 0 else "") for i in range(400)]
    text = "# List\n\n" + "".join(items) + "\nAfter.\n"
    assert_pieces_agree(text, parser, pieces=(1, 50, 300))
    blocks, _ = markdown.build_markdown_blocks(text, 0, parser, piece=50)
    assert [b.kind.value for b in blocks] == ["heading", "list", "paragraph"]
    line_starts = markdown.lines_of(text)
    pieces = list(markdown._piece_items(text, 0, line_starts, 0, parser, 50))
    assert len(pieces) > 100 and sum(is_open for _items, _first, is_open in pieces) > 100  # read on, never whole
    assert [text[s:e].split("\n")[0] for s, e in blocks[1].rows] == [f"- item {i}" for i in range(400)]


@pytest.mark.parametrize("text", [
    "- foo\n-   foo|foo\n---|---\nbar|bar\n",  # an item's line that, read alone, opens a table
    "- a\n- b\n* c\n* d\n",  # another bullet: another list
    "1. a\n2. b\n3) c\n",  # another delimiter: another list
    "- a\n- ***\n- b\n", "- a\n-\n  b\n- c\n", "- a\n    - b\n- > c\nlazy\n- ```\n  x\n",
])
@pytest.mark.parametrize("parser", PARSERS)
def test_lists_read_on_from_an_item_only_where_that_item_starts_a_list(text, parser):
    assert_pieces_agree(text * 3, parser, pieces=(1, 5, 12))


def _traced_load(text: str) -> tuple[Any, int]:
    """(blocks, Python-traced peak in bytes) of loading Markdown `text`."""
    tracemalloc.start()
    try:
        blocks, _ = markdown.build_markdown_blocks(text, 0)
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return blocks, peak


_LOAD = textwrap.dedent("""
    from chunkctl.loaders import markdown
    markdown.build_markdown_blocks("# warm\\n\\nup\\n", 0)  # (imports and tables outside the measure)
    """)  # (at column 0: a test's own setup after it is dedented alone)


@needs_proc
def test_memory_of_one_word_paragraphs_grows_less_than_8x_the_text():
    """Peak memory of loading Markdown of one-word paragraphs, per character added (a piece's
    parse costs a fixed few megabytes, which the difference of two sizes leaves out): 2.6 bytes a
    character, measured untraced in a process of its own, the Rust parser's tree included. It
    grew about 120x before 0.1.3 (traced)."""
    small, big = (peak_growth(_LOAD + textwrap.dedent("""
        import random
        rng = random.Random(3)
        text = "\\n\\n".join(rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(int(sys.argv[1])))
        """), """
        blocks, _ = markdown.build_markdown_blocks(text, 0)
        result = {"blocks": len(blocks), "chars": len(text)}
        """, str(n)) for n in (30_000, 120_000))
    assert (small["blocks"], big["blocks"]) == (30_000, 120_000)
    growth = (big["growth"] - small["growth"]) / (big["chars"] - small["chars"])
    assert growth < 8, growth


@needs_proc
def test_memory_of_a_file_of_short_headings_is_bounded_by_lines_per_piece():
    """A piece ends after `PIECE_LINE_CHARS` characters a line on average too: a parse costs some
    hundreds of bytes a line, and a piece of 64 K characters of 6-character headings held 11,000
    lines (helper-74's 5 MB of "# h" lines took 16x its size). Measured untraced in a process of
    its own: 29x the text of 80,000 lines (a piece's parse is most of it), and 79x with the line
    bound off, one line a character (traced until 0.1.32: 20x and 43x)."""
    measured = [peak_growth(_LOAD + textwrap.dedent("""
        markdown.PIECE_LINE_CHARS = int(sys.argv[1])
        text = "".join(f"# h{i % 97}\\n" for i in range(80_000))
        """), """
        blocks, _ = markdown.build_markdown_blocks(text, 0)
        result = {"blocks": len(blocks), "last": blocks[-1].headings, "chars": len(text)}
        """, str(line_chars)) for line_chars in (markdown.PIECE_LINE_CHARS, 1)]
    (bounded, unbounded) = measured
    assert bounded["blocks"] == unbounded["blocks"] == 80_000 and bounded["last"] == ["h71"]
    assert bounded["growth"] < 40 * bounded["chars"], f"{bounded['growth'] / bounded['chars']:.0f}x"
    assert unbounded["growth"] > 60 * unbounded["chars"]  # (what the line bound saves: the measure tells)


DEFINITIONS = [
    "[a]: /u\n[b]: /v 'title'\n[c]:\n/w\n[d]: /x\n\"a title\nover lines\"\n[e\nf]: /y\n",
    "para\n[a]: /u\n[b]: /v\n\n[c]: /w\n# h\n[d]: /x\n",
    "\n- [a]: /url\n't\nu'\n",  # a title that goes on past a line where, read alone, the list ends
    "- [a]: /u\n- [b]: /v\n'w'\n> [c]: /x\n> 'y\nz'\n[d]: <a b> (t)\n",
    "[a]: /u '\n\n[b]: /v\n[c]: /w \\\n[d]: /x\n",
    "alpha\n<b>\n:--\n",  # not a definition: a paragraph markdown-it.rs cut for a table it did not read
]


@pytest.mark.parametrize("text", DEFINITIONS)
@pytest.mark.parametrize("parser", PARSERS)
def test_link_reference_definitions_parse_the_same_in_pieces(text, parser):
    assert_pieces_agree(text * 3, parser, pieces=(1, 5, 12))


@pytest.mark.parametrize("parser", PARSERS)
def test_a_file_of_only_definitions_is_read_in_pieces(parser):
    """A break run: Markdown made only of link reference definitions, one after another, was
    read whole (no blank line between two blocks to start a piece at): 29x the file."""
    text = "".join(f'[ref{i}]: https://example.com/{i} "Title {i}"\n' for i in range(3000))
    assert_pieces_agree(text, parser, pieces=(1, 200, 3000))
    pieces = list(markdown._piece_items(text, 0, markdown.lines_of(text), 0, parser, 3000))
    assert len(pieces) > 40  # about 60 lines a piece, never the whole file
    blocks, _ = markdown.build_markdown_blocks(text, 0, parser, piece=3000)
    assert [(b.kind.value, b.start, b.end) for b in blocks] == [("paragraph", 0, len(text) - 1)]


QUOTE_LINES = ["> text here", "> - item", ">   > nested", ">", "> ```", "> ```py", "> | a | b |", "> | - | - |",
               "lazy line", ">     code", "> 1. one", ">   - sub", "> # head", "> ---", "", "para", "> > > deep",
               "> <div>", "> <!-- c", "> -->", "> * * *", "> 2. two", "> ===", ">\tx", "> > ", ">  - a", "> - - -",
               "> + p", "- item", "    ind", "> <em>x</em> said", "> <https://a.b>", "> [r]: /u 't'", "> 't"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(QUOTE_LINES), min_size=1, max_size=80), st.sampled_from(["\n", "\r\n", "\r"]))
def test_long_quotes_read_in_parts_give_the_blocks_of_one_parse(lines, end):
    """A quote longer than `quote_piece` characters is cut at one of its lines (`_quote_cut`);
    the blocks, and the code blocks and tables kept whole inside them, are those of one parse
    (the lines are those that broke first versions: HTML, lazy lines, indented code,
    setext underlines, rules made of list markers; and CR line ends, helper-45)."""
    text = end.join(lines) + end
    assert_quote_parts_agree(text, 30)


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("body", [
    # a break run: a quote of lists holding quotes (`> - a` / `>   > b`, 10 MB) was read whole by
    # markdown-it-py (some GB, over 300 s)
    "> - a\n>   > b\n" * 400,
    # helper-70: `> word` / `> > word`... without a blank line (each line goes on the deepest quote's
    # paragraph) had no line to cut at: 20 MB were read whole, 21-38x the file; cut at a line not
    # indented past its markers now
    "".join("> " * (1 + i % 2) + f"word {i}\n" for i in range(600)),
    "".join("> " * (1 + i % 30) + f"word {i}\n" for i in range(600)),
])
def test_a_long_quote_without_blank_lines_is_one_block_read_in_parts(parser, body):
    """Quotes of nested blocks without a blank line are read `quote_piece` characters at a time,
    and stay one block."""
    text = "# Notes\n\n" + body + "\nAfter.\n"
    whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
    got, _ = markdown.build_markdown_blocks(text, 0, parser, piece=64, quote_piece=256)
    assert list(got) == list(whole)
    assert [(b.kind.value, text[b.start:b.end][:9]) for b in got] == [
        ("heading", "# Notes"), ("quote", body[:9]), ("paragraph", "After.")]
    pieces = list(markdown._piece_items(text, 0, markdown.lines_of(text), 0, parser, 64, 256))
    assert sum(is_open for _items, _first, is_open in pieces) > 15


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("body", [
    "> > start\n" + "".join(f"> [f{i}]: /u{i}\nlazy {i}\n" for i in range(200)),
    "> > start\n" + "".join(f"> [f{i}]: /u{i}\nlazy {i}\n===\n" for i in range(150)),
    "> > start\n" + "".join(f"> | a | b |\n> |---|---|\nlazy {i}\n" for i in range(150)),
    "> > > start\n" + "".join(f"> >     line {i} of words here\n" for i in range(200)),
    "".join(f"> > deep {i}\n> shallow {i}\n> [f{i}]: /u{i}\n" for i in range(150)),
])
def test_a_quote_is_never_cut_at_a_line_read_otherwise_from_there(parser, body):
    """helper-71: a line that goes on a deeper paragraph lazily read whole, but is a link
    reference definition, a table row, indented code or a setext underline read from its
    start, is no place to cut a quote without a blank line: the blocks, their nested code
    and tables, and where the quote ends are those of one parse."""
    text = "# Doc\n\n" + body + "\nend para\n"
    whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
    got, _ = markdown.build_markdown_blocks(text, 0, parser, piece=64, quote_piece=256)
    assert list(got) == list(whole)
    assert [b.meta for b in got] == [b.meta for b in whole]


DEPTH_LINES = ["> > > deep text", "> > deeper text", "> shallow text", "> [r]: /u", "lazy text", "> | a | b |",
               "> |---|---|", "> >     indented", "> ===", "> ---", ">", "> 2. item", "> - item", "> ```", "> > # head",
               ">> tight text", "> >", "> <b>x</b>"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(DEPTH_LINES), min_size=10, max_size=120))
def test_quotes_of_changing_depths_read_in_parts_give_the_blocks_of_one_parse(lines):
    """Quotes whose lines change depth without a blank line, with lines that read otherwise
    as a paragraph's start than lazily (helper-71), cut `quote_piece` characters at a time."""
    text = "\n".join(lines) + "\nend\n"
    assert_quote_parts_agree(text, 40)


@pytest.mark.parametrize("text, piece, quote_piece", [
    ("> a\n\n> - d\n<\n", 1, 2),  # a quote of one line at the text's start (helper-45: cut past its end)
    ("> " + "x" * 300 + "\n\n> - d\n<\n", 64, 256),
    ("> a\r> <div>\r> b\r> c\r> d\r> - x\r> y\r> z\rlazy\r", 1, 8),  # CR line ends: HTML not seen
    ("> a\r> <!--\r> b\r> c\r> d\r> - x\r> ```\r> -->\r", 8, 30),
])
@pytest.mark.parametrize("parser", PARSERS)
def test_quote_cuts_stay_inside_the_quote_and_out_of_html(text, piece, quote_piece, parser):
    whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
    got, _ = markdown.build_markdown_blocks(text, 0, parser, piece=piece, quote_piece=quote_piece)
    assert list(got) == list(whole) and [b.meta for b in got] == [b.meta for b in whole]


@pytest.mark.parametrize("end", ["\r\n", "\r"])
def test_a_long_quote_of_paragraphs_with_crlf_or_cr_is_read_in_parts(end):
    """helper-45: with CR LF line ends no quote line counted as blank, so a quote was never cut
    (297 MB for 8 MB); a line of inline HTML (`<em>`) stopped every cut after it."""
    text = end.join(["> <em>x</em> said"] + ["> a paragraph of the quote", ">"] * 300) + end
    for parser in PARSERS:
        pieces = list(markdown._piece_items(text, 0, markdown.lines_of(text), 0, parser, 64, 512))
        assert sum(is_open for _items, _first, is_open in pieces) > 10
        whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
        got, _ = markdown.build_markdown_blocks(text, 0, parser, piece=64, quote_piece=512)
        assert list(got) == list(whole) == [Block(BlockKind.QUOTE, 0, len(text.rstrip()))]


@pytest.mark.parametrize("parser", PARSERS)
def test_a_long_quote_of_definitions_is_read_in_parts(parser):
    """helper-45: a quote made only of link reference definitions had no line to cut at (no
    blank line, no list item) and was read whole: 319 MB and 64 s for 8 MB. A definition of
    the quote's own starts one of its blocks with nothing open, a place to read on from."""
    text = "".join(f"> [r{i}]: https://example.com/{i} 'T {i}'\n" for i in range(1500))
    pieces = list(markdown._piece_items(text, 0, markdown.lines_of(text), 0, parser, 4096, 16384))
    assert sum(is_open for _items, _first, is_open in pieces) >= 3
    whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
    got, _ = markdown.build_markdown_blocks(text, 0, parser, piece=4096, quote_piece=16384)
    assert list(got) == list(whole) == [Block(BlockKind.QUOTE, 0, len(text) - 1)]


def _traced_item_peak(n: int) -> tuple[int, int]:
    rng = random.Random(4)
    text = "- first\n\n" + "\n\n".join("  " + rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(n)) + "\n"
    blocks, peak = _traced_load(text)
    assert [(b.kind, b.start, b.end) for b in blocks] == [(BlockKind.LIST, 0, len(text) - 1)]
    return peak, len(text)


def test_traced_memory_of_one_list_item_of_one_word_paragraphs_grows_less_than_8x_the_text():
    """A list item is parsed whole by markdown-it-py: with its three tokens a paragraph and its
    line markers as lists, the traced peak grew 146 bytes a character here; 0.8 now
    (`markdown._Kept` keeps none of those tokens, `_State` keeps the markers in arrays)."""
    (p1, n1), (p2, n2) = _traced_item_peak(20_000), _traced_item_peak(80_000)
    growth = (p2 - p1) / (n2 - n1)
    assert growth < 8, growth


# One list item over many pieces: its content is read in pieces of its own, its indent taken off
# (`markdown._long_item`), wherever that gives the blocks of one parse.
_ITEM_PARTS = ["para {i}", "para {i}\nwith a second line", "```\ncode {i}\n\n  indented\n```", "    code {i}",
               "| a | b |\n| - | - |\n| {i} | x |", "> quote {i}\n> more", "- sub {i}\n- sub", "# heading {i}",
               "<div>\nhtml {i}\n</div>", "text {i}\nlazy line", "***", "text\n---", "[r{i}]: /url 'title'",
               "1) sub\n2) sub", "  extra indent {i}", "\tin a tab {i}", "```\nfence left open {i}",
               "-\tt\n\n        c", ">\t  q", "- - - - - - - - - - deep {i}"]  # (helper-63's: tab stops, maxNesting)


@st.composite
def _long_items(draw) -> str:
    marker = draw(st.sampled_from(["- ", "* ", "1. ", "2) ", "10.  ", "-    ", " - ", "   1. "]))
    pad = " " * len(marker)
    out = []
    for _ in range(draw(st.integers(1, 3))):
        parts = [draw(st.sampled_from(_ITEM_PARTS)).format(i=i) for i in range(draw(st.integers(1, 30)))]
        lines = "\n\n".join(parts).split("\n")
        lazy = draw(st.sampled_from([pad, pad, pad, "", "  "]))  # some lines less indented: lazy or the end
        out.append(marker + lines[0] + "\n" + "".join((pad if ln and draw(st.integers(0, 20)) else lazy) + ln + "\n"
                                                      for ln in lines[1:]))
        out.append(draw(st.sampled_from(["", "\n", "\n\n"])))
    out.append(draw(st.sampled_from(["", "after\n", "- next\n", "* other\n", "3. next\n", "    code\n", "- - -\n",
                                     "- c | d\n--- | ---\n", "- c | d\n  --- | ---\n  e | f\n"])))
    return "".join(out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_long_items())
def test_long_list_items_read_in_pieces_of_their_own_give_the_blocks_of_one_parse(text):
    for parser in PARSERS:
        assert_pieces_agree(text, parser, pieces=(1, 20, 80))


@pytest.mark.parametrize("text", [
    "- a\n  b\n\n  -\tc\n\n        d\n",  # a tab after a marker: its stop moves with the indent taken off
    "- a\n  b\n\n  >\t  c\n", "1. a\n   b\n\n   1.\tc\n\n           d\n", "- -\tc\n\n        d\n",
    "- a\n  b\n\n- c | d\n--- | ---\n",  # the next item reads as a table on its own
    "- a\n  b\n\n- c | d\n  --- | ---\n  e | f\n",
    "- a\n  b\n\n  - - - - - - - - - x\n\nafter\n",  # markdown-it-py's maxNesting, two levels shallower alone
    "# T\n\n- - - - - - - - - - deep\n\n- - -\n",  # the same on the item's first line
])
@pytest.mark.parametrize("parser", PARSERS)
def test_long_items_helper_63_found_read_in_pieces_as_one_parse(text, parser):
    assert_pieces_agree(text * 2, parser, pieces=tuple(range(1, 30)))


@pytest.mark.parametrize("parser", PARSERS)
def test_a_list_item_over_many_pieces_is_read_in_pieces_of_its_own(parser):
    item = "1. Steps\n\n" + "".join(f"   para {i}\n\n" for i in range(300)) + "   ```\n   code\n\n   more\n   ```\n\n"
    text = "# H\n\n" + item + "2. next\n\n   last\n\nafter\n"
    pieces = list(markdown._piece_items(text, 0, markdown.lines_of(text), 0, parser, 200))
    # the heading; the long item (its content read in pieces of its own), the list going on; the next item
    assert [(first, is_open) for _items, first, is_open in pieces] == [(0, False), (2, True), (610, False)]
    blocks, _ = markdown.build_markdown_blocks(text, 0, parser, piece=200)
    code = text.index("```")
    assert [(b.kind, b.start, b.end) for b in blocks] == [
        (BlockKind.HEADING, 0, 3), (BlockKind.LIST, 5, text.index("\n\nafter")), (BlockKind.PARAGRAPH, len(text) - 6,
                                                                                   len(text) - 1)]
    assert blocks[1].rows == ((5, text.index("\n\n2. next")), (text.index("2. next"), text.index("\n\nafter")))
    assert blocks[1].meta["atomic"] == [(code, text.index("```\n\n2.") + 3)]
    assert list(blocks) == list(markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)[0])


def _parsed_characters(monkeypatch) -> dict[str, list[int]]:
    """Lengths of the texts each parser is given, as they are parsed."""
    seen: dict[str, list[int]] = {"reference": [], "auto": []}
    reference, fast = markdown._reference_items, markdown_rs.block_items
    monkeypatch.setattr(markdown, "_reference_items",
                        lambda src, *more: seen["reference"].append(len(src)) or reference(src, *more))
    monkeypatch.setattr(markdown_rs, "block_items",
                        lambda src, known=None: seen["auto"].append(len(src)) or fast(src, known))
    return seen


@pytest.mark.parametrize("parser", PARSERS)
def test_a_piece_that_reaches_the_end_of_the_text_is_read_once(parser, monkeypatch):
    """A piece that ends at the line start after the text's final line break is the last: it
    was read as not, and its last blocks read again (the whole of a long last line twice)."""
    text = "# T\n\n| n | text |\n| --- | --- |\n| 1 | " + "word " * 5000 + "|\n"
    whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
    seen = _parsed_characters(monkeypatch)
    got, _ = markdown.build_markdown_blocks(text, 0, parser, piece=64)
    assert list(got) == list(whole) and [b.kind.value for b in got] == ["heading", "table"]
    assert sum(seen["reference"]) + sum(seen["auto"]) < len(text) + 100  # (a few short lines twice)


@pytest.mark.skipif(not markdown_rs.available(), reason="markdown-it-pyrs is not installed")
def test_a_piece_made_long_by_one_line_is_read_by_the_reference(monkeypatch):
    """markdown-it.rs reads pieces of about `PIECE` characters; a piece that one long line
    makes longer than `LONG_PIECE` (and twice its size) goes to markdown-it-py, which holds
    less for it (a 20 MB table row: 8.4x -> 6.4x the file)."""
    long_row = "| 1 | " + "word " * (markdown.LONG_PIECE // 5) + "|\n"
    text = "# T\n\nIntro.\n\n| n | text |\n| --- | --- |\n" + long_row + "\nAfter.\n"
    whole, _ = markdown.build_markdown_blocks(text, 0, "reference", piece=WHOLE)
    seen = _parsed_characters(monkeypatch)
    got, _ = markdown.build_markdown_blocks(text, 0, "auto")
    assert list(got) == list(whole)
    assert seen["auto"] == [] and len(seen["reference"]) <= 3  # (the row in each: lines are read whole)
    short = text.replace(long_row, "| 1 | words |\n")
    reference = list(markdown.build_markdown_blocks(short, 0, "reference", piece=WHOLE)[0])
    seen["reference"].clear()
    assert list(markdown.build_markdown_blocks(short, 0, "auto")[0]) == reference
    assert seen["auto"] == [len(short)] and seen["reference"] == []


@pytest.mark.skipif(not markdown_rs.available(), reason="markdown-it-pyrs is not installed")
def test_the_rest_of_a_paragraph_made_long_by_one_line_is_read_by_the_reference(monkeypatch):
    """The same for a paragraph read on (`_rest_items`): markdown-it.rs read its rest whatever its length."""
    text = "# T\n\n" + "a\n" * 5000 + "word " * (markdown.LONG_PIECE // 5) + "\n\nAfter.\n"
    whole, _ = markdown.build_markdown_blocks(text, 0, "reference", piece=WHOLE)
    seen = _parsed_characters(monkeypatch)
    got, _ = markdown.build_markdown_blocks(text, 0, "auto")
    assert list(got) == list(whole) and [b.kind.value for b in got] == ["heading", "paragraph", "paragraph"]
    assert seen["auto"] and max(seen["auto"]) < markdown.LONG_PIECE
    assert max(seen["reference"]) > markdown.LONG_PIECE


@pytest.mark.parametrize("parser", PARSERS)
def test_a_piece_grows_past_a_long_line_at_once(parser, monkeypatch):
    """A piece whose last block may go on grows to twice what was read, not twice its size: a
    long line made the piece longer than its size, and each doubling up to the line's length
    read it again (a 1 MB table row followed by a paragraph: 6 reads of it, 10 for 20 MB)."""
    text = "# T\n\n| n | text |\n| --- | --- |\n| 1 | " + "word " * 200_000 + "|\n\nAfter.\n"
    whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
    seen = _parsed_characters(monkeypatch)
    got, _ = markdown.build_markdown_blocks(text, 0, parser)
    assert list(got) == list(whole) and [b.kind.value for b in got] == ["heading", "table", "paragraph"]
    assert sum(seen["reference"]) + sum(seen["auto"]) < 3.01 * len(text)


# One paragraph over many pieces: read on from one of its last lines (`markdown._paragraph_cut`)
# wherever the next piece starts with a paragraph (or setext heading) there.
PARAGRAPH_LINES = ["text line", "a", "b c", "|a|", "|-|", "a|b", "-|-", "---", "===", "  ---", "- item", "- ",
                   "2. two", "1. one", "    indented", "\tt", "[r]: /u", '[r]: /u "ti', 'tle"', "'t", "<div>",
                   "<custom-tag>", "</x>", "<!-- c", "-->", "# head", "> quote", "```", "~~~", "***", "* * *",
                   "x\\", "  two spaces", "\0nul", "ünï", "3) x", "+ p", "| a | b |", "| - | - |", "[x]", ""]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["", "# Top\n", "[r]: /u\n", "[s]: /v 'a\n", "intro\n\n", "- item\n\n"]),
       st.lists(st.sampled_from(PARAGRAPH_LINES), min_size=1, max_size=60),
       st.sampled_from(["\n", "\r\n", "\r"]))
def test_long_paragraphs_read_on_in_pieces_give_the_blocks_of_one_parse(head, lines, end):
    """Lines that go on a paragraph lazily whole but start something else alone (a table with the
    next line, a definition, indented code, a list, HTML), setext underlines that make the whole
    paragraph a heading, definitions whose title runs on: pieces of one or a few lines give the
    blocks and titles of one parse."""
    text = (head + "start of it\n" + "\n".join(lines) + "\n").replace("\n", end)
    for parser in PARSERS:
        assert_pieces_agree(text, parser, pieces=(1, 9, 40))


@pytest.mark.parametrize("text", [
    'start\nx y z\n[r]: /u "ti\n|-|\nx y z\ntle"\nafter\n',  # a definition read from its line on, title and all
    "start\na\nfoo|foo\n---|---\nbar|bar\n",  # a line that opens a table with the next one
    "start\nb\n    code\n2. two\n<custom>\n- \n[r]: /u\nb\n===\nafter\n",  # lazy whole, blocks alone
    "|h|\n|-|\n\u2003\n|a|\nafter\n",  # lines of white space to Python (U+2003), text to markdown-it: first
    "|a|\nb\n\u2003\n> q\n",  # and last
    "\x1c_a_\nb\n===\n", "\xa0\na\nb\n",  # a setext title from its first line's start (helper-108)
    "b\n<b>\x1c\n\nc\n", "<e>\x1c\nr\n",  # an HTML block to markdown-it-py only (U+001C is its `\s`)
    "|a\\||h|\n|-|\nafter\n",  # an escaped pipe in a header row: a table to markdown-it.rs only
    "|\n|\u2003\n-|\n|\r*", "b\n\u2028|\u2028\n-|-\n---", "+\nz\n\x0c||\n-|-",  # a header row trimmed by
    "|\n-|\u2003\n-|-\n<", "\xa0|\n-|\n",  # markdown-it-py only: a table to markdown-it.rs only (helper-109)
])
@pytest.mark.parametrize("parser", PARSERS)
def test_paragraphs_read_on_from_lines_that_start_other_blocks_alone_give_one_parse(text, parser):
    assert_pieces_agree(text * 3, parser, pieces=(1, 3, 7))


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("tail, kind", [("\nAfter.\n", "paragraph"), ("===\n\nAfter.\n", "heading")])
def test_a_paragraph_over_many_pieces_is_one_block_read_on(parser, tail, kind):
    """A paragraph of one-letter lines over 100 pieces is one block (a setext heading when an
    underline ends it, its title all of its lines), and no piece holds it whole."""
    text = "# Doc\n\n" + "".join(f"{'ab'[i % 2]}\n" for i in range(2000)) + tail
    assert_pieces_agree(text, parser, pieces=(1, 50, 300))
    blocks, h1 = markdown.build_markdown_blocks(text, 0, parser, piece=300)
    assert [(b.kind.value, b.start) for b in blocks] == [("heading", 0), (kind, 7), ("paragraph", len(text) - 7)]
    assert blocks[1].end == len(text) - 9
    if kind == "heading":  # (its title cut short: `short_title`)
        assert blocks[1].level == 1 and blocks[1].headings[0].startswith("a b a b a b") and h1 == "Doc"
    pieces = list(markdown._piece_items(text, 0, markdown.lines_of(text), 0, parser, 300))
    assert len(pieces) > 100 and sum(is_open for _items, _first, is_open in pieces) > 100


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("line", ["2. x", "    b", "[r]: /u", "<custom-tag>", "+ "])
def test_a_paragraph_is_read_on_from_lines_that_would_start_other_blocks_alone(parser, line):
    """Lines that go on a paragraph lazily but would open a list, indented code, a definition or
    an HTML block read alone: the rest is read after a line of paragraph text (`_rest_items`),
    so the paragraph is read on from them too, never whole (helper-108: 8.2x at 20 MB)."""
    text = "# Doc\n\nstart\n" + (line + "\n") * 2000 + "\nAfter.\n"
    assert_pieces_agree(text, parser, pieces=(1, 50, 300))
    blocks, _ = markdown.build_markdown_blocks(text, 0, parser, piece=300)
    assert [(b.kind.value, b.start, b.end) for b in blocks] == [
        ("heading", 0, 5), ("paragraph", 7, len(text) - 9 - (1 if line.endswith(" ") else 0)),
        ("paragraph", len(text) - 7, len(text) - 1)]
    pieces = list(markdown._piece_items(text, 0, markdown.lines_of(text), 0, parser, 300))
    assert len(pieces) > 50 and sum(is_open for _items, _first, is_open in pieces) > 50


@pytest.mark.parametrize("parser", PARSERS)
def test_a_paragraph_in_a_list_item_is_read_on_in_pieces_too(parser, monkeypatch):
    """A list item's content is read in pieces of its own (`_long_item`), where a paragraph that
    filled a piece was read whole too: 5 MB of one-letter lines in one item took 24x the file."""
    _assert_one_item_read_on("# P\n\n- start\n" + "  a\n  2. b\n" * 1500 + "\nend\n", parser, monkeypatch)


def _assert_one_item_read_on(text: str, parser: str, monkeypatch) -> Any:
    """`text`, a heading, a list of one long item and a last line "end", gives the blocks of one
    parse in pieces, and no parse of a piece of 300 characters reads 2,000 or more: the list block."""
    assert_pieces_agree(text, parser, pieces=(1, 50, 300))
    seen = _parsed_characters(monkeypatch)
    blocks, _ = markdown.build_markdown_blocks(text, 0, parser, piece=300)
    assert [(b.kind.value, b.start, b.end) for b in blocks] == [
        ("heading", 0, 3), ("list", 5, len(text) - 6), ("paragraph", len(text) - 4, len(text) - 1)]
    assert max(seen["reference"] + seen["auto"]) < 2000
    return blocks[1]


@pytest.mark.parametrize("parser", PARSERS)
def test_a_table_in_a_list_item_is_read_on_in_pieces_too_and_stays_one_atom(parser, monkeypatch):
    """A table that fills a piece of a list item's content is read on from its last row too (5 MB
    of `|a|` rows in one item took 19x the file, 6.2x now), and is one atom of the list."""
    text = "# P\n\n- x\n\n  | h |\n  | - |\n" + "  | a |\n  |b|c|\n" * 1500 + "\nend\n"
    assert _assert_one_item_read_on(text, parser, monkeypatch).meta["atomic"] == [(12, len(text) - 6)]


@pytest.mark.parametrize("line", ["a", "2. x", "    b"])
def test_traced_memory_of_a_paragraph_of_short_lines_grows_less_than_8x_the_text(line):
    """A paragraph that fills a piece grew until it ended, read whole by markdown-it-py, whose
    line markers took some 13 bytes a character of one-letter lines (helper-105: 14.9x the file
    with start-up, 47 s for 1 MB); now it is read on a piece at a time, after a line of
    paragraph text, from any line: one that would open a list or indented code alone too
    (helper-108: 8.2x and 7.0x at 20 MB while such lines were not cut at)."""
    def peak(n: int) -> tuple[int, int]:
        text = "# Doc\n\nstart\n" + (line + "\n") * n + "\nend\n"
        blocks, got = _traced_load(text)
        assert [b.kind for b in blocks] == [BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.PARAGRAPH]
        return got, len(text)

    (p1, n1), (p2, n2) = peak(50_000 // len(line)), peak(200_000 // len(line))
    growth = (p2 - p1) / (n2 - n1)
    assert growth < 8, growth


# One table over many pieces: read on from its last row (`markdown._table_cut`) after its header
# and delimiter lines (`markdown._rest_items`), the cells it filled in before counting.
TABLE_ROWS = ["|a|", "|a|b|", "|a|b|c|d|", "a", "a|b", "|", "||", "| \\| |", "\\|a", "|a\\|", "| ` | ` |", "  |a|",
              "\t|a|", "    |a|", "> q", "# h", "```", "- item", "1. x", "2. y", "<div>", "---", "|-|", "", "\0|a|",
              "===", "[r]: /u", "| " + "w " * 40 + "|", "|\u00a0|", "\u2003"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["", "# Top\n", "para\n", "para\n\n", "- item\n\n"]),
       st.sampled_from(["|h|\n|-|\n", "| h | i |\n| :- | -: |\n", "h|i|j\n-|-|-\n", "|h|\n|-|\n|b|\n"]),
       st.lists(st.sampled_from(TABLE_ROWS), min_size=1, max_size=60),
       st.sampled_from(["\n", "\r\n", "\r"]))
def test_long_tables_read_on_in_pieces_give_the_blocks_of_one_parse(before, head, rows, end):
    """Rows of fewer or more cells, escaped pipes, rows that end the table (a blank line, a block
    that ends a quote, indented code), and lines after it: pieces of one or a few lines give the
    blocks, header, rows and header cells of one parse."""
    text = (before + head + "\n".join(rows) + "\nafter\n").replace("\n", end)
    for parser in PARSERS:
        assert_pieces_agree(text, parser, pieces=(1, 9, 40))


@pytest.mark.parametrize("parser", PARSERS)
def test_a_table_read_on_ends_where_its_filled_in_cells_reach_the_cap(parser):
    """markdown-it-py ends a table's body once it has filled in 65,536 missing cells: 99 a row
    here, so at its 663rd row, which pieces of a few rows each must find too."""
    text = "|" + "h|" * 100 + "\n|" + "-|" * 100 + "\n" + "|a|\n" * 700 + "\nafter\n"
    assert_pieces_agree(text, parser, pieces=(1, 200, 3000))
    blocks, _ = markdown.build_markdown_blocks(text, 0, parser, piece=200)
    assert [b.kind.value for b in blocks] == ["table", "paragraph", "paragraph"]
    assert len(blocks[0].rows) == 65_536 // 99 and len(blocks[0].meta["header_cells"]) == 100


@pytest.mark.parametrize("parser", PARSERS)
def test_a_table_over_many_pieces_is_one_block_with_every_row(parser):
    text = "# Doc\n\n| name |\n| :- |\n" + "".join(f"| r{i} |\n" for i in range(3000)) + "\nAfter.\n"
    assert_pieces_agree(text, parser, pieces=(1, 50, 300))
    blocks, _ = markdown.build_markdown_blocks(text, 0, parser, piece=300)
    assert [b.kind.value for b in blocks] == ["heading", "table", "paragraph"]
    table = blocks[1]
    assert text[table.start:table.header[1]] == "| name |\n| :- |" and table.meta["header_cells"] == ["name"]
    assert [text[s:e] for s, e in table.rows] == [f"| r{i} |" for i in range(3000)]
    pieces = list(markdown._piece_items(text, 0, markdown.lines_of(text), 0, parser, 300))
    assert len(pieces) > 100 and sum(is_open for _items, _first, is_open in pieces) > 100


# A table a top-level quote ends in, read on from its last row (`markdown._quote_table_cut`) after
# its header and delimiter lines, quote markers and all.
QUOTE_ROWS = ["> |a|", "> |a|b|", ">|a|b|c|", "> a", ">  |a|", "> \t|a|", ">     |a|", "> > q", ">", "> ",
              "> # h", "> ```", "> - item", "> 1. x", "> <div>", "> ---", "> |-|", "lazy", "|a|", "  > |a|",
              "    > |a|", "> [r]: /u", "> ===", "> | \\| |", "> |\u00a0|", "> \u2003", ">\0|a|"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["", "> intro\n", "> intro\n>\n", "> - item\n>\n", "> > deep\n>\n", "> ```\n> c\n> ```\n"]),
       st.sampled_from(["> |h|\n> |-|\n", "> | h | i |\n> | :- | -: |\n", ">h|i|j\n>-|-|-\n", "> |h|\n>|-|\n",
                        "> - |h|\n>   |-|\n", "> > |h|\n> > |-|\n", "> ```|h|\n> |-|\n", ">  |h|\n>  |-|\n"]),
       st.lists(st.sampled_from(QUOTE_ROWS), min_size=1, max_size=60),
       st.sampled_from(["\n", "\r\n", "\r"]))
def test_quotes_that_end_in_long_tables_read_on_in_pieces_give_the_blocks_of_one_parse(before, head, rows, end):
    """Rows of fewer or more cells, rows without a space after the marker or indented, lines that
    end the table (a blank quote line, a nested quote or list, indented code, a lazy line) or the
    quote; tables in a list or quote inside the quote, and code that looks like a table: quotes
    cut a few lines at a time give the blocks, and the code and tables kept whole in them, of one
    parse."""
    text = ("# Top\n\n" + before + head + "\n".join(rows) + "\nafter\n").replace("\n", end)
    assert_quote_parts_agree(text, 30)


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize("text", [
    "> |x|\n> |-|\n> |y|\n>\n   > h|\n-|\n>|a|\n",  # helper-110
    "> |x|\n> |-|\n> |y|\n>\n> h|\n-|\n>|a|\n",
    "> |x|\n> |-|\n> |y|\n>\n> h|i|j\r-|-|-\r>|a|\n",
])
def test_a_quote_is_not_cut_at_a_line_that_opens_a_table_with_a_lazy_line_after_it(text, parser):
    """Read whole, `> h|` over a lazy `-|` is paragraph text of the quote (a line without a marker
    ends a table in a quote); read from a cut at `> h|`, the two lines were a table (its header
    cell `> h`): no cut there (`_table_alone`)."""
    whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
    got, _ = markdown.build_markdown_blocks(text, 0, parser, piece=48, quote_piece=30)
    assert [b.kind.value for b in whole] == ["quote"]
    assert list(got) == list(whole) and [b.meta for b in got] == [b.meta for b in whole]


@pytest.mark.parametrize("parser", PARSERS)
def test_a_table_a_quote_ends_in_is_read_on_in_pieces_and_stays_one_atom(parser, monkeypatch):
    """A quote of a 3,000-row table grew until it ended (no line of its own to cut at) and was read
    whole by markdown-it-py: 19.5x the file at 5 MB (`> |a|` rows), 16.6x traced at 1 MB. It is
    read on from a row a piece at a time (7.9x and 7.2x), and stays one quote holding one table
    kept whole. Memory follows the longest text a parser reads at once, which is measured here
    (a traced load would take minutes to tell the two apart)."""
    body = "> Intro.\n>\n> | name |\n> | :- |\n" + "".join(f"> | r{i} |\n" for i in range(3000))
    text = "# Doc\n\n" + body + "\nAfter.\n"
    whole, _ = markdown.build_markdown_blocks(text, 0, parser, piece=WHOLE)
    longest = [0]
    reference = markdown._reference_items

    def measured(src: str, *args: Any, **kwargs: Any) -> Any:
        longest[0] = max(longest[0], len(src))
        return reference(src, *args, **kwargs)

    monkeypatch.setattr(markdown, "_reference_items", measured)
    got, _ = markdown.build_markdown_blocks(text, 0, parser, piece=64, quote_piece=256)
    assert longest[0] < 2 * 256 + 64  # (a piece of `quote_piece` characters to a line start, the header lines)
    assert list(got) == list(whole) and [b.meta for b in got] == [b.meta for b in whole]
    assert [(b.kind.value, text[b.start:b.end][:9]) for b in got] == [
        ("heading", "# Doc"), ("quote", "> Intro.\n"), ("paragraph", "After.")]
    table = text.index("> | name")
    assert got[1].meta["atomic"] == [(table, text.index("\n\nAfter"))]
    pieces = list(markdown._piece_items(text, 0, markdown.lines_of(text), 0, parser, 64, 256))
    assert len(pieces) > 100 and sum(is_open for _items, _first, is_open in pieces) > 100


@needs_proc
def test_memory_of_a_one_column_table_grows_less_than_8x_the_text():
    """A table that fills a piece grew until it ended, read whole by markdown-it-py (helper-105:
    13.5x the file with start-up at 10 MB); now it is read on a piece at a time, its rows' spans
    kept (8 bytes a row). Peak memory per character added, measured untraced in a process of its
    own between 50,000 and 200,000 `|a|` rows: 0.8 bytes a character, 7.8 on the code before the
    fix (traced until 0.1.34: 1 and 4.4 bytes)."""
    small, big = (peak_growth(_LOAD + textwrap.dedent("""
        text = "# Doc\\n\\n|h|\\n|-|\\n" + "|a|\\n" * int(sys.argv[1]) + "\\nend\\n"
        """), """
        blocks, _ = markdown.build_markdown_blocks(text, 0)
        result = {"kinds": [b.kind.value for b in blocks], "rows": len(blocks[1].rows), "chars": len(text)}
        """, str(n)) for n in (50_000, 200_000))
    assert small["kinds"] == big["kinds"] == ["heading", "table", "paragraph"]
    assert (small["rows"], big["rows"]) == (50_000, 200_000)
    growth = (big["growth"] - small["growth"]) / (big["chars"] - small["chars"])
    assert growth < 3, growth
