"""Worker processes that map a function over items in order, killing and replacing a worker stuck on one item; no chunking logic."""

from __future__ import annotations

import heapq
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from chunkctl.allocator import return_freed_memory
from chunkctl.cores import WORKERS_ENV
from chunkctl.errors import ChunkctlError

# NOTE: a worker is a plain fork of this process when it runs no other thread: it
# starts at once and inherits the loaded tokenizer (no warm-up). With other threads
# alive (a library user's application), forking could copy a lock some thread holds,
# so workers come from a forkserver instead: a clean process that imports the
# mapped function's module once and forks each worker from there.

MAX_BATCH = 64
"""Most items one message to a worker holds (see `batch_weight`)."""
FLUSH = 0.05
"""Seconds: a worker on a batch sends the answers it has when this long has passed since it last sent some."""


@dataclass(frozen=True)
class TaskFailure:
    """Why an item produced no result.

    Attributes:
        kind: "timeout" (killed after the time limit), "crashed" (the worker died,
            e.g. a segfault in a native library or the kernel's out-of-memory killer),
            or "error" (the function raised; it should not).
        message: one line for the user, e.g. "took longer than 300 s".
    """

    kind: str
    message: str


def _die_with_parent() -> None:
    """Linux: have the kernel send SIGTERM to this worker when its parent dies, even by SIGKILL.

    Otherwise a worker whose parent was killed stays blocked sending a result nobody reads.
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _serve(conn: Connection, fn: Callable[[Any], Any], init: Callable[[], None] | None, now: Any,
           workers: int = 1) -> None:
    """Worker main loop: warm up, say ready, then take batches [(key, item), ...] and answer them
    with [(key, fn(item)), ...], until told to stop.

    The answers of a batch go back in order, in one message, or in several when the
    batch takes longer than FLUSH (so little is lost when a later item hangs). Before
    each item it writes (key, start time) into `now`, memory it shares with the parent:
    the parent knows which item runs and since when without a message per item.
    """
    # Ctrl-C reaches the whole foreground process group; the parent alone decides
    # what to do about it and stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    os.environ[WORKERS_ENV] = str(workers)  # (this process's environment only)
    return_freed_memory()  # (a forked worker has it already; one from a forkserver does not)
    if init is not None:
        try:
            init()
        except Exception:  # the first item will meet the same problem and report it
            pass
    conn.send(("ready", None))
    clock = time.monotonic
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        answers: list[tuple[int, Any]] = []
        sent = clock()
        for key, item in msg:
            now[_START] = clock()  # the start first: a parent that sees the new key sees its start
            now[_KEY] = key
            try:
                result: Any = fn(item)
            except Exception as exc:
                result = TaskFailure("error", f"{exc.__class__.__name__}: {exc}")
            answers.append((key, result))
            if clock() - sent >= FLUSH:
                now[_START] = _IDLE  # sending is no item's time (the parent may be busy elsewhere)
                _answer(conn, answers)
                answers = []
                sent = clock()
        if answers:  # (else the last flush sent them all, and after it the parent may have written `now`)
            now[_START] = _IDLE
            _answer(conn, answers)


def _answer(conn: Connection, answers: list[tuple[int, Any]]) -> None:
    try:
        conn.send(answers)
    except Exception:  # a result that cannot be pickled: the others still go back
        import pickle

        for i, (key, result) in enumerate(answers):
            try:
                pickle.dumps(result)
            except Exception as exc:
                answers[i] = (key, TaskFailure("error", f"its result cannot be sent back: "
                                                        f"{exc.__class__.__name__}: {exc}"))
        conn.send(answers)


_KEY, _START = 0, 1
"""Slots of a worker's shared `now` array: the key of the item it runs, and when it started it (time.monotonic)."""
_IDLE = float("inf")


