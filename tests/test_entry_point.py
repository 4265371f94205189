"""The console script's exit (`chunkctl.cli.app.entry_point`): the process ends without the
interpreter's teardown, yet with the same streams, files, exit codes and `atexit` work as a
normal exit; it falls back to the normal exit when a thread is left to join."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

# Standard streams buffered, as for most users (a pipe's stdout holds up to 8 KB until flushed).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


def _python(code: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT,
                          input=stdin, timeout=120, env=ENV)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chunkctl", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env=ENV)


def _embedded(*args: str) -> subprocess.CompletedProcess:
    """The same command through `run`, which raises SystemExit and leaves the exit to Python."""
    code = ("import sys\nfrom chunkctl.cli.app import run\nsys.argv = ['chunkctl'] + sys.argv[1:]\n"
            "run()\n")
    return _python(code, *args)


def test_records_on_stdout_and_summary_are_those_of_a_normal_exit():
    # JSONL on a pipe is block-buffered: whatever is still in the buffer must be flushed
    fast = _cli("chunk", "examples", "--jobs", "1")
    normal = _embedded("chunk", "examples", "--jobs", "1")
    assert fast.returncode == normal.returncode == 0
    assert fast.stdout == normal.stdout and fast.stdout.count("\n") > 10
    assert fast.stderr.split(",")[:3] == normal.stderr.split(",")[:3]  # (the summary, without the time)


def test_exit_codes_are_those_of_a_normal_exit(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Title\n\nSome text.\n", encoding="utf-8")
    (docs / "bad.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 4)  # not a readable PDF: one failed file
    for args, code in ((("chunk", str(docs), "-o", str(tmp_path / "out.jsonl")), 1),
                       (("chunk", str(docs), "--chunk-size", "nope"), 2),
                       (("schema",), 0)):
        fast, normal = _cli(*args), _embedded(*args)
        assert fast.returncode == normal.returncode == code, (args, fast.stderr)
        assert fast.stdout == normal.stdout
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8").count("\n") == 1


def _schema_after(setup: str, call: str = "entry_point") -> str:
    """A script that runs `setup`, then `chunkctl schema` through `call` (entry_point or run)."""
    return (f"import atexit, sys, threading, time\n{setup}"
            f"from chunkctl.cli.app import {call}\nsys.argv = ['chunkctl', 'schema']\n{call}()\n")


def test_atexit_functions_still_run_and_their_output_lands(tmp_path):
    mark = tmp_path / "atexit.txt"
    p = _python(_schema_after(
        "print('printed before, still in the buffer')\n"
        f"atexit.register(lambda: (open({str(mark)!r}, 'w').write('ran'), print('bye from atexit')))\n"))
    assert p.returncode == 0
    assert mark.read_text() == "ran"
    assert "printed before, still in the buffer\n" in p.stdout
    assert p.stdout.rstrip().endswith("bye from atexit")


def test_a_thread_left_to_join_gets_the_normal_exit(tmp_path):
    """A non-daemon thread still running (a library user's, say) is waited for, as Python does."""
    mark = tmp_path / "thread.txt"
    p = _python(_schema_after(
        "def late():\n"
        "    time.sleep(0.5)\n"
        f"    open({str(mark)!r}, 'w').write('finished')\n"
        "threading.Thread(target=late).start()\n"))
    assert p.returncode == 0
    assert mark.read_text() == "finished"


def test_teardown_is_skipped():
    """The interpreter's teardown is what is skipped: an object's finalizer, which a normal exit
    runs when it frees the module's globals, does not run (the point of the fast exit)."""
    held = "class Held:\n    def __del__(self):\n        print('finalized')\nheld = Held()\n"
    fast = _python(_schema_after(held, "entry_point"))
    normal = _python(_schema_after(held, "run"))
    assert fast.returncode == normal.returncode == 0
    assert "finalized" in normal.stdout
    assert "finalized" not in fast.stdout
