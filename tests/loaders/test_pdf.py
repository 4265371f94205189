"""PDF loader: text repair, layout rules on small inputs, file-level errors, and the PDF cases BR-12 and BR-14."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkctl.config import ChunkConfig
from chunkctl.errors import LoaderError
from chunkctl.loaders.pdf.furniture import drop_furniture
from chunkctl.loaders.pdf.groups import Group, is_list_start
from chunkctl.loaders.pdf.headings import complete_outline, font_headings, outline_headings
from chunkctl.loaders.pdf.joining import Joiner
from chunkctl.loaders.pdf.lines import reading_order
from chunkctl.loaders.pdf.loader import load_pdf
from chunkctl.loaders.pdf.page import Frame, Line, PageData, clean_text
from chunkctl.loaders.pdf.tables import Table
from chunkctl.model import BlockKind
from chunkctl.pipeline import load
from tests.conftest import CASES, CORPUS, needs_shared, parse_jsonl, pdf_file, run_checker, run_cli
from tests.loaders.pdf_drawing import pdf_bytes

pytestmark = pytest.mark.usefixtures("pdf_pages_both_ways")  # objects and packed pages

PDF = CORPUS / "pdf"


def _line(text: str, x0: float, top: float, x1: float, size: float = 10.0, **kw) -> Line:
    return Line(text, x0, top, x1, top + size, size, base=top + 0.8 * size, **kw)


def _page(index: int, lines: list[Line], width: float = 600.0, height: float = 800.0) -> PageData:
    return PageData(index, Frame(0, width=width, height=height), lines=lines)


# -- text repair --------------------------------------------------------------------

def test_ligatures_become_letters_and_nothing_else_is_folded():
    assert clean_text("o\ufb03ce \ufb00 \ufb01 \ufb02 \ufb04 \ufb05 \ufb06") == "office ff fi fl ffl st st"
    # superscripts, full-width letters and other compatibility characters stay
    assert clean_text("x\u00b2 \uff26\uff55\uff4c\uff4c \u2460") == "x\u00b2 \uff26\uff55\uff4c\uff4c \u2460"


def test_control_characters_go_and_tex_accents_compose():
    assert clean_text("a\x00b\x02c\tz") == "abc z"
    assert clean_text("na\u00a8\u0131ve caf\u00b4e") == "na\u00efve caf\u00e9"


def test_space_before_a_combining_mark_goes():
    # pdfium separates Thai marks it draws out of order; a mark after a space would
    # make a grapheme cluster of the space
    assert clean_text("\u0e02 \u0e4d \u0e49\u0e2d") == "\u0e02\u0e4d\u0e49\u0e2d"
    assert Joiner([]).join([_line("\u0e02", 0, 0, 50), _line("\u0e49\u0e2d", 0, 12, 50)]) == "\u0e02\u0e49\u0e2d"


def test_leading_private_use_bullet_is_mapped_only_at_the_line_start():
    assert clean_text("\uf0b7 Home users") == "\u2022 Home users"
    assert clean_text("a \uf0b7 b") == "a \uf0b7 b"


def test_hyphenation_rules():
    j = Joiner(["a self-contained unit", "a program is a program", "TraceMonkey runs"])
    # lower-case continuation: joined without the hyphen
    assert j.join([_line("com-", 0, 0, 50), _line("puter", 0, 12, 50)]) == "computer"
    # a compound seen hyphenated elsewhere keeps its hyphen
    assert j.join([_line("self-", 0, 0, 50), _line("contained", 0, 12, 50)]) == "self-contained"
    # upper-case second part keeps the hyphen ...
    assert j.join([_line("Anglo-", 0, 0, 50), _line("Saxon", 0, 12, 50)]) == "Anglo-Saxon"
    # ... unless the joined word appears elsewhere in the document
    assert j.join([_line("Trace-", 0, 0, 50), _line("Monkey", 0, 12, 50)]) == "TraceMonkey"
    # pdfium's hyphenation mark (the hyphen itself is not in the text)
    assert j.join([_line("pro", 0, 0, 50, hyphen=True), _line("gram", 0, 12, 50)]) == "program"
    # numbers and CJK
    assert j.join([_line("2009-", 0, 0, 50), _line("2010", 0, 12, 50)]) == "2009-2010"
    assert j.join([_line("日本", 0, 0, 50), _line("語です", 0, 12, 50)]) == "日本語です"


def test_list_starts():
    for text in ("\u2022 item", "1. first", "a) second", "(iv) fourth", "[12] A. Gal. Trace trees", "- dash"):
        assert is_list_start(text), text
    for text in ("300. ACM New York", "1.5 percent", "Plain text"):
        assert not is_list_start(text), text


# -- layout ----------------------------------------------------------------------------

def test_two_columns_are_read_column_by_column():
    left = [_line(f"left line {i} of the first column", 60, 100 + 15 * i, 250) for i in range(8)]
    right = [_line(f"right line {i} of the second column", 310, 100 + 15 * i, 500) for i in range(8)]
    # content order interleaves the columns line by line
    mixed = [x for pair in zip(left, right) for x in pair]
    title = _line("A title across both columns of the page", 150, 60, 450, size=16)
    page = _page(0, [title] + mixed)
    order = [p.item.text for p in reading_order(page)]
    assert order == [title.text] + [x.text for x in left] + [x.text for x in right]


def test_table_inside_a_column_stays_in_its_column():
    left = [_line(f"left line {i} of the first column", 60, 100 + 15 * i, 250) for i in range(8)]
    right = [_line(f"right line {i} of the second column", 310, 100 + 15 * i, 500) for i in range(8)]
    table = Table(60, 230, 250, 300, ["a", "b"], [["1", "2"]])
    page = _page(0, left + right)
    page.tables = [table]
    order = [p.item for p in reading_order(page)]
    assert order == left + [table] + right


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 3), st.integers(0, 2), st.integers(0, 2), st.booleans(), st.integers(2, 8))
def test_a_footer_drawn_before_the_body_is_read_after_it(n_foot, n_head, n_note, head_first, n_body):
    # helper-115: Word draws a page's header and footer first; a footer left on a short
    # document's page (nothing repeats enough to drop it) came between the title and the body.
    # The footer drawn first goes last; a header drawn first stays first; a footnote drawn
    # among the body lines (bottom margin too) stays where it is drawn.
    foot = [_line(f"footer line {i}", 60, 740 + 12 * i, 300) for i in range(n_foot)]
    head = [_line(f"header line {i}", 60, 20 + 12 * i, 300) for i in range(n_head)]
    body = [_line(f"body line {i} of the page's prose", 60, 100 + 15 * i, 540) for i in range(n_body)]
    notes = [_line(f"footnote {i}", 60, 715 + 5 * i, 300, size=4) for i in range(n_note)]
    drawn = (head + foot if head_first else foot + head) + body[:1] + notes + body[1:]
    order = [p.item for p in reading_order(_page(0, drawn))]
    assert order == head + body[:1] + notes + body[1:] + foot
    assert [p.item for p in reading_order(_page(0, head + body + notes + foot))] == head + body + notes + foot


def test_single_column_keeps_content_order():
    lines = [_line(f"a full-width line of prose number {i}", 60, 100 + 15 * i, 540) for i in range(10)]
    page = _page(0, lines)
    assert [p.item for p in reading_order(page)] == lines


def test_running_headers_footers_and_page_numbers_are_dropped():
    pages = []
    for i in range(6):
        lines = [
            _line("ACME Annual Report 2024", 60, 30, 300),
            _line(f"Body text unique to page {i}, saying something new.", 60, 100, 540),
            _line(f"More body text on page {i} that continues the story.", 60, 115, 540),
            _line(f"{i + 3}", 295, 760, 305),
        ]
        pages.append(_page(i, lines))
    dropped = drop_furniture(pages)
    assert dropped == 12
    for p in pages:
        assert [ln.text[:9] for ln in p.lines] == ["Body text", "More body"]


_WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def _book(n: int, extra: dict[int, list[Line]]) -> list[PageData]:
    """`n` pages of a book: running header with the printed page number (roman, then physical - 3) at the top,
    a page number at the bottom, six body lines; `extra[i]` are lines put first in page i's body."""
    pages = []
    for i in range(n):
        printed = ("i", "ii", "iii")[i] if i < 3 else str(i - 2)
        lines = [_line(f"{printed} 1.{i // 10}. TOPOLOGISCHE RÄUME", 60, 25, 540)]
        lines += [ln for ln in extra.get(i, [])]
        lines += [_line(f"Body line of {_WORDS[(7 * i + k) % len(_WORDS)]} and {_WORDS[(3 * i + 5 * k) % len(_WORDS)]}",
                        60, 120 + 20 * k, 540) for k in range(6)]
        lines.append(_line(printed, 295, 770, 305))
        pages.append(_page(i, lines))
    return pages


