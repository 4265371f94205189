"""Pure text analysis used by loaders, chunking and enrich: line starts, grapheme/word/clause boundaries, sentences, embeddings; no I/O."""
