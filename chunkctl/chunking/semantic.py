"""Strategy `semantic`: cut where neighbouring sentences' embeddings drift apart, never past the budget."""

from __future__ import annotations

from chunkctl.chunking.packer import SENTENCE_LEVELS, Packer
from chunkctl.chunking.recursive import section_atoms
from chunkctl.chunking.registry import Chunked, register
from chunkctl.chunking.sections import iter_sections
from chunkctl.model import ChunkList
from chunkctl.text.segment import Level


def breakpoints(texts: list[str], percentile: float, window: int = 2) -> list[bool]:
    """Which gaps between consecutive sentences are topic breaks.

    Each sentence is embedded once; at each gap the mean embedding of the `window`
    sentences before it is compared with the mean of the `window` sentences after it
    (TextTiling's block comparison, Hearst 1997, with embeddings instead of word
    counts). A gap is a break when that cosine distance is above the `percentile`-th
    percentile of all gaps of the document (the breakpoint rule of Greg Kamradt's
    semantic chunking and LangChain's SemanticChunker).

    Returns:
        len(texts) - 1 booleans (empty for fewer than two sentences).
    """
    import numpy as np

    from chunkctl.text.embeddings import embed

    n = len(texts)
    if n < 2:
        return []
    vecs = embed(texts).astype(np.float64)
    cum = np.vstack([np.zeros((1, vecs.shape[1])), np.cumsum(vecs, axis=0)])
    idx = np.arange(1, n)                      # gap after sentence idx-1
    left = cum[idx] - cum[np.maximum(0, idx - window)]
    right = cum[np.minimum(n, idx + window)] - cum[idx]
    norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
    norms[norms == 0] = 1.0
    dist = 1.0 - np.einsum("ij,ij->i", left, right) / norms
    threshold = float(np.percentile(dist, percentile))
    return [bool(d > threshold) for d in dist]


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
    packer = Packer(doc, tokenizer, config, table)
    text = doc.text
    runs = []
    for sec in iter_sections(doc.blocks):
        atoms = section_atoms(packer, sec, split_to=Level.SENTENCE, levels=SENTENCE_LEVELS)
        for a in atoms:
            if a.kind == "text" and a.strength == Level.BLOCK:
                a.strength = Level.PARAGRAPH
        runs.append((sec, atoms))
    texts, where = [], []
    for r, (_sec, atoms) in enumerate(runs):
        for j, a in enumerate(atoms):
            if a.kind in ("text", "mixed"):
                texts.append(text[a.start:a.end])
                where.append((r, j))
    breaks = breakpoints(texts, config.breakpoint_percentile)
    cut_before: set[tuple[int, int]] = {rj for rj, brk in zip(where[1:], breaks) if brk}
    out = ChunkList()
    for r, (sec, atoms) in enumerate(runs):
        piece: list = []
        for j, a in enumerate(atoms):
            if (r, j) in cut_before and piece and any(x.kind != "heading" for x in piece):
                out.extend(packer.pack(piece, sec.path))
                piece = []
            piece.append(a)
        if piece:
            out.extend(packer.pack(piece, sec.path))
    return Chunked(out)

