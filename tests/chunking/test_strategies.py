"""sentence, section, hierarchical, semantic and auto: exact boundaries on hand-made documents."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkctl
from chunkctl.errors import MissingExtraError


def run(text, fmt="md", **kw):
    kw.setdefault("overlap", 0)
    return chunkctl.chunk_text(text, format=fmt, source="doc." + fmt, **kw)


def bodies(recs):
    return [r["text"][len(r["prefix"]):] for r in recs]


S = [f"Sentence number {w} carries a few words." for w in ("one", "two", "three", "four", "five", "six")]


def test_sentence_packs_across_paragraphs_greedily():
    text = f"{S[0]} {S[1]}\n\n{S[2]}\n\n{S[3]} {S[4]} {S[5]}\n"
    recs = run(text, fmt="txt", strategy="sentence", chunk_size=26)   # 8 tokens a sentence: 3 fit
    assert bodies(recs) == [f"{S[0]} {S[1]}\n\n{S[2]}", f"{S[3]} {S[4]} {S[5]}"]


def test_sentence_overlap_repeats_whole_sentences():
    recs = run(" ".join(S), fmt="txt", strategy="sentence", chunk_size=26, overlap=9)
    assert bodies(recs) == [" ".join(S[0:3]), " ".join(S[2:5]), " ".join(S[4:6])]


def test_section_one_chunk_per_section_and_split_when_too_big():
    long_body = " ".join(S * 3)
    text = f"# A\n\nShort.\n\n# B\n\n{long_body}\n\n# C\n\nAlso short.\n"
    recs = run(text, strategy="section", chunk_size=60)
    heads = [r["headings"] for r in recs]
    assert heads[0] == ["A"] and heads[-1] == ["C"]
    assert all(h == ["B"] for h in heads[1:-1]) and len(heads) > 3
    assert bodies(recs)[0] == "# A\n\nShort." and bodies(recs)[-1] == "# C\n\nAlso short."


def test_hierarchical_children_inside_parents():
    paras = "\n\n".join(f"Paragraph {i}. " + " ".join(S) for i in range(8))
    text = f"# Manual\n\n{paras}\n"
    recs = run(text, strategy="hierarchical", chunk_size=64, parent_chunk_size=200, overlap=8)
    parents = [r for r in recs if r["parent_id"] is None]
    children = [r for r in recs if r["parent_id"] is not None]
    assert len(parents) >= 2 and len(children) > len(parents)
    by_id = {r["id"]: r for r in recs}
    for c in children:
        p = by_id[c["parent_id"]]
        assert p["start"] <= c["start"] and c["end"] <= p["end"]
        assert c["meta"]["chunk_size"] == 64 and c["n_tokens"] <= 64
        assert c["meta"]["parent_chunk_size"] == 200
    for p in parents:
        assert p["meta"]["chunk_size"] == 200 and p["n_tokens"] <= 200
    # depth-first order: each parent is followed by its children
    order = [r["parent_id"] is None for r in recs]
    assert order[0] is True and order[1] is False


def test_hierarchical_reads_only_the_blocks_of_each_parent(monkeypatch):
    """A parent per section made every parent read every block of the document (quadratic:
    minutes for 200 KB of one-word sections); now each reads its own, the same chunks."""
    from chunkctl.chunking import hierarchical
    from chunkctl.model import Block, BlockKind, BlockList

    text = "".join(f"## Part {i}\n\nword{i} and more\n\n" for i in range(1200))
    made = []
    real = BlockList._make
    monkeypatch.setattr(BlockList, "_make", lambda self, i: made.append(i) or real(self, i))
    recs = run(text, strategy="hierarchical", chunk_size=16, parent_chunk_size=32)
    n_blocks = 2400
    assert len(made) < 20 * n_blocks  # a full scan per parent read 1200 x 2400 blocks
    monkeypatch.setattr(hierarchical, "span_index", lambda blocks: None)  # the full scan
    assert run(text, strategy="hierarchical", chunk_size=16, parent_chunk_size=32) == recs
    assert [r["parent_id"] is None for r in recs[:4]] == [True, False, True, False]
    blocks = [Block(BlockKind.PARAGRAPH, 10 * i, 10 * i + 8) for i in range(50)]
    index = hierarchical.span_index(blocks)
    for a, b in [(0, 5), (3, 27), (8, 10), (95, 205), (490, 600), (0, 0)]:
        assert hierarchical.clip_blocks(blocks, a, b, "x" * 500, index) == \
            hierarchical.clip_blocks(blocks, a, b, "x" * 500)
    assert hierarchical.span_index([blocks[1], blocks[0]]) is None


def test_hierarchical_finds_grapheme_boundaries_once_per_text(monkeypatch):
    """Found by a break run: a text of emoji family sequences (no grapheme boundary is sure at
    once) took quadratic time with `hierarchical` (1,600 emoji: 16 s; `recursive` 0.7 s): every
    parent chunk had a packer of its own, which segmented the whole text again."""
    from chunkctl.text import segment

    text = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466" * 400
    made = []
    init = segment.Graphemes.__init__
    monkeypatch.setattr(segment.Graphemes, "__init__", lambda self, t: made.append(1) or init(self, t))
    recs = run(text, fmt="txt", strategy="hierarchical", chunk_size=16, parent_chunk_size=64)
    parents = sum(r["parent_id"] is None for r in recs)
    assert parents > 20
    assert len(made) <= 2  # one a level, not one a parent
    assert "".join(r["text"] for r in recs if r["parent_id"] is None) == text


def test_hierarchical_three_levels():
    text = "\n\n".join(" ".join(S) for _ in range(12)) + "\n"
    recs = run(text, fmt="txt", strategy="hierarchical", levels=(400, 100, 30), overlap=0)
    by_id = {r["id"]: r for r in recs}

    def depth(r):
        d = 0
        while r["parent_id"]:
            r = by_id[r["parent_id"]]
            d += 1
        return d

    depths = {depth(r) for r in recs}
    assert depths == {0, 1, 2}
    assert {r["meta"]["chunk_size"] for r in recs if depth(r) == 2} == {30}


def _table_doc(rows: int, words: str = "value number {i} with some words") -> tuple[str, str]:
    header = "| Name | Value | Note |\n| --- | --- | --- |\n"
    body = "".join(f"| item {i} | {words.format(i=i)} | note {i} |\n" for i in range(rows))
    return "# Data\n\n" + header + body + "\nAfter the table, a paragraph of text.\n", header


def test_hierarchical_children_of_a_parent_that_starts_inside_a_table_repeat_its_header():
    """A parent chunk that starts inside a table carries the header in its prefix; its children
    did not: the last parent's child ("| item 58 |", "| item 59 |": 36 tokens) was packed as text,
    and the first child of the second parent dropped the header to take a seventh row. Each child
    now repeats it, as the later row groups of a split table do (50 tokens: it fits 128)."""
    text, header = _table_doc(60)
    recs = run(text, strategy="hierarchical", chunk_size=128, parent_chunk_size=512)
    assert all(r["n_tokens"] <= (128 if r["parent_id"] else 512) for r in recs)
    rows = [r for r in recs if r["kind"] == "table" and r["start"] > text.index(header)]
    assert len(rows) == 12 and all(r["prefix"] == "Data\n\n" + header for r in rows)
    last_parent, last_child = rows[-2:]
    assert last_child["parent_id"] == last_parent["id"]
    assert (last_child["start"], last_child["end"]) == (text.index("| item 58"), text.index("\n\nAfter"))
    assert last_child["n_tokens"] == 50
    # the children of the second parent start where the first parent's children do: six rows each
    starts = [text[r["start"]:r["start"] + 10] for r in rows if r["parent_id"] == rows[4]["id"]]
    assert starts == ["| item 29 ", "| item 35 ", "| item 41 ", "| item 47 ", "| item 53 "]


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(4, 60), words=st.sampled_from(["{i}", "value number {i} with some words",
                                                       "a longer cell {i} " + " ".join(["with many words"] * 6)]),
       size=st.integers(24, 160), ratio=st.integers(2, 5), fmt=st.sampled_from(["md", "html"]),
       levels=st.booleans())
def test_every_row_chunk_repeats_the_header_when_it_and_the_first_row_fit(rows, words, size, ratio, fmt, levels):
    """Wherever a table is cut, each chunk that holds its rows but not its header lines has the header
    in its prefix, unless the header with the chunk's first row is over the budget (the ruling's order
    of dropping: breadcrumb first, then the header), at every level of `hierarchical`."""
    from chunkctl.tokenizers import get_tokenizer

    text, header = _table_doc(rows, words)
    whole_rows = {line for line in text.splitlines() if line.startswith("| item")}
    if fmt == "html":
        cells = [line.strip("|").split(" | ") for line in text.splitlines() if line.startswith("| item")]
        text = ("<h1>Data</h1><table><tr><th>Name</th><th>Value</th><th>Note</th></tr>"
                + "".join("<tr>" + "".join(f"<td>{c.strip()}</td>" for c in row) + "</tr>" for row in cells)
                + "</table><p>After the table, a paragraph of text.</p>")
    kw = {"levels": (size * ratio * ratio, size * ratio, size)} if levels else {"parent_chunk_size": size * ratio}
    recs = run(text, fmt=fmt, strategy="hierarchical", chunk_size=size, **kw)
    doc = recs[0]["text"][len(recs[0]["prefix"]):]  # (the rendered text of an HTML page starts it)
    tok = get_tokenizer()
    for r in recs:
        body = r["text"][len(r["prefix"]):]
        if r["kind"] != "table" or "| Name |" in body or not body.startswith("| "):
            continue
        first_row = body.split("\n")[0]
        if first_row in whole_rows and "| Name |" not in r["prefix"]:
            assert tok.count(header + first_row) > r["meta"]["chunk_size"], (r["prefix"], body[:80])
    assert doc


def _sentences(word: str, n: int) -> str:
    return " ".join(f"{word} sentence number {i} explains a detail of the topic." for i in range(n))


def test_a_hierarchical_parent_of_merged_sections_does_not_cross_into_a_shallower_heading():
    """helper-115 (PowerShell's about_Comparison_Operators): a parent merged the two "###"
    sections of "## Replacement operator" with "## Containment operators", so its breadcrumb was
    the document's title alone. A merged group now stops at a heading shallower than its first."""
    text = (f"# Doc\n\n## Replacement operator\n\n{_sentences('Replace', 9)}\n\n"
            f"### Substituting in a collection\n\n{_sentences('Collection', 3)}\n\n"
            f"### Replacement with a scriptblock\n\n{_sentences('Scriptblock', 3)}\n\n"
            f"## Containment operators\n\n{_sentences('Contain', 1)}\n\n"
            f"### -contains and -notcontains\n\n{_sentences('Contains', 9)}\n")
    recs = run(text, strategy="hierarchical", chunk_size=64, parent_chunk_size=160)
    parents = [(r["headings"], bodies([r])[0].split("\n", 1)[0]) for r in recs if r["parent_id"] is None]
    assert parents == [(["Doc", "Replacement operator"], "# Doc"),
                       (["Doc", "Replacement operator"], "### Substituting in a collection"),
                       (["Doc", "Containment operators"], "## Containment operators")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(2, 4), st.integers(0, 6)), min_size=2, max_size=14), st.integers(48, 200))
