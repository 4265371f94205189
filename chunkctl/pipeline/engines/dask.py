"""The Dask engine: a function it is given mapped over Dask futures (one per item, or per group of small items), answers in input order; needs the `dask` extra."""

from __future__ import annotations

import contextlib
import logging
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any, TypeVar

from chunkctl.errors import ChunkctlError, ConfigError, MissingExtraError
from chunkctl.pipeline.engines.local import TaskFailure

T = TypeVar("T")
R = TypeVar("R")

# At most BATCH_FILES items, weighing about BATCH_BYTES in all (their `size`), are in
# flight at a time: the client and the workers hold a bounded amount of results.
BATCH_BYTES = 64_000_000
BATCH_FILES = 256
GROUP_FILES = 32
GROUP_BYTES = 1_000_000
GROUPS_A_THREAD = 4
"""Consecutive items of up to GROUP_BYTES of `weight` in all, at most GROUP_FILES of them, run as one
Dask task: each future costs the scheduler and the client some milliseconds, so 2,000 files of a few
lines took 12.4 s on a local cluster against 1.5 s with the local engine (helper-114: 29 s against 2 s).
A group holds fewer items when the run has fewer than GROUPS_A_THREAD groups of GROUP_FILES for each
worker thread (every thread keeps work: 64 small files on 16 threads are 64 tasks). A group that fails
or whose worker dies is run again item by item, each alone."""

WORKER_WAIT = 60.0
"""Seconds to wait for a first worker, or for any worker while none is left, before giving up."""
WORKER_WAIT_ENV = "CHUNKCTL_DASK_WORKER_WAIT"
"""Environment variable that overrides WORKER_WAIT (seconds)."""
ALLOWED_FAILURES = 0
"""`distributed.scheduler.allowed-failures` of the local cluster this engine starts.

With 0 the scheduler gives up on every item a dying worker held at once; this engine
then runs each of them again alone, nothing else running, so only an item that itself
kills workers fails: it kills two workers in all. A scheduler started by the user keeps
its own setting; with Dask's default 3 it gives up on an item after four workers died
running it, and the engine reports that item failed without a further try.
"""

_POLL = 0.5  # seconds between checks that the cluster still has workers
_QUIET_LOGGERS = ("distributed", "tornado", "asyncio")


