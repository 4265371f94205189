"""The pipeline: inputs -> load -> process_document (strategy -> enrich -> finalize) -> JSONL bytes, one file at a time.

Modules, in the order data flows:
    inputs     files and folders -> InputFiles (discovery, list files, stdin)
    document   load a file; process_document, the only way a document becomes records
    finalize   chunks -> contract records (ids, pages, metadata)
    run        process_file (what every engine maps) and run (a run's results in order)
    cache      records of unchanged files
    engines/   local worker processes, Dask: map a function they are given, in order
    summary    a run's counts for the closing line
"""

from __future__ import annotations

from chunkctl.pipeline.document import (
    DocumentRecords,
    chunk_records,
    load,
    model_assisted,
    prepare,
    process_document,
    serialize,
)
from chunkctl.pipeline.inputs import (
    Discovery,
    Gathered,
    InputFile,
    InputProblem,
    discover,
    duplicate_sources,
    gather,
    read_list,
    stdin_input,
)
from chunkctl.pipeline.run import (
    DEFAULT_FILE_TIMEOUT,
    ENGINES,
    FileResult,
    RunOptions,
    is_skipped,
    plan,
    process_file,
    run,
)

__all__ = [
    "DEFAULT_FILE_TIMEOUT", "Discovery", "ENGINES", "Gathered", "RunOptions", "chunk_records", "gather", "DocumentRecords", "FileResult", "InputFile", "InputProblem", "discover",
    "duplicate_sources", "is_skipped", "load", "model_assisted", "plan", "prepare", "process_document", "process_file",
    "read_list", "run", "serialize", "stdin_input",
]
