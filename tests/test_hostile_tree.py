"""Issue 14, done-when: a hostile tree next to good files; every good file's records land, identical across engines.

The tree holds names that are not UTF-8 or hold a line break, links out of the tree
and in loops, a broken link, a named pipe, a binary file with a text extension, a
huge single line, an encrypted PDF without its password, a file that vanishes after
the run has listed it and (when not run as root, which reads anything) an unreadable
file. Each run must exit 1, write one error record per bad input, and give the good
files' records byte for byte whatever the engine.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import CLI, CORPUS, ROOT, parse_jsonl

pytestmark = pytest.mark.slow

GOOD = {
    "a-guide.md": b"# Guide\n\n## Install\n\nRun the installer. Then restart.\n\n## Use\n\nOpen the app.\n",
    "b-notes.txt": b"Plain notes. Two sentences here.\n\nA second paragraph.\n",
    "c-page.html": b"<html><head><title>Page</title></head><body><h1>Page</h1><p>Hello web.</p></body></html>",
    "sub/d-deep.md": b"# Deep\n\nNested text.\n",
}


def build_tree(root: Path) -> tuple[set[str], set[str]]:
    """Make the tree; returns (sources of good files, sources of bad inputs)."""
    good, bad = set(GOOD), set()
    for rel, data in GOOD.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    broot = os.fsencode(root)
    with open(os.path.join(broot, b"e-caf\xe9.md"), "wb") as fh:  # Latin-1 name, good content
        fh.write(b"# Cafe\n\nA name that is not UTF-8.\n")
    good.add("e-caf\\xe9.md")
    (root / "f-line\nbreak.txt").write_bytes(b"A name with a line break.\n")
    good.add("f-line\nbreak.txt")
    (root / "0-huge.txt").write_bytes(b"y" * 2_000_000)  # one line, no spaces
    good.add("0-huge.txt")
    (root / "g-alias.md").symlink_to(root / "a-guide.md")  # a link inside the tree: followed
    good.add("g-alias.md")
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside the tree\n")
    (root / "h-out.txt").symlink_to(outside / "secret.txt")  # skipped with a warning, not an error
    (root / "loop").symlink_to(root, target_is_directory=True)
    bad.add("loop")
    (root / "i-broken.md").symlink_to(root / "nowhere.md")
    bad.add("i-broken.md")
    os.mkfifo(root / "j-pipe.txt")
    bad.add("j-pipe.txt")
    (root / "k-binary.txt").write_bytes(b"\x00\x01\x02binary\x00\xff" * 100)
    bad.add("k-binary.txt")
    pdf = CORPUS / "pdf" / "encrypted-password-test.pdf"
    if pdf.exists():
        (root / "l-locked.pdf").write_bytes(pdf.read_bytes())
        bad.add("l-locked.pdf")
    if os.geteuid() != 0:
        (root / "m-private.md").write_text("# Private\n")
        (root / "m-private.md").chmod(0)
        bad.add("m-private.md")
    (root / "zz-vanish.md").write_text("# Gone\n\nThis file is deleted after the listing.\n")
    bad.add("zz-vanish.md")
    return good, bad


def run_over(root: Path, out: Path, errors: Path, *extra: str) -> subprocess.CompletedProcess:
    """Run the CLI over the tree; delete zz-vanish.md once the run has listed its inputs."""
    vanish = root / "zz-vanish.md"
    vanish.write_text("# Gone\n\nThis file is deleted after the listing.\n")
    proc = subprocess.Popen([*CLI, "chunk", str(root), "-o", str(out), "--errors", str(errors), *extra], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        # the output's temporary file exists once inputs are listed and the run has begun
        if any(p.name.startswith(f".{out.name}.chunkctl-") for p in out.parent.iterdir()):
            break
        time.sleep(0.01)
    vanish.unlink()
    stdout, stderr = proc.communicate(timeout=600)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def test_hostile_tree_every_good_file_lands_and_every_bad_one_is_one_error(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    good, bad = build_tree(root)
    outputs = {}
    engines = [("jobs1", ["--jobs", "1"]), ("jobs2", ["--jobs", "2"])]
    cluster = None
    try:
        import distributed  # noqa: F401

        from tests.test_dask_cluster import Cluster

        cluster = Cluster(tmp_path / "cluster")  # a scheduler and two worker processes
        engines.append(("dask", ["--engine", "dask", "--scheduler", cluster.address]))
    except ImportError:
        pass
    try:
        _run_engines(root, tmp_path, engines, good, bad, outputs)
    finally:
        if cluster is not None:
            cluster.stop()
    assert len(set(outputs.values())) == 1, "the engines disagree"
    assert cluster is None or "dask" in outputs


def _run_engines(root: Path, tmp_path: Path, engines: list, good: set[str], bad: set[str], outputs: dict) -> None:
    for name, extra in engines:
        out, errs = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.errors.jsonl"
        p = run_over(root, out, errs, *extra)
        err = p.stderr.decode()
        assert p.returncode == 1, err
        assert "Traceback" not in err
        recs = parse_jsonl(out.read_bytes())
        assert {r["source"] for r in recs} == good, name
        errors = parse_jsonl(errs.read_bytes())
        assert sorted(e["source"] for e in errors) == sorted(bad), (name, errors)
        assert "h-out.txt: skipped, a symbolic link that leads out of the folder" in err
        outputs[name] = out.read_bytes()
