"""The worker pool: order, a stuck item killed and replaced, a dying worker, an early stop that leaves no process;
batches of small items; files reported as they finish (pipeline.run's progress, the progress display)."""

from __future__ import annotations

import os
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkctl.pipeline.engines.local import TaskFailure, imap_ordered


def _job(item):
    """Test items: ("ok", n) -> n * 2; ("hang",) sleeps; ("die", code) exits; ("raise",) raises."""
    kind = item[0]
    if kind == "hang":
        time.sleep(600)
    if kind == "die":
        os._exit(item[1])
    if kind == "raise":
        raise ValueError("bad item")
    return item[1] * 2


def _pid(_item):
    return os.getpid()


def test_results_come_back_in_order_whatever_the_weights():
    items = [("ok", i) for i in range(40)]
    out = list(imap_ordered(_job, items, jobs=2, weight=lambda it: (it[1] * 7) % 11))
    assert out == [(i, i * 2) for i in range(40)]


def test_a_stuck_item_is_stopped_and_the_rest_goes_on():
    items = [("ok", 1), ("hang",), ("ok", 2), ("ok", 3)]
    out = dict(imap_ordered(_job, items, jobs=1, timeout=0.5))
    assert out[1] == TaskFailure("timeout", "took longer than 0.5 s")
    assert (out[0], out[2], out[3]) == (2, 4, 6)


def test_a_dying_worker_and_a_raising_function_are_failures_not_crashes():
    items = [("die", 3), ("ok", 5), ("raise",), ("ok", 6)]
    out = dict(imap_ordered(_job, items, jobs=2, timeout=60))
    assert out[0] == TaskFailure("crashed", "the worker process died (exit code 3)")
    assert out[2] == TaskFailure("error", "ValueError: bad item")
    assert (out[1], out[3]) == (10, 12)


def test_stopping_early_leaves_no_worker_behind():
    gen = imap_ordered(_pid, list(range(6)), jobs=2)
    _, pid = next(gen)
    gen.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"worker {pid} still runs")


def test_look_ahead_by_weight_reaches_past_the_window():
    # With window=1 only the next item could start; `ahead` lets the light items behind
    # a heavy one run meanwhile, and the order of results is still the input order.
    items = [("ok", i) for i in range(10)]
    out = list(imap_ordered(_job, items, jobs=2, window=1, ahead=100, weight=lambda it: 1.0))
    assert out == [(i, i * 2) for i in range(10)]


# ----------------------------------------------------------------------------- batches (issue 14)
# With `batch_weight`, a worker gets several light items in one message; each still
# has its own time limit, and a hang or a crash fails that item alone.

def _each(item):
    """Batch test items: ("ok", n) -> n * 2, ("nap", s, n) sleeps s then n * 2, ("hang",), ("die", code)."""
    if item[0] == "nap":
        time.sleep(item[1])
        return item[2] * 2
    return _job(item)


def _expected(item):
    if item[0] == "hang":
        return TaskFailure("timeout", "took longer than 0.5 s")
    if item[0] == "die":
        return TaskFailure("crashed", f"the worker process died (exit code {item[1]})")
    return item[-1] * 2


def test_a_timeout_in_the_middle_of_a_batch_fails_that_item_alone():
    items = [("ok", i) for i in range(20)]
    items[7] = ("hang",)  # one worker, a window of all: the first batch holds items 0-9
    out = list(imap_ordered(_each, items, jobs=1, timeout=0.5, window=len(items), batch_weight=100))
    assert out == [(i, _expected(it)) for i, it in enumerate(items)]


def test_a_crash_in_a_batch_fails_that_item_alone_and_the_others_are_produced():
    items = [("ok", i) for i in range(20)]
    items[5] = ("die", 9)
    items[16] = ("die", 4)
    out = list(imap_ordered(_each, items, jobs=2, timeout=60, window=len(items), batch_weight=100))
    assert out == [(i, _expected(it)) for i, it in enumerate(items)]


def test_every_item_of_a_batch_has_its_own_time_limit():
    # Together the batch takes longer than the limit; no item does.
    items = [("nap", 0.15, i) for i in range(8)]
    out = list(imap_ordered(_each, items, jobs=1, timeout=1.0, window=len(items), batch_weight=100))
    assert out == [(i, i * 2) for i in range(8)]


