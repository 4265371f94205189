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
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def needs_shared():
    return pytest.mark.skipif(not SHARED.is_dir(), reason="../shared is not beside the project")