def test_content_that_opens_a_few_pages_is_not_furniture():
    # A helper's find on a 117-page LaTeX book: "Definition 20" opening pages 24, 32, 63 and 65,
    # a formula line ending in a number on 3 scattered pages (read as a page number with a
    # chance offset), a table of contents' first entry "1 Topology 2" (its "1" as the printed
    # page number), and the first entries of two index pages ("..., 10", "..., 11") were dropped
    # as running headers or page numbers.
    extra = {p: [_line(f"Definition {p}", 60, 60, 160)] for p in (23, 31, 62, 64)}
    extra.update({p: [_line(f"Also for n = {p - 9}:", 60, 62, 200)] for p in (9, 10, 61)})
    extra[3] = [_line("1 Topological basics 2", 60, 100, 540)]
    extra[115] = [_line("homeomorphism group, 10", 60, 60, 300)]
    extra[116] = [_line("connected, 11", 60, 60, 300)]
    pages = _book(117, extra)
    kept = {ln.text for ln in pages[3].lines}
    drop_furniture(pages)
    texts = [ln.text for p in pages for ln in p.lines]
    assert all(t.startswith("Body line") for t in texts if not any(t == x.text for v in extra.values() for x in v))
    for lines in extra.values():
        for ln in lines:
            assert ln.text in texts, ln.text
    assert kept - {ln.text for ln in pages[3].lines} == {"1 1.0. TOPOLOGISCHE RÄUME", "1"}


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 24), st.booleans(), st.data())
def test_a_number_like_the_page_number_nearer_the_text_is_kept(n, top, data):
    # a helper's find (a GTC slide deck): pdfium sets the "4" of "4th Gen" apart on page 4, in the
    # bottom band above the real "4"; it was dropped as the page number, leaving "th Gen Tensor Cores"
    pages, extras = [], []
    for i in range(n):
        y_number = 20 if top else 770
        lines = [_line(f"Body line of {_WORDS[(7 * i + k) % len(_WORDS)]}", 60, 150 + 20 * k, 540) for k in range(6)]
        lines.append(_line(str(i + 1), 295, y_number, 305))
        # (one page in three: a number at one height on 3 pages within 6 runs like a page number)
        if i % 3 == 0 and data.draw(st.booleans(), label=f"extra on page {i + 1}"):
            y = data.draw(st.floats(30, 80) if top else st.floats(710, 760), label="its height")
            extra = _line(str(i + 1), 100, y, 108)
            lines.append(extra)
            extras.append(extra)
        pages.append(_page(i, lines))
    drop_furniture(pages)
    kept = {id(ln) for p in pages for ln in p.lines}
    assert all(id(x) in kept for x in extras)
    assert all(not any(ln.text == str(p.index + 1) and ln.x0 == 295 for ln in p.lines) for p in pages)


_ROMANS = "i ii iii iv v vi vii viii ix x xi xii".split()


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.booleans(), st.booleans())
def test_the_number_alone_is_the_page_number_of_a_page_of_a_line_ending_in_it(n, roman, number_at_foot):
    # helper-115 (w3c's page-numbers example): "This is intro page iv" at the top of page 4, "iv" at its
    # foot. Both ran with the page, both went, the page was left empty, so both stayed. (Here each
    # page's line has a word of its own: a line that repeats but for its digits is a running title;
    # on a page of more lines, a line ending in the number is one too: `_book`'s headers.)
    pages = []
    for i in range(n):
        printed = _ROMANS[i] if roman else str(i + 1)
        text = _line(f"The {_WORDS[i]} intro page {printed}", 60, 760 if not number_at_foot else 20, 300)
        pages.append(_page(i, [text, _line(printed, 295, 770 if number_at_foot else 10, 305)]))
    drop_furniture(pages)
    for i, p in enumerate(pages):
        printed = _ROMANS[i] if roman else str(i + 1)
        assert p.lines[0].text == f"The {_WORDS[i]} intro page {printed}"
        assert printed not in [ln.text for ln in p.lines]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["header", "footer", "both"]), st.floats(-3, 3), st.data())
