"""--engine dask against clusters of separate processes: dying workers, relative paths, no workers, bad addresses, signals.

A `dask scheduler` and `dask worker` processes are started as subprocesses (in their
own folder, so a relative path means nothing to them); the functions mapped by the
engine tests are the ones below, importable on the workers through PYTHONPATH.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkctl.errors import ConfigError
from tests.conftest import CLI, ROOT

distributed = pytest.importorskip("distributed")

slow = pytest.mark.slow


# ---- functions the engine maps (run on the workers) ---------------------------------

def work(item: tuple[str, str]) -> str:
    """Upper-case the item's name; the action says how to misbehave first."""
    name, action = item
    if action == "die":  # a file that kills every worker it runs on
        os.kill(os.getpid(), signal.SIGKILL)
    if action.startswith("die-once:"):  # a worker lost once, as to the OOM killer
        marker = Path(action.split(":", 1)[1])
        if not marker.exists():
            marker.write_text("died")
            os.kill(os.getpid(), signal.SIGKILL)
    if action.startswith("sleep:"):
        time.sleep(float(action.split(":", 1)[1]))
    if action == "raise":
        raise ValueError("boom")
    return name.upper()


# ---- clusters of separate processes ----------------------------------------------------

def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **extra)
    env.pop("CHUNKCTL_DASK_WORKER_WAIT", None)
    return env


def _stop(proc: subprocess.Popen) -> None:
    """Stop a process this module started and everything it started (its own session)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


class Cluster:
    """`dask scheduler` plus `dask worker` subprocesses, each in its own session; stop() ends them all."""

    def __init__(self, folder: Path, workers: int = 2, env: dict[str, str] | None = None,
                 worker_prefix: tuple[str, ...] = (), worker_args: tuple[str, ...] = ()):
        self.folder = folder
        self.procs: list[subprocess.Popen] = []
        self.env = env or _env()
        folder.mkdir(parents=True, exist_ok=True)
        info = folder / "scheduler.json"
        self._start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                     "--no-dashboard", "--scheduler-file", str(info)], "scheduler.log")
        deadline = time.monotonic() + 30
        while not info.exists() or not info.read_text().strip():
            assert time.monotonic() < deadline, (folder / "scheduler.log").read_text()
            time.sleep(0.1)
        time.sleep(0.1)
        self.address = json.loads(info.read_text())["address"]
        if workers:
            self._start([*worker_prefix, sys.executable, "-m", "distributed.cli.dask_worker", self.address,
                         "--nworkers", str(workers), "--nthreads", "1", "--no-dashboard",
                         "--local-directory", str(folder / "space"), *worker_args], "workers.log")
            self.wait_for_workers(workers)

    def _start(self, cmd: list[str], log: str) -> None:
        with open(self.folder / log, "wb") as out:
            self.procs.append(subprocess.Popen(cmd, cwd=self.folder, env=self.env, stdout=out,
                                               stderr=subprocess.STDOUT, start_new_session=True))

    def client(self):
        return distributed.Client(self.address, timeout="20s", set_as_default=False)

    def wait_for_workers(self, n: int) -> None:
        with self.client() as c:
            c.wait_for_workers(n, timeout=60)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            _stop(proc)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler with Dask's default settings (allowed-failures 3) and two worker processes under nannies."""
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def small_workers(tmp_path_factory):
    """Two worker processes of 300 MB each (their nannies restart them past it), allowed-failures 0 as docs/scaling.md advises."""
    c = Cluster(tmp_path_factory.mktemp("small"), worker_args=("--memory-limit", "300MB"),
                env=_env(DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0"))
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture(scope="module")
def lonely(tmp_path_factory):
    """A scheduler no worker ever joins."""
    c = Cluster(tmp_path_factory.mktemp("lonely"), workers=0)
    try:
        yield c
    finally:
        c.stop()


def _map(items, scheduler=None, **kw):
    from chunkctl.pipeline.engines.dask import map_ordered

    return list(map_ordered(work, items, scheduler, **kw))


def _cli(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: float = 120
         ) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, timeout=timeout, cwd=cwd,
                          env=env or dict(os.environ, PYTHONPATH=str(ROOT)))


def _docs(folder: Path) -> Path:
    docs = folder / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_text("# Alpha\n\nThe first document, with a short paragraph.\n")
    (docs / "b.txt").write_text("Plain text in a second file.\n\nAnother paragraph here.\n")
    (docs / "sub" / "c.html").write_text("<html><body><h1>Gamma</h1><p>Third, in a folder.</p></body></html>")
    return docs


# ---- addresses and settings (no cluster) ----------------------------------------------

@pytest.mark.parametrize("address", ["tcp://127.0.0.1:18786x", "http://127.0.0.1:8786", "localhost",
                                     "tcp://:8786", "tcp://::1:8786", "tcp://host:0",
                                     # helper-114: the library's own errors ("not enough values to unpack", an
                                     # abstract class), or a local cluster started without a word for ""
                                     "inproc://foo", "ucx://10.0.0.5:8786", ""])
def test_a_malformed_scheduler_address_is_a_config_error(address):
    from chunkctl.pipeline.engines.dask import check_scheduler

    with pytest.raises(ConfigError) as err:
        check_scheduler(address)
    assert str(err.value).startswith(f"--scheduler {address}: not a scheduler address (")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("address", ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://sched.example:8786",
                                     "tcp://[::1]:8786", "ws://sched.example:8786"])
