"""Output: JSONL files written atomically (`writer`), one file per document, the errors file, Parquet files
(`parquet`), record flavours with flat metadata (`flavours`); no chunking."""
