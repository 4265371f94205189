"""`loaders.headings.HeadingPath`: the breadcrumb every loader keeps while it reads blocks in order."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from chunkctl.config import ChunkConfig
from chunkctl.loaders.headings import TITLE_CHARS, HeadingPath, short_title
from chunkctl.model import BlockKind
from chunkctl.pipeline import load, process_document
from chunkctl.text.segment import Graphemes


def test_a_heading_closes_those_at_its_level_or_deeper():
    path = HeadingPath()
    assert path.titles == ()
    assert path.enter(2, "Warranty") == ("Warranty",)  # a first heading below level 1 opens alone
    assert path.enter(3, "Enterprise returns") == ("Warranty", "Enterprise returns")
    assert path.enter(4, "Fees") == ("Warranty", "Enterprise returns", "Fees")
    assert path.enter(3, "Consumer returns") == ("Warranty", "Consumer returns")
    assert path.enter(1, "Appendix") == ("Appendix",)
    assert path.enter(1, "Index") == ("Index",)
    assert path.titles == ("Index",)


def test_the_titles_are_one_tuple_until_the_next_heading():
    path = HeadingPath()
    got = path.enter(1, "A")
    assert path.titles is got and path.titles is path.titles


@given(st.lists(st.tuples(st.integers(1, 6), st.sampled_from("abc")), max_size=30))
def test_each_title_is_the_last_heading_of_a_lower_level_before_it(heads):
    path = HeadingPath()
    for i, (level, title) in enumerate(heads):
        got = path.enter(level, title)
        # The path's entries are the nearest earlier headings of strictly lower level, then this one.
        want: list[str] = [title]
        bound = level
        for lv, t in reversed(heads[:i]):
            if lv < bound:
                want.insert(0, t)
                bound = lv
        assert got == tuple(want)


def test_every_loader_gives_the_same_path_for_the_same_outline(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nx\n\n### C\n\ny\n\n## B\n\nz\n")
    (tmp_path / "a.html").write_text("<h1>A</h1><p>x</p><h3>C</h3><p>y</p><h2>B</h2><p>z</p>")
    (tmp_path / "a.txt").write_text("= A =\n\nx\n\n=== C ===\n\ny\n\n== B ==\n\nz\n")
    for name in ("a.md", "a.html", "a.txt"):
        doc = load(tmp_path / name, ChunkConfig())
        paths = {doc.text[b.start:b.end]: b.headings for b in doc.blocks if b.kind == BlockKind.PARAGRAPH}
        assert paths == {"x": ("A",), "y": ("A", "C"), "z": ("A", "B")}, name


@given(st.lists(st.sampled_from(["a", "b", " ", "\n", "e\u0301", "\U0001F469\u200d\U0001F4BB", "\u4e2d"]),
                max_size=400).map("".join))
def test_a_title_is_kept_whole_up_to_the_limit_and_cut_at_a_cluster_boundary_past_it(title):
    got = short_title(title)
    assert len(got) <= TITLE_CHARS
    if len(title) <= TITLE_CHARS:
        assert got == title
        return
    assert got.endswith("…")
    kept = got[:-1]
    assert title.startswith(kept) and Graphemes(title).is_boundary(len(kept))
    # at the last white space within the limit when it keeps at least half, else as long as it may be
    spaces = [m.start() for m in re.finditer(r"\s+", title[:TITLE_CHARS])]  # (runs of white space)
    if spaces and spaces[-1] >= (TITLE_CHARS - 1) // 2:
        assert kept == title[:spaces[-1]]
    else:
        assert len(kept) >= TITLE_CHARS - 6  # (back to a cluster boundary: at most a ZWJ sequence)


def test_a_heading_path_keeps_short_titles():
    path = HeadingPath()
    assert path.enter(1, "word " * 200) == ("word " * 50 + "word…",)
    assert len(path.titles[0]) == TITLE_CHARS - 1


def test_a_giant_heading_or_title_is_a_short_label_in_every_record(tmp_path):
    """A whole paragraph above a setext underline, an `<h2>` and a `<title>` never closed, a MediaWiki
    line: each heading's title (and the document's) is cut to TITLE_CHARS in `headings`, the
    breadcrumb and `meta.title`, while its text stays whole in the bodies. Before, a 110 KB setext
    heading took 50 s and wrote itself into each of its 44 records."""
    para = " ".join(f"word{i}" for i in range(3000))  # 26 KB, no line break
    (tmp_path / "a.md").write_text(f"{para}\n===\n\nintro\n\n{para}\n---\n\nbody text.\n")
    (tmp_path / "a.html").write_text(f"<html><head><title>{para}</title></head><body><h2>{para}</h2><p>body</p>")
    (tmp_path / "b.html").write_text(f"<html><head><title>{para}")  # never closed: the page is its title
    (tmp_path / "a.txt").write_text(f"== {para} ==\n\nbody text.\n")  # (too long for a text file's heading)
    for name in ("a.md", "a.html", "b.html", "a.txt"):
        doc = load(tmp_path / name, ChunkConfig())
        records = list(process_document(doc, ChunkConfig()).records)
        assert len(doc.title) <= TITLE_CHARS, name
        assert doc.title.startswith("word0 word1 ") == (name != "a.txt"), name  # (a text file's: its name)
        if name == "b.html":
            assert records == []  # (the whole page is its title: no body)
            continue
        labels = {h for r in records for h in r["headings"]} | {r["meta"]["title"] for r in records}
        assert all(len(h) <= TITLE_CHARS for h in labels), name
        assert any(h.startswith("word0 word1 word2 ") and h.endswith("…") for h in labels) == (name != "a.txt"), name
        assert all(len(r["prefix"]) <= TITLE_CHARS + 2 for r in records), name
        bodies = "".join(r["text"] for r in records)
        assert "word2999" in bodies and "word1500 word1501" in bodies, name


def test_lines_that_start_with_an_equals_sign_are_read_one_at_a_time():
    """Every setext underline is a line `wiki_headings` looks at: a list of them took 36 bytes
    each, 7x a file of one-letter setext headings (helper-74's 20 MB of them took 14.7x its size)."""
    from chunkctl.loaders.headings import wiki_headings
    from tests.test_pdf_memory import _traced_peak

    text = "H\n=\n\n" * 100_000 + "== Wiki ==\n"
    found, peak = _traced_peak(lambda: wiki_headings(text))
    assert found == {500_000: (500_010, 2, "Wiki")}
    assert peak < len(text), peak / len(text)