def test_batches_hold_light_items_in_order_and_heavy_ones_alone():
    import heapq

    from chunkctl.pipeline.engines.local import _take

    weights = {0: 5.0, 1: 1.0, 2: 1.0, 3: 50.0, 4: 2.0, 5: 1.0, 6: 1.0}
    waiting: list[tuple[float, int]] = []
    for i, w in weights.items():
        heapq.heappush(waiting, (-w if w > 10 else 0.0, i))
    assert _take(waiting, weights, 10, cap=3) == [3]  # the heavy item first, alone
    assert _take(waiting, weights, 10, cap=3) == [0, 1, 2]  # at most cap
    assert _take(waiting, weights, 3, cap=9) == [4, 5]  # at most batch_weight in all
    assert _take(waiting, weights, 3, cap=9) == [6]
    assert waiting == []


def test_stopping_early_in_batches_leaves_no_worker_behind():
    gen = imap_ordered(_pid, list(range(40)), jobs=2, window=40, batch_weight=100)
    _, pid = next(gen)
    gen.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"worker {pid} still runs")


_ITEM = st.one_of(st.tuples(st.just("ok"), st.integers(0, 1000)),
                  st.tuples(st.just("nap"), st.sampled_from([0.0, 0.001, 0.01]), st.integers(0, 1000)),
                  st.tuples(st.just("die"), st.integers(1, 9)),
                  st.just(("hang",)))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.lists(_ITEM, min_size=1, max_size=30).filter(lambda xs: sum(x == ("hang",) for x in xs) <= 2),
       jobs=st.integers(1, 3), batch_weight=st.sampled_from([0, 3, 100]))
def test_batches_keep_the_order_and_fail_only_the_bad_items(items, jobs, batch_weight):
    finished: list[int] = []
    out = list(imap_ordered(_each, items, jobs=jobs, timeout=0.5, window=len(items), batch_weight=batch_weight,
                            on_done=lambda i, _res: finished.append(i)))
    assert out == [(i, _expected(it)) for i, it in enumerate(items)]
    assert sorted(finished) == list(range(len(items)))  # each item reported once, as it finished


def test_on_done_reports_items_as_they_finish_not_in_order():
    # Item 0 is slow: the others finish (and are reported) first, yet are yielded after it.
    items = [("nap", 1.0, 0)] + [("ok", i) for i in range(1, 6)]
    finished: list[int] = []
    out = list(imap_ordered(_each, items, jobs=2, window=len(items),
                            on_done=lambda i, _res: finished.append(i)))
    assert [i for i, _ in out] == list(range(6))
    assert finished[-1] == 0 and sorted(finished) == list(range(6))


# ----------------------------------------------------------------------------- files reported as they finish (issue 14)

def _inputs(tmp_path):
    from chunkctl.pipeline.inputs import InputFile

    out = []
    for i in range(12):
        p = tmp_path / f"n{i:02d}.md"
        p.write_text(f"# Note {i}\n\n" + "Some words to chunk. " * (i + 1) + "\n")
        out.append(InputFile(str(p), p.name, "md", p.stat().st_size))
    out.insert(3, InputFile(str(tmp_path / "x.bin"), "x.bin", None, 7))  # no loader: skipped
    out.insert(8, InputFile(str(tmp_path / "gone.md"), "gone.md", "md", 5))  # missing: fails
    return out


def test_run_reports_every_input_once_whatever_the_engine_path(tmp_path):
    from chunkctl.config import ChunkConfig
    from chunkctl.pipeline import run

    inputs = _inputs(tmp_path)
    config = ChunkConfig(chunk_size=64, overlap=0)
    outputs = []
    for jobs, timeout in ((1, 0), (1, 60), (2, 60)):  # this process; worker processes
        seen: list = []
        results = list(run(inputs, config, jobs=jobs, file_timeout=timeout, progress=seen.append))
        assert [r.source for r in results] == [i.source for i in inputs]  # yielded in input order
        assert sorted(r.source for r in seen) == sorted(i.source for i in inputs)  # each reported once
        assert [r.source for r in seen if r.skipped] == ["x.bin"] and seen[0].skipped  # known first
        assert [r.source for r in seen if r.error] == ["gone.md"]
        outputs.append(b"".join(r.lines for r in results))
    assert outputs[0] == outputs[1] == outputs[2]


