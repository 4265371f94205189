"""Parquet output: the run's records in one Parquet file with a fixed Arrow schema, streamed in row groups and
written atomically like any `-o` file; needs the `parquet` extra (pyarrow).

The schema (`arrow_schema`) is made from `chunkctl.fields`: one column per record field,
`headings` a list of strings, `meta` a struct with every `meta` key, so the files of any
run, of any format and strategy, share one schema (DuckDB, Spark, LanceDB, Hugging Face
datasets read them as they are). See docs/records.md#parquet.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import orjson

from chunkctl.errors import MissingExtraError, OutputError
from chunkctl.fields import META_FIELDS, META_KEYS, RECORD_FIELDS, Field
from chunkctl.output.writer import Output

SUFFIX = ".parquet"
"""`-o NAME.parquet` writes Parquet instead of JSONL."""

ROW_GROUP_ROWS = 8192
"""Records per row group at most (the buffer of records held in memory before they are written)."""

ROW_GROUP_BYTES = 32 << 20
"""Characters of `text` per row group at most, so that groups of long chunks stay small in memory."""

COMPRESSION = "zstd"
"""Column compression (read by DuckDB, Spark, pyarrow, LanceDB and datasets)."""


def is_parquet(path: str | None) -> bool:
    """`path` names a Parquet output (ends in `.parquet`, any case)."""
    return bool(path) and str(path).lower().endswith(SUFFIX)


def require_pyarrow() -> None:
    """Raise MissingExtraError (naming `pip install 'chunkctl[parquet]'`) unless pyarrow can be imported."""
    if importlib.util.find_spec("pyarrow") is None:
        raise MissingExtraError("Parquet output", "parquet", "pyarrow")


def _arrow_type(f: Field) -> Any:
    import pyarrow as pa

    if f.type == "string":
        return pa.string()
    if f.type == "integer":
        return pa.int64()
    if f.type == "boolean":
        return pa.bool_()
    if f.type == "strings":
        return pa.list_(pa.field("element", pa.string(), nullable=False))  # Parquet's name for list items
    return pa.struct([pa.field(m.name, _arrow_type(m), nullable=m.nullable) for m in META_FIELDS])


def arrow_schema() -> Any:
    """The Arrow schema (`pyarrow.Schema`) of a record, the same for every run.

    Columns in record order: strings as `string`, integers as `int64`, `oversize` as
    `bool`, `headings` as `list<string>`, `meta` as a struct of every `meta` key in its
    order; a column or struct field is nullable exactly where the record field or key
    may be null. Use it to load JSONL records into Arrow without guessing types:
    `pyarrow.Table.from_pylist(records, schema=arrow_schema())`.

    Raises:
        ImportError: pyarrow is not installed; the message names `pip install 'chunkctl[parquet]'`.
    """
    try:
        import pyarrow as pa
    except ImportError:
        from chunkctl.errors import MissingExtraError

        raise ImportError(str(MissingExtraError("arrow_schema", "parquet", "pyarrow"))) from None
    return pa.schema([pa.field(f.name, _arrow_type(f), nullable=f.nullable) for f in RECORD_FIELDS])


class ParquetOutput(Output):
    """`-o FILE.parquet`: records in one Parquet file, written atomically like `Output`.

    The records given to `write` (JSONL bytes of the contract records, one document at a
    time) are buffered and written as a row group every `ROW_GROUP_ROWS` records or
    `ROW_GROUP_BYTES` characters of text, so memory stays bounded however long the run.
    The file goes to a temporary file in the target's folder and is renamed over the
    target only by `commit()` (which writes the last row group and the footer); `abort()`
    leaves any previous file untouched. A run with no records writes a valid file with
    the schema and no rows.

    Args:
        path: the target file (not standard output: Parquet is written in one piece).
        row_group_rows: records per row group at most.

    Raises:
        MissingExtraError: pyarrow is not installed.
        OutputError: the file cannot be written (as `Output`), or a record does not fit
            the schema (a `meta` key a plugin strategy added: write JSONL instead).
    """

    def __init__(self, path: str, row_group_rows: int = ROW_GROUP_ROWS):
        require_pyarrow()
        import pyarrow.parquet as pq

        if path in (None, "-", ""):
            raise OutputError("Parquet output needs a file name (-o NAME.parquet), not standard output")
        super().__init__(path)
        self.schema = arrow_schema()
        self.row_group_rows = max(1, row_group_rows)
        self.rows = 0
        self._buffer: list[dict[str, Any]] = []
        self._chars = 0
        self._known_meta = frozenset(META_KEYS)
        try:
            self._writer: Any = pq.ParquetWriter(self._fh, self.schema, compression=COMPRESSION)
        except OSError as exc:
            super().abort()
            raise OutputError(f"cannot write {self.path}: {exc}") from None

    def write(self, data: bytes) -> None:
        """Add the records of JSONL bytes (whole lines of contract records).

        Raises:
            OutputError: a record has a `meta` key outside the schema, or cannot be written.
        """
        for line in data.splitlines():
            if not line.strip():
                continue
            rec = orjson.loads(line)
            extra = rec["meta"].keys() - self._known_meta
            if extra:
                raise OutputError(f"{self.path}: meta.{sorted(extra)[0]} of {rec['source']} is not a column of the "
                                  "Parquet schema (a strategy of your own adds it?); write JSONL instead")
            self._buffer.append(rec)
            self._chars += len(rec["text"])
            if len(self._buffer) >= self.row_group_rows or self._chars >= ROW_GROUP_BYTES:
                self._flush()

    def _flush(self) -> None:
        if not self._buffer:
            return
        import pyarrow as pa

        try:
            table = pa.Table.from_pylist(self._buffer, schema=self.schema)
            self._writer.write_table(table)
        except (pa.ArrowException, TypeError, ValueError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
            raise OutputError(f"cannot write {self.path}: {first}") from None
        except OSError as exc:
            raise OutputError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        self.rows += len(self._buffer)
        self._buffer.clear()
        self._chars = 0

    def commit(self) -> None:
        """Write the last row group and the footer, then replace the target (see `Output.commit`).

        Raises:
            OutputError: the file cannot be written; nothing is replaced then.
        """
        try:
            self._flush()
            self._writer.close()
        except OutputError:
            self.abort()
            raise
        except OSError as exc:
            self.abort()
            raise OutputError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        super().commit()

    def abort(self) -> None:
        """Drop the file: the temporary file is removed, a previous target stays as it was."""
        self._buffer.clear()
        writer, self._writer = getattr(self, "_writer", None), None
        if writer is not None:
            try:
                writer.close()
            except Exception:
                pass
        super().abort()
