"""Markdown loader: block spans from markdown-it token maps, headings, front matter, nothing lost."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkctl.config import ChunkConfig
from chunkctl.loaders import load_bytes
from chunkctl.loaders.markdown import clean_heading
from chunkctl.model import BlockKind


def load(text: str | bytes):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return load_bytes(data, "doc.md", "md", ChunkConfig())


def kinds(doc):
    return [(b.kind.value, doc.text[b.start:b.end]) for b in doc.blocks]


def test_blocks_and_spans_with_crlf():
    doc = load("# Title\r\n\r\nPara one\r\nline two.\r\n\r\n- a\r\n- b\r\n\r\n```py\r\nx = 1\r\n```\r\n")
    assert kinds(doc) == [("heading", "# Title"), ("paragraph", "Para one\r\nline two."), ("list", "- a\r\n- b"),
                          ("code", "```py\r\nx = 1\r\n```")]
    assert doc.blocks[-1].language == "py"
    assert doc.blocks[2].rows == ((doc.text.index("- a"), doc.text.index("- a") + 3),
                                  (doc.text.index("- b"), doc.text.index("- b") + 3))


def test_setext_and_heading_path():
    doc = load("Top\n===\n\nSub\n---\n\ntext\n\n# Other\n\nmore\n")
    heads = [(b.level, b.headings) for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads == [(1, ("Top",)), (2, ("Top", "Sub")), (1, ("Other",))]
    assert doc.blocks[2].headings == ("Top", "Sub")
    assert doc.meta["title"] == "Top"


def test_hash_inside_fences_is_code_and_unclosed_fence_runs_to_end():
    doc = load("# Real\n\n~~~\n# not a heading\n~~~\n\n````\n```\n# still code\n```\n````\n\n```\nopen fence\n# x\n")
    assert [b.headings for b in doc.blocks if b.kind == BlockKind.HEADING] == [("Real",)]
    last = doc.blocks[-1]
    assert last.kind == BlockKind.CODE and doc.text[last.start:last.end] == "```\nopen fence\n# x"


def test_table_header_and_rows():
    doc = load("| a | b |\n|---|--:|\n| 1 | 2 |\n| 3 | 4 |\n")
    t = doc.blocks[0]
    assert t.kind == BlockKind.TABLE
    assert doc.text[t.header[0]:t.header[1]] == "| a | b |\n|---|--:|"
    assert [doc.text[s:e] for s, e in t.rows] == ["| 1 | 2 |", "| 3 | 4 |"]
    assert t.meta["header_cells"] == ["a", "b"]


def test_reference_definitions_are_kept_as_text():
    doc = load("See [x][1].\n\n[1]: https://example.com/x\n")
    assert kinds(doc) == [("paragraph", "See [x][1]."), ("paragraph", "[1]: https://example.com/x")]


def test_front_matter_yaml_toml_and_bom():
    doc = load("\ufeff---\ntitle: Hello\ntags: [a]\ndate: 2024-01-02\n---\n\n# H1\n\nBody\n".encode("utf-8"))
    assert doc.blocks[0].kind == BlockKind.FRONT_MATTER and doc.text.startswith("---")
    assert doc.meta["title"] == "Hello" and doc.meta["front_matter"]["date"] == "2024-01-02"
    toml = load('+++\ntitle = "Toml title"\n[extra]\nx = 1\n+++\n\nBody\n')
    assert toml.meta["title"] == "Toml title"
    assert kinds(toml)[1:] == [("paragraph", "Body")]
    not_fm = load("---\n\nJust a rule above.\n")
    assert not_fm.blocks[0].kind == BlockKind.RULE


def test_empty_front_matter_is_front_matter():
    # Jekyll's "---" + "---" (QA find): it stayed in the first chunk's body.
    for text in ("---\n---\n\n# Hello\n\nText.\n", "---\r\n---\r\n\n# Hello\n\nText.\n"):
        doc = load(text)
        assert doc.blocks[0].kind == BlockKind.FRONT_MATTER and doc.text[doc.blocks[0].start:doc.blocks[0].end] \
            .replace("\r", "") == "---\n---"
        assert kinds(doc)[1:] == [("heading", "# Hello"), ("paragraph", "Text.")]


def test_heading_closing_hashes_before_an_attribute_block_go():
    doc = load("### Extension: `styles` ### {#ext-styles}\n\nText.\n\n## C#\n\nx\n\n## Issue #12 fixed ##\n\ny\n")
    assert [b.headings[-1] for b in doc.blocks if b.kind == BlockKind.HEADING] == [
        "Extension: styles", "C#", "Issue #12 fixed"]


def test_title_falls_back_to_file_name():
    assert load("no heading here\n").meta["title"] == "doc"


def test_clean_heading_drops_inline_markup():
    assert clean_heading("The **`chunk`** [command](http://x) {#id}") == "The chunk command"


@pytest.mark.parametrize("source, heading", [
    # escapes and code spans (a helper's find on ruanyf/es6tutorial: "yield\\ 语句", "proto属性")
    ("yield\\* 语句", "yield* 语句"), ("`__proto__`属性", "__proto__属性"), ("\\_\\_proto\\_\\_", "__proto__"),
    ("Using `Box<T>` on the heap", "Using Box<T> on the heap"), ("About `**user_dict`", "About **user_dict"),
    ("Using `<form>` actions {/form-actions/}", "Using <form> actions"), ("A &amp; B", "A & B"),
    ("Styles ### {#styles}", "Styles"), ("Intro { #intro .big }", "Intro"), ("Title {: #t}", "Title"),
    ("See [the docs][ref] now", "See the docs now"), ("![Logo](x.png) Product", "Logo Product"),
    ("<http://example.com> link", "http://example.com link"), ("Line<br>break", "Linebreak"),
    ("~~old~~ new", "old new"), ("snake_case_name", "snake_case_name"), ("C# and C++", "C# and C++"),
    ("Set {a, b}", "Set {a, b}"), ("Cost \\$5 *now*", "Cost $5 now")])
def test_heading_text_is_the_text_a_reader_sees(source, heading):
    assert clean_heading(source) == heading
    doc = load(f"# Top\n\n## {source}\n\nBody.\n")
    assert doc.blocks[-1].headings == ("Top", heading)


PLAIN = st.text(alphabet="abc xyz_*\\`<>&#!", min_size=1, max_size=6)
WORD = st.text(alphabet="abcxyz", min_size=1, max_size=5)
# (source, text a reader sees) of inline pieces
PIECES = st.one_of(
    WORD.map(lambda w: (w, w)),
    WORD.map(lambda w: (f"**{w}**", w)),
    WORD.map(lambda w: (f"_{w}_", w)),
    PLAIN.filter(lambda c: "`" not in c and c.strip() == c and c.strip()).map(lambda c: (f"`{c}`", c)),
    st.sampled_from("*_\\`<>&#![]").map(lambda p: (f"\\{p}", p)),
    st.tuples(WORD, WORD).map(lambda t: (f"[{t[0]}](https://x.org/{t[1]})", t[0])),
)


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(PIECES, min_size=1, max_size=6))
def test_generated_headings_keep_escaped_characters_and_code(pieces):
    source = " ".join(p for p, _ in pieces)
    assert clean_heading(source) == " ".join(" ".join(t for _, t in pieces).split())


def test_mediawiki_heading_lines_are_headings():
    doc = load("# Wiki dump\n\n = Tower Building = \n Built in 1840 .\n = = History = = \n It was seized .\n"
               "= = = 1861 = = =\nText.\n\n== Notes ==\nA = B is not a heading = here\n")
    heads = [(b.level, b.headings) for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads == [(1, ("Wiki dump",)), (1, ("Tower Building",)), (2, ("Tower Building", "History")),
                     (3, ("Tower Building", "History", "1861")), (2, ("Tower Building", "Notes"))]
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.kind == BlockKind.PARAGRAPH] == [
        "Built in 1840 .", "It was seized .", "Text.", "A = B is not a heading = here"]


def test_yaml_alias_bomb_front_matter_is_ignored_not_expanded():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    doc = load("---\n" + "\n".join(lines) + "\ntitle: *i\n---\n\nbody\n")
    assert "front_matter" not in doc.meta and doc.meta["title"] == "doc"
    assert any("10,000 values" in w for w in doc.warnings)


@pytest.mark.parametrize("levels, warning", [
    # (400 levels: PyYAML reads them, orjson writes 254 at most: a TypeError from the loader until 0.1.22)
    (400, "front matter nested more than 64 levels deep; ignored"),
    (500, "YAML front matter nested too deeply to read; ignored"),
    (3000, "not read as YAML"),  # (9 M characters: past FRONT_MATTER_CHARS)
])
def test_front_matter_nested_too_deeply_is_ignored_not_fatal(levels, warning):
    from chunkctl import ChunkConfig
    from chunkctl.loaders import load_bytes

    deep = "---\na:\n" + "".join("  " * i + "b:\n" for i in range(1, levels)) + "---\n\n# Title\n\nBody text.\n"
    doc = load_bytes(deep.encode(), "deep.md", "md", ChunkConfig())
    assert len(doc.warnings) == 1 and warning in doc.warnings[0]
    assert doc.text.endswith("# Title\n\nBody text.\n") and doc.title == "Title" and "front_matter" not in doc.meta


# ------------------------------------------------------------------ HTML headings
# A helper's find: READMEs that open with `<h1 align="center">` had no title and no heading path at all.
_ATTRS = st.sampled_from(["", ' align="center"', " id='top' class=\"title\"", ' style="color: red"'])
_INLINE = st.sampled_from(["", '<img src="logo.png" width="80"><br>', '<a href="#x">', "</a>", "<b>", "</b>"])
_WORDS = st.lists(st.sampled_from(["Rocket", "Launch", "&amp;", "Guide", "v2", "Café"]), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), _ATTRS, _INLINE, _WORDS, _INLINE, st.sampled_from(["", "\n", "\n  "]))
def test_an_html_block_of_one_heading_element_is_a_heading(level, attrs, before, words, after, gap):
    block = f"<h{level}{attrs}>{gap}{before}{' '.join(words)}{after}{gap}</h{level}>"
    doc = load(f"{block}\n\nSome text under it.\n")
    head, para = doc.blocks
    title = " ".join(" ".join(words).replace("&amp;", "&").split())
    assert (head.kind, head.level, head.headings) == (BlockKind.HEADING, level, (title,))
    assert doc.text[head.start:head.end] == block.strip() and para.headings == (title,)
    if level == 1:
        assert doc.meta["title"] == title


def test_html_blocks_that_are_not_one_heading_stay_html():
    for block in ('<div align="center"><h1>Rocket</h1><p>A tool.</p></div>', "<h1>One</h1><h2>Two</h2>",
                  "<h2></h2>", '<h1><img src="logo.png"></h1>', "<p>Rocket</p>"):
        doc = load(f"{block}\n\nText.\n")
        assert [b.kind for b in doc.blocks] == [BlockKind.HTML, BlockKind.PARAGRAPH], block
        assert doc.blocks[1].headings == ()


def test_front_matter_past_its_limit_leaves_out_its_largest_values():
    # (every record carries it: helper-56's 190 KB `desc:` made 187 MB of records for 378 KB of Markdown)
    from chunkctl.loaders.markdown import FRONT_MATTER_BYTES

    text = "---\ntitle: Guide\ntags: [a, b]\nnotes: " + "n " * 9000 + "\ndesc: " + "word " * 4000 + "\n---\n\n# H\n\nbody\n"
    doc = load_bytes(text.encode(), "a.md", "md", ChunkConfig())
    assert doc.meta["front_matter"] == {"title": "Guide", "tags": ["a", "b"]} and doc.title == "Guide"
    assert doc.warnings == ["front matter of more than 16,384 bytes as JSON, which every record carries: its largest "
                            "values left out of the metadata: desc, notes"]
    small = "---\ntitle: Guide\ndesc: " + "w" * (FRONT_MATTER_BYTES - 40) + "\n---\n\nbody\n"
    doc = load_bytes(small.encode(), "b.md", "md", ChunkConfig())
    assert len(doc.meta["front_matter"]["desc"]) == FRONT_MATTER_BYTES - 40 and not doc.warnings


def test_front_matter_longer_than_its_parse_limit_is_kept_as_front_matter_not_read():
    # helper-74: PyYAML took 1.3 GB for 5 MB of `k: v` lines; past FRONT_MATTER_CHARS the block is
    # front matter (text kept, a warning) but not read; one that opens with no key is not front matter
    import tracemalloc

    from chunkctl.loaders.markdown import FRONT_MATTER_CHARS

    body = "title: Big\n" + "k: v\n" * (FRONT_MATTER_CHARS // 5)
    text = f"---\n{body}---\n\n# Heading\n\nText.\n"
    tracemalloc.start()
    try:
        doc = load(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(text) * 2  # (within 8x of the text at 2 bytes a character; PyYAML: some 270x)
    assert doc.blocks[0].kind == BlockKind.FRONT_MATTER and doc.blocks[0].end == len(f"---\n{body}---")
    assert "front_matter" not in doc.meta and doc.title == "Heading"
    assert doc.warnings == [f"front matter of {len(body) - 1:,} characters, more than {FRONT_MATTER_CHARS:,}: "
                            "not read as YAML (its parser takes some 270 bytes a character); ignored"]
    prose = "---\n" + "Some prose, not a mapping.\n" * (FRONT_MATTER_CHARS // 20) + "---\n\nText.\n"
    assert load(prose).blocks[0].kind != BlockKind.FRONT_MATTER


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["word", "*em*", "_u_", "`code`", "<b>", "</b>", "~~s~~", "**", "__", " ", "  \t",
                                 "<a href='x'>", "é", "[link][r]", "\\*", "#"]), min_size=1, max_size=30),
       st.integers(150, 4000))
def test_a_long_heading_gives_the_title_its_whole_text_gives(tokens, times):
    """Only the start of a heading over MAX_INLINE characters is read (all of a 4.6 MB one took
    10x its text in `re.sub` and `split`); its title is the whole text's, as `short_title` cuts it."""
    import re

    from chunkctl.loaders.headings import short_title
    from chunkctl.loaders.markdown import _ATTRIBUTES, _CLOSING_HASHES, _INLINE_MARK, MAX_INLINE, clean_heading

    text = " ".join(tokens) * times
    if len(text) <= MAX_INLINE:
        return
    whole = _CLOSING_HASHES.sub("", _ATTRIBUTES.sub("", text))
    whole = " ".join(_INLINE_MARK.sub("", whole).split()) if re.search(r"[\\`*_\[\]<>&!~]", whole) else " ".join(whole.split())
    assert short_title(clean_heading(text)) == short_title(whole)


