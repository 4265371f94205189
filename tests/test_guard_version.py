"""The version rule: a change to record content bumps `__version__` (CHANGELOG.md, top).

Every record carries `meta.version`, so records are tied to a version: the same input and
options must give the same JSONL bytes under one version. This test chunks examples/ with
a few settings, hashes the records with `meta.version` left out, and compares the hashes
with tests/golden/records.json, which maps each version to its hashes.

When record content changes on purpose: bump `__version__` in chunkctl/__about__.py, add
a CHANGELOG.md entry, and regenerate with

    CHUNKCTL_UPDATE_GOLDEN=1 pytest tests/test_guard_version.py

which writes the current hashes under the current version (other versions stay as they
are). A change that keeps every record byte (a refactor) needs none of this.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import orjson
import pytest

import chunkctl
from tests.conftest import ROOT

GOLDEN = ROOT / "tests" / "golden" / "records.json"
ENV = "CHUNKCTL_UPDATE_GOLDEN"
INPUTS = "examples"

# setting name -> chunk_paths options; meta.strategy/chunk_size/overlap are in the records
SETTINGS = {
    "recursive-256-32": {"strategy": "recursive", "chunk_size": 256, "overlap": 32},
    "fixed-128-0": {"strategy": "fixed", "chunk_size": 128, "overlap": 0},
    "section-512-15%": {"strategy": "section", "chunk_size": 512, "overlap": "15%"},
    "hierarchical-128-16": {"strategy": "hierarchical", "chunk_size": 128, "overlap": 16},
    "sentence-200-20": {"strategy": "sentence", "chunk_size": 200, "overlap": 20},
}
INPUTS_KEY = "inputs"  # sha256 of the input files, to tell a changed example from changed records

HOW_TO_UPDATE = (
    "bump __version__ in chunkctl/__about__.py, add a CHANGELOG.md entry, and regenerate the golden with "
    f"`{ENV}=1 pytest tests/test_guard_version.py`"
)


def inputs_hash() -> str:
    """sha256 over the input files' paths and bytes, in sorted order."""
    h = hashlib.sha256()
    for path in sorted(p for p in (ROOT / INPUTS).rglob("*") if p.is_file()):
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def records_hash(options: dict) -> str:
    """sha256 of the JSONL lines chunk_paths gives for examples/, each record without meta.version."""
    h = hashlib.sha256()
    n = 0
    for rec in chunkctl.chunk_paths([INPUTS], **options):
        assert rec["meta"].pop("version") == chunkctl.__version__
        h.update(orjson.dumps(rec) + b"\n")
        n += 1
    assert n > 0, f"no records for {options}"
    return h.hexdigest()


def current_hashes() -> dict[str, str]:
    return {INPUTS_KEY: inputs_hash(), **{name: records_hash(opts) for name, opts in SETTINGS.items()}}


def read_golden() -> dict[str, dict[str, str]]:
    return json.loads(GOLDEN.read_text("utf-8")) if GOLDEN.is_file() else {}


def write_golden(version: str, hashes: dict[str, str]) -> None:
    golden = read_golden()
    golden[version] = hashes
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    tmp = GOLDEN.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(golden, indent=2, sort_keys=True) + "\n", "utf-8")
    tmp.replace(GOLDEN)


def test_records_match_the_golden_of_this_version(monkeypatch):
    monkeypatch.chdir(ROOT)  # sources and ids as for `chunkctl chunk examples` run in the repository root
    version = chunkctl.__version__
    hashes = current_hashes()
    if os.environ.get(ENV):
        write_golden(version, hashes)
        pytest.skip(f"{ENV} is set: wrote the hashes of version {version} to {GOLDEN.relative_to(ROOT)}")
    golden = read_golden()
    if version not in golden:
        pytest.fail(f"version {version} has no golden record hashes in {GOLDEN.relative_to(ROOT)} (known: "
                    f"{', '.join(sorted(golden)) or 'none'}). Record content changed, or the version did: "
                    f"{HOW_TO_UPDATE}.")
    expected = golden[version]
    changed = sorted(name for name in SETTINGS if expected.get(name) != hashes[name])
    if not changed:
        return
    if expected.get(INPUTS_KEY) != hashes[INPUTS_KEY]:
        pytest.fail(f"the files under {INPUTS}/ changed since the golden of version {version} was written, so its "
                    f"hashes no longer apply ({', '.join(changed)} differ). Records for the same input did not "
                    f"necessarily change: if no chunkctl code changed, regenerate with `{ENV}=1 pytest "
                    f"tests/test_guard_version.py`; otherwise {HOW_TO_UPDATE}.")
    pytest.fail(f"record content changed for the same input and options under version {version} "
                f"(settings: {', '.join(changed)}); every record carries meta.version, so {HOW_TO_UPDATE}. "
                "(If no chunkctl code changed, a dependency that shapes records did: markdown-it-py, blingfire, "
                "tiktoken, selectolax; say so in the CHANGELOG entry.)")


def test_update_golden_flag_is_off(request):
    """CHUNKCTL_UPDATE_GOLDEN must not be set in a run of the suite: the golden test would pass by rewriting.

    Only a run of this file alone (the regeneration command) may have it set.
    """
    if not os.environ.get(ENV):
        return
    here = Path(__file__).resolve()
    if all(Path(item.path).resolve() == here for item in request.session.items):
        pytest.skip(f"{ENV} is set for a run of {here.name} alone: the golden is being regenerated")
    pytest.fail(f"{ENV} is set: the golden test rewrites tests/golden/records.json instead of checking it. Unset "
                f"it; set it only for `{ENV}=1 pytest tests/test_guard_version.py`.")