def check() -> None:
    """Raise MissingExtraError when dask or distributed is not installed."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise MissingExtraError("--engine dask", "dask", "dask[bag] distributed") from None


NETWORK_SCHEMES = ("tcp", "tls", "ws", "wss")
"""Schemes of a scheduler address chunkctl connects to (helper-114: inproc:// and ucx:// ended in the
library's own errors, "not enough values to unpack" and an abstract class)."""


def check_scheduler(address: str) -> None:
    """Check the form of a scheduler address ("tcp://host:8786", "host:8786", "tls://..."), without connecting.

    Raises:
        MissingExtraError: the `dask` extra is not installed.
        ConfigError: not a scheduler address (an unknown scheme such as http://, no
            host, no port, a port that is not a number from 1 to 65535), in one line
            naming `--scheduler`.
    """
    check()
    from distributed.comm import parse_address
    from distributed.comm.registry import backends

    def bad(reason: str) -> ConfigError:
        return ConfigError(f"--scheduler {address}: not a scheduler address ({reason}); give the address "
                           "`dask scheduler` prints, e.g. tcp://10.0.0.5:8786")

    scheme, location = parse_address(address) if address.strip() else ("tcp", "")
    if scheme not in backends:
        raise bad(f"unknown scheme {scheme}://; known: {', '.join(s + '://' for s in sorted(backends))}")
    if scheme not in NETWORK_SCHEMES:  # (inproc:// is one process's own; ucx:// needs UCX, which the extra lacks)
        raise bad(f"{scheme}:// does not reach a scheduler of another process here; "
                  f"use {', '.join(s + '://' for s in NETWORK_SCHEMES)}")
    if scheme in ("tcp", "tls", "ws", "wss"):
        host, sep, port = location.rpartition(":")
        if not sep or not host.strip("[]"):
            raise bad("expected HOST:PORT" if location else "empty")
        if not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
            raise bad(f"port {port!r} is not a number from 1 to 65535")
        if ":" in host and not host.startswith("["):
            raise bad("an IPv6 host goes in brackets, e.g. tcp://[::1]:8786")


PROBE_TIMEOUT = 20.0
"""Seconds a `tcp://` scheduler address gets to accept a connection and send its first bytes."""


def probe_scheduler(address: str, timeout: float = PROBE_TIMEOUT) -> None:
    """Check that a `tcp://` address (or bare HOST:PORT) answers as a Dask scheduler, before the client connects.

    A scheduler writes its handshake as soon as it accepts a connection: an 8-byte
    length, then msgpack frames naming its `compression` and `pickle-protocol`.
    distributed's client waits for those bytes without a limit, so an HTTP server (the
    dashboard's port 8787 given for the scheduler's 8786) kept the run waiting without a
    word, and a server that answers other bytes made it allocate what they claimed.
    Other schemes (tls, ws, wss) are left to distributed.

    Raises:
        ConfigError: one line naming `--scheduler` and what was wrong.
    """
    import socket

    from distributed.comm import parse_address

    scheme, location = parse_address(address)
    if scheme != "tcp":
        return
    host, _sep, port = location.rpartition(":")
    head = b""
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as sock:
            sock.settimeout(timeout)
            while len(head) < 64 and b"compression" not in head:
                piece = sock.recv(64 - len(head))
                if not piece:
                    break
                head += piece
    except TimeoutError:
        if head:
            raise ConfigError(f"--scheduler {address}: the server there does not answer as a Dask scheduler") \
                from None
        raise ConfigError(f"--scheduler {address}: no answer as a Dask scheduler within {timeout:g} s (is it "
                          "another server, such as the dashboard's port? the scheduler's is the one "
                          "`dask scheduler` prints, 8786 by default)") from None
    except OSError as exc:
        raise ConfigError(f"--scheduler {address}: cannot connect ({exc.strerror or exc})") from None
    if b"compression" not in head and b"pickle-protocol" not in head:
        raise ConfigError(f"--scheduler {address}: the server there does not answer as a Dask scheduler")


def _chunkctl_version() -> str:
    from chunkctl.__about__ import __version__

    return __version__


def check_worker_versions(client: Any, scheduler: str) -> None:
    """Refuse workers that run another chunkctl than this command: their records would say
    (and be) another version's (`meta.version`), silently mixed with this one's.

    Asks each worker that has joined (`Client.run`); a worker without chunkctl counts as
    a mismatch too.

    Raises:
        ConfigError: one line naming the versions found and how many workers run each.
    """
    mine = _chunkctl_version()
    try:
        found = client.run(_chunkctl_version)
    except Exception as exc:  # (a worker that cannot import chunkctl)
        raise ConfigError(f"--scheduler {scheduler}: a worker cannot run chunkctl ({exc.__class__.__name__}: "
                          f"{exc}); install chunkctl {mine} on every worker") from None
    versions = sorted(set(found.values()))
    if versions != [mine]:
        counts = ", ".join(f"{v} on {sum(x == v for x in found.values())}" for v in versions)
        raise ConfigError(f"--scheduler {scheduler}: the workers run chunkctl {counts} of {len(found)}, this "
                          f"command {mine}: their records would carry another version; install {mine} on "
                          "every worker (or restart them after an upgrade)")


def worker_wait() -> float:
    """Seconds to wait for workers: the CHUNKCTL_DASK_WORKER_WAIT environment variable, else WORKER_WAIT (60).

    Raises:
        ConfigError: the variable is set but not a positive number of seconds.
    """
    raw = os.environ.get(WORKER_WAIT_ENV, "").strip()
    if not raw:
        return WORKER_WAIT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise ConfigError(f"{WORKER_WAIT_ENV}={raw!r}: give a positive number of seconds")
    return value


def _quiet() -> None:
    """Silence distributed's, tornado's and asyncio's loggers: the run stops on an interrupt or an error.

    Their shutdown noise (pending tasks, closed comms, reconnection attempts) would
    otherwise bury the one-line message, partly after this function returns (when
    abandoned tasks are collected), so the levels are not restored.
    """
    for name in _QUIET_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.CRITICAL + 1)
        for h in logger.handlers:
            h.setLevel(logging.CRITICAL + 1)


def _killed(exc: BaseException) -> bool:
    from distributed import KilledWorker

    return isinstance(exc, KilledWorker)