def test_a_two_page_document_loses_the_header_and_footer_both_pages_print(which, drift, data):
    # helper-115 (w3c's Word example, two pages): "An excerpt from Mark Twain's Speeches by Mark
    # Twain" at the top and "Content made available via the Gutenberg Project" at the foot of both
    # pages opened every chunk; 3 pages were needed for a running line. Text repeated off the
    # margins, or in a margin with words that differ, stays.
    header, footer = "An excerpt from Mark Twain's Speeches", "Content made available via Gutenberg"
    different = data.draw(st.sampled_from(["Chapter one", "Chapter two"]), label="a margin line of page 2")
    pages = []
    for i in range(2):
        lines = []
        if which in ("header", "both"):
            lines.append(_line(header, 60, 30 + (drift if i else 0), 400))
        if which in ("footer", "both"):
            lines.append(_line(footer, 60, 740 + (drift if i else 0), 400))
        lines.append(_line("Chapter one" if i == 0 else different, 60, 60, 200))
        lines += [_line(f"Body line of {_WORDS[(7 * i + k) % len(_WORDS)]}", 60, 150 + 20 * k, 540) for k in range(6)]
        lines.append(_line("The same notice in the body of both pages", 60, 400, 540))
        pages.append(_page(i, lines))
    drop_furniture(pages)
    for i, p in enumerate(pages):
        texts = [ln.text for ln in p.lines]
        assert header not in texts and footer not in texts
        assert "The same notice in the body of both pages" in texts
        # a line in the top 12% of both pages with the same text is a running title too
        assert texts[0] == ("Chapter one" if i == 0 else "Chapter two") if different == "Chapter two" else \
            texts[0].startswith("Body line")
        assert len(texts) == 8 - (different == "Chapter one")


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 14), st.integers(-4, 2), st.booleans(), st.floats(1.2, 2.0))
def test_section_headings_that_open_pages_and_run_with_them_are_kept(n, offset, foot_number, scale):
    # helper-116 (a LaTeX article, each section on a new page): "1 Introduction" opened page 3,
    # "2 Background" page 4, ...: the numbers ran with the page, and the headings went as
    # page numbers. A line that opens with its number in a font larger than the text is kept;
    # the page number alone at the foot still goes.
    titles = "Introduction Background Methodology Results Discussion Conclusion Outlook".split()
    pages = []
    for i in range(n):
        number = i + 1 + offset
        lines = [_line(f"{number} {titles[i % len(titles)]} of part {_WORDS[i]}", 60, 40, 300, size=10 * scale, bold=True)]
        lines += [_line(f"Body line of {_WORDS[(7 * i + k) % len(_WORDS)]} and more", 60, 150 + 20 * k, 540)
                  for k in range(6)]
        if foot_number:
            lines.append(_line(str(i + 1), 295, 770, 305))
        pages.append(_page(i, lines))
    drop_furniture(pages)
    for i, p in enumerate(pages):
        texts = [ln.text for ln in p.lines]
        assert texts[0] == f"{i + 1 + offset} {titles[i % len(titles)]} of part {_WORDS[i]}"
        assert len(texts) == 7


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 10), st.booleans())
def test_a_running_title_pdfium_set_against_its_number_goes_with_it(n, title_page):
    # helper-116 (a 4-page LNCS paper): LaTeX's even head "2Optimized ZK verification of ECDSA
    # signature with partially outsourced computations" (no space after the number, 84 characters)
    # and odd head "Scooby-Doo 3" stayed, glued into the sentences around the page breaks.
    title = "Optimized ZK verification of ECDSA signature with partially outsourced computations"
    pages = []
    for i in range(n):
        lines = [] if title_page and i == 0 else \
            [_line(f"{i + 1}{title}" if i % 2 else f"Scooby-Doo {i + 1}", 60, 40, 500)]
        lines += [_line(f"Body line of {_WORDS[(7 * i + k) % len(_WORDS)]} and more", 60, 150 + 20 * k, 540)
                  for k in range(6)]
        if i == 2:
            lines.append(_line("3D graphics and more of the body", 60, 300, 540))  # (off the margins: text)
        pages.append(_page(i, lines))
    drop_furniture(pages)
    for i, p in enumerate(pages):
        assert [ln.text[:9] for ln in p.lines] == ["Body line"] * 6 + (["3D graphi"] if i == 2 else [])


def test_content_that_repeats_on_every_page_is_kept_where_it_is_most_of_the_page():
    # helper-59 (pdf.js standard_fonts.pdf, TCPDF's font specimen): every page prints the same
    # character table under its own "FONT: ..." title; the table repeats at the same height on
    # every page and went as furniture, leaving each page its title. The running header (top
    # margin) and the page number still go; a repeated line that is a small part of a page
    # (a notice in the body) still goes too.
    faces = ["courier", "courierB", "helvetica", "helveticaI", "times", "timesBI"]
    table = [" ".join(chr(c) for c in range(33 + 16 * k, 49 + 16 * k)) for k in range(10)]
    pages = []
    for i, face in enumerate(faces):
        lines = [_line("TCPDF Example 055", 60, 20, 300), _line(f"FONT: {face}", 60, 120, 200)]
        lines += [_line(t, 60, 150 + 15 * k, 540) for k, t in enumerate(table)]
        lines.append(_line(f"The quick brown fox in {face}", 60, 330, 540))
        lines.append(_line(f"page {i + 1} / 6", 260, 770, 340))
        pages.append(_page(i, lines))
    drop_furniture(pages)
    for face, p in zip(faces, pages):
        assert [ln.text for ln in p.lines] == [f"FONT: {face}", *table, f"The quick brown fox in {face}"]
    pages = []
    for i in range(6):
        lines = [_line("Internal use only", 60, 400, 200)]
        lines += [_line(f"Body line {k} of {_WORDS[(7 * i + k) % len(_WORDS)]} and more words here", 60, 150 + 15 * k,
                        540) for k in range(6)]
        pages.append(_page(i, lines))
    drop_furniture(pages)
    assert not any(ln.text == "Internal use only" for p in pages for ln in p.lines)


