"""The record contract as code: the JSON Schema of a record (`schema`), record checks that need no document text (`validate`), and run statistics (`stats`); see docs/records.md."""