class _Runner:
    """The futures of one run: submission, waiting with a watch on the workers, outcomes."""

    def __init__(self, client: Any, fn: Callable[[Any], Any], scheduler: str | None, wait: float):
        self.client = client
        self.fn = fn
        self.remote = bool(scheduler)
        self.where = scheduler or "a local cluster"
        self.wait = wait

    def submit(self, item: Any) -> Any:
        # pure=False: a new key each time (a lone retry must not reuse the failed key);
        # retries=0: a result or an exception, never a silent second run.
        return self.client.submit(self.fn, item, pure=False, retries=0)

    def submit_group(self, items: Sequence[Any]) -> Any:
        """One future for `fn` over several items (`_each`): a list of their results."""
        return self.client.submit(_each, self.fn, list(items), pure=False, retries=0)

    def settle(self, futures: Sequence[Any]) -> None:
        """Wait until `futures` are finished, erred or cancelled.

        Raises:
            ChunkctlError: the cluster had no worker for `wait` seconds meanwhile.
        """
        left = [f for f in futures if not f.done()]
        if not left:
            return
        wake = threading.Event()
        for f in left:
            f.add_done_callback(lambda _: wake.set())
        idle_since: float | None = None
        while True:
            woken = wake.wait(_POLL)
            wake.clear()
            left = [f for f in left if not f.done()]
            if not left:
                return
            if woken:
                continue
            idle_since = self._idle(idle_since)

    def outcome(self, future: Any) -> tuple[str, Any]:
        """What became of a settled future, and the future released.

        Returns:
            ("ok", result); ("killed", KilledWorker) when workers died running it;
            ("lost", exception) when its result could not be fetched (a worker's
            connection dropped); ("failed", TaskFailure) when `fn` raised or the
            scheduler cancelled it.

        Raises:
            ChunkctlError: the connection to the scheduler was lost.
        """
        from distributed import CancelledError

        try:
            return "ok", self._result(future)
        except ChunkctlError:
            raise
        except CancelledError:
            self.connected()
            return "failed", TaskFailure("error", "cancelled by the Dask scheduler")
        except Exception as exc:
            if future.status != "error":  # the task finished; fetching its result failed
                self.connected()
                return "lost", exc
            if _killed(exc):
                return "killed", exc
            return "failed", TaskFailure("error", f"{exc.__class__.__name__}: {exc}")
        finally:
            future.release()

    def _result(self, future: Any) -> Any:
        """`future.result()`, waiting only while the cluster has workers: a finished task whose
        worker died before its result was fetched is run again, and with no worker left
        that wait had no end (a helper's find: silent until killed).

        Raises:
            ChunkctlError: no worker (or no scheduler) for `wait` seconds meanwhile.
            whatever `future.result()` raises.
        """
        idle_since: float | None = None
        limit = max(self.wait, 5.0)  # (an attempt that times out starts the fetch over: each may take twice as long)
        while True:
            try:
                return future.result(timeout=limit)
            except TimeoutError:
                limit *= 2
            idle_since = self._idle(idle_since)
            if idle_since is not None:  # no worker now: look again within `wait`, not after the next long attempt
                limit = min(limit, max(self.wait / 4, _POLL))

    def _idle(self, since: float | None) -> float | None:
        """When the cluster has been without workers since (None: it has some now).

        Raises:
            ChunkctlError: no worker, or no scheduler, for `wait` seconds.
        """
        try:
            workers = len(self.client.nthreads()) if self.client.status == "running" else -1
        except Exception:  # the scheduler went away in the meantime
            workers = -1
        if workers > 0:
            return None
        now = time.monotonic()
        since = since or now
        if now - since < self.wait:
            return since
        if workers < 0:
            raise ChunkctlError(f"lost the connection to the Dask scheduler ({self.where})")
        raise ChunkctlError(f"the Dask cluster ({self.where}) has had no workers for {self.wait:g} s "
                            "(they died or left); start some with `dask worker`")

    def connected(self) -> None:
        """Raise ChunkctlError when the client lost its scheduler (the run's futures are gone with it)."""
        if self.client.status != "running":
            raise ChunkctlError(f"lost the connection to the Dask scheduler ({self.where})")


def _crashed(exc: BaseException, deaths: int, remote: bool) -> TaskFailure:
    last = getattr(getattr(exc, "last_worker", None), "address", None) or "unknown"
    why = "; that worker's log says why, e.g. over its --memory-limit" if remote else ""
    return TaskFailure("crashed", f"the worker process died ({deaths} Dask workers died while running it, "
                                  f"the last {last}{why})")


def _deaths(exc: BaseException) -> int:
    return int(getattr(exc, "allowed_failures", 0)) + 1