def test_a_heading_of_a_megabyte_is_cleaned_from_its_start():
    from tests.test_pdf_memory import _traced_peak

    text = "*a* _b_ `c` " * 100_000
    got, peak = _traced_peak(lambda: clean_heading(text))
    assert got.startswith("a b c a b c") and 768 < len(got) < 4096
    assert peak < 3 * len(text), peak / len(text)  # (the text's copies without its attribute block and hashes)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(list("a #{}.:/-\t\n\r\x0b\u2003") + ["{#id}", "{.c}", " ##", "{: .x}"]), max_size=40))
def test_tail_marks_go_as_the_patterns_remove_them(parts):
    from chunkctl.loaders.markdown import _ATTRIBUTES, _CLOSING_HASHES, _without_tail_marks

    text = "".join(parts)
    assert _without_tail_marks(text) == _CLOSING_HASHES.sub("", _ATTRIBUTES.sub("", text))


def test_a_heading_with_a_long_run_of_spaces_is_cleaned_without_the_tail_patterns(monkeypatch):
    # (helper-76: 40,000 spaces took 28 s in `_ATTRIBUTES` and `_CLOSING_HASHES`, which start with
    # white space and are tried at each of its characters: they are not run over a heading now)
    from chunkctl.loaders import markdown

    class Refused:
        def sub(self, *args):
            raise AssertionError("a tail pattern was run over the heading")

    monkeypatch.setattr(markdown, "_ATTRIBUTES", Refused())
    monkeypatch.setattr(markdown, "_CLOSING_HASHES", Refused())
    assert clean_heading("a" + " " * 40_000 + "b {#id}") == "a b"
    assert clean_heading("Title" + " \t" * 20_000 + "###") == "Title"
