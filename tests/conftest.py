"""Shared test helpers: paths to ../shared, the contract checker, an in-process invariant check."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
CASES = SHARED / "cases"
CHECKER = SHARED / "tools" / "check_chunks.py"
CLI = [sys.executable, "-m", "chunkctl"]


def run_cli(*args: str, input: bytes | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -m chunkctl ARGS` and capture its output."""
    return subprocess.run([*CLI, *args], input=input, capture_output=True, timeout=timeout, cwd=ROOT)


def run_checker(jsonl: Path, root: Path, *extra: str) -> tuple[int, str]:
    """Run ../shared/tools/check_chunks.py; returns (exit code, last line)."""
    extract = f"{sys.executable} -m chunkctl extract"
    p = subprocess.run([sys.executable, str(CHECKER), str(jsonl), "--root", str(root), "--extract-cmd", extract,
                        *extra], capture_output=True, text=True, timeout=900)
    lines = (p.stdout + p.stderr).strip().splitlines()
    return p.returncode, "\n".join(lines[-12:])


def parse_jsonl(data: bytes | str) -> list[dict]:
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    # split on "\n" only: str.splitlines() also breaks at U+2028, U+0085 ... inside JSON strings
    return [json.loads(line) for line in data.split("\n") if line.strip()]


def needs_shared():
    return pytest.mark.skipif(not SHARED.is_dir(), reason="../shared is not beside the project")


def _load_checker():
    import importlib.util

    spec = importlib.util.spec_from_file_location("shared_check_chunks", CHECKER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_CHECKER_MOD = None


def check_records(records: list[dict], root: Path, tmp_path: Path, *extra: str) -> str:
    """Write records as JSONL and run the shared contract checker on them in-process; assert 0 violations."""
    global _CHECKER_MOD
    import contextlib
    import io

    import orjson

    if _CHECKER_MOD is None:
        _CHECKER_MOD = _load_checker()
    out = tmp_path / "check.jsonl"
    out.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = _CHECKER_MOD.main([str(out), "--root", str(root), "--extract-cmd", f"{sys.executable} -m chunkctl extract",
                                "--max-examples", "3", *extra])
    report = buf.getvalue()
    assert rc == 0, report
    return report


def chunk_case(name: str, **options) -> tuple[list[dict], str]:
    """Chunk a file of ../shared/cases (source = its file name); returns (records, document text)."""
    import chunkctl
    from chunkctl.pipeline import chunk_records, load
    from chunkctl.config import ChunkConfig

    config = ChunkConfig(**options)
    doc = load(CASES / name, config, source=name)
    return chunk_records(doc, config), doc.text


def bodies(records: list[dict]) -> list[str]:
    return [r["text"][len(r["prefix"]):] for r in records]