def test_page_whose_only_text_repeats_keeps_it():
    pages = [_page(i, [_line("habibi", 60, 60, 120)]) for i in range(4)]
    assert drop_furniture(pages) == 0
    assert all(p.lines for p in pages)


def test_outline_entry_without_destination_is_found_between_its_neighbours():
    # a helper's find (pdfplumber's chelsea_pdta.pdf): the bookmark "3.2. Résultats ..." has no destination;
    # its section (pages 14-19) was read under "3.1" with "3.2" as a paragraph
    pages = [_page(i, []) for i in range(4)]
    groups = [[Group("para", [_line("1. Intro", 60, 60, 200, bold=True)], page=0)],
              [Group("para", [_line("Text of the introduction, with its words.", 60, 100, 540)], page=1)],
              [Group("para", [_line("1.1 Scope", 60, 100, 200, bold=True),
                              _line("What the scope is, in one sentence.", 60, 120, 540)], page=2)],
              [Group("para", [_line("2. End", 60, 60, 200, bold=True)], page=3)]]
    outline = [(0, "1. Intro", 0, None), (1, "1.2 Terms", -1, None), (1, "1.1  Scope", -1, None),
               (0, "2. End", 3, None)]
    assert outline_headings(groups, outline, pages, 10.0) == 2  # (entries without a page are not counted)
    heads = [(g.page, g.level, g.title) for gs in groups for g in gs if g.kind == "heading"]
    assert heads == [(0, 1, "1. Intro"), (2, 2, "1.1 Scope"), (3, 1, "2. End")]
    assert [ln.text for g in groups[2] for ln in g.lines] == ["1.1 Scope", "What the scope is, in one sentence."]
    assert [g.kind for g in groups[2]] == ["heading", "para"]  # "1.2 Terms" is nowhere: no heading


def test_a_section_the_outline_starts_on_a_contents_page_keeps_its_heading():
    # helper-90's find (the corpus's roman-page-labels.pdf): the first section's heading shares the
    # contents page; the contents' rule made it a paragraph, so its text fell under "Contents" and
    # the document's title was the second section's
    from chunkctl.loaders.pdf.toc import mark_toc

    def book() -> list[list[Group]]:
        entries = ["1 Intro ........ iii", "2 Method ........ iv", "3 Results ........ 1", "4 End ........ 2"]
        return [[Group("para", [_line("Contents", 60, 40, 200, size=14)], page=0),
                 Group("heading", [_line("Part One", 60, 70, 200, bold=True)], page=0, level=1, title="Part One"),
                 *[Group("para", [_line(e, 60, 100 + 20 * i, 540)], page=0) for i, e in enumerate(entries)],
                 Group("para", [_line("1 Intro", 60, 300, 200, bold=True)], page=0),
                 Group("para", [_line("Text of the introduction.", 60, 330, 540)], page=0)],
                [Group("para", [_line("2 Method", 60, 60, 200, bold=True)], page=1),
                 Group("para", [_line("Text of the method.", 60, 90, 540)], page=1)]]

    pages = [_page(i, []) for i in range(2)]
    outline = [(0, "Intro", 0, None), (0, "Method", 1, None)]
    groups = book()
    assert outline_headings(groups, outline, pages, 10.0) == 2
    assert mark_toc(groups, outline) == 1
    heads = [(g.page, g.level, g.title) for gs in groups for g in gs if g.kind == "heading"]
    # ("Part One", a heading by its font on the contents page, is an entry: a paragraph)
    assert heads == [(0, 1, "Contents"), (0, 1, "Intro"), (1, 1, "Method")]
    # an outline title placed on an entry of its contents page, or on a part title before the
    # last entry (an outline pointing at the contents page), stays an entry
    for at, title in ((2, "Intro"), (1, "Part One")):
        groups = book()
        groups[0][at].kind, groups[0][at].level, groups[0][at].title = "heading", 1, title
        assert mark_toc(groups, [(0, title, 0, None)]) == 1
        assert [g.title for g in groups[0] if g.kind == "heading"] == ["Contents"]


@needs_shared()
def test_the_corpus_contents_page_ending_in_the_first_section():
    doc = load(PDF / "roman-page-labels.pdf", ChunkConfig())
    heads = [(b.level, doc.text[b.start:b.end], b.headings) for b in doc.blocks if b.kind == "heading"]
    assert heads == [(1, "Contents", ("Contents",)), (1, "1 First section", ("First section",)),
                     (1, "2 Second section", ("Second section",)), (1, "3 Third section", ("Third section",)),
                     (1, "4 Heading on Level 1 (section)", ("Heading on Level 1 (section)",))]
    assert doc.title == "First section"


def test_outline_entry_without_destination_is_never_a_bullet_a_phrase_or_a_link():
    # a regression hunt's finds: "• Installing" in a chapter's list of contents and "Key results" in running
    # text took the entries "Installing" and "Results"; an outline of one mailto link ("Contact us") matched a
    # body line and switched the font headings of the whole document off
    pages = [_page(i, []) for i in range(3)]
    groups = [[Group("para", [_line("Getting started", 60, 60, 300, size=16.0, bold=True)], page=0),
               Group("item", [_line("• Installing", 60, 100, 200)], page=0),
               Group("para", [_line("Key results of the study", 60, 130, 540)], page=0)],
              [Group("para", [_line("Installing", 60, 60, 300, size=16.0, bold=True)], page=1),
               Group("para", [_line("Results", 60, 200, 300, size=16.0, bold=True)], page=1)],
              [Group("para", [_line("Configuring", 60, 60, 300, size=16.0, bold=True)], page=2)]]
    outline = [(0, "Getting started", 0, None), (0, "Installing", -1, None), (0, "Results", -1, None),
               (0, "Configuring", 2, None)]
    assert outline_headings(groups, outline, pages, 10.0) == 2
    heads = [(g.page, g.title) for gs in groups for g in gs if g.kind == "heading"]
    assert heads == [(0, "Getting started"), (1, "Installing"), (1, "Results"), (2, "Configuring")]
    links = [[Group("para", [_line("Introduction", 60, 60, 300, size=16.0, bold=True)], page=0),
              Group("para", [_line("Contact us", 60, 300, 200)], page=0)]]
    assert outline_headings(links, [(0, "Contact us", -1, None)], pages[:1], 10.0) == 0
    assert all(g.kind == "para" for g in links[0])


