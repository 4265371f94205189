"""Version of chunkctl (recorded in every record's meta.version).

Bump it for every change to record content, that is any byte of the JSONL for the same
input and options, and add a CHANGELOG.md entry; a change that keeps every record byte
does not bump it. tests/test_guard_version.py checks this against tests/golden/records.json.
"""

__version__ = "0.1.35"