def test_well_formed_scheduler_addresses_pass(address):
    from chunkctl.pipeline.engines.dask import check_scheduler

    check_scheduler(address)


def test_the_worker_wait_comes_from_the_environment(monkeypatch):
    from chunkctl.pipeline.engines.dask import WORKER_WAIT, worker_wait

    monkeypatch.delenv("CHUNKCTL_DASK_WORKER_WAIT", raising=False)
    assert worker_wait() == WORKER_WAIT == 60
    monkeypatch.setenv("CHUNKCTL_DASK_WORKER_WAIT", "2.5")
    assert worker_wait() == 2.5
    for bad in ("0", "-1", "soon", "nan", "inf"):
        monkeypatch.setenv("CHUNKCTL_DASK_WORKER_WAIT", bad)
        with pytest.raises(ConfigError, match="CHUNKCTL_DASK_WORKER_WAIT"):
            worker_wait()


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:18786x", "http://127.0.0.1:8786", "inproc://foo", ""])
def test_a_malformed_scheduler_address_is_one_line_on_the_command_line(address):
    p = _cli("chunk", "examples", "--engine", "dask", "--scheduler", address, "-o", os.devnull)
    lines = p.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"chunkctl: error: --scheduler {address}: not a scheduler address")
    assert p.returncode == 2  # bad usage, found before any input is read


# ---- workers that die ------------------------------------------------------------------

@slow
def test_a_file_that_kills_its_worker_fails_alone_on_the_engines_own_cluster(tmp_path):
    from chunkctl.pipeline.engines.dask import BATCH_BYTES
    from chunkctl.pipeline.engines.local import TaskFailure

    # The killer is tried twice (allowed-failures 0, then alone); the files its dying
    # worker held are run again alone and kept. "unlucky" weighs a whole window, so it
    # runs first with nothing beside it: its worker dies once, its lone second run works.
    items = [("unlucky", f"die-once:{tmp_path / 'died'}")] + [(f"f{i}", "ok") for i in range(1, 8)]
    items[3] = ("killer", "die")
    out = _map(items, None, workers=2, weight=lambda it: BATCH_BYTES if it[0] == "unlucky" else 0)
    assert (tmp_path / "died").exists()
    assert len(out) == len(items)
    failure = out[3]
    assert isinstance(failure, TaskFailure) and failure.kind == "crashed"
    assert failure.message.startswith("the worker process died (2 Dask workers died while running it")
    assert [o for i, o in enumerate(out) if i != 3] == [name.upper() for i, (name, _) in enumerate(items) if i != 3]