def test_outline_entries_normalize_each_group_once_not_once_an_entry(monkeypatch):
    """helper-58: each outline entry normalized the text of every group it looked at (entries without a
    destination: every group between their neighbours), so 1,000 bookmarks over 50 pages took 11 s and
    4,000 over 200 pages over 120 s. The same headings, with a bounded number of normalizations."""
    from chunkctl.loaders.pdf import headings

    calls = []
    norm = headings._norm_title
    monkeypatch.setattr(headings, "_norm_title", lambda s: calls.append(s) or norm(s))
    pages = [_page(i, []) for i in range(40)]
    groups = [[Group("para", [_line(f"Running text {p} {g}, a sentence of words.", 60, 60 + 20 * g, 540)], page=p)
               for g in range(10)] for p in range(40)]
    groups[30][4] = Group("para", [_line("Found Later", 60, 140, 300, size=16.0, bold=True)], page=30)
    outline = [(0, "Start", 0, None)] + [(1, f"Missing entry {i}", -1, None) for i in range(300)] + [
        (1, "Found Later", -1, None), (0, "Start", 39, None)]
    outline_headings(groups, outline, pages, 10.0)
    assert [(g.page, g.title) for gs in groups for g in gs if g.kind == "heading"] == [(30, "Found Later")]
    lines = sum(len(g.lines) for gs in groups for g in gs)
    assert len(calls) <= len(outline) + 2 * lines  # (was 300 entries x 400 groups: 120,000)


def test_numbered_headings_the_outline_left_out_are_found_by_their_font():
    # pdfplumber's chelsea_pdta.pdf: the bookmarks have "3.1." and "3.2." but not "3.3. Rencontres ..."
    def head(text, size, level):
        return Group("heading", [_line(text, 60, 100, 400, size=size, bold=True)], level=level, title=text)

    def para(text, size=10.0, bold=False):
        return Group("para", [_line(text, 60, 200, 540, size=size, bold=bold)])

    groups = [[head("3. Results", 24.0, 1), head("3.1. First survey", 16.0, 2), para("Body text of the survey.")],
              [head("3.2. Second survey", 16.0, 2), head("Annex", 16.0, 2), para("3.3. Meetings", 16.0, True),
               para("3.3.1 Not this level", 16.0, True), para("3.4. In body size", 10.0, True),
               para("3.5. Contents ........ 21", 16.0, True), para("4. Strategy for the town", 16.0, True)]]
    assert complete_outline(groups, 10.0) == 1
    got = [(g.kind, g.level, g.title) for gs in groups for g in gs if g.kind == "heading"]
    assert got[-1] == ("heading", 2, "3.3. Meetings") and len(got) == 5


def test_footer_left_alone_on_pages_that_could_not_be_read_is_dropped():
    # a helper's find (pdf.js' TAMReview.pdf): pages 2-18 use fonts without a Unicode mapping, their
    # footer was all that was left of them and was kept 16 times, joined by form feeds
    footer = "Sprouts - http://sprouts.aisnet.org/9-37"
    pages = [_page(0, [_line("Overview of the model, its origins and its critics.", 60, 100, 540),
                       _line(footer, 60, 760, 300)])]
    pages += [_page(i, [_line(footer, 60, 760, 300)]) for i in range(1, 8)]
    for p in pages[1:]:
        p.unreadable = True
    assert drop_furniture(pages) == 8
    assert [ln.text for p in pages for ln in p.lines] == ["Overview of the model, its origins and its critics."]


# -- file-level errors --------------------------------------------------------------------

@pytest.mark.parametrize("data, reason", [
    (b"", "unreadable PDF: the file is empty (0 bytes)"),
    (b"hello, this is not a PDF at all\n" * 4, "unreadable PDF: no %PDF header (not a PDF file)"),
    (b"%PDF-1.4\n1 0 obj <<>> endobj\n", "unreadable PDF: damaged beyond repair (truncated or corrupt structure)"),
])
def test_unreadable_bytes_are_one_line_errors(data, reason):
    with pytest.raises(LoaderError) as err:
        load_pdf(data, "x.pdf", ChunkConfig())
    assert err.value.reason == reason
    assert str(err.value) == f"x.pdf: {reason}"


def test_a_pdf_without_pages_says_so(tmp_path):
    # a helper's find: the line read "unreadable PDF: Failed to load document (PDFium: Success)". (In a fresh
    # process: pdfium sets no error code for it, so after another failure its code is that one's.)
    path = tmp_path / "zero.pdf"
    path.write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n"
                     b"<< /Type /Pages /Kids [] /Count 0 >>\nendobj\nxref\n0 3\n0000000000 65535 f \n"
                     b"0000000009 00000 n \n0000000058 00000 n \ntrailer\n<< /Size 3 /Root 1 0 R >>\n"
                     b"startxref\n110\n%%EOF\n")
    p = run_cli("chunk", str(path), "-o", str(tmp_path / "o.jsonl"))
    assert p.returncode == 1
    assert p.stderr.decode().splitlines()[0] == (f"chunkctl: error: {path}: unreadable PDF: no page that can be "
                                                 f"read (an empty or broken page tree)")


@needs_shared()
def test_encrypted_file_needs_the_right_password():
    path = PDF / "encrypted-password-test.pdf"
    data = path.read_bytes()
    with pytest.raises(LoaderError, match="a password is needed"):
        load_pdf(data, "e.pdf", ChunkConfig())
    with pytest.raises(LoaderError, match="the password is wrong"):
        load_pdf(data, "e.pdf", ChunkConfig(password="nope"))
    doc = load_pdf(data, "e.pdf", ChunkConfig(password="test"))
    assert doc.meta["n_pages"] == 4
    assert "Backup4all" in doc.text
    assert doc.text.count("\f") == 3


