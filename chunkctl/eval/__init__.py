"""Retrieval evaluation of chunkings: questions with reference excerpts, a grid of configurations, retrieval (BM25 or embeddings), character-level scores (Chroma method)."""
