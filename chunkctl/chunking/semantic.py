"""Strategy `semantic`: cut where neighbouring sentences' embeddings drift apart, never past the budget."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING

from chunkctl.chunking.packer import SENTENCE_LEVELS, Atom, Packer
from chunkctl.chunking.recursive import iter_section_atoms
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import Section, block_columns, iter_sections
from chunkctl.model import Block, ChunkList, kind_code
from chunkctl.text.segment import Level

if TYPE_CHECKING:
    import numpy as np

# Sentences embedded at a time (a sentence's vector does not depend on the others embedded
# with it: `chunkctl.text.embeddings.embed`).
EMBED_BLOCK = 1024
# Atoms kept from the embedding pass for the packing pass (as `_KeptAtoms`, about 30 bytes
# each); a document with more has them made again (a second pass of sentence splitting)
# rather than held: memory stays flat, time grows by that pass (keeping 8,192 made a 1 MB
# document 28% slower).
KEEP_ATOMS = 50_000
_EMBEDDED = ("text", "mixed")


def gap_distances(texts: Iterable[str], window: int = 2, block: int = EMBED_BLOCK) -> np.ndarray:
    """Cosine distance at each gap between the summed embeddings of the `window` sentences before and after it.

    TextTiling's block comparison (Hearst 1997) with sentence embeddings instead of
    word counts; `chunk_semantic` cuts where the distance is above a percentile of all
    gaps (the breakpoint rule of Greg Kamradt's semantic chunking and LangChain's
    SemanticChunker).

    The sentences are read and embedded `block` at a time and the window sums come
    from a running prefix sum carried across blocks, so memory is one block of
    vectors (about 1 KB a sentence) plus 8 bytes a gap, whatever the document's
    length (the gaps grow in one buffer, never joined from parts: that held them
    twice). The distances are the same floats as from one pass over all sentences:
    the prefix sum is sequential, and a sentence's vector does not depend on its batch.

    Returns:
        float64 array of (number of sentences - 1) distances in [0, 2] (empty for
        fewer than two sentences).
    """
    import numpy as np

    from chunkctl.text.embeddings import embed

    gaps = array("d")
    it = iter(texts)
    # cum[k] = sum of the first k vectors; `tail` holds cum[lo:hi] (hi = sentences embedded).
    tail: np.ndarray | None = None
    lo = hi = 0
    done = 1                                   # next gap to measure (gap g sits after sentence g-1)
    while True:
        batch = list(islice(it, block))
        if batch:
            vecs = embed(batch).astype(np.float64)
            if tail is None:                   # cum[0] is the zero row
                cum = np.vstack([np.zeros((1, vecs.shape[1])), np.cumsum(vecs, axis=0)])
            else:
                cum = np.vstack([tail, np.cumsum(np.vstack([tail[-1:], vecs]), axis=0)[1:]])
            hi += len(batch)
            last = hi - window                 # gaps whose right window is all embedded
        elif tail is None:
            break                              # no sentence at all
        else:
            cum, last = tail, hi - 1           # the end: right windows stop at the last sentence
        if last >= done:
            idx = np.arange(done, last + 1)
            left = cum[idx - lo] - cum[np.maximum(0, idx - window) - lo]
            right = cum[np.minimum(hi, idx + window) - lo] - cum[idx - lo]
            norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
            norms[norms == 0] = 1.0
            gaps.frombytes((1.0 - np.einsum("ij,ij->i", left, right) / norms).tobytes())
            done = last + 1
        if not batch:
            break
        keep = max(0, done - window)           # the next gaps read cum from done - window on
        tail, lo = cum[keep - lo:].copy(), keep
    return np.frombuffer(gaps, dtype=np.float64) if gaps else np.empty(0, dtype=np.float64)


def _check(config) -> None:
    from chunkctl.text.embeddings import check

    check()


@register("semantic", "embedding-based: cut where neighbouring sentences drift apart (WordLlama, optional "
                      "extra chunkctl[semantic]), never past the budget", check=_check)
def chunk_semantic(doc, tokenizer, config, table) -> Chunked:
    """Semantic chunking with a hard token cap.

    Sentences (per heading section; tables and code atomic) are embedded with
    WordLlama; a gap whose neighbour distance is above the `--breakpoint-percentile`
    threshold (document-wide, default 95th) always ends a chunk, like a heading.
    Between breaks the shared packer fills chunks up to the budget (paragraph breaks,
    then sentence ends), so a long topic is split and nothing ever exceeds
    `--chunk-size`.

    Raises:
        MissingExtraError: wordllama is not installed (`pip install 'chunkctl[semantic]'`).
    """
    import numpy as np

    packer = Packer(doc, tokenizer, config, table)
    text = doc.text

    kept: _KeptAtoms | None = _KeptAtoms()   # pass 1's atoms, while there are few

    def atoms_of(sec: Section) -> Iterator[Atom]:
        return iter_section_atoms(packer, sec, split_to=Level.SENTENCE, levels=SENTENCE_LEVELS)

    def sentences() -> Iterator[str]:
        nonlocal kept
        for sec in iter_sections(doc.blocks):
            if kept is not None:
                kept.start_section(sec.blocks)
            for a in atoms_of(sec):
                if kept is not None:
                    kept.add(a)
                    if len(kept) > KEEP_ATOMS:
                        kept = None
                if a.kind in _EMBEDDED:
                    yield text[a.start:a.end]

    def runs() -> Iterator[tuple[Section, Iterator[Atom]]]:
        for k, sec in enumerate(iter_sections(doc.blocks)):
            yield sec, kept.atoms(k, sec.blocks) if kept is not None else atoms_of(sec)

    # Pass 1 embeds the sentences as they come; pass 2 packs the atoms between the
    # breaks: pass 1's when there were at most KEEP_ATOMS, else made again, so that no
    # pass holds a large document's atoms at once.
    dist = gap_distances(sentences())
    threshold = float(np.percentile(dist, config.breakpoint_percentile)) if len(dist) else 0.0
    breaks = _Breaks(dist, threshold)
    del dist
    seen = 0                                   # sentences met so far (gap k-1 sits before sentence k)

    def cut_here(a: Atom) -> bool:
        nonlocal seen
        if a.kind not in _EMBEDDED:
            return False
        seen += 1
        # (a piece of a sentence over the budget, cut at clauses, words or graphemes, is embedded
        # like a sentence, but the gap before it is inside a sentence: never a topic break; a list
        # marker "-" before a base64 word was a chunk of its own)
        return seen > 1 and a.strength >= Level.SENTENCE and breaks[seen - 2]

    out = ChunkList()
    for sec, atoms in runs():
        stream = _Pieces(atoms, cut_here)
        while stream.more():
            out.extend(packer.iter_pack(stream.piece(), sec.path))
    return Chunked(out)


class _Breaks:
    """Which gaps are topic breaks (distance above `threshold`), a bit each: the packing pass
    reads nothing else of the distances, which took 8 bytes a gap beside its output."""

    def __init__(self, dist: np.ndarray, threshold: float) -> None:
        import numpy as np

        self._bits = np.packbits(dist > threshold, bitorder="little").tobytes()
        self._n = len(dist)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, k: int) -> bool:
        if not 0 <= k < self._n:
            raise IndexError(k)
        return bool(self._bits[k >> 3] >> (k & 7) & 1)


class _KeptAtoms:
    """Pass 1's atoms, section by section, as columns: about 30 bytes an atom, where the
    atoms and the blocks a compact `BlockList` made for them took some 0.8 KB (50,000 of
    them: 40 MB of a 20 MB file's peak). An atom's block is kept as its index in its
    section's blocks (found by its offsets and kind) and made again in pass 2, once for
    all the atoms of a block, as pass 1 made it."""

    _NO_BLOCK = 0xFFFFFFFF

    def __init__(self) -> None:
        self.starts, self.ends = array("q"), array("q")
        self.strengths, self.levels = array("b"), array("b")
        self.kinds, self.flags = array("B"), array("B")  # (flags: 1 barrier, 2 oversize)
        self.blocks = array("I")
        self.kind_names: list[str] = []
        self.sections = array("I", [0])  # section k's atoms: sections[k] to sections[k + 1]
        self._cols: tuple[Sequence[int], Sequence[int], Sequence[int], int] = ((), (), (), 0)
        self._block: Block | None = None
        self._at = -1

    def __len__(self) -> int:
        return len(self.starts)

    def start_section(self, blocks: Sequence[Block]) -> None:
        """Start the next section, of `blocks`."""
        self.sections.append(len(self.starts))
        self._cols = block_columns(blocks)
        self._block, self._at = None, -1

    def add(self, a: Atom) -> None:
        """Keep `a`, the next atom of the open section."""
        block = a.block
        if block is None:
            j = self._NO_BLOCK
        elif block is self._block:
            j = self._at
        else:
            codes, starts, ends, lo = self._cols
            j, code = self._at + 1, kind_code(block.kind)
            while starts[lo + j] != block.start or ends[lo + j] != block.end or codes[lo + j] & 15 != code:
                j += 1  # (IndexError if it is not there: never expected)
            self._block, self._at = block, j
        if a.kind not in self.kind_names:
            self.kind_names.append(a.kind)
        self.starts.append(a.start)
        self.ends.append(a.end)
        self.strengths.append(a.strength)
        self.levels.append(a.level)
        self.kinds.append(self.kind_names.index(a.kind))
        self.flags.append(a.barrier | a.oversize << 1)
        self.blocks.append(j)
        self.sections[-1] = len(self.starts)

    def atoms(self, k: int, blocks: Sequence[Block]) -> Iterator[Atom]:
        """The atoms of section `k` (whose blocks are `blocks`), made again."""
        made, made_at = None, -1
        for i in range(self.sections[k], self.sections[k + 1]):
            j = self.blocks[i]
            if j == self._NO_BLOCK:
                block = None
            else:
                if j != made_at:
                    made, made_at = blocks[j], j
                block = made
            flags = self.flags[i]
            yield Atom(self.starts[i], self.ends[i], self.strengths[i], self.kind_names[self.kinds[i]],
                       self.levels[i], bool(flags & 1), bool(flags & 2), block)  # (levels as ints: they compare equal)


class _Pieces:
    """A section's atoms read as pieces that end before a topic break (streamed to the packer).

    A break ends a piece only once the piece holds more than headings, as a heading
    section would. Text atoms of `Level.BLOCK` strength are packed as paragraph
    breaks (a block boundary ranks below a topic break here).
    """

    def __init__(self, atoms: Iterator[Atom], cut_here: Callable[[Atom], bool]) -> None:
        self._atoms = atoms
        self._cut_here = cut_here
        self._next: tuple[Atom, bool] | None = self._read()

    def _read(self) -> tuple[Atom, bool] | None:
        a = next(self._atoms, None)
        if a is None:
            return None
        if a.kind == "text" and a.strength == Level.BLOCK:
            a.strength = Level.PARAGRAPH
        return a, self._cut_here(a)

    def more(self) -> bool:
        """True while atoms are left."""
        return self._next is not None

    def piece(self) -> Iterator[Atom]:
        """The atoms up to the next break that ends a piece (the first atom always)."""
        body = False
        first = True
        while self._next is not None:
            a, cut = self._next
            if cut and body and not first:
                return
            first = False
            body = body or a.kind != "heading"
            yield a
            self._next = self._read()