class _FakeRunner:
    """The futures of `_map` without a cluster: a future is what was submitted; `work`'s actions decide
    outcomes ("die" kills whoever runs it, "raise" raises), and submissions are counted."""

    remote = False

    def __init__(self):
        self.lone, self.groups = [], []

    def submit(self, item):
        self.lone.append(item[0])
        return [item]

    def submit_group(self, items):
        self.groups.append([it[0] for it in items])
        return list(items)

    def settle(self, futures):
        pass

    def outcome(self, future):
        from chunkctl.pipeline.engines.local import TaskFailure

        if any(action == "die" for _, action in future):
            return "killed", Exception("KilledWorker")
        if any(action == "raise" for _, action in future):
            return "failed", TaskFailure("error", "ValueError: boom")
        out = [name.upper() for name, _ in future]
        return "ok", out if len(future) > 1 else out[0]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 8), st.lists(st.integers(0, 299), max_size=3),
       st.lists(st.integers(0, 299), max_size=3), st.lists(st.integers(0, 400_000), min_size=1, max_size=300))
def test_small_items_run_in_groups_and_a_failing_group_again_item_by_item(n, threads, killers, raisers, weights):
    # helper-114: 2,000 tiny files took 12 s on a Dask cluster against 1.5 s locally, a future each
    from chunkctl.pipeline.engines.dask import GROUP_BYTES, GROUP_FILES, GROUPS_A_THREAD, _map
    from chunkctl.pipeline.engines.local import TaskFailure

    items = [(f"f{i}", "die" if i in killers else "raise" if i in raisers else "ok") for i in range(n)]
    weight = {name: weights[i % len(weights)] for i, (name, _) in enumerate(items)}
    runner = _FakeRunner()
    out = list(_map(runner, items, lambda it: weight[it[0]], threads))
    assert len(out) == n
    for (name, action), got in zip(items, out):
        if action == "ok":
            assert got == name.upper()
        else:
            assert isinstance(got, TaskFailure) and got.kind == ("crashed" if action == "die" else "error")
    most = max(1, min(GROUP_FILES, n // (GROUPS_A_THREAD * threads)))
    assert all(1 < len(g) <= most and sum(weight[x] for x in g) <= GROUP_BYTES for g in runner.groups)
    grouped = [x for g in runner.groups for x in g]
    assert len(grouped) == len(set(grouped))
    failed = [x for g in runner.groups if any(items[int(y[1:])][1] != "ok" for y in g) for x in g]
    # every item ran once, in a group or alone; again alone when its group failed, or when it killed
    # its worker alone (the lone retry of a worker's death)
    alone = [name for name, _ in items if name not in grouped]
    killed_alone = [name for name, action in items if name not in grouped and action == "die"]
    assert sorted(runner.lone) == sorted(alone + failed + killed_alone)
    if most > 1 and max(weights) * most <= GROUP_BYTES:
        assert len(runner.groups) >= n // most  # small items shared tasks


@slow
def test_a_file_that_kills_its_worker_fails_alone_in_a_group_of_small_files(tmp_path):
    from chunkctl.pipeline.engines.local import TaskFailure

    items = [(f"f{i}", "ok") for i in range(40)]
    items[13] = ("killer", "die")
    out = _map(items, None, workers=2)  # (2 threads: groups of 5)
    assert [o for i, o in enumerate(out) if i != 13] == [n.upper() for i, (n, _) in enumerate(items) if i != 13]
    assert isinstance(out[13], TaskFailure) and out[13].kind == "crashed"
    assert out[13].message.startswith("the worker process died (2 Dask workers died while running it")


@slow
def test_a_file_that_kills_its_worker_fails_alone_on_a_cluster_of_worker_processes(cluster):
    from chunkctl.pipeline.engines.local import TaskFailure

    items = [(f"f{i}", "ok") for i in range(6)] + [("killer", "die")] + [(f"g{i}", "ok") for i in range(6)]
    out = _map(items, cluster.address)
    assert [o for o in out if not isinstance(o, TaskFailure)] == [n.upper() for n, a in items if a == "ok"]
    failure = out[6]
    assert isinstance(failure, TaskFailure) and failure.kind == "crashed"
    # Dask's default allowed-failures (3): four workers (restarted by their nannies) died under
    # it, then four more in chunkctl's lone retry; the files beside it were all kept
    assert failure.message.startswith("the worker process died (8 Dask workers died while running it, the last tcp://")
    cluster.wait_for_workers(2)


@slow
def test_a_worker_killed_mid_run_loses_no_file(cluster):
    items = [(f"f{i:02}", "sleep:0.3") for i in range(16)]
    from chunkctl.pipeline.engines.dask import map_ordered

    with cluster.client() as c:
        pids = c.run(os.getpid)
    answers = map_ordered(work, items, cluster.address)
    out = [next(answers)]  # files are running on both workers now
    os.kill(sorted(pids.values())[0], signal.SIGKILL)
    out.extend(answers)
    assert out == [n.upper() for n, _ in items]
    cluster.wait_for_workers(2)


@slow
def test_a_function_that_raises_gives_an_error_failure(cluster):
    from chunkctl.pipeline.engines.local import TaskFailure

    out = _map([("a", "ok"), ("b", "raise"), ("c", "ok")], cluster.address)
    assert out[0] == "A" and out[2] == "C"
    assert out[1] == TaskFailure("error", "ValueError: boom")


# ---- no workers ------------------------------------------------------------------------

@slow
def test_a_scheduler_without_workers_is_a_config_error_after_the_wait(lonely):
    t0 = time.monotonic()
    with pytest.raises(ConfigError) as err:
        _map([("a", "ok")], lonely.address, wait=1)
    assert time.monotonic() - t0 < 15
    assert str(err.value) == (f"--scheduler {lonely.address}: no Dask worker joined it within 1 s; start some "
                              f"(`dask worker {lonely.address}`), or set CHUNKCTL_DASK_WORKER_WAIT to wait longer")


@slow
def test_a_scheduler_without_workers_is_one_line_on_the_command_line(lonely, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), CHUNKCTL_DASK_WORKER_WAIT="1")
    p = _cli("chunk", str(_docs(tmp_path)), "--engine", "dask", "--scheduler", lonely.address, "-o",
             str(tmp_path / "o.jsonl"), env=env, timeout=60)
    assert p.returncode == 2
    assert p.stderr.decode().strip().splitlines() == [
        f"chunkctl: error: --scheduler {lonely.address}: no Dask worker joined it within 1 s; start some "
        f"(`dask worker {lonely.address}`), or set CHUNKCTL_DASK_WORKER_WAIT to wait longer; no output file was "
        f"written or replaced"]
    assert not (tmp_path / "o.jsonl").exists()


@slow
def test_sigterm_while_waiting_for_workers_is_one_line_and_exit_143(lonely, tmp_path):
    out = tmp_path / "o.jsonl"
    proc = subprocess.Popen([*CLI, "chunk", str(_docs(tmp_path)), "--engine", "dask", "--scheduler", lonely.address,
                             "-o", str(out)], cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with lonely.client() as c:  # wait until the run's client is connected and waiting
            deadline = time.monotonic() + 30
            while c.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.clients)) < 3:  # fire-and-forget + 2
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.2)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM
    assert err.decode().strip().splitlines() == ["chunkctl: error: interrupted; no output file was written or replaced"]
    assert not out.exists()