@needs_shared()
def test_empty_user_password_opens_without_one():
    doc = load(PDF / "encrypted-aes256-empty-password.pdf")
    assert doc.text == "pdf encryption test password: asdfzxcv"


@needs_shared()
def test_blank_pages_keep_their_form_feeds():
    # japanese-vertical-text.pdf: page 1 has two vertical lines, pages 2 and 3 are blank
    doc = load(PDF / "japanese-vertical-text.pdf")
    assert doc.text == "\u3042\u3044\u3046\u3048\u304a\u65e5\u672c\u8a9e\f\f"
    assert doc.warnings == []  # blank, not scanned: nothing to report


@needs_shared()
def test_scanned_page_is_a_warning_not_an_error():
    import chunkctl

    doc = chunkctl.load(PDF / "scanned-jbig2-no-text-rot270.pdf", ocr="never")
    assert doc.text == ""
    assert doc.warnings == ["page 1 has no text layer (OCR is off: --ocr never)"]


@needs_shared()
def test_rotated_page_reads_upright():
    # /Rotate 90 page whose text runs bottom-to-top in user space
    doc = load(PDF / "zen-of-python-corrupt-zlib.pdf")
    lines = [b.start for b in doc.blocks]
    assert doc.text.startswith("Beautiful is better than ugly.\n\nExplicit is better than implicit.")
    assert lines == sorted(lines)


# -- BR-12: ligature glyphs ---------------------------------------------------------------

@needs_shared()
@pytest.mark.parametrize("args", [
    ("--strategy", "recursive", "--chunk-size", "64", "--overlap", "0"),
    ("--strategy", "fixed", "--chunk-size", "16", "--overlap", "4"),
])
def test_br12_ligatures(tmp_path, args):
    pdf = CASES / "BR-12-ligatures.pdf"
    out = tmp_path / "out.jsonl"
    res = run_cli("chunk", str(pdf), *args, "-o", str(out))
    assert res.returncode == 0, res.stderr
    code, summary = run_checker(out, CASES.parent)
    assert code == 0, summary
    recs = parse_jsonl(out.read_bytes())
    assert recs
    # no presentation-form ligature survives anywhere
    assert not any(re.search("[\ufb00-\ufb06]", r["text"]) for r in recs)
    # the chunk texts, joined with overlap removed, hold every word
    doc = load(pdf).text
    covered = doc[recs[0]["start"]:recs[-1]["end"]]
    for word in ("office", "staff", "filed", "flow", "efficient", "fix", "baffling", "shuffled", "files",
                 "first", "floor"):
        assert re.search(rf"\b{word}\b", covered), word
    # token counts are of the expanded text (the checker verified n_tokens == len(encode(text)))
    assert all(r["page_start"] == 1 and r["page_end"] == 1 for r in recs)


# -- BR-14: two columns ---------------------------------------------------------------------

@needs_shared()
def test_br14_extracted_text_reads_column_by_column():
    text = load(CASES / "BR-14-two-columns.pdf").text
    left = ["Bees on city roofs", "Rooftop hives need shade", "in July, because the tar", "under them gets very hot.",
            "Keepers add a board over", "the lid and a water tray.", "A strong colony can make",
            "twenty kilos of honey."]
    right = ["How tides are forecast", "Tide tables come from long", "records of sea level at one",
             "harbour. The pull of the moon", "and sun is split into many", "small cycles, and each cycle",
             "is added back to predict", "the next high water."]
    positions = [text.index(s) for s in left + right]
    assert positions == sorted(positions)
    assert text.index("twenty kilos of honey.") < text.index("How tides are forecast")
    assert text.index("Rooftop hives need shade") < text.index("in July, because the tar")
    for mixed in ("shade Tide", "hot. harbour", "honey. the next"):
        assert mixed not in text
    # no line mixes the columns either
    for line in text.splitlines():
        assert not ("bee" in line.lower() and "tide" in line.lower())
    # two pages; the bare page numbers "1" and "2" are page furniture
    assert text.count("\f") == 1
    assert text.split("\f")[1] == "Errata\n\nThe hive weight on page one is for a full season."
    assert not re.search(r"^\d+$", text, re.M)


@needs_shared()
@pytest.mark.parametrize("size", ["48", "128"])
def test_br14_chunks_pages_and_sections(tmp_path, size):
    pdf = CASES / "BR-14-two-columns.pdf"
    out = tmp_path / "out.jsonl"
    res = run_cli("chunk", str(pdf), "--strategy", "recursive", "--chunk-size", size, "--overlap", "0",
                  "-o", str(out))
    assert res.returncode == 0, res.stderr
    code, summary = run_checker(out, CASES.parent)
    assert code == 0, summary
    recs = parse_jsonl(out.read_bytes())
    for r in recs:
        body = r["text"][len(r["prefix"]):]
        for mixed in ("shade Tide", "hot. harbour", "honey. the next"):
            assert mixed not in r["text"]
        assert 1 <= r["page_start"] <= r["page_end"] <= 2
        if any(w in body for w in ("hive", "Bees", "Tide", "tides", "honey", "moon")) and "season" not in body:
            assert r["page_start"] == 1
        if "The hive weight on page one is for a full season." in body:
            assert (r["page_start"], r["page_end"]) == (2, 2)
    # headings from font weight: the three bold titles are the sections
    blocks = [json.loads(x) for x in run_cli("extract", "--blocks", str(pdf)).stdout.splitlines()]
    assert [b["text"] for b in blocks if b["kind"] == "heading"] == [
        "Bees on city roofs", "How tides are forecast", "Errata"]
    sections = {tuple(r["headings"]) for r in recs}
    assert sections <= {("Bees on city roofs",), ("How tides are forecast",), ("Errata",)}
    assert ("Errata",) in sections and ("Bees on city roofs",) in sections