def _result(nbytes, chunks=1, skipped=False, error=None, cached=False):
    from types import SimpleNamespace

    return SimpleNamespace(nbytes=nbytes, n_chunks=chunks, skipped=skipped, error=error, cached=cached)


def test_the_progress_display_counts_files_as_they_finish_and_skipped_ones_apart():
    from io import StringIO

    from rich.console import Console

    from chunkctl.cli.render import RunProgress

    now = [100.0]
    console = Console(file=StringIO(), force_terminal=True, width=160)
    bar = RunProgress(console, files=6, total_bytes=10_000_000, clock=lambda: now[0])
    with bar:
        assert bar.text() == ("0/6 files", "0 bytes/10.0 MB  0 chunks")  # no rate, no ETA before a file is done
        bar.done(_result(1_000_000, skipped=True))
        assert bar.text() == ("0/5 files", "0 bytes/9.0 MB  0 chunks  1 skipped")  # skipped: not work to do
        bar.done(_result(3_000_000, cached=True, chunks=7))
        now[0] += 5  # the workers start
        bar.done(_result(1_000_000, chunks=2))  # the rate counts from the first file processed
        assert bar.eta() is None  # a cache hit and a first file say nothing of the rate
        now[0] += 2
        bar.done(_result(2_000_000, chunks=5))
        bar.done(_result(0, chunks=0, error="x: took longer than 300 s"))
        files, info = bar.text()
        assert files == "4/5 files"
        assert info == "6.0 MB/9.0 MB  14 chunks  1 failed  1 skipped  1.0 MB/s, 1 files/s  ETA 0:03"
        shown = console.file.getvalue()
        assert "3/5 files" in shown and "4/5 files" not in shown  # redrawn at most every REDRAW seconds
        bar.redraw()
        assert "4/5 files" in console.file.getvalue()


def test_the_progress_display_counts_skips_known_before_the_run_once():
    from io import StringIO

    from rich.console import Console

    from chunkctl.cli.render import RunProgress

    console = Console(file=StringIO(), force_terminal=True, width=160)
    bar = RunProgress(console, files=6, total_bytes=10_000_000, clock=lambda: 100.0, skipped=2, skipped_bytes=3_000_000)
    with bar:
        assert bar.text() == ("0/4 files", "0 bytes/7.0 MB  0 chunks  2 skipped")  # from the first frame
        bar.done(_result(1_000_000, skipped=True))
        bar.done(_result(2_000_000, skipped=True))
        assert bar.text() == ("0/4 files", "0 bytes/7.0 MB  0 chunks  2 skipped")  # not counted again
        bar.done(_result(1_000_000, skipped=True))  # one more than was known
        assert bar.text() == ("0/3 files", "0 bytes/6.0 MB  0 chunks  3 skipped")


def _workers_env(_item):
    from chunkctl.pipeline.engines.local import WORKERS_ENV

    return os.environ.get(WORKERS_ENV)


def test_each_worker_knows_how_many_workers_share_the_cores(monkeypatch):
    """helper-47: two OCR workers on two cores each ran onnxruntime with a thread per core
    (--jobs 2 slower than --jobs 1); a worker now knows its pool's size, and OCR takes its share."""
    from chunkctl.loaders.pdf import ocr
    from chunkctl.pipeline.engines.local import WORKERS_ENV

    assert WORKERS_ENV not in os.environ  # set in the workers, never in the parent
    assert [r for _, r in imap_ordered(_workers_env, list(range(4)), 2)] == ["2"] * 4
    assert [r for _, r in imap_ordered(_workers_env, [0], 3)] == ["1"]  # (a pool of one item has one worker)
    assert WORKERS_ENV not in os.environ
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)
    for value, want in (("1", 4), ("2", 2), ("3", 1), ("8", 1), ("0", 4), ("x", 4)):
        monkeypatch.setenv(WORKERS_ENV, value)
        assert ocr.threads() == want, value
    monkeypatch.delenv(WORKERS_ENV)
    assert ocr.threads() == 4
