"""One job without a worker process (issue 19): files run in this process with the per-file time limit
kept by a SIGALRM timer, PDFs still in one worker; lazily imported loaders; the same records as with
workers."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import chunkctl
from chunkctl.loaders import EXTENSIONS, LOADERS
from chunkctl.pipeline import discover, process_file
from chunkctl.pipeline.engines import local

run_mod = importlib.import_module("chunkctl.pipeline.run")  # (the package's `run` is the function)
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def _inputs(*paths):
    return [i for i in discover([str(p) for p in paths]).inputs if i.format]


def _no_workers(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a worker process was started")

    monkeypatch.setattr(local, "imap_ordered", refuse)


def test_one_job_runs_text_formats_in_this_process_with_the_records_of_workers(monkeypatch, tmp_path):
    # a document of some size between small ones
    big = tmp_path / "big.md"
    big.write_text("# Field notes\n\n" + "\n\n".join(f"Paragraph {i}: the survey crew logged the river gauge at "
                                                     f"dawn, then walked the levee to mile {i}." for i in range(600)))
    inputs = _inputs(EXAMPLES / "backup-guide.md", big, EXAMPLES / "returns-policy.txt",
                     EXAMPLES / "on-call-runbook.html")
    config = chunkctl.ChunkConfig(chunk_size=128, overlap=16)
    with_workers = [r.lines for r in run_mod.run(inputs, config, jobs=2)]
    _no_workers(monkeypatch)
    seen = []
    alone = [r.lines for r in run_mod.run(inputs, config, jobs=1, progress=lambda r: seen.append(r.source))]
    assert alone == with_workers and all(alone)
    assert sorted(seen) == sorted(i.source for i in inputs)


def test_a_file_over_the_time_limit_fails_alone_in_this_process(monkeypatch, tmp_path):
    slow = tmp_path / "slow.txt"
    slow.write_text("\n\n".join(f"Line {i} of a long log, with words to tokenize and pack again." for i in
                                range(200_000)))  # about 13 MB: over a second of work (4 MB took 0.4 s warm)
    inputs = _inputs(slow, EXAMPLES / "returns-policy.txt")
    _no_workers(monkeypatch)
    out = list(run_mod.run(inputs, chunkctl.ChunkConfig(), jobs=1, file_timeout=0.2))
    assert (out[0].error, out[0].error_type) == (f"{inputs[0].source}: took longer than 0.2 s", "Timeout")
    assert out[1].error is None and out[1].lines == process_file(inputs[1], chunkctl.ChunkConfig()).lines
    import signal

    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_swallowed_time_limit_signal_fires_again():
    swallowed = []

    def step():
        for _ in range(500):  # at most ~5 s
            try:
                import time

                time.sleep(0.01)
            except run_mod._OverTime:
                if swallowed:
                    raise
                swallowed.append(1)  # as a raise inside a __del__ or a gc callback is lost

    with run_mod._Alarm() as alarm:
        assert alarm.run(step, 0.05) is False
        assert alarm.run(lambda: None, 5) is True
    assert swallowed == [1]


@pytest.mark.parametrize("where", ["gc callback", "__del__"])
def test_a_time_limit_signal_met_in_a_finalizer_stops_the_file_at_its_next_line(where):
    """A gc callback (hypothesis and distributed install one) or a `__del__` that happens to
    handle the signal cannot raise into the file: the limit is kept at the file's next line
    (before, the raise was lost and a file in native calls could run on to its end)."""
    import gc

    alarm = run_mod._Alarm()
    fired = []

    def fire():  # what the SIGALRM handler does, called where the signal would be handled
        if not fired:
            fired.append(1)
            alarm._fire(14, sys._getframe())

    class Doomed:
        def __del__(self):
            fire()

    armed = []  # an automatic collection before the file starts must not take the one signal

    def callback(phase, info):
        if phase == "start" and armed:
            fire()

    lines_after = []

    def step():
        if where == "gc callback":
            armed.append(1)
            gc.collect()
        else:
            Doomed()
        lines_after.append(1)
        lines_after.append(2)

    if where == "gc callback":
        gc.callbacks.append(callback)
    try:
        with alarm:
            assert alarm.run(step, 60) is False
            assert alarm.run(lambda: lines_after.append(3), 60) is True
    finally:
        if callback in gc.callbacks:
            gc.callbacks.remove(callback)
    assert fired == [1] and lines_after == [3]
    assert sys.gettrace() is None


def test_one_job_with_a_time_limit_sends_only_pdfs_to_a_worker(monkeypatch):
    inputs = _inputs(EXAMPLES)
    assert {i.format for i in inputs} == {"txt", "md", "html", "pdf"}
    config = chunkctl.ChunkConfig()
    sent = []
    real = local.imap_ordered

    def recording(fn, items, *args, **kwargs):
        sent.extend(i.format for i in items)
        return real(fn, items, *args, **kwargs)

    monkeypatch.setattr(local, "imap_ordered", recording)
    alone = [r.lines for r in run_mod.run(inputs, config, jobs=1, file_timeout=60)]
    assert sent == ["pdf"]
    assert alone == [process_file(i, config).lines for i in inputs]


def test_loaders_are_imported_when_their_format_is_used():
    code = ("import sys, chunkctl.cli.app\n"
            "before = {m for m in sys.modules if m.startswith('chunkctl.loaders.')}\n"
            "import chunkctl\n"
            "chunkctl.chunk_file('examples/backup-guide.md')\n"
            "after = {m for m in sys.modules if m.startswith('chunkctl.loaders.')}\n"
            "print(sorted(before)); print('pdf' if any('.pdf' in m or '.html' in m for m in after) else 'no pdf')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["['chunkctl.loaders.registry']", "no pdf"]


@pytest.mark.parametrize("fmt", sorted(LOADERS.declared))
def test_declared_formats_register_the_extensions_they_declare(fmt):
    assert LOADERS[fmt].extensions == LOADERS.declared[fmt]
    assert {e for e, f in EXTENSIONS.items() if f == fmt} == set(LOADERS.declared[fmt])


def test_a_stop_swallowed_in_a_weakref_callback_of_the_collection_is_raised_again():
    """The gc callback that met the signal arms a trace; the same collection then runs a weakref
    callback, whose first line takes the raise, and Python swallows it there (unraisable). The
    trace is armed again, so the file still stops at its next line (before, the file ran on:
    only the timer's next firing could stop it)."""
    import gc
    import weakref

    alarm = run_mod._Alarm()
    fired, armed, lines_after, called = [], [], [], []

    def callback(phase, info):
        if phase == "start" and armed and not fired:
            fired.append(1)
            alarm._fire(14, sys._getframe())

    class Node:
        pass

    def on_free(ref):  # run by the collector when the cycle below is freed
        called.append(1)

    def step():
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle only the collector frees
        keep = weakref.ref(a, on_free)
        del a, b
        armed.append(1)
        gc.collect()
        lines_after.append(keep)

    armed_at = []
    arm = alarm._arm

    def spy(frame):  # where the trace is armed: the gc callback's signal, then the swallowed raise
        armed_at.append(frame.f_code.co_name)
        arm(frame)

    alarm._arm = spy  # type: ignore[method-assign]
    gc.callbacks.append(callback)
    try:
        with alarm:
            assert alarm.run(step, 60) is False
            assert alarm.run(lambda: None, 60) is True
    finally:
        gc.callbacks.remove(callback)
    assert fired == [1] and lines_after == [] and called == []  # the weakref callback stopped at its call
    assert armed_at == ["callback", "step"]  # armed again from the file's frame, after the swallowed raise


def _spy_passes(monkeypatch):
    """Record the texts whose encoder pass ran on the tables thread (and on which thread)."""
    import threading

    from chunkctl.tokenizers import Tokenizer

    passes = []
    real = Tokenizer.pass_ids

    def spy(self, text):
        passes.append((text[:12], threading.current_thread().name))
        return real(self, text)

    monkeypatch.setattr(Tokenizer, "pass_ids", spy)
    return passes


def _mixed_folder(tmp_path):
    para = "The survey crew logged the river gauge at dawn, then walked the levee to mile {i}."
    docs = {
        "a-small.txt": "A note shorter than the hand-over threshold.\n",
        "b-mid.md": "# Mid\n\n" + "\n\n".join(para.format(i=i) for i in range(80)),          # ~7 K characters
        "c-big.txt": "\n\n".join(para.format(i=i) for i in range(1500)),                   # ~125 K characters
        "d-long-run.txt": "Intro line.\n" + "x" * 40_000 + "\nOutro line with words.\n",    # not one pass
        "e-binary.txt": None,                                                               # fails to load
        "f-mid.txt": "Closing words.\n" + "\n".join(para.format(i=i) for i in range(100)),
    }
    for name, text in docs.items():
        if text is None:
            (tmp_path / name).write_bytes(b"\x00\x01\x02\x03PK\x00" * 2000)
        else:
            (tmp_path / name).write_text(text)
    return _inputs(tmp_path)


def test_one_job_encodes_the_next_documents_on_a_thread_with_the_same_records(monkeypatch, tmp_path):
    """`_TablesAhead`: documents from AHEAD_MIN characters are encoded on the tables thread
    while earlier ones are chunked; the results (records, errors) and their order are those
    of each file processed alone, and the switch interval is given back."""
    inputs = _mixed_folder(tmp_path)
    config = chunkctl.ChunkConfig(chunk_size=96, overlap=16)
    alone = [process_file(i, config) for i in inputs]
    assert [r.error is not None for r in alone] == [False, False, False, False, True, False]
    passes = _spy_passes(monkeypatch)
    monkeypatch.setattr(run_mod, "SHARE", 0.0)  # a core counts as free whatever the machine does
    real_result = run_mod._Ahead.result

    def result(self):  # the thread takes every pass (on a busy machine it may start one late)
        assert self.done.wait(30)
        return real_result(self)

    monkeypatch.setattr(run_mod._Ahead, "result", result)
    _no_workers(monkeypatch)
    switch = sys.getswitchinterval()
    done = []
    out = list(run_mod.run(inputs, config, jobs=1, progress=lambda r: done.append(r.source)))
    assert [(r.source, r.lines, r.error) for r in out] == [(r.source, r.lines, r.error) for r in alone]
    assert done == [r.source for r in alone]
    # b-mid, c-big and f-mid; not the small one, not the long run (not one pass), not the binary file
    assert sorted(passes) == [("# Mid\n\nThe s", "chunkctl-tables"), ("Closing word", "chunkctl-tables"),
                              ("The survey c", "chunkctl-tables")]
    assert sys.getswitchinterval() == switch


def test_a_busy_machine_keeps_the_tables_in_the_main_thread(monkeypatch, tmp_path):
    """When this thread did not have SHARE of a core (faked: the share needed is above
    one), no document goes to the thread, and the records are the same."""
    inputs = _mixed_folder(tmp_path)
    config = chunkctl.ChunkConfig(chunk_size=96, overlap=16)
    passes = _spy_passes(monkeypatch)
    monkeypatch.setattr(run_mod, "SHARE", 2.0)
    monkeypatch.setattr(run_mod, "SAMPLE", 0.0)
    out = [r.lines for r in run_mod.run(inputs, config, jobs=1)]
    assert out == [process_file(i, config).lines for i in inputs]
    assert passes == []


def test_the_share_of_a_core_leaves_out_the_waits_for_the_thread(monkeypatch):
    """`_TablesAhead.wanted` samples this thread's CPU time against the wall clock, less
    the time `result` waited: 0.3 s of CPU in 0.5 s with 0.1 s of waiting is 75% (< 80%)."""
    from chunkctl.tokenizers import get_tokenizer

    clock = {"wall": 100.0, "cpu": 10.0}

    class FakeTime:
        @staticmethod
        def perf_counter():
            return clock["wall"]

        @staticmethod
        def thread_time():
            return clock["cpu"]

    monkeypatch.setattr(run_mod, "time", FakeTime)
    tables = run_mod._TablesAhead(get_tokenizer("cl100k_base"))
    assert tables.wanted()  # until the first sample
    clock["wall"] += 0.1
    clock["cpu"] += 0.0
    assert tables.wanted()  # under SAMPLE seconds: not sampled yet
    clock["wall"] += 0.4
    clock["cpu"] += 0.3
    tables.waited += 0.1
    assert not tables.wanted()  # 0.3 / (0.5 - 0.1) = 75%
    clock["wall"] += 0.5
    clock["cpu"] += 0.45
    assert tables.wanted()  # 90%
    clock["wall"] += 0.5
    clock["cpu"] += 0.1
    tables.waited += 0.4
    assert tables.wanted()  # 0.1 / 0.1: it ran the whole time it did not wait


def test_a_file_never_waits_for_another_files_pass(monkeypatch, tmp_path):
    """The first document's pass hangs on the tables thread (faked): that file runs over
    its time limit while it waits, and the next ones build their own tables (the thread
    has not started theirs), so they neither wait for it nor fail."""
    import threading

    from chunkctl.tokenizers import Tokenizer

    para = "A line of a long report with words to count, {i}."
    (tmp_path / "a.txt").write_text("STUCK " + "\n".join(para.format(i=i) for i in range(600)))
    (tmp_path / "b.txt").write_text("\n".join(para.format(i=i) for i in range(700)))
    (tmp_path / "c.txt").write_text("\n".join(para.format(i=i) for i in range(800)))
    inputs = _inputs(tmp_path)
    config = chunkctl.ChunkConfig()
    release, started = threading.Event(), threading.Event()
    real, real_result = Tokenizer.pass_ids, run_mod._Ahead.result

    def stuck(self, text):
        if text.startswith("STUCK"):
            started.set()
            release.wait(30)
        return real(self, text)

    def result(self):  # the thread has taken the stuck pass (on a busy machine it may start late)
        if self.text.startswith("STUCK"):
            started.wait(30)
        return real_result(self)

    monkeypatch.setattr(Tokenizer, "pass_ids", stuck)
    monkeypatch.setattr(run_mod._Ahead, "result", result)
    monkeypatch.setattr(run_mod, "SHARE", 0.0)
    _no_workers(monkeypatch)
    try:
        out = list(run_mod.run(inputs, config, jobs=1, file_timeout=1.0))
    finally:
        release.set()
    assert (out[0].error, out[0].error_type) == (f"{inputs[0].source}: took longer than 1 s", "Timeout")
    assert [r.lines for r in out[1:]] == [process_file(i, config).lines for i in inputs[1:]]


def test_one_core_never_starts_the_tables_thread(monkeypatch, tmp_path):
    inputs = _mixed_folder(tmp_path)
    config = chunkctl.ChunkConfig(chunk_size=96, overlap=16)
    passes = _spy_passes(monkeypatch)
    monkeypatch.setattr(run_mod, "SHARE", 0.0)
    from chunkctl.pipeline import engines

    monkeypatch.setattr(engines, "cpu_count", lambda: 1)
    out = [r.lines for r in run_mod.run(inputs, config, jobs=1)]
    assert out == [process_file(i, config).lines for i in inputs]
    assert passes == []