@needs_shared()
@pytest.mark.parametrize("name", ["latex-outline-bookmarks.pdf", "word-styled-table-de.pdf", "roman-page-labels.pdf"])
def test_damaged_files_give_a_document_or_a_one_line_error(name):
    import random

    data = (PDF / name).read_bytes()
    rng = random.Random(name)
    variants = [data[:int(len(data) * f)] for f in (0.05, 0.3, 0.6, 0.9, 0.99)]
    for _ in range(5):
        b = bytearray(data)
        for _ in range(30):
            b[rng.randrange(len(b))] = rng.randrange(256)
        variants.append(bytes(b))
    for v in variants:
        try:
            doc = load_pdf(v, name, ChunkConfig())
        except LoaderError as exc:
            assert exc.reason.startswith(("unreadable PDF: ", "encrypted PDF: ")), exc.reason
            assert "\n" not in exc.reason
        else:
            assert doc.text.count("\f") == doc.meta["n_pages"] - 1


def test_a_page_left_open_at_exit_writes_nothing_to_stderr():
    """A run stopped by a signal while a page is open (the suite's SIGTERM test met it) must
    not end with pypdfium2's "The following object was still open" line, named after no file."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    # pypdfium2's exit hook writes that line through `_warn_close` for each object still
    # tracked (a page whose close a signal interrupted); once a PDF was opened, it writes nothing
    code = ("import pypdfium2.internal.bases as bases\n"
            "from chunkctl.loaders.pdf.loader import _open\n"
            "pdf, _ = _open(open('examples/cold-storage-handbook.pdf', 'rb').read(), 'x.pdf', None)\n"
            "page = pdf[0]\n"
            "bases._warn_close(f'The following object was still open and will be closed now: {page}')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""


def _lines_pdf(n: int, angle: int, rotate: int) -> bytes:
    """A one-page PDF (600 x 800, /Rotate `rotate`) of n lines "Line k ..." drawn at `angle`
    degrees in user space, each below the one before in the text's own direction."""
    import math

    c, s = round(math.cos(math.radians(angle))), round(math.sin(math.radians(angle)))
    ops = []
    for k in range(n):
        # start 150 points back along the text, lines going "down" (the text's direction turned clockwise)
        x = 300 - 150 * c + s * (16 * k - 80)
        y = 400 - 150 * s - c * (16 * k - 80)
        ops.append(f"BT /F1 12 Tf {c} {s} {-s} {c} {x} {y} Tm (Line {k + 1} of the page reads in order.) Tj ET")
    stream = "\n".join(ops).encode("latin-1")
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Rotate %d /Resources << /Font << /F1 4 0 R >> >> "
            b"/Contents 5 0 R >>" % rotate,
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"]
    return pdf_file(objs)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 12), angle=st.sampled_from([0, 90, 180, 270]), rotate=st.sampled_from([0, 90, 180, 270]))
def test_lines_read_in_order_whatever_the_pages_rotate(n, angle, rotate):
    """helper-48: lines drawn across a page with /Rotate 90 came last first (pdfium orders text
    as the page is shown); helper-49: so did lines drawn at 270 degrees under /Rotate 0. Lines
    read in order, and the same under any /Rotate, whatever their drawing angle."""
    def text(rot: int) -> str:
        return load_pdf(_lines_pdf(n, angle, rot), "p.pdf", ChunkConfig(ocr="never")).text

    got = text(rotate)
    assert got == text(angle)  # (the /Rotate that shows the lines upright)
    at = [got.find(f"Line {k + 1} of") for k in range(n)]
    assert -1 not in at and at == sorted(at), got