def _each(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    """`fn` over `items`, in order (the task of a group of items: GROUP_FILES)."""
    return [fn(item) for item in items]


def _groups(items: Sequence[T], weight: Callable[[T], float], most: int = GROUP_FILES
            ) -> list[tuple[int, int, float]]:
    """`items` as runs of consecutive items for one task each: (start, end, weight), at most
    `most` items and GROUP_BYTES of weight a run (an item heavier than that alone)."""
    out: list[tuple[int, int, float]] = []
    start, load = 0, 0.0
    for i, item in enumerate(items):
        w = max(0.0, float(weight(item) or 0))
        if i > start and (i - start >= most or load + w > GROUP_BYTES):
            out.append((start, i, load))
            start, load = i, 0.0
        load += w
    if items:
        out.append((start, len(items), load))
    return out


def _map(runner: _Runner, items: Sequence[T], weight: Callable[[T], float], threads: int = 1,
         group: bool = True) -> Iterator[Any]:
    """Yield one outcome per item, in order: results, or TaskFailures (see map_ordered); with
    `group`, small items in groups (GROUP_FILES) sized for `threads` worker threads."""
    most = max(1, min(GROUP_FILES, len(items) // (GROUPS_A_THREAD * max(1, threads)))) if group else 1
    groups = _groups(items, weight, most)
    pending: deque[tuple[int, Any, float]] = deque()  # (group, future, weight), in input order
    load = 0.0
    files = 0
    nxt = 0
    while pending or nxt < len(groups):
        while nxt < len(groups) and (not pending or (files < BATCH_FILES and load < BATCH_BYTES)):
            a, b, w = groups[nxt]
            pending.append((nxt, runner.submit(items[a]) if b - a == 1 else runner.submit_group(items[a:b]), w))
            load += w
            files += b - a
            nxt += 1
        g, future, w = pending[0]
        a, b, _w = groups[g]
        runner.settle([future])
        kind, value = runner.outcome(future)
        if kind == "ok" and b - a > 1:
            yield from value
        elif kind == "ok" or (b - a == 1 and kind == "failed"):
            yield value
        else:
            # A worker that dies fails every item it held (at once with allowed-failures
            # 0; after that many + 1 deaths under a scheduler's own setting, which an
            # item beside a killer can reach too). Run each item again alone, nothing else
            # running, so that only an item that itself kills workers fails; the same
            # for a result that was lost, or a group in which `fn` raised.
            runner.settle([f for _, f, _ in list(pending)[1:]])
            deaths = _deaths(value) if kind == "killed" else 0
            for i in range(a, b):
                retry = runner.submit(items[i])
                runner.settle([retry])
                kind, one = runner.outcome(retry)
                if kind == "killed":
                    one = _crashed(one, deaths + _deaths(one), runner.remote)
                elif kind == "lost":
                    one = TaskFailure("error", f"its result could not be fetched from the Dask workers "
                                               f"({one.__class__.__name__}: {one})")
                yield one
        pending.popleft()
        load -= w
        files -= b - a


def map_ordered(fn: Callable[[T], R], items: Sequence[T], scheduler: str | None = None, workers: int = 2,
                weight: Callable[[T], float] | None = None, wait: float | None = None, group: bool = True
                ) -> Generator[R | TaskFailure, None, None]:
    """Map `fn` over `items` on a Dask cluster and yield one answer per item, in input order.

    The engine knows nothing of chunking: the pipeline gives it the per-file function
    (`chunkctl.pipeline.run.process_file` with the run's options bound), which never
    raises for a bad file, so the records are byte-identical to the local engine's.
    Workers run `fn` on the items as they are: paths in them are opened on the workers
    (give absolute paths, on a file system every worker sees at the same place).

    Each item is one future (`retries=0`), or a group of small consecutive items is
    (GROUP_FILES, GROUP_BYTES). When a worker dies (killed, out of memory, a
    crash in a native library), the scheduler runs the items it held elsewhere, up to
    its `allowed-failures` setting (ALLOWED_FAILURES on the local cluster); an item (or
    each item of a group) it gives up on after a single death is run again alone,
    nothing else running. An item that still kills its worker gets
    `TaskFailure("crashed", "the worker process died (...)")` and the run goes on. An
    item whose `fn` raises gets `TaskFailure("error", ...)` (in a group, once run again
    alone). At most BATCH_FILES items, about BATCH_BYTES of `weight` in all, are in
    flight at a time; results are fetched in input order and released at once.

    Args:
        fn: a picklable function of one item, importable on the workers.
        items: the items (picklable).
        scheduler: address of a running scheduler ("tcp://host:8786"); None starts a
            local cluster of `workers` processes on this machine for the run (with
            `distributed.scheduler.allowed-failures` ALLOWED_FAILURES, 0).
        workers: processes of the local cluster.
        weight: an item's weight in bytes for the in-flight bound; defaults to its
            `size` attribute (0 without one).
        wait: seconds to wait for a first worker, and for a worker while the cluster has
            none left; None: `worker_wait()` (CHUNKCTL_DASK_WORKER_WAIT, else 60).
        group: run small consecutive items in groups (GROUP_FILES); False for items that
            take long whatever their weight (a model called for each).

    Yields:
        `fn(item)`, or a TaskFailure, for each item in input order.

    Raises:
        MissingExtraError: the `dask` extra is not installed.
        ConfigError: `scheduler` is not a scheduler address, cannot be reached, or no
            worker joined it within `wait` seconds.
        ChunkctlError: the cluster lost all its workers for `wait` seconds during the
            run, or the connection to the scheduler was lost.
    """
    check()
    if scheduler:
        check_scheduler(scheduler)
    wait = worker_wait() if wait is None else wait
    weigh = weight or (lambda item: getattr(item, "size", 0) or 0)
    if not items:
        return
    import dask
    from distributed import Client, LocalCluster
    from distributed.deploy.spec import SpecCluster

    cluster = client = None
    clusters_before = {id(c) for c in SpecCluster._instances}
    # distributed logs what chunkctl reports in one line (dead workers, a lost scheduler
    # and each attempt to reconnect): only its critical messages on stderr during the run.
    handlers = {h: h.level for h in logging.getLogger("distributed").handlers if isinstance(h, logging.StreamHandler)}
    for h in handlers:
        h.setLevel(logging.CRITICAL)
    try:
        if scheduler:
            probe_scheduler(scheduler)
            try:
                client = Client(scheduler, timeout="20s", set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise ConfigError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
            except (ValueError, TypeError) as exc:
                raise ConfigError(f"--scheduler {scheduler}: not a scheduler address ({exc})") from None
            except Exception as exc:  # (a server that answers other bytes: a MemoryError from their length)
                raise ConfigError(f"--scheduler {scheduler}: the server there does not answer as a Dask "
                                  f"scheduler ({exc.__class__.__name__})") from None
        else:
            # A worker holds one item at a time, so a dying worker takes no other item with it.
            with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
                                  "distributed.scheduler.worker-saturation": 1.0}):
                cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None, silence_logs=logging.CRITICAL,
                                       # no dashboard; its HTTP server on a free port, not 8787
                                       scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})
            client = Client(cluster, set_as_default=False)
        try:
            client.wait_for_workers(1, timeout=wait)
        except TimeoutError:
            if cluster is not None:
                raise ConfigError(f"the local Dask cluster started no worker within {wait:g} s") from None
            raise ConfigError(f"--scheduler {scheduler}: no Dask worker joined it within {wait:g} s; start some "
                              f"(`dask worker {scheduler}`), or set {WORKER_WAIT_ENV} to wait longer") from None
        if scheduler:
            check_worker_versions(client, scheduler)
        threads = sum(client.nthreads().values()) or 1  # (the workers there now)
        yield from _map(_Runner(client, fn, scheduler, wait), items, weigh, threads, group)
    except (KeyboardInterrupt, SystemExit):
        _quiet()  # Ctrl-C or SIGTERM: stop without the event loop's tracebacks
        raise
    except ChunkctlError:
        if client is not None and client.status != "running":
            _quiet()  # the scheduler is gone: no reconnection tracebacks under the one-line message
        raise
    finally:
        with contextlib.suppress(Exception):
            if client is not None:
                client.close(timeout=10)
        with contextlib.suppress(Exception):
            if cluster is not None:
                cluster.close(timeout=10)
        if cluster is None and not scheduler:
            # Interrupted while the local cluster started: close the half-started one here,
            # or distributed's exit hook would, with a traceback.
            for half in [c for c in SpecCluster._instances if id(c) not in clusters_before]:
                with contextlib.suppress(Exception):
                    half.close(timeout=10)
                half.shutdown_on_close = False
        for h, level in handlers.items():
            if h.level == logging.CRITICAL:  # not silenced for good by _quiet
                h.setLevel(level)
