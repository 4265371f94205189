"""Strategy `semantic` in bounded memory (issue 14, point 7): embeddings a block at a time, atoms made again.

Before, every sentence of a document was embedded at once and kept as float64 prefix
sums and window sums (about 10 KB a sentence) beside all of the document's atoms:
2 MB of one-word paragraphs needed 3.4 GB. The distances must be the same floats
whatever the block size, and the records the same whichever pass made the atoms.
"""

from __future__ import annotations

import random
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkctl
from tests.conftest import needs_proc, peak_growth

wordllama = pytest.importorskip("wordllama")

import chunkctl.chunking.semantic as semantic  # noqa: E402
from chunkctl.text.embeddings import embed  # noqa: E402

WORDS = "the cat sat on a mat dog ran far river bank money loan stock market volcano lava bread oven".split()


def one_pass_distances(texts: list[str], window: int) -> np.ndarray:
    """The distances computed over all sentences at once (the code before the blocks)."""
    n = len(texts)
    vecs = embed(texts).astype(np.float64)
    cum = np.vstack([np.zeros((1, vecs.shape[1])), np.cumsum(vecs, axis=0)])
    idx = np.arange(1, n)
    left = cum[idx] - cum[np.maximum(0, idx - window)]
    right = cum[np.minimum(n, idx + window)] - cum[idx]
    norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
    norms[norms == 0] = 1.0
    return 1.0 - np.einsum("ij,ij->i", left, right) / norms


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 300), window=st.integers(1, 4), block=st.sampled_from([64, 128, 192, 1024]),
       seed=st.integers(0, 1000))
def test_block_distances_are_the_one_pass_floats(n, window, block, seed):
    rng = random.Random(seed)
    texts = [" ".join(rng.choices(WORDS, k=rng.randint(0, 12))) for _ in range(n)]
    got = semantic.gap_distances(iter(texts), window, block)
    assert got.dtype == np.float64 and got.shape == (n - 1,)
    assert np.array_equal(got, one_pass_distances(texts, window))


@pytest.mark.parametrize("n", [0, 1])
def test_fewer_than_two_sentences_have_no_gap(n):
    assert semantic.gap_distances(["One sentence."] * n).shape == (0,)


def _document(rng: random.Random) -> str:
    parts = []
    for s in range(12):
        parts.append(f"## Section {s}\n")
        for _ in range(rng.randint(1, 5)):
            parts.append(" ".join(" ".join(rng.choices(WORDS, k=rng.randint(3, 14))).capitalize() + "."
                                  for _ in range(rng.randint(1, 6))) + "\n")
        if s % 4 == 1:
            parts.append("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n")
        if s % 5 == 2:
            parts.append("```\nx = 1\ny = 2\n```\n")
    return "\n".join(parts)


@pytest.mark.parametrize("seed", [1, 2, 3, "tiny sections"])
def test_atoms_made_again_give_the_same_records(seed, monkeypatch):
    text = _document(random.Random(seed)) if seed != "tiny sections" else "".join(
        f"## {WORDS[i % len(WORDS)]} {i}\n\n{WORDS[(3 * i) % len(WORDS)]} and more.\n\n" for i in range(2500))
    kw = dict(format="md", strategy="semantic", chunk_size=48, overlap=8, breakpoint_percentile=80)
    kept = list(chunkctl.chunk_text(text, **kw))
    monkeypatch.setattr(semantic, "KEEP_ATOMS", 5)
    monkeypatch.setattr(semantic, "EMBED_BLOCK", 64)
    made_again = list(chunkctl.chunk_text(text, **kw))
    assert made_again == kept
    assert len(kept) > 12


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 2), max_size=70), st.floats(0, 2))
def test_breaks_are_the_gaps_above_the_threshold(dist, threshold):
    breaks = semantic._Breaks(np.array(dist, dtype=np.float64), threshold)
    assert len(breaks) == len(dist)
    assert [breaks[k] for k in range(len(dist))] == [d > threshold for d in dist]
    with pytest.raises(IndexError):
        breaks[len(dist)]


def test_kept_atoms_are_made_again_as_pass_one_made_them_in_a_few_bytes_each():
    """Pass 1's atoms are kept as columns (`_KeptAtoms`): a heading and a word per section
    (a compact `BlockList`, whose blocks are made afresh at each reading) and prose with a
    table and code give back equal atoms, each block made once for its atoms; some 30 bytes an
    atom, where the atoms and their blocks took about 0.8 KB."""
    from chunkctl.chunking.packer import SENTENCE_LEVELS, Packer
    from chunkctl.chunking.recursive import iter_section_atoms
    from chunkctl.chunking.sections import iter_sections
    from chunkctl.config import ChunkConfig
    from chunkctl.loaders import load_bytes
    from chunkctl.model import BlockList
    from chunkctl.text.segment import Level
    from chunkctl.tokenizers import get_tokenizer

    tiny = "".join(f"## {WORDS[i % len(WORDS)]} {i}\n\n{WORDS[(3 * i) % len(WORDS)]}\n\n" for i in range(5000))
    for text in (tiny, _document(random.Random(4))):
        config = ChunkConfig(chunk_size=48)
        doc = load_bytes(text.encode(), "doc.md", "md", config)
        assert isinstance(doc.blocks, BlockList) and doc.blocks.compact is (text is tiny)
        tok = get_tokenizer(config.tokenizer)
        packer = Packer(doc, tok, config, tok.table(doc.text))
        kept, expected = semantic._KeptAtoms(), []
        for sec in iter_sections(doc.blocks):
            kept.start_section(sec.blocks)
            atoms = list(iter_section_atoms(packer, sec, split_to=Level.SENTENCE, levels=SENTENCE_LEVELS))
            for a in atoms:
                kept.add(a)
            expected.append(atoms)
        for k, sec in enumerate(iter_sections(doc.blocks)):
            got = list(kept.atoms(k, sec.blocks))
            assert got == expected[k]
            assert all(x.block is y.block for x, y in zip(got, got[1:]) if x.block == y.block)
        columns = (kept.starts, kept.ends, kept.strengths, kept.levels, kept.kinds, kept.flags, kept.blocks)
        assert sum(c.itemsize * len(c) for c in columns) <= 30 * len(kept)
        assert len(kept) > 100


