"""The worker pool: order, a stuck item killed and replaced, a dying worker, an early stop that leaves no process."""

from __future__ import annotations

import os
import time

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