class _Worker:
    """One worker process, its end of the pipe, the batch it was sent and what it runs now."""

    def __init__(self, ctx: Any, fn: Callable[[Any], Any], init: Callable[[], None] | None, workers: int = 1):
        # A forked child flushes the standard streams when it ends: they must hold
        # nothing of the parent's, or that output would be written twice.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        self.now = ctx.RawArray("d", [-1.0, _IDLE])
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_serve, args=(child, fn, init, self.now, workers), daemon=True)
        self.proc.start()
        child.close()
        self.ready = False
        self.batch: deque[int] = deque()  # keys sent and not answered yet, in the order the worker runs them

    def send(self, keys: list[int], items: Sequence[Any]) -> None:
        """Send an idle worker a batch; its first item's time starts now."""
        self.now[_KEY] = keys[0]
        self.now[_START] = time.monotonic()
        self.batch = deque(keys)
        self.conn.send([(k, items[k]) for k in keys])

    def started(self) -> float:
        """When the item it runs now started (time.monotonic), or inf when it runs none."""
        return self.now[_START] if self.batch else _IDLE

    def culprit(self, limit: float | None) -> int | None:
        """Once it is stopped and its answers are read: the key of the item it was stopped on.

        For a timeout (`limit`), the item it ran over the limit on; None when it had
        just moved on to an item that started less than `limit` ago (the one over it
        finished in the meantime). For a crash, the item it ran, or else the next one
        of its batch (something must fail, or the batch would be tried for ever).
        """
        key = int(self.now[_KEY])
        started = self.now[_START]
        if limit is not None:
            over = started == _IDLE or time.monotonic() - started >= limit
            return key if over and key in self.batch else None
        return key if key in self.batch else self.batch[0]

    def stop(self, kill: bool) -> None:
        """Ask an idle worker to exit, or kill a busy one; reap it either way."""
        if kill or self.batch:
            self.proc.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                self.proc.kill()
        self.proc.join(2)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(2)
        self.conn.close()


def _context(fn: Callable[[Any], Any]) -> Any:
    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return mp.get_context("fork")
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        module = getattr(getattr(fn, "func", fn), "__module__", None)  # a functools.partial or a function
        ctx.set_forkserver_preload([module] if module else [])
        return ctx
    return mp.get_context("spawn")


def _take(waiting: list[tuple[float, int]], weights: dict[int, float], batch_weight: float, cap: int) -> list[int]:
    """Pop the next message's items off the `waiting` heap: one heavy item, or light ones
    (priority 0, in index order) while there are at most `cap` weighing at most `batch_weight`."""
    _, first = heapq.heappop(waiting)
    keys = [first]
    total = weights[first]
    if total > batch_weight:
        return keys
    while waiting and len(keys) < cap and waiting[0][0] == 0.0:
        i = waiting[0][1]
        if total + weights[i] > batch_weight:
            break
        heapq.heappop(waiting)
        keys.append(i)
        total += weights[i]
    return keys


