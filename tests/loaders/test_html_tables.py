"""HTML data tables: rowspan/colspan in thead, tbody and tfoot (row groups bound rowspans), cells holding blocks;
a property test over random span grids."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chunkctl.config import ChunkConfig
from chunkctl.loaders import load_bytes
from chunkctl.model import BlockKind


def load(html: str, **options):
    return load_bytes(html.encode("utf-8"), "page.html", "html", ChunkConfig(**options))


def table_lines(html: str) -> list[str]:
    doc = load(html)
    tables = [b for b in doc.blocks if b.kind == BlockKind.TABLE]
    assert len(tables) == 1, [b.kind for b in doc.blocks]
    return doc.text[tables[0].start:tables[0].end].split("\n")


def cells(line: str) -> list[str]:
    assert line.startswith("| ") and line.endswith(" |"), line
    return line[2:-2].split(" | ")


def test_rowspan_in_a_one_row_thead_does_not_shift_the_body():
    # the table: rowspan="2" on a header cell of a one-row <thead>
    lines = table_lines(
        "<table><thead><tr><th rowspan='2'>Territory</th><th>Quarter</th></tr></thead>"
        "<tbody><tr><td>Northwest Territory</td><td>Q1 FY2026</td></tr>"
        "<tr><td>Yukon</td><td>Q2 FY2026</td></tr></tbody></table>")
    assert lines == ["| Territory | Quarter |", "| --- | --- |",
                     "| Northwest Territory | Q1 FY2026 |", "| Yukon | Q2 FY2026 |"]


def test_rowspan_and_colspan_inside_thead_merge_the_header():
    lines = table_lines(
        "<table><thead><tr><th rowspan=2>Region</th><th colspan=2>Sales</th></tr>"
        "<tr><th>2024</th><th>2025</th></tr></thead>"
        "<tbody><tr><td>North</td><td>1</td><td>2</td></tr></tbody></table>")
    assert lines == ["| Region | Sales / 2024 | Sales / 2025 |", "| --- | --- | --- |", "| North | 1 | 2 |"]


def test_rowspan_in_tbody_repeats_and_stops_at_tfoot():
    lines = table_lines(
        "<table><thead><tr><th>Group</th><th>Item</th></tr></thead>"
        "<tbody><tr><td rowspan=5>A</td><td>a1</td></tr><tr><td>a2</td></tr></tbody>"
        "<tfoot><tr><td>Total</td><td>2</td></tr></tfoot></table>")
    assert lines[2:] == ["| A | a1 |", "| A | a2 |", "| Total | 2 |"]


def test_tfoot_written_before_tbody_comes_last_and_rowspan_zero_fills_its_group():
    lines = table_lines(
        "<table><thead><tr><th>K</th><th>V</th></tr></thead>"
        "<tfoot><tr><td colspan=2>Sum: 3</td></tr></tfoot>"
        "<tbody><tr><td rowspan=0>x</td><td>1</td></tr><tr><td>2</td></tr></tbody></table>")
    assert lines[2:] == ["| x | 1 |", "| x | 2 |", "| Sum: 3 | Sum: 3 |"]


def test_colspan_and_rowspan_in_tfoot():
    lines = table_lines(
        "<table><tr><th>A</th><th>B</th><th>C</th></tr><tr><td>1</td><td>2</td><td>3</td></tr>"
        "<tfoot><tr><td rowspan=2>F</td><td colspan=2>wide</td></tr><tr><td>y</td><td>z</td></tr></tfoot></table>")
    assert lines[2:] == ["| 1 | 2 | 3 |", "| F | wide | wide |", "| F | y | z |"]


def test_comparison_table_whose_cells_hold_blocks_is_one_table():
    doc = load(
        "<article><h1>Which editor?</h1><p>We compared three editors over a month of daily use.</p>"
        "<table><tr><td><p><strong>Editor</strong></p></td><td><p>Price</p></td><td><p>Plugins</p></td></tr>"
        "<tr><td><p>Vim</p></td><td><p>Free</p></td><td><ul><li>many</li><li>scriptable</li></ul></td></tr>"
        "<tr><td><p>Sublime</p></td><td><p>99 USD</p></td><td><div>some</div></td></tr></table></article>")
    kinds = [b.kind for b in doc.blocks]
    assert kinds == [BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.TABLE]
    t = doc.blocks[2]
    assert doc.text[t.start:t.end].split("\n") == [
        "| Editor | Price | Plugins |", "| --- | --- | --- |",
        "| Vim | Free | many scriptable |", "| Sublime | 99 USD | some |"]


def test_layout_table_with_long_or_ragged_block_cells_stays_a_container():
    long = "A paragraph that goes on. " * 20
    doc = load(f"<table><tr><td><p>{long}</p></td><td><p>Side</p></td></tr>"
               f"<tr><td colspan=2><p>Footer text of the page.</p></td></tr></table>", keep_boilerplate=True)
    assert BlockKind.TABLE not in [b.kind for b in doc.blocks]
    assert "Footer text of the page." in doc.text


# -- property: random span grids


@st.composite
def span_grid(draw, rows: int, width: int, tag: str):
    """One row group: cells placed left to right, top to bottom, each covering a free rectangle.

    Returns (the group's HTML rows, the text at every grid position)."""
    grid: list[list[str | None]] = [[None] * width for _ in range(rows)]
    html_rows: list[list[str]] = [[] for _ in range(rows)]
    for r in range(rows):
        for c in range(width):
            if grid[r][c] is not None:
                continue
            free = 1
            while c + free < width and grid[r][c + free] is None:
                free += 1
            colspan = draw(st.integers(1, min(free, 3)))
            rowspan = draw(st.integers(1, min(rows - r, 3)))
            text = f"{tag}{r}c{c}"
            for dr in range(rowspan):
                for dc in range(colspan):
                    grid[r + dr][c + dc] = text
            attrs = (f" rowspan={rowspan}" if rowspan > 1 else "") + (f" colspan={colspan}" if colspan > 1 else "")
            cell = "th" if tag == "h" else "td"
            html_rows[r].append(f"<{cell}{attrs}>{text}</{cell}>")
    return ["<tr>" + "".join(cs) + "</tr>" for cs in html_rows], grid


@st.composite
def tables(draw):
    width = draw(st.integers(2, 5))
    n_head = draw(st.integers(0, 2))
    n_body = draw(st.integers(1, 5))
    n_foot = draw(st.integers(0, 2))
    head, head_grid = draw(span_grid(n_head, width, "h")) if n_head else ([], [])
    body, body_grid = draw(span_grid(n_body, width, "b"))
    foot, foot_grid = draw(span_grid(n_foot, width, "f")) if n_foot else ([], [])
    html = "<table>"
    if head:
        html += "<thead>" + "".join(head) + "</thead>"
    foot_first = draw(st.booleans())
    if foot and foot_first:
        html += "<tfoot>" + "".join(foot) + "</tfoot>"
    html += "<tbody>" + "".join(body) + "</tbody>"
    if foot and not foot_first:
        html += "<tfoot>" + "".join(foot) + "</tfoot>"
    html += "</table>"
    return html, width, head_grid, body_grid, foot_grid


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_every_cell_lands_in_its_column(case):
    html, width, head_grid, body_grid, foot_grid = case
    # a table of one row or one column is layout, not data (tested in test_html.py)
    assume(len(head_grid) + len(body_grid) + len(foot_grid) >= 2 and html.count("<tr>") >= 2)
    assume(any(len(re.findall(r"<t[dh][ >]", row)) >= 2 for row in html.split("<tr>")[1:]))
    rows = [cells(ln) for ln in table_lines(html)]
    assert all(len(r) == width for r in rows), rows  # every row as wide, nothing shifted
    if head_grid:
        header = []
        for c in range(width):
            parts: list[str] = []
            for r in head_grid:
                if not parts or parts[-1] != r[c]:
                    parts.append(r[c])
            header.append(" / ".join(parts))
        body = body_grid
    else:  # no thead: the first row heads the table
        header, body = body_grid[0], body_grid[1:]
    assert rows[0] == header
    assert rows[1] == ["---"] * width
    assert rows[2:] == [list(r) for r in body] + [list(r) for r in foot_grid]


# -- nothing lost, however big the table (MAX_CELLS guards against span blow-up only)


def test_a_table_of_more_cells_than_max_cells_keeps_every_row(monkeypatch):
    # 0.1.10 cut the rendered table at MAX_CELLS (200,000) cells: a 10 MB table of 1 M cells lost
    # rows 50,000 to 107,000 without a word
    monkeypatch.setattr("chunkctl.loaders.html.text.MAX_CELLS", 12)
    rows = "".join(f"<tr><td>r{i}a</td><td>r{i}b</td><td>r{i}c</td></tr>" for i in range(40))
    lines = table_lines(f"<table><tr><th>A</th><th>B</th><th>C</th></tr>{rows}</table>")
    assert len(lines) == 2 + 40
    assert cells(lines[-1]) == ["r39a", "r39b", "r39c"]


def test_spans_that_would_fill_too_many_cells_stand_once(monkeypatch):
    monkeypatch.setattr("chunkctl.loaders.html.text.MAX_CELLS", 50)
    rows = "".join(f"<tr><td>k{i}</td><td colspan=1000>wide{i}</td></tr>" for i in range(30))
    doc = load(f"<table><tr><th>Key</th><th>Value</th></tr>{rows}</table>")
    for i in range(30):
        assert f"| k{i} | wide{i} |" in doc.text  # every cell once, no 1,000 copies
    assert len(doc.text) < 1000


def test_a_row_wider_than_max_cols_keeps_its_cells():
    head = "".join(f"<th>h{c}</th>" for c in range(1200))
    row = "".join(f"<td>v{c}</td>" for c in range(1200))
    lines = table_lines(f"<table><tr>{head}</tr><tr>{row}</tr><tr>{row}</tr></table>")
    assert cells(lines[2])[-1] == "v1199"
    assert len(cells(lines[0])) == 1200


@st.composite
def big_tables(draw):
    """Tables of random spans, some of them huge, with every cell's text unique."""
    n_rows = draw(st.integers(1, 12))
    html, texts = [], []
    for r in range(n_rows):
        row = []
        for c in range(draw(st.integers(1, 6))):
            text = f"x{r}y{c}"
            texts.append(text)
            span = draw(st.sampled_from(["", " colspan=2", " rowspan=3", " colspan=999", " rowspan=0",
                                         " colspan=400 rowspan=0"]))
            row.append(f"<td{span}>{text}</td>")
        html.append("<tr>" + "".join(row) + "</tr>")
    return "<table><tr><th>a</th><th>b</th></tr>" + "".join(html) + "</table>", texts


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(big_tables(), st.sampled_from([4, 40, 200_000]))
def test_every_cell_text_is_kept_whatever_the_spans(case, max_cells):
    from unittest import mock

    html, texts = case
    with mock.patch("chunkctl.loaders.html.text.MAX_CELLS", max_cells):
        doc = load(html)
    for text in texts:
        assert text in doc.text
    # spans repeat a cell's text at most max(MAX_CELLS, 4 x the cells) times in all
    assert len(re.findall(r"x\d+y\d+", doc.text)) <= max(max_cells, 4 * (len(texts) + 2))


def _traced_render_peak(n_rows: int) -> tuple[int, int]:
    """(traced peak in bytes of rendering a table of `n_rows` rows, one in five with a colspan, from
    its cells; the rows' characters)."""
    import tracemalloc

    from chunkctl.loaders.html.text import TableGrid

    rows = [[f"group {i}"] if i % 5 == 0 else [f"{i}", f"word{i}", "other", "some text"] for i in range(n_rows)]
    tracemalloc.start()
    try:
        grid = TableGrid()
        for i, row in enumerate(rows):
            grid.new_row(False)
            for cell in row:
                grid.add_cell(cell, False, 1, 4 if i % 5 == 0 else 1)
        lines, _, _ = grid.render()
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lines[0] == "| group 0 | group 0 | group 0 | group 0 |" and len(lines) == n_rows + 1
    return peak, sum(len(line) for line in lines)


def test_a_table_with_spans_is_flattened_without_a_list_a_cell():
    """Spans are flattened into a grid of all the rows: it was a list and a string a cell beside
    the rows it came from (the traced peak grew 9.8 bytes a character of these lines), now each
    row is packed into one string as it is made and its source row let go (6.3)."""
    (p1, n1), (p2, n2) = _traced_render_peak(5_000), _traced_render_peak(20_000)
    growth = (p2 - p1) / (n2 - n1)
    assert growth < 8, growth
