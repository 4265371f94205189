"""Worker processes that map a function over items in order, killing and replacing a worker stuck on one item; no chunking logic."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from chunkctl.errors import ChunkctlError

# NOTE: a worker is a plain fork of this process when it runs no other thread: it
# starts at once and inherits the loaded tokenizer (no warm-up). With other threads
# alive (a library user's application), forking could copy a lock some thread holds,
# so workers come from a forkserver instead: a clean process that imports the
# mapped function's module once and forks each worker from there.


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


def _serve(conn: Connection, fn: Callable[[Any], Any], init: Callable[[], None] | None) -> None:
    """Worker main loop: warm up, say ready, then answer (key, item) with (key, fn(item)) until told to stop."""
    # Ctrl-C reaches the whole foreground process group; the parent alone decides
    # what to do about it and stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    if init is not None:
        try:
            init()
        except Exception:  # the first item will meet the same problem and report it
            pass
    conn.send(("ready", None))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        key, item = msg
        try:
            result: Any = fn(item)
        except Exception as exc:
            result = TaskFailure("error", f"{exc.__class__.__name__}: {exc}")
        conn.send((key, result))


class _Worker:
    """One worker process, its end of the pipe and the item it is busy with."""

    def __init__(self, ctx: Any, fn: Callable[[Any], Any], init: Callable[[], None] | None):
        # A forked child flushes the standard streams when it ends: they must hold
        # nothing of the parent's, or that output would be written twice.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, OSError, ValueError):
                pass
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_serve, args=(child, fn, init), daemon=True)
        self.proc.start()
        child.close()
        self.ready = False
        self.task: int | None = None
        self.deadline = float("inf")

    def send(self, key: int, item: Any, timeout: float | None) -> None:
        self.conn.send((key, item))
        self.task = key
        self.deadline = time.monotonic() + timeout if timeout else float("inf")

    def stop(self, kill: bool) -> None:
        """Ask an idle worker to exit, or kill a busy one; reap it either way."""
        if kill or self.task is not None:
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


def imap_ordered(fn: Callable[[Any], Any], items: Sequence[Any], jobs: int, timeout: float | None = None,
                 weight: Callable[[Any], float] | None = None, init: Callable[[], None] | None = None,
                 window: int | None = None, ahead: float = 0) -> Generator[tuple[int, Any], None, None]:
    """Apply `fn` to every item in worker processes; yield `(index, result)` in item order.

    Each worker holds one item at a time. A worker still busy `timeout` seconds after
    it got its item is killed and replaced, and the item's result is a
    `TaskFailure("timeout", ...)`; a worker that dies gives `TaskFailure("crashed", ...)`.
    Items are dispatched ahead of the next result to yield: the next `window` items,
    and further while the items waiting or running weigh at most `ahead` in all (so
    one slow big item does not idle the other workers, yet memory stays bounded).
    Among those, the heaviest (by `weight`, e.g. file size) goes first, so a big file
    does not start last; results are still yielded in order.

    Stopping early (closing the generator, an exception such as KeyboardInterrupt)
    kills busy workers and stops idle ones before it returns: no process outlives it.

    Args:
        fn: picklable function of one item (a module-level function or a
            `functools.partial` of one); it should not raise.
        items: picklable items.
        jobs: number of worker processes (started as needed, at most `len(items)`).
        timeout: seconds one item may take, counted from when a warm worker gets it;
            None or 0: no limit.
        weight: cost estimate of an item; defaults to equal costs.
        init: picklable function each worker runs once before its first item (warm-up,
            e.g. loading the tokenizer), outside the time limit.
        window: items dispatched ahead of the next result at least; defaults to `8 * jobs`.
        ahead: total weight the items dispatched ahead may have beyond `window`
            (e.g. 64 MB of input). Defaults to 0: `window` alone.

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
    waiting: list[int] = []  # dispatchable indices, inside the window
    next_out = next_in = 0
    load = 0.0  # weight of the items admitted and not yet yielded
    weigh = weight or (lambda _item: 1.0)

    failed_starts = 0

    def replace(w: _Worker) -> None:
        nonlocal failed_starts
        if not w.ready:
            failed_starts += 1
            if failed_starts > 3:
                raise ChunkctlError("worker processes die as they start; run with --jobs 1 --file-timeout 0 "
                                    "to see why")
        w.stop(kill=True)
        workers.remove(w)

    try:
        while next_out < n:
            while next_out in results:
                load -= weigh(items[next_out])
                yield next_out, results.pop(next_out)
                next_out += 1
            if next_out >= n:
                break
            while next_in < n and (next_in < next_out + window or load + weigh(items[next_in]) <= ahead):
                waiting.append(next_in)
                load += weigh(items[next_in])
                next_in += 1
            while len(workers) < jobs and len(workers) < len(waiting) + sum(w.task is not None for w in workers):
                workers.append(_Worker(ctx, fn, init))
            for w in workers:
                if w.ready and w.task is None and waiting:
                    pick = max(waiting, key=lambda i: weight(items[i])) if weight else waiting[0]
                    waiting.remove(pick)
                    w.send(pick, items[pick], timeout)
            now = time.monotonic()
            deadline = min((w.deadline for w in workers if w.task is not None), default=float("inf"))
            handles: list[Any] = [w.conn for w in workers] + [w.proc.sentinel for w in workers]
            ready = set(wait(handles, timeout=None if deadline == float("inf") else max(0.0, deadline - now)))
            now = time.monotonic()
            for w in list(workers):
                if w.conn in ready:
                    try:
                        key, result = w.conn.recv()
                    except (EOFError, OSError):
                        key, result = w.task, None
                    if key == "ready":
                        w.ready = True
                        continue
                    if key is not None and result is not None:
                        results[key] = result
                        w.task = None
                        w.deadline = float("inf")
                        continue
                if w.proc.sentinel in ready or (w.conn in ready and not w.proc.is_alive()):
                    w.proc.join(1)
                    if w.task is not None:
                        code = w.proc.exitcode
                        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                        results[w.task] = TaskFailure("crashed", f"the worker process died ({how})")
                        w.task = None
                    replace(w)
                elif w.task is not None and now >= w.deadline:
                    results[w.task] = TaskFailure("timeout", f"took longer than {timeout:g} s")
                    w.task = None
                    replace(w)
    finally:
        for w in workers:
            w.stop(kill=w.task is not None)


def cpu_count() -> int:
    """Cores this process may run on (the affinity mask where the system has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1
