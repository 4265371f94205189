"""`Packer.whole_section`: a section that fits one chunk is packed without atoms, with `pack`'s result.

The shortcut is taken by `recursive`, `auto`, `llm` and `section` (unmerged sections);
every section it answers must get from it exactly the chunk `pack` makes of the section's
atoms: span, prefix (heading lines that open the chunk left out of its breadcrumb), path,
kind, exact token count. Documents are generated with headings, paragraphs, lists, code,
tables, math and data-URI spans (skipped spans) at budgets where some sections fit and
others do not, in every format that has sections.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkctl.chunking.packer import Packer
from chunkctl.chunking.recursive import iter_section_atoms
from chunkctl.chunking.sections import iter_sections
from chunkctl.config import ChunkConfig
from chunkctl.loaders import load_bytes
from chunkctl.tokenizers import get_tokenizer

TOK = get_tokenizer()

WORDS = ["alpha", "beta", "Gamma.", "delta,", "épée", "数据", "x", "tables", "code;", "end.", "Ünïcode", "9.5"]
words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=40).map(" ".join)
MD_BLOCKS = st.one_of(
    words.map(lambda w: f"{w}\n\n"),
    st.tuples(st.integers(1, 4), words).map(lambda t: f"{'#' * t[0]} {t[1][:40]}\n\n"),
    st.lists(words, min_size=1, max_size=4).map(lambda items: "".join(f"- {i}\n" for i in items) + "\n"),
    words.map(lambda w: f"```python\ndef f():\n    return '{w}'\n```\n\n"),
    st.integers(1, 12).map(lambda n: "| a | b |\n| --- | --- |\n" + "".join(f"| {i} | row {i} |\n" for i in range(n))
                           + "\n"),
    words.map(lambda w: f"$$\n{w}\n$$\n\n"),
    st.just("![pic](data:image/png;base64," + "QUJD" * 40 + ")\n\n"),
)
TXT_BLOCKS = st.one_of(
    words.map(lambda w: f"{w}\n\n"),
    st.tuples(st.integers(1, 9), words).map(lambda t: f"{t[0]}. {t[1][:30].upper()}\n\n"),
)
HTML_BLOCKS = st.one_of(
    words.map(lambda w: f"<p>{w}</p>"),
    st.tuples(st.integers(1, 4), words).map(lambda t: f"<h{t[0]}>{t[1][:40]}</h{t[0]}>"),
    st.lists(words, min_size=1, max_size=4).map(lambda items: "<ul>" + "".join(f"<li>{i}</li>" for i in items)
                                                + "</ul>"),
    st.integers(2, 8).map(lambda n: "<table><tr><th>a</th><th>b</th></tr>" + "".join(
        f"<tr><td>{i}</td><td>row {i}</td></tr>" for i in range(n)) + "</table>"),
)


def _compare(text: str, fmt: str, size: int, context: str) -> int:
    """Sections the shortcut answered (each checked against `pack`)."""
    config = ChunkConfig(chunk_size=size, context=context)
    doc = load_bytes(text.encode(), "doc." + fmt, fmt, config)
    if not doc.blocks:
        return 0
    packer = Packer(doc, TOK, config, TOK.table(doc.text))
    answered = 0
    for sec in iter_sections(doc.blocks):
        one = packer.whole_section(sec.blocks, sec.path)
        if one is None:
            continue
        answered += 1
        assert packer.pack(iter_section_atoms(packer, sec), sec.path) == [one], (sec.path, one)
    return answered


SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(blocks=st.lists(MD_BLOCKS, min_size=1, max_size=14), size=st.integers(12, 160),
       context=st.sampled_from(["headings", "title+headings", "none"]))
def test_markdown_sections_get_packs_chunk(blocks, size, context):
    _compare("".join(blocks), "md", size, context)


@SETTINGS
@given(blocks=st.lists(TXT_BLOCKS, min_size=1, max_size=14), size=st.integers(12, 160))
def test_text_sections_get_packs_chunk(blocks, size):
    _compare("".join(blocks), "txt", size, "headings")


@SETTINGS
@given(blocks=st.lists(HTML_BLOCKS, min_size=1, max_size=10), size=st.integers(12, 160))
def test_html_sections_get_packs_chunk(blocks, size):
    _compare("<html><body>" + "".join(blocks) + "</body></html>", "html", size, "title+headings")


def test_the_shortcut_answers_sections_that_fit_and_leaves_the_others():
    doc = ("# Guide\n\n## Install\n\nRun the installer. It takes a minute.\n\n"
           "## Configure\n\n" + "Set the option to a value that suits the site. " * 40 + "\n\n"
           "## Tables\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n")
    config = ChunkConfig(chunk_size=64)
    d = load_bytes(doc.encode(), "doc.md", "md", config)
    packer = Packer(d, TOK, config, TOK.table(d.text))
    got = [packer.whole_section(sec.blocks, sec.path) for sec in iter_sections(d.blocks)]
    assert got[1] is None  # "Configure" is about 400 tokens: packed atom by atom
    first, tables = got[0], got[2]
    assert first is not None and tables is not None
    # heading lines open the chunk: they are not repeated in its breadcrumb
    assert d.text[first.start:first.end] == "# Guide\n\n## Install\n\nRun the installer. It takes a minute."
    assert (first.prefix, first.headings, first.kind) == ("", ("Guide", "Install"), "text")
    assert d.text[tables.start:tables.end].startswith("## Tables\n\n| a | b |")
    assert (tables.prefix, tables.kind) == ("Guide\n\n", "table")
    assert tables.n_tokens == TOK.count(tables.prefix + d.text[tables.start:tables.end])
    assert _compare(doc, "md", 64, "headings") == 2


def test_a_section_with_a_skipped_payload_is_left_to_pack():
    # a data URI's payload is a skipped span no chunk may hold: the section is two runs
    doc = "# Pic\n\nText before.\n\n![pic](data:image/png;base64," + "QUJD" * 20 + ")\n\nText after.\n"
    config = ChunkConfig(chunk_size=512)
    d = load_bytes(doc.encode(), "doc.md", "md", config)
    assert d.meta["skipped_spans"]
    packer = Packer(d, TOK, config, TOK.table(d.text))
    (sec,) = iter_sections(d.blocks)
    assert packer.whole_section(sec.blocks, sec.path) is None
    assert len(packer.pack(iter_section_atoms(packer, sec), sec.path)) == 2


def test_the_packer_gives_a_sections_chunks_as_it_makes_them():
    # `iter_pack` yields each chunk once made: a strategy's `ChunkList` then holds columns, not a
    # list of the section's `Chunk` objects (one-word paragraphs at 16 tokens: 11.5x the file in
    # 0.1.24, 5.2x since). The first chunk comes after a few of the section's atoms, not all.
    config = ChunkConfig(chunk_size=16, overlap=0)
    doc = load_bytes("".join(f"word{i}\n\n" for i in range(5000)).encode(), "doc.txt", "txt", config)
    packer = Packer(doc, TOK, config, TOK.table(doc.text))
    (sec,) = list(iter_sections(doc.blocks))
    taken = []

    def atoms():
        for a in iter_section_atoms(packer, sec):
            taken.append(a)
            yield a

    chunks = packer.iter_pack(atoms(), sec.path)
    first = next(chunks)
    assert (first.start, first.end) == (0, doc.text.index("word5") - 2)  # (5 paragraphs of 2-4 tokens)
    assert len(taken) < 600  # (a pull of 256 atoms and the next: never the section's 5,000)
    rest = list(chunks)
    assert [(c.start, c.end) for c in [first, *rest]] == [(c.start, c.end) for c in packer.pack(
        iter_section_atoms(packer, sec), sec.path)]
