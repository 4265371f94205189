"""`loaders.headings.HeadingPath`: the breadcrumb every loader keeps while it reads blocks in order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chunkctl.config import ChunkConfig
from chunkctl.loaders.headings import HeadingPath
from chunkctl.model import BlockKind
from chunkctl.pipeline import load


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