def test_a_pdf_pdfium_calls_damaged_is_read_by_pdfminer(monkeypatch):
    """helper-48: pdfium refuses some files pdfminer reads (a data sheet of py-pdf/sample-files):
    such a file's text comes from pdfminer, with a warning, instead of failing the file."""
    import chunkctl.loaders.pdf.loader as pdf_loader
    from chunkctl.errors import LoaderError as Refused

    data = _lines_pdf(6, 0, 0)
    whole = load_pdf(data, "p.pdf", ChunkConfig(ocr="never"))

    def refuse(reason):
        def _open(data, source, password):
            raise Refused(source, reason)
        return _open

    monkeypatch.setattr(pdf_loader, "_open", refuse("unreadable PDF: damaged beyond repair (truncated or corrupt "
                                                    "structure)"))
    doc = load_pdf(data, "p.pdf", ChunkConfig(ocr="never"))
    assert doc.text == whole.text and doc.meta["n_pages"] == 1
    assert doc.warnings == ["pdfium cannot open it (damaged beyond repair (truncated or corrupt structure)); "
                            "its text was read by pdfminer, without tables"]
    # refused for another reason, or pdfminer finds no text either: the file fails as before
    monkeypatch.setattr(pdf_loader, "_open", refuse("encrypted PDF: the password is wrong"))
    with pytest.raises(LoaderError, match="password is wrong"):
        load_pdf(data, "p.pdf", ChunkConfig(ocr="never"))
    monkeypatch.setattr(pdf_loader, "_open", refuse("unreadable PDF: damaged beyond repair (truncated)"))
    with pytest.raises(LoaderError, match="damaged beyond repair"):
        load_pdf(data[: len(data) // 3], "p.pdf", ChunkConfig(ocr="never"))


def test_outline_entries_of_one_title_look_at_each_packed_page_once(monkeypatch):
    """helper-66: 500 bookmarks without a destination, all "Summary of results", a body line of each of
    400 packed pages (never a heading): each entry unpacked every page of its range again (7x the
    old time). A page looked at for a title without a match is not looked at again for it until a
    heading is made on it."""
    from chunkctl.loaders.pdf import packed

    monkeypatch.setattr(packed, "LIVE_PAGES", 2)
    unpacked = []
    unpack = packed.PageGroups._unpack
    monkeypatch.setattr(packed.PageGroups, "_unpack", staticmethod(lambda data: unpacked.append(1) or unpack(data)))
    pages = [_page(i, []) for i in range(40)]
    groups = packed.PageGroups(packed=True)
    for p in range(40):
        groups.append([Group("para", [_line("Summary of results", 60, 100, 300)], page=p),
                       Group("para", [_line(f"Running text {p}, a sentence of words.", 60, 120, 540)], page=p)])
    groups.append([Group("para", [_line("Summary of results", 60, 100, 300, size=16.0, bold=True)], page=40)])
    pages.append(_page(40, []))
    outline = [(0, "Start", 0, None)] + [(1, "Summary of results", -1, None) for _ in range(100)]
    outline_headings(groups, outline, pages, 10.0)
    assert [(p, g.title) for p, gs in enumerate(groups.reading()) for g in gs if g.kind == "heading"] == [
        (40, "Summary of results")]
    assert len(unpacked) <= 3 * 41 + 41, len(unpacked)  # (was 100 entries x 41 pages)


@pytest.mark.parametrize("text, title", [
    ("p(i)= \u2211", False), ("ZZ P(x; y) log P(x; y)", False), ("h\u220f(N + bii)i 1=n", False), ("F1", False),
    ("ZP(x) logP(x) dx +ZZ P(x; y) log P(x; y)", False), ("L = \u2211piLi", False),
    ("PART I: DISCRETE NOISELESS SYSTEMS", True), ("C++ Templates", True), ("AI and ML", True), ("Q&A", True),
    ("2.1 Scope", True), ("Appendix A", True), ("\u6982\u8981", True), ("\u7b2c\u4e00\u7ae0 \u6982\u8ff0", True),
    ("\uac1c\uc694", True), ("\u00c9tat de l'art", True),
])
def test_a_formula_set_large_by_its_sum_sign_is_no_heading(text, title):
    # helper-102: Shannon's paper had "p(i)= ∑" and "ZZ P(x; y) log ..." for headings (the display
    # formula's big sign makes its line large), and every chunk after one carried it as its section
    def para(t, size=10.0):
        return Group("para", [_line(t, 60, 200, 540, size=size)])

    groups = [[para("Results", 14.0), para("Body text of the first section, which runs on for a while."),
               para(text, 18.0), para("More body text after the display formula, in the body size.")]]
    font_headings(groups, 10.0)
    got = [g.title for gs in groups for g in gs if g.kind == "heading"]
    assert got == (["Results", text] if title else ["Results"])


@pytest.mark.parametrize("text, title", [
    ("1 What is Monad?", True), ("What is CUDA?", True), ("Why Bother with Threads?", True),
    ("1.3 Why Use OpenMP?", True), ("\u4ec0\u4e48\u662f\u5206\u5757\uff1f", True),
    ("Did you know that the first chunk of every document is read more often than any other?", False),
    ("Stop!", False), ("Wait, there is more,", False),
])
def test_a_short_or_numbered_question_set_large_is_a_heading(text, title):
    # helper-116: Microsoft's Monad Manifesto lost "1 What is Monad?" (14 pt bold, as "2 Problem"), a
    # question read as a sentence; a long question or an exclamation still is one
    def para(t, size=10.0):
        return Group("para", [_line(t, 60, 200, 540, size=size, bold=size > 10)])

    groups = [[para("Results", 14.0), para("Body text of the first section, which runs on for a while."),
               para(text, 14.0), para("More body text after it, in the body size, a sentence.")]]
    font_headings(groups, 10.0)
    got = [g.title for gs in groups for g in gs if g.kind == "heading"]
    assert got == (["Results", text] if title else ["Results"])


def test_a_display_formula_in_a_pdf_leaves_the_section_path_alone(tmp_path):
    body = "BT /F1 10 Tf 60 {} Td (Body text of the section, a sentence that the formula follows.) Tj ET"
    page = [b"BT /F1 16 Tf 60 760 Td (Results) Tj ET", body.format(730).encode(),
            b"BT /F1 10 Tf 60 700 Td (p\\(i\\) = ) Tj /F1 24 Tf (S) Tj ET",
            b"BT /F1 24 Tf 60 660 Td (ZZ) Tj /F1 10 Tf ( P\\(x; y\\) log P\\(x; y\\) dx) Tj ET",
            body.format(630).encode()]
    path = tmp_path / "formula.pdf"
    path.write_bytes(pdf_bytes([page]))
    doc = load(path, ChunkConfig())
    heads = [doc.text[b.start:b.end] for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads == ["Results"]
    assert {b.headings for b in doc.blocks if b.kind != BlockKind.HEADING} == {("Results",)}


def _grid(xs: list[float], ys: list[float]) -> list[bytes]:
    """Ruling lines of a grid: a vertical line at each x, a horizontal one at each y (PDF points)."""
    ops = [b"%g %g m %g %g l S" % (x, ys[0], x, ys[-1]) for x in xs]
    ops += [b"%g %g m %g %g l S" % (xs[0], y, xs[-1], y) for y in ys]
    return [b"0.5 w", *ops]


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["Specifies how a set of variables is allocated.", "Figure 4: Logarithmic Scale"]),
       st.integers(0, 2))
def test_a_table_never_takes_the_words_of_a_line_it_holds_only_in_part(tmp_path_factory, lead, extra_rows):
    # helper-116: a grid drawn across a chart took its caption into cells that held the ends of the
    # line only; OpenMP's reference card had a sentence run into its first cell by pdfium ("...is
    # allocated. C/C++ #pragma omp allocate"). The lines went for the table, the words between
    # were in no chunk. A table that would lose them is read as lines.
    ys = [700 - 20 * i for i in range(3 + extra_rows)]
    page = _grid([200, 300, 520], ys)
    page.append(b"BT /F1 10 Tf 40 684 Td (%s C/C++ #pragma omp allocate) Tj ET" % lead.encode())
    rows = [("Fortran", "!$omp allocate (list)")] + [(f"Row{i}", f"value {i}") for i in range(extra_rows)]
    for i, (a, b) in enumerate(rows):
        y = 664 - 20 * i
        page.append(b"BT /F1 10 Tf 205 %d Td (%s) Tj ET" % (y, a.encode()))
        page.append(b"BT /F1 10 Tf 305 %d Td (%s) Tj ET" % (y, b.encode()))
    page.append(b"BT /F1 10 Tf 60 560 Td (Body text after the table, a sentence of its own.) Tj ET")
    path = tmp_path_factory.mktemp("t") / "grid.pdf"
    path.write_bytes(pdf_bytes([page]))
    text = " ".join(load(path, ChunkConfig()).text.split())
    for word in [*lead.split(), "#pragma", "Fortran", "!$omp", *[w for a, b in rows for w in (a + " " + b).split()]]:
        assert word in text, (word, text)
