"""Strategy `semantic`: cut where neighbouring sentences' embeddings drift apart, never past the budget."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING

from chunkctl.chunking.packer import SENTENCE_LEVELS, Atom, Packer
from chunkctl.chunking.recursive import iter_section_atoms
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import Section, iter_sections
from chunkctl.model import ChunkList
from chunkctl.text.segment import Level

if TYPE_CHECKING:
    import numpy as np

# Sentences embedded at a time (a sentence's vector does not depend on the others embedded
# with it: `chunkctl.text.embeddings.embed`).
EMBED_BLOCK = 1024
# Atoms (about 0.8 KB each with their spans and blocks) kept from the embedding pass
# for the packing pass; a document with more has them made again (a second pass of
# sentence splitting) rather than held: memory stays flat, time grows by that pass.
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
    length. The distances are the same floats as from one pass over all sentences:
    the prefix sum is sequential, and a sentence's vector does not depend on its batch.

    Returns:
        float64 array of (number of sentences - 1) distances in [0, 2] (empty for
        fewer than two sentences).
    """
    import numpy as np

    from chunkctl.text.embeddings import embed

    parts = []
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
            parts.append(1.0 - np.einsum("ij,ij->i", left, right) / norms)
            done = last + 1
        if not batch:
            break
        keep = max(0, done - window)           # the next gaps read cum from done - window on
        tail, lo = cum[keep - lo:].copy(), keep
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.float64)


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

    kept: list[tuple[Section, list[Atom]]] | None = []   # pass 1's atoms, while there are few
    count = 0

    def atoms_of(sec: Section) -> Iterator[Atom]:
        return iter_section_atoms(packer, sec, split_to=Level.SENTENCE, levels=SENTENCE_LEVELS)

    def sentences() -> Iterator[str]:
        nonlocal kept, count
        for sec in iter_sections(doc.blocks):
            atoms: list[Atom] = []
            for a in atoms_of(sec):
                if kept is not None:
                    atoms.append(a)
                    count += 1
                    if count > KEEP_ATOMS:
                        kept, atoms = None, []
                if a.kind in _EMBEDDED:
                    yield text[a.start:a.end]
            if kept is not None:
                kept.append((sec, atoms))

    def runs() -> Iterator[tuple[Section, Iterator[Atom]]]:
        if kept is not None:
            for sec, atoms in kept:
                yield sec, iter(atoms)
            return
        for sec in iter_sections(doc.blocks):
            yield sec, atoms_of(sec)

    # Pass 1 embeds the sentences as they come; pass 2 packs the atoms between the
    # breaks: pass 1's when there were at most KEEP_ATOMS, else made again, so that no
    # pass holds a large document's atoms at once.
    dist = gap_distances(sentences())
    threshold = float(np.percentile(dist, config.breakpoint_percentile)) if len(dist) else 0.0
    seen = 0                                   # sentences met so far (gap k-1 sits before sentence k)

    def cut_here(a: Atom) -> bool:
        nonlocal seen
        if a.kind not in _EMBEDDED:
            return False
        seen += 1
        return seen > 1 and bool(dist[seen - 2] > threshold)

    out = ChunkList()
    for sec, atoms in runs():
        stream = _Pieces(atoms, cut_here)
        while stream.more():
            out.extend(packer.pack(stream.piece(), sec.path))
    return Chunked(out)


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
