"""Output: JSONL files written atomically (`writer`), one file per document, the errors file, and record flavours (`flavours`); no chunking."""
