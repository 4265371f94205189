"""On-disk cache of each file's records for incremental runs; it stores and checks bytes, and never chunks."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from chunkctl import spill
from chunkctl.__about__ import __version__
from chunkctl.atomic import remove_stale_shards, replace_atomically
from chunkctl.config import ChunkConfig
from chunkctl.errors import ConfigError
from chunkctl.spill import Lines, SpilledLines, line_blocks, size_of
from chunkctl.tokenizers import tokenizer_digest

_ENTRY_VERSION = 1


@dataclass
class CacheEntry:
    """One file's cached output.

    Attributes:
        lines: the document's records as JSONL (contract format): bytes, or for a body
            bigger than `spill.SPILL_AT` a `SpilledLines` of the entry's file (read on demand,
            so a cache hit does not hold it in memory).
        n_chunks, n_tokens: number of records and their total `n_tokens`.
        warnings: the warnings loading the file gave, so a cached run reports them too.
    """

    lines: Lines
    n_chunks: int
    n_tokens: int
    warnings: list[str] = field(default_factory=list)


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a file's bytes (hex), read in 1 MiB pieces.

    Raises:
        OSError: the file cannot be read.
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while piece := fh.read(1 << 20):
            h.update(piece)
    return h.hexdigest()


class RecordCache:
    """A folder of cache entries, one file per (file bytes, configuration, version, source, format).

    The key holds everything the records depend on: the sha256 of the file's bytes,
    `ChunkConfig.fingerprint()`, chunkctl's version, the record `source` (ids and
    `doc_id` derive from it) and the format. An entry is a JSON header line (counts,
    warnings, the length and sha256 of the body) followed by the JSONL body; an entry
    whose header or body does not check out is ignored (and rewritten by the next
    run). Entries are written to a temporary file in the same folder and renamed, so
    readers never see half an entry, and concurrent runs can share a cache.

    Temporary files of writers killed by SIGKILL are removed when the cache is opened.
    A cache that cannot be written (read-only, full disk) does not stop a run: `warn`
    is called once with the reason, and the run goes on without storing.

    Args:
        folder: the cache folder (created when needed).
        warn: called with a one-line message the first time an entry cannot be
            written (or the folder cannot be made). Defaults to None: silent.
    """

    def __init__(self, folder: str | os.PathLike, warn: Callable[[str], None] | None = None):
        self.folder = Path(folder)
        self.warn = warn
        self.failed: str | None = None
        if self.folder.exists() and not self.folder.is_dir():
            raise ConfigError(f"--cache {folder}: is a file, not a folder")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self._failed(exc)
        remove_stale_shards(self.folder)

    def _failed(self, exc: OSError) -> None:
        if self.failed is None:
            self.failed = exc.strerror or exc.__class__.__name__
            if self.warn is not None:
                self.warn(f"--cache {self.folder}: cannot write to it ({self.failed}); the run goes on without "
                          f"storing records")

    def key(self, sha256: str, source: str, fmt: str, config: ChunkConfig) -> str:
        """The entry key of a file with these bytes, source and format under `config` (and, for a
        tokenizer read from a local file, that file's contents: `tokenizer_digest`)."""
        parts = "\0".join((sha256, config.fingerprint(), __version__, source, fmt))
        digest = tokenizer_digest(config.tokenizer)
        if digest:  # (keys of runs with a named encoding stay those of 0.1.11)
            parts += "\0" + digest
        return hashlib.blake2b(parts.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.jsonl"

    def get(self, key: str) -> CacheEntry | None:
        """The entry stored under `key`, or None when there is none or it is damaged.

        A body of up to `spill.SPILL_AT` bytes is read into memory; a bigger one is checked
        by reading it in pieces and returned as a `SpilledLines` of the entry's file
        (`owned` False: it stays). An entry is only ever replaced whole by the same
        bytes (its key fixes them), so reading it later gives what was checked.
        """
        path = self._path(key)
        try:
            if not stat.S_ISREG(path.stat().st_mode):  # a pipe placed in the cache would block the open
                return None
            with open(path, "rb") as fh:
                head = fh.readline()
                meta = orjson.loads(head)
                size = int(meta["size"])
                if not (head.endswith(b"\n") and meta["entry"] == _ENTRY_VERSION and meta["key"] == key
                        and os.fstat(fh.fileno()).st_size == len(head) + size):
                    return None
                h = hashlib.sha256()
                lines: Lines
                if size <= spill.SPILL_AT:
                    body = fh.read()
                    h.update(body)
                    lines = body
                else:
                    while piece := fh.read(1 << 22):
                        h.update(piece)
                    lines = SpilledLines(os.fspath(path), size, len(head), owned=False)
            if meta["sha256"] != h.hexdigest():
                return None
            return CacheEntry(lines, int(meta["n_chunks"]), int(meta["n_tokens"]), [str(w) for w in meta["warnings"]])
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None

    def put(self, key: str, entry: CacheEntry) -> None:
        """Store an entry atomically (temporary file, then rename); a failure to write is not an error.

        A full disk or a read-only cache folder only costs the next run some time, so
        an `OSError` is reported once through `warn` and otherwise ignored; the
        temporary file is removed in every case. A `SpilledLines` body is read in
        pieces (twice: for its sha256, then to copy it).
        """
        path = self._path(key)
        try:
            h = hashlib.sha256()
            for piece in line_blocks(entry.lines):
                h.update(piece)
            head = {"entry": _ENTRY_VERSION, "key": key, "n_chunks": entry.n_chunks, "n_tokens": entry.n_tokens,
                    "warnings": entry.warnings, "size": size_of(entry.lines), "sha256": h.hexdigest()}
            replace_atomically(path, orjson.dumps(head) + b"\n", line_blocks(entry.lines))
        except OSError as exc:
            self._failed(exc)