def test_topic_breaks_end_chunks_across_embedding_blocks(monkeypatch):
    # 300 sentences on one topic, then 300 on another: the switch lies in the fifth
    # block of 64 and must still end a chunk.
    vol = "Volcanoes erupt lava and ash over the mountain slopes."
    bread = "Bakers knead sourdough bread and bake it in a hot oven."
    text = " ".join([vol] * 300 + [bread] * 300) + "\n"
    monkeypatch.setattr(semantic, "EMBED_BLOCK", 64)
    monkeypatch.setattr(semantic, "KEEP_ATOMS", 10)
    recs = list(chunkctl.chunk_text(text, format="txt", strategy="semantic", chunk_size=4000))
    assert any(text[r["start"]:r["end"]].rstrip().endswith(vol) and
               text[r["end"]:].lstrip().startswith(bread) for r in recs)
    assert all(r["n_tokens"] <= 4000 for r in recs)


@needs_proc
def test_memory_stays_flat_with_the_number_of_sentences():
    """One-word paragraphs, 5,000 then 20,000 (48 KB, 206 KB): all-at-once embedding took about
    10 KB a sentence, 1,205 bytes a character added here, measured untraced in a process of its
    own, records included (on the code before 00c5f94); now one block of vectors and the atoms of
    one pass at most, 8 bytes a character (traced until 0.1.34, 23 s; 5 s now)."""
    small, big = (peak_growth("""
        import chunkctl
        import chunkctl.chunking.semantic as semantic
        semantic.KEEP_ATOMS = 2_000
        WORDS = "the cat sat on a mat dog ran far river bank money loan stock market volcano lava bread oven".split()
        chunkctl.chunk_text("Warm up. The model loads here.\\n", format="txt", strategy="semantic")
        text = "".join(f"{WORDS[i % len(WORDS)]}{i}\\n\\n" for i in range(int(sys.argv[1])))
        """, """
        recs = chunkctl.chunk_text(text, format="txt", strategy="semantic", chunk_size=64)
        result = {"records": len(recs), "over": sum(r["n_tokens"] > 64 for r in recs), "chars": len(text)}
        """, str(n)) for n in (5_000, 20_000))
    assert small["records"] > 400 and big["records"] > 1_900 and small["over"] == big["over"] == 0
    growth = (big["growth"] - small["growth"]) / (big["chars"] - small["chars"])
    assert growth < 60, growth


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 400), min_size=1, max_size=90), st.integers(0, 2**16))
def test_a_sentence_vector_does_not_depend_on_its_batch(lengths, seed):
    # `embed` reorders the texts by length and batches them by padded size: each text's
    # vector must be the one it gets embedded on its own, bit for bit (WordLlama sums a
    # text's tokens in order, and its padding adds exact zeros).
    rng = random.Random(seed)
    texts = [_sentence(rng, n) for n in lengths]
    alone = np.vstack([embed([t]) for t in texts])
    np.testing.assert_array_equal(embed(texts), alone)


def test_a_long_sentence_is_not_padded_against_short_ones():
    # WordLlama pads a batch to its longest text and holds two float32 arrays of 1 KB a
    # token of that shape: 63 short sentences beside one of some 2,500 tokens traced
    # 330 MB when the 64 went in one batch; each batch now holds up to PAD_CHARS padded
    # characters.
    rng = random.Random(8)
    texts = [_sentence(rng, 12) for _ in range(63)] + [_sentence(rng, 2500)]
    embed(texts[:1])  # (the model loaded outside the trace)
    tracemalloc.start()
    try:
        vecs = embed(texts)
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert vecs.shape == (64, 256)
    assert peak < 40 * 2**20, f"{peak / 2**20:.0f} MB"


def test_tokenizer_threads_are_off_unless_the_user_set_them(monkeypatch):
    # Hugging Face tokenizers' thread pool kept 42 MB of per-thread heaps at the peak of
    # 20 MB of prose, for no gain in time; a user's own setting is left as it is.
    from chunkctl.text import embeddings

    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    embeddings._model.cache_clear()
    try:
        embeddings._model()
        assert embeddings.os.environ["TOKENIZERS_PARALLELISM"] == "false"
        monkeypatch.setenv("TOKENIZERS_PARALLELISM", "true")
        embeddings._model.cache_clear()
        embeddings._model()
        assert embeddings.os.environ["TOKENIZERS_PARALLELISM"] == "true"
    finally:
        embeddings._model.cache_clear()