def imap_ordered(fn: Callable[[Any], Any], items: Sequence[Any], jobs: int, timeout: float | None = None,
                 weight: Callable[[Any], float] | None = None, init: Callable[[], None] | None = None,
                 window: int | None = None, ahead: float = 0, batch_weight: float = 0,
                 on_done: Callable[[int, Any], None] | None = None) -> Generator[tuple[int, Any], None, None]:
    """Apply `fn` to every item in worker processes; yield `(index, result)` in item order.

    Items are dispatched ahead of the next result to yield: the next `window` items,
    and further while the items waiting or running weigh at most `ahead` in all (so
    one slow big item does not idle the other workers, yet memory stays bounded).
    Among those, heavy items (by `weight`, e.g. file size) go first, heaviest first,
    so a big file does not start last; light ones (see `batch_weight`) go in item
    order. Results are still yielded in order.

    A worker gets one item at a time, or a batch of light items in one message and
    answers them in one message (see `batch_weight`). Each item has its own time
    limit all the same: the worker notes in memory it shares with this process which
    item it runs and since when, and a worker still on one item `timeout` seconds
    after it started it is killed and replaced; that item's result is a
    `TaskFailure("timeout", ...)`. A worker that dies gives `TaskFailure("crashed",
    ...)` for the item it was running. The other items of its batch, done or not, are
    sent to workers again (`fn` must give the same result twice).

    Stopping early (closing the generator, an exception such as KeyboardInterrupt)
    kills busy workers and stops idle ones before it returns: no process outlives it.

    Args:
        fn: picklable function of one item (a module-level function or a
            `functools.partial` of one); it should not raise.
        items: picklable items.
        jobs: number of worker processes (started as needed, at most `len(items)`).
        timeout: seconds one item may take, counted from when a warm worker starts it;
            None or 0: no limit.
        weight: cost estimate of an item; defaults to equal costs (1).
        init: picklable function each worker runs once before its first item (warm-up,
            e.g. loading the tokenizer), outside the time limit.
        window: items dispatched ahead of the next result at least; defaults to `8 * jobs`.
        ahead: total weight the items dispatched ahead may have beyond `window`
            (e.g. 64 MB of input). Defaults to 0: `window` alone.
        batch_weight: items weighing at most this are light: one message holds several
            of them (at most MAX_BATCH, at most half a worker's share of the items
            waiting, and weighing at most `batch_weight` together), which saves two
            messages per item when items are many and quick. Defaults to 0: one item
            per message.
        on_done: called with `(index, result)` for each item as its answer arrives, in
            the order items finish (e.g. for a progress display), before the item is
            yielded in order.

    Yields:
        (index into `items`, fn's result or a TaskFailure).
    """
    n = len(items)
    if n == 0:
        return
    jobs = max(1, min(jobs, n))
    window = max(window or 8 * jobs, jobs)
    ctx = _context(fn)
    workers: list[_Worker] = []
    results: dict[int, Any] = {}
    weights: dict[int, float] = {}  # of the items admitted and not yet yielded
    waiting: list[tuple[float, int]] = []  # heap of (priority, index) of the items to dispatch
    next_out = next_in = 0
    load = 0.0  # weight of the items admitted and not yet yielded
    failed_starts = 0
    weigh = weight or (lambda _item: 1.0)
    limit = timeout or _IDLE

    def queue(i: int) -> None:
        w = weights[i]
        heapq.heappush(waiting, (-w if w > batch_weight else 0.0, i))  # heavy first, then light in order

    def finish(i: int, result: Any) -> None:
        results[i] = result
        if on_done is not None:
            on_done(i, result)

    def over(w: _Worker) -> bool:
        return time.monotonic() >= w.started() + limit

    def drain(w: _Worker) -> bool:
        """Take the answers `w` has sent; False when its pipe is closed (the worker died)."""
        try:
            while w.conn.poll():
                answers = w.conn.recv()
                if answers[0] == "ready":
                    w.ready = True
                    continue
                for key, result in answers:
                    w.batch.popleft()  # == key: answers come in the order the items were sent
                    finish(key, result)
        except (EOFError, OSError):
            return False
        return True

    def retire(w: _Worker, failure: TaskFailure, timed_out: float | None = None) -> None:
        """Drop a dead or stuck worker: the item it was on gets `failure`, the rest of its batch goes back."""
        nonlocal failed_starts
        if not w.ready:
            failed_starts += 1
            if failed_starts > 3:
                raise ChunkctlError("worker processes die as they start; run with --jobs 1 --file-timeout 0 "
                                    "to see why")
        w.proc.kill()  # first: what it runs and what it sent do not change any more
        w.proc.join(2)
        drain(w)
        if w.batch:
            key = w.culprit(timed_out)
            for i in w.batch:
                if i != key:
                    queue(i)
            if key is not None:
                finish(key, failure)
            w.batch.clear()
        w.stop(kill=True)
        workers.remove(w)

    try:
        while next_out < n:
            while next_out in results:
                load -= weights.pop(next_out)
                yield next_out, results.pop(next_out)
                next_out += 1
            if next_out >= n:
                break
            while next_in < n and (next_in < next_out + window or load + weigh(items[next_in]) <= ahead):
                weights[next_in] = weigh(items[next_in])
                load += weights[next_in]
                queue(next_in)
                next_in += 1
            wanted = min(jobs, len(waiting) + sum(1 for w in workers if w.batch))
            while len(workers) < wanted:
                workers.append(_Worker(ctx, fn, init, jobs))
            for w in workers:
                if w.ready and not w.batch and waiting:
                    # At most half a worker's share of what waits, so that the workers finish together.
                    cap = min(MAX_BATCH, len(waiting) // (2 * jobs)) if batch_weight > 0 else 1
                    w.send(_take(waiting, weights, batch_weight, cap), items)
            deadline = min((w.started() for w in workers), default=_IDLE) + limit
            handles: list[Any] = [w.conn for w in workers] + [w.proc.sentinel for w in workers]
            wake = None if deadline == _IDLE else max(0.0, deadline - time.monotonic())
            ready = set(wait(handles, timeout=wake))
            for w in list(workers):
                alive = True
                if w.conn in ready or w.proc.sentinel in ready:
                    alive = drain(w) and w.proc.sentinel not in ready
                if not alive:
                    w.proc.join(1)
                    code = w.proc.exitcode
                    how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                    retire(w, TaskFailure("crashed", f"the worker process died ({how})"))
                elif over(w) and drain(w) and over(w):  # an answer that came just in time counts
                    retire(w, TaskFailure("timeout", f"took longer than {timeout:g} s"), limit)
    finally:
        for w in workers:
            w.stop(kill=bool(w.batch))