def test_merged_hierarchical_parents_open_at_their_shallowest_heading(sections, parent):
    text = "# Doc\n\n" + "".join(f"{'#' * level} Part {i}\n\n{_sentences(f'Part{i}', n) or 'Short.'}\n\n"
                                  for i, (level, n) in enumerate(sections))
    recs = run(text, strategy="hierarchical", chunk_size=max(16, parent // 4), parent_chunk_size=parent)
    for body in bodies([r for r in recs if r["parent_id"] is None]):
        levels = [len(line) - len(line.lstrip("#")) for line in body.split("\n") if line.startswith("#")]
        if levels and body.startswith("#"):
            assert min(levels) >= levels[0] or levels[0] == 1, body[:80]


SEM_TEXT = ("Volcanoes form where magma reaches the surface. Lava flows cool into basalt. "
            "Eruptions can blanket towns in ash. Magma chambers refill over centuries. "
            "Sourdough bread needs a starter of flour and water. The dough rises overnight. "
            "Bakers fold the dough to build gluten. A hot oven gives the crust its colour.\n")


def test_semantic_cuts_at_the_topic_shift_and_respects_the_budget():
    pytest.importorskip("wordllama")
    recs = run(SEM_TEXT, fmt="txt", strategy="semantic", chunk_size=200, breakpoint_percentile=90)
    assert all(r["n_tokens"] <= 200 for r in recs)
    assert bodies(recs)[0].endswith("Magma chambers refill over centuries.")
    assert bodies(recs)[1].startswith("Sourdough bread")
    small = run(SEM_TEXT, fmt="txt", strategy="semantic", chunk_size=20)
    assert all(r["n_tokens"] <= 20 for r in small)


def test_semantic_without_the_extra_is_a_one_line_error(monkeypatch):
    import chunkctl.text.embeddings as emb

    def missing():
        raise MissingExtraError("semantic chunking", "semantic", "wordllama")

    monkeypatch.setattr(emb, "_model", missing)
    with pytest.raises(MissingExtraError, match=r"pip install 'chunkctl\[semantic\]'"):
        run(SEM_TEXT, fmt="txt", strategy="semantic")


@pytest.mark.parametrize("text,fmt,ctype", [
    ("1. Definitions\n\nThe Licensor shall grant.\n\n2. Grant\n\nHereby granted.\n\n3. Term\n\nThe term "
     "shall be one year.\n", "txt", "legal"),
    ("# API\n\n```python\ndef f(x):\n    return x\n```\n\nCall `f`.\n\n```python\nf(1)\n```\n\n```bash\npip "
     "install f\n```\n", "md", "code"),
    (("It was a cold morning when the travellers left the inn, and nobody spoke for a long time. " * 4 + "\n\n") * 6,
     "txt", "narrative"),
    ("2024-01-01 INFO start\n2024-01-01 WARN disk\n", "txt", "other"),
])
def test_auto_detects_content_type(text, fmt, ctype):
    recs = run(text, fmt=fmt, strategy="auto", chunk_size=128)
    assert {r["meta"]["content_type"] for r in recs} == {ctype}
    assert all(r["meta"]["strategy"] == "auto" for r in recs)


def test_auto_content_type_override_and_fixed_fallback_overlap():
    text = "word " * 1200
    recs = run(text, fmt="txt", strategy="auto", chunk_size=512, content_type="other", overlap="15%")
    assert all(r["meta"]["overlap"] == 100 and r["meta"]["chunk_size"] == 500 for r in recs)
    assert len(recs) > 1


@pytest.mark.parametrize("strategy", ["auto", "recursive", "sentence", "fixed", "section"])
def test_an_unknown_content_type_is_refused_with_every_strategy(strategy):
    # helper-101: `--content-type bogus` was refused (exit 2) with `auto` and passed without a word
    # with any other strategy
    from chunkctl.errors import ConfigError

    with pytest.raises(ConfigError, match="--content-type 'bogus' is not one of: legal, narrative, code, other"):
        run("Some text here.", fmt="txt", strategy=strategy, content_type="bogus")
    assert run("Some text here.", fmt="txt", strategy=strategy, content_type="legal")


def test_a_table_header_over_the_budget_is_counted_once_not_once_a_row_group(monkeypatch):
    """helper-56: the header of a table split by rows was counted again for each row group, each
    of its four prefix options: a 450 KB table with one long header cell took 71 s at 64 tokens."""
    from chunkctl.tokenizers import Tokenizer

    header = " ".join(f"word{i}" for i in range(400))  # some 1,200 tokens: over the budget
    text = f"| {header} | b |\n|---|---|\n" + "".join(f"| r{i} | v{i} |\n" for i in range(400))
    seen: list[int] = []
    count = Tokenizer.count

    def spy(self, s: str) -> int:
        if header in s:
            seen.append(len(s))
        return count(self, s)

    monkeypatch.setattr(Tokenizer, "count", spy)
    recs = chunkctl.chunk_text(text, "md", chunk_size=64, overlap=0)
    assert len(recs) > 20 and all(r["n_tokens"] <= 64 for r in recs)
    assert len(seen) <= 4  # each prefix with the header once (the breadcrumb's own count aside)


@settings(max_examples=40, deadline=None)
@given(eol=st.sampled_from(["\n", "\r\n", "\r"]), fmt=st.sampled_from(["md", "txt"]),
       rows=st.integers(12, 40), heading=st.booleans(),
       strategy=st.sampled_from(["recursive", "sentence", "section", "hierarchical", "semantic"]))
def test_a_repeated_table_header_ends_with_the_line_break_that_follows_it_in_the_source(
        eol, fmt, rows, heading, strategy):
    """helper-83: in a CRLF file, the header repeated before a table's later row groups was
    `| a |\\r\\n|---|` and then "\\n": the prefix mixed line ends. It is now the source's header
    lines with the line break after them, whatever the file's line ends."""
    header = eol.join(["| Name | Value |", "|---|---|"])
    body = eol.join(f"| row {i} holds a few words | value {i} |" for i in range(rows))
    text = ("# Title" + eol + eol if heading else "") + header + eol + body + eol + eol + "After." + eol
    recs = chunkctl.chunk_text(text, format=fmt, chunk_size=48, overlap=0, strategy=strategy)
    if fmt == "txt":  # (a pipe table in text has its first line for header: `pipetables.as_pipe_table`)
        header = header.split(eol)[0]
    repeated = [r for r in recs if header in r["prefix"]]
    assert repeated, "the table is split and its header repeated"
    for r in repeated:
        assert r["prefix"].endswith(header + eol), repr(r["prefix"])
        assert r["text"] == r["prefix"] + text[r["start"]:r["end"]]
