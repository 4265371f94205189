"""Standard streams a command cannot use: one `chunkctl: error:` line and exit 1, never a traceback.

Found by a break run: with standard output closed (`>&-`) every command that prints died
with an AttributeError traceback (Python sets `sys.stdout` to None); on a full disk
(`> /dev/full`) `schema`, `config` and `inspect` exited 0 and silently lost their output,
and `--version`, `--help`, `extract` and `--dry-run` printed an OSError traceback; with
standard input closed, `chunk -` printed a traceback. `chunk` itself already reported a
full standard output; it keeps its own line.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess

import pytest

from tests.conftest import CLI, ROOT

EXAMPLE = str(ROOT / "examples" / "backup-guide.md")
COMMANDS = [["schema"], ["config"], ["inspect", EXAMPLE], ["extract", EXAMPLE], ["--version"], ["chunk", "--help"],
            ["chunk", EXAMPLE, "-q"], ["chunk", str(ROOT / "examples"), "--dry-run"]]


def _run(args: list[str], redirect: str) -> subprocess.CompletedProcess:
    # (a shell redirection: `>&-` starts the command with file descriptor 1 closed)
    return subprocess.run(["sh", "-c", f'exec "$@" {redirect}', "sh", *CLI, *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a)[:30])
def test_a_closed_standard_output_is_one_error_line(args):
    p = _run(args, ">&-")
    assert p.returncode == 1, p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith("chunkctl: error: standard output is closed"), p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.skipif(not (os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode)),
                    reason="needs the /dev/full device")
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a)[:30])
def test_a_full_standard_output_is_one_error_line(args):
    p = _run(args, "> /dev/full")
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    assert lines[-1].startswith("chunkctl: error: cannot write standard output: No space left on device"), p.stderr
    assert "Traceback" not in p.stderr


def test_a_closed_standard_input_is_one_error_line():
    p = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", *CLI, "chunk", "-", "--stdin-format", "md"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 1
    assert p.stderr.strip().splitlines()[-1] == "chunkctl: error: standard input is closed", p.stderr


def test_a_closed_standard_output_does_not_matter_when_the_records_go_to_a_file(tmp_path):
    out = tmp_path / "out.jsonl"
    p = _run(["chunk", EXAMPLE, "-q", "-o", str(out)], ">&-")
    assert p.returncode == 0, p.stderr
    assert out.read_text().count("\n") == 8


def test_a_reader_that_stops_early_ends_the_run_and_says_the_records_were_not_all_written(tmp_path):
    # `chunkctl chunk docs | head -n 1`, or an embedding step that crashed: until 0.1.34 this exited 0
    # quietly, with a --summary-json saying "ok" and no --errors file, so a CI job with `set -o pipefail`
    # could not tell a crashed reader from a finished run (helper-114). Exit 1, one line, status "stopped".
    for i in range(40):  # (records well past a pipe's buffer, so that the write meets the closed pipe)
        (tmp_path / f"doc{i:02}.md").write_text(f"# Part {i}\n\n" + "A sentence of the guide. " * 2000)
    (tmp_path / "bad.txt").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    summary, errors = tmp_path.parent / "summary.json", tmp_path.parent / "errors.jsonl"
    p = subprocess.Popen([*CLI, "chunk", str(tmp_path), "-q", "--jobs", "1", "--summary-json", str(summary),
                          "--errors", str(errors)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=ROOT)
    assert p.stdout is not None and p.stderr is not None
    assert p.stdout.readline().startswith(b'{"id":')
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 1
    assert err.splitlines()[-1] == ("chunkctl: error: standard output was closed by its reader before every record "
                                    "was written; the run stopped")
    assert json.loads(summary.read_text())["status"] == "stopped"
    assert [e["source"] for e in map(json.loads, errors.read_text().splitlines())] == ["bad.txt"]


@pytest.mark.parametrize("flag, value", [("--stdin-format", "md"), ("--stdin-name", "notes.md")])
def test_a_stdin_option_without_stdin_among_the_inputs_says_it_has_no_effect(flag, value):
    # helper-102: `--stdin-name x.md` with a file and no '-' was ignored without a word
    guide = str(ROOT / "examples" / "backup-guide.md")
    p = subprocess.run([*CLI, "chunk", guide, flag, value, "-q"], capture_output=True, cwd=ROOT)
    assert p.returncode == 0 and p.stdout
    assert p.stderr.decode().splitlines() == [
        f"chunkctl: warning: {flag} has no effect: no '-' among the inputs (standard input is not read)"]
    p = subprocess.run([*CLI, "chunk", "-", flag, value, "-q"], input=b"# A\n\nText here.\n", capture_output=True,
                       cwd=ROOT)
    assert p.returncode == 0 and p.stderr == b""
