"""txt loader: decoding, paragraphs, clause headings, no newline translation."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkctl.config import ChunkConfig
from chunkctl.errors import ConfigError, LoaderError
from chunkctl.loaders import text as text_loader
from chunkctl.loaders.decode import decode
from chunkctl.loaders.headings import wiki_headings
from chunkctl.loaders.text import load_text
from chunkctl.model import BlockKind
from chunkctl.text.lines import iter_paragraph_spans
from tests.conftest import CORPUS, needs_proc, needs_shared, peak_growth


def load(data: bytes, **kw):
    return load_text(data, "t.txt", ChunkConfig(**kw))


def spans(doc):
    return [(b.kind.value, doc.text[b.start:b.end]) for b in doc.blocks]


def test_paragraphs_keep_crlf_and_offsets():
    doc = load(b"First line\r\nstill first.\r\n\r\n  \r\nSecond.\r\n")
    assert doc.text == "First line\r\nstill first.\r\n\r\n  \r\nSecond.\r\n"
    assert spans(doc) == [("paragraph", "First line\r\nstill first."), ("paragraph", "Second.")]


def test_form_feed_separates_paragraphs_and_cr_only_lines():
    doc = load(b"Page one.\rMore.\f\rPage two.\r\rEnd.")
    assert spans(doc) == [("paragraph", "Page one.\rMore."), ("paragraph", "Page two."), ("paragraph", "End.")]


def test_clause_headings_rise_and_nest():
    text = ("POLICY\n\n1. Scope\n\nThis applies.\n\n1.1 Who\nEveryone here.\n\n"
            "2. Terms\n\nTable of contents line ........ 3\n\n3 things matter and this line goes on as a sentence,\n\n"
            "Section 4 Remedies\n\nText.\n\n§ 5 Final words\n\nEnd.\n")
    doc = load(text.encode())
    heads = [(b.level, doc.text[b.start:b.end], b.headings) for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads[0] == (1, "1. Scope", ("1. Scope",))
    assert heads[1] == (2, "1.1 Who", ("1. Scope", "1.1 Who"))
    assert heads[2] == (1, "2. Terms", ("2. Terms",))
    assert [h[1] for h in heads] == ["1. Scope", "1.1 Who", "2. Terms", "Section 4 Remedies", "§ 5 Final words"]
    body = [b for b in doc.blocks if doc.text[b.start:b.end] == "Everyone here."][0]
    assert body.kind == BlockKind.PARAGRAPH and body.headings == ("1. Scope", "1.1 Who")


def test_numbers_that_do_not_rise_are_not_headings():
    doc = load(b"1. Alpha\n\nx\n\n2. Beta\n\ny\n\n1. Again\n\nz\n\n3. Gamma\n\nw\n")
    heads = [doc.text[b.start:b.end] for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads == ["1. Alpha", "2. Beta", "3. Gamma"]


def test_three_part_numbers_may_open_titles_with_digits_or_lower_case():
    # RFC 2616 (a helper's find): "10.4.5 404 Not Found" and "3.2.2 http URL" were no headings, so
    # their text sat under the previous section's breadcrumb; two-part numbers still need a
    # title-like title ("3.5 million people ..." is a quantity).
    text = ("3 Protocol Parameters\n\n3.2 Uniform Resource Identifiers\n\nURIs.\n\n3.2.1 General Syntax\n\nText.\n\n"
            "3.2.2 http URL\n\nThe http scheme.\n\n3.5 million people read it\n\n"
            "10 Status Code Definitions\n\n10.4 Client Error 4xx\n\n10.4.5 404 Not Found\n\nNothing here.\n")
    doc = load(text.encode())
    heads = [doc.text[b.start:b.end] for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads == ["3 Protocol Parameters", "3.2 Uniform Resource Identifiers", "3.2.1 General Syntax",
                     "3.2.2 http URL", "10 Status Code Definitions", "10.4 Client Error 4xx", "10.4.5 404 Not Found"]
    last = doc.blocks[-1]
    assert last.headings == ("10 Status Code Definitions", "10.4 Client Error 4xx", "10.4.5 404 Not Found")
    # rows of data and sentences that open with a version number are no headings (a helper's find)
    data = ("Notes\n\nWe upgraded the hosts last week, and this paragraph says how it went in detail.\n\n"
            "2.7.18 is the last release of Python 2.\n\nFine.\n\n1.0.0 12 ms 15 ms\n1.0.1 11 ms 14 ms\n\n"
            "4.5.6 x y z 7 8 9\n\n3.14.159 is an approximation someone might write\n\n"
            "1.0.0   12 ms   (Baseline)\n1.1.0   15 ms   (Cache off)\n\n1.4.2 2024-03-01 (LTS)\n")  # (helper-113)
    doc = load(data.encode())
    assert [b for b in doc.blocks if b.kind == BlockKind.HEADING] == []


def test_chinese_chapter_lines_are_headings_anywhere():
    text = "第1章 桃园结义\n话说天下大势。\n第2章 张翼德怒鞭督邮\n且说董卓。\n"
    doc = load(text.encode())
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.kind == BlockKind.HEADING] == [
        "第1章 桃园结义", "第2章 张翼德怒鞭督邮"]


def test_bom_removed_and_encoding_recorded():
    doc = load("\ufeffHello".encode("utf-8"))
    assert doc.text == "Hello" and doc.meta["encoding"] == "utf-8-sig"
    doc = load("Hé".encode("utf-16"))
    assert doc.text == "Hé" and doc.meta["encoding"] == "utf-16"


def test_binary_and_bad_forced_encoding_are_errors():
    with pytest.raises(LoaderError, match="binary file"):
        load(b"\x00\x01\x02 not text")
    with pytest.raises(LoaderError, match="cannot decode as utf-8 at byte 1"):
        load(b"a\xe9b", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a text encoding"):  # options are checked when built
        load(b"abc", encoding="klingon-8")
    with pytest.raises(LoaderError, match="unknown encoding"):  # the decoder's own guard stays
        decode(b"abc", "x.txt", forced="klingon-8")


def test_empty_file_has_no_blocks():
    doc = load(b"")
    assert doc.text == "" and doc.blocks == []
    assert load(b"  \n\n\t \f ").blocks == []


@needs_shared()
@pytest.mark.parametrize("name,encoding", [("latin1-portuguese-prose.txt", "cp1252"), ("koi8r-russian.txt", "koi8-r"),
                                           ("big5-classical-chinese.txt", "big5"),
                                           ("utf8-bom-japanese-readme.txt", "utf-8-sig")])
def test_corpus_encodings(name, encoding):
    import json

    phrases = json.loads((CORPUS / "encodings.json").read_text("utf-8"))["phrases"]
    doc = load_text((CORPUS / "txt" / name).read_bytes(), name, ChunkConfig())
    assert doc.meta["encoding"] == encoding
    assert phrases[f"txt/{name}"] in doc.text


@needs_shared()
def test_legal_corpus_headings():
    doc = load_text((CORPUS / "txt" / "agpl-3.0-license.txt").read_bytes(), "agpl.txt", ChunkConfig())
    heads = [doc.text[b.start:b.end] for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads[:3] == ["0. Definitions.", "1. Source Code.", "2. Basic Permissions."]
    assert "17. Interpretation of Sections 15 and 16." in heads
    rfc = load_text((CORPUS / "txt" / "rfc791-internet-protocol.txt").read_bytes(), "rfc.txt", ChunkConfig())
    rheads = [rfc.text[b.start:b.end] for b in rfc.blocks if b.kind == BlockKind.HEADING]
    assert "1.  INTRODUCTION" in rheads and "1.1.  Motivation" in rheads
    assert not any("...." in h for h in rheads)


def test_mediawiki_heading_lines_in_plain_text():
    doc = load(b"== Scope ==\r\nApplies to all.\r\n\r\n=== Limits ===\r\nNone.\r\n")
    heads = [(b.level, b.headings) for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads == [(2, ("Scope",)), (3, ("Scope", "Limits"))]


# Fragments that make clause lines, near misses, blanks of every kind and line breaks.
_CLAUSE_PIECES = ["1", "2.1", "3.", "12", "١٢", "１", "§", "§ 4", "Section 2", "SECTION IV", "Article 3", "ARTICLE",
                  "Chapter 9", "Part II", "Clause 1", "Scope", "Terms and rates", "word", "x,", "第3章", "第十回", "第",
                  "...", "Sales", " ", "  ", "\t", "\f", "\v", "\x1c", "\x85", "\u2028", "\u3000", "\n", "\n\n", "\r\n",
                  "\r", "\r\n\r\n", "= Wiki =", ".", "|"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_CLAUSE_PIECES), max_size=60))
def test_clause_headings_read_at_paragraph_starts_equal_every_line(pieces):
    """`_clause_lines` tries only paragraph-start lines (and 第 lines): the headings must be those
    found by trying `_CLAUSE` at every line start, as the loader did before (issue 19)."""
    text = "".join(pieces)
    starts = text_loader._Starts([a for a, _b in iter_paragraph_spans(text)])
    every_line = [0] + [m.end() for m in re.finditer(r"[\r\n]", text)]
    found = text_loader.find_clause_headings(text, starts)
    original = text_loader._clause_lines
    try:
        text_loader._clause_lines = lambda _text, _starts: iter(every_line)
        expected = text_loader.find_clause_headings(text, starts)
    finally:
        text_loader._clause_lines = original
    assert found == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_CLAUSE_PIECES), max_size=60))
def test_clause_headings_from_the_opening_paragraph_starts_equal_those_from_every_start(pieces):
    """The loader keeps only the starts of paragraphs that open with a clause character (a
    digit, "§", "S", "A", "C", "P", "第") for `find_clause_headings`, not every paragraph's
    span (8 bytes a paragraph beside the blocks): the headings must be the same."""
    text = "".join(pieces)
    every = [a for a, _b in iter_paragraph_spans(text)]
    opening = [a for a in every if text[a] in "§SACP第" or text[a].isdecimal()]
    assert text_loader.find_clause_headings(text, opening) == text_loader.find_clause_headings(text, every)


def test_paragraph_spans_are_not_kept_beside_the_blocks():
    """A file of one-letter pages: the load kept every paragraph's span (8 bytes) and a copy of
    their starts (4 bytes) while it made the blocks (11 bytes of columns then): 19.9 bytes a
    paragraph traced at its peak, 11.7 then (the blocks themselves; the peak was 11x the file
    in the CLI)."""
    import tracemalloc

    from chunkctl.model import BlockList

    n = 100_000
    text = "a\n\f" * n  # (a form feed between two words is no paragraph break since 0.1.30: "a\fa" one)
    BlockList(text_loader.iter_text_blocks("warm\n\nup"))
    tracemalloc.start()
    try:
        blocks = BlockList(text_loader.iter_text_blocks(text))
        size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(blocks) == n and blocks[-1].start == 3 * n - 3
    assert peak - size < 1 * n, f"{(peak - size) / n:.1f} bytes a paragraph over the blocks"


def test_clause_lines_are_paragraph_starts_and_chapter_lines():
    text = "Intro.\n\n1. Scope\n\n  \f2. Terms\nnot 3. here\n\n\t第2章 Rates\nx 第3章\n第4章"
    starts = [a for a, _b in iter_paragraph_spans(text)]
    lines = list(text_loader._clause_lines(text, starts))
    # "1. Scope"'s line; "2. Terms" after blanks and a form feed; the tab-indented 第 line
    # (a paragraph start and a chapter line: once); the last 第 line (a chapter line inside a
    # paragraph); 0 is always tried when the text holds 第. Not "not 3." or "x 第3章".
    assert lines == [0, text.index("1."), text.index("  \f2."), text.index("\t第2章"), text.index("第4章")]


_WIKI_PIECES = ["=", "==", "= ", " =", "\t", " ", "Title", "History", "\n", "\n\n", "x", "a = b", "======="]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WIKI_PIECES), max_size=40), st.integers(0, 30))
def test_wiki_heading_lines_without_cr_match_the_general_scan(pieces, start):
    """Text without "\\r" finds its "=" lines by a literal-"\\n" regex; a "\\r" appended at the end
    (a line break that opens no line) sends the same text through the general scan."""
    text = "".join(pieces)
    start = min(start, len(text))
    assert wiki_headings(text, start) == wiki_headings(text + "\r", start)


@needs_proc
def test_clause_candidates_are_held_as_columns():
    """helper-105: 20 MB of "1.1 A" paragraphs (a candidate every 7 bytes, none rising) took 77x the
    file: a dict entry and tuples a candidate (0.1.31: some 57x traced). As columns, 4.6x of
    2.1 MB, measured untraced in a process of its own (traced, 25 s)."""
    measured = peak_growth("""
        from chunkctl.loaders.text import _Starts, find_clause_headings
        text = "1.1 A\\n\\n" * 300_000
        starts = _Starts(range(0, len(text), 7))
        """, """
        heads = find_clause_headings(text, starts)
        result = {"heads": {str(k): list(v) for k, v in heads.items()}, "chars": len(text)}
        """)
    n = measured["chars"]
    assert measured["heads"] == {str(n - 7): [n - 2, 2, "1.1 A"]}  # (one: none rises)
    assert measured["growth"] < 8 * n, f"{measured['growth'] / n:.1f}x"


@needs_proc
def test_heading_lines_are_read_as_they_come():
    """helper-105: 20 MB of "= a =" lines, all headings, held as one dict took 29x the file. Read
    as they come, 1.8 MB of them add nothing measurable; the same blocks held in a list add 49x,
    measured the same way (untraced, in a process of its own), so the measure tells."""
    measured = [peak_growth("""
        from chunkctl.loaders.text import iter_text_blocks
        text = "= a =\\n" * 300_000
        sum(1 for _ in iter_text_blocks(text[:600]))  # (imports and tables outside the measure)
        """, f"""
        result = {{"blocks": {count}, "chars": len(text)}}
        """) for count in ("sum(1 for _ in iter_text_blocks(text))", "len(list(iter_text_blocks(text)))")]
    (streamed, held) = measured
    assert streamed["blocks"] == held["blocks"] == 300_000
    assert streamed["growth"] < streamed["chars"], f"{streamed['growth'] / streamed['chars']:.1f}x"
    assert held["growth"] > 8 * held["chars"]  # (what reading as they come saves)


_LINES = ["1 Scope", "2 Terms", "2.1 Words", "= Intro =", "== Part ==", "Section 3 Rules", "plain words here", "",
          "= 1 Scope =", "3 Back", "  1.2 Indented", "\f"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_LINES), min_size=1, max_size=30))
def test_clause_and_wiki_headings_merge_as_one_dict_of_them_did(lines):
    from chunkctl.loaders.headings import HeadingPath, wiki_headings
    from chunkctl.loaders.text import _Starts, find_clause_headings, iter_text_blocks
    from chunkctl.text.lines import iter_paragraph_spans

    text = "\n".join(lines)
    starts = _Starts(a for a, _ in iter_paragraph_spans(text))
    heads = find_clause_headings(text, starts)
    for s, v in wiki_headings(text).items():
        heads.setdefault(s, v)
    expected, path, headings = [], HeadingPath(), ()
    for a, b in iter_paragraph_spans(text):  # (the dict-based walk of 0.1.31)
        pos = a
        for s in sorted(h for h in heads if a <= h < b):
            seg = pos + len(text[pos:s].rstrip())
            if s > pos and seg > pos:
                expected.append((BlockKind.PARAGRAPH, pos, seg, headings))
            e, level, title = heads[s]
            headings = path.enter(level, title)
            expected.append((BlockKind.HEADING, s, e, headings))
            pos = e + (len(text[e:b]) - len(text[e:b].lstrip())) if text[e:b].strip() else b
        if pos < b:
            expected.append((BlockKind.PARAGRAPH, pos, b, headings))
    assert [(x.kind, x.start, x.end, x.headings) for x in iter_text_blocks(text)] == expected