# ---- paths -----------------------------------------------------------------------------

@slow
def test_a_relative_folder_gives_the_same_bytes_as_one_local_job(cluster, tmp_path):
    _docs(tmp_path)
    local = _cli("chunk", "docs", "--jobs", "1", "-o", "local.jsonl", cwd=tmp_path)
    dask = _cli("chunk", "docs", "--engine", "dask", "--scheduler", cluster.address, "-o", "dask.jsonl", cwd=tmp_path)
    assert local.returncode == 0, local.stderr.decode()
    assert dask.returncode == 0, dask.stderr.decode()
    records = (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "dask.jsonl").read_bytes() == records
    assert {json.loads(line)["source"] for line in records.splitlines()} == {"a.md", "b.txt", "sub/c.html"}


@slow
def test_a_file_too_big_for_its_workers_fails_alone_and_the_others_are_written(small_workers, tmp_path):
    docs = _docs(tmp_path)
    # 160 MB of plain text: its bytes and its decoded text alone are over the 300 MB workers, whatever
    # multiple of the file the chunking itself needs (memory is bounded to a multiple of the largest file).
    line = b"All work and no play makes Jack a dull boy, said the line again.\n"
    with open(docs / "huge.txt", "wb") as f:
        for _ in range(160):
            f.write(line * (1_000_000 // len(line)))
    dask = _cli("chunk", "docs", "--engine", "dask", "--scheduler", small_workers.address, "-o", "dask.jsonl",
                "--errors", "errors.jsonl", cwd=tmp_path)
    local = _cli("chunk", "docs", "--exclude", "huge.txt", "--jobs", "1", "-o", "local.jsonl", cwd=tmp_path)
    assert dask.returncode == 1 and local.returncode == 0
    lines = dask.stderr.decode().splitlines()
    assert lines[0].startswith("chunkctl: error: huge.txt: the worker process died (2 Dask workers died while "
                               f"running it, the last {small_workers.address.rsplit(':', 1)[0]}:"), lines
    assert len(lines) == 2 and lines[1].startswith("chunkctl: 3 files (")
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    error = json.loads((tmp_path / "errors.jsonl").read_text())
    assert error["source"] == "huge.txt" and error["error_type"] == "WorkerCrashed"


def _can_hide_folders() -> bool:
    """True when this process may give a child its own mount namespace (root, `unshare` present)."""
    if not sys.platform.startswith("linux") or not shutil.which("unshare"):
        return False
    p = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True)
    return p.returncode == 0


@slow
@pytest.mark.skipif(not _can_hide_folders(), reason="needs `unshare --mount` (root on Linux)")
def test_files_the_workers_cannot_see_name_the_shared_file_system(tmp_path):
    docs = _docs(tmp_path / "input")
    # The worker runs where the input folder is covered by an empty file system: it
    # cannot see the files this machine reads, as on a machine without the share.
    hide = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            f'mount -t tmpfs none "{tmp_path / "input"}" && exec "$@"', "sh"]
    c = Cluster(tmp_path / "cluster", workers=1, worker_prefix=tuple(hide))
    try:
        p = _cli("chunk", str(docs), "--engine", "dask", "--scheduler", c.address, "-o", str(tmp_path / "o.jsonl"))
    finally:
        c.stop()
    assert p.returncode == 1
    errors = [line for line in p.stderr.decode().splitlines() if line.startswith("chunkctl: error:")]
    # the first files one line each; the third in a row (none read yet) stops the run in one line
    assert errors == [f"chunkctl: error: {name}: cannot read file (No such file or directory) on the Dask workers, "
                      "though this machine can read it: the workers need the input files at the same path "
                      "(a shared file system)" for name in ("a.md", "b.txt")] + [
        "chunkctl: error: the Dask workers cannot read the input files (3 of 3 tried, all readable here): they "
        "need the input files at the same path (a shared file system); no output file was written or replaced"]
    assert not (tmp_path / "o.jsonl").exists()
