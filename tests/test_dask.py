"""--engine dask: the same records, byte for byte, from a LocalCluster of two worker processes on loopback."""

from __future__ import annotations

import pytest

from tests.conftest import CORPUS, needs_shared, run_cli

pytestmark = needs_shared()


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None,
                                  scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"}) as c:
        yield c


def test_dask_engine_writes_the_same_bytes_as_the_local_engine(tmp_path, cluster):
    inputs = [str(CORPUS / "md"), str(CORPUS / "txt" / "rfc791-internet-protocol.txt"), str(CORPUS / "html")]
    local = tmp_path / "local.jsonl"
    dask = tmp_path / "dask.jsonl"
    p1 = run_cli("chunk", *inputs, "--jobs", "1", "-q", "-o", str(local))
    p2 = run_cli("chunk", *inputs, "--engine", "dask", "--scheduler", cluster.scheduler_address, "-q",
                 "-o", str(dask))
    assert p1.returncode == 0 and p2.returncode == 0, p2.stderr.decode()
    assert dask.read_bytes() == local.read_bytes()
    assert local.stat().st_size > 100_000


def test_dask_engine_reports_bad_files_like_the_local_engine(tmp_path, cluster):
    d = tmp_path / "in"
    d.mkdir()
    (d / "ok.md").write_text("# Title\n\nText.\n")
    (d / "bad.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10")  # binary (8 bytes with a NUL may read as UTF-16)
    p = run_cli("chunk", str(d), "--engine", "dask", "--scheduler", cluster.scheduler_address, "-o",
                str(tmp_path / "o.jsonl"))
    assert p.returncode == 1
    assert b"bad.txt: binary file" in p.stderr and b"Traceback" not in p.stderr


def test_scheduler_without_dask_engine_is_a_usage_error():
    p = run_cli("chunk", "examples", "--scheduler", "tcp://127.0.0.1:1")
    assert p.returncode == 2 and b"--scheduler needs --engine dask" in p.stderr


@pytest.mark.parametrize("answer", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n", b"\xff" * 64])
def test_an_address_that_is_no_dask_scheduler_is_one_line(answer):
    # a helper's find: the dashboard's HTTP port as --scheduler kept the run waiting without a word (the
    # client waits for the scheduler's handshake without a limit); a server answering other bytes made it
    # allocate "3.01 EiB" and print a 60-line traceback
    import socket
    import threading

    pytest.importorskip("distributed")
    from chunkctl.errors import ConfigError
    from chunkctl.pipeline.engines.dask import probe_scheduler

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    done = threading.Event()

    def serve():
        conn, _ = server.accept()
        if answer is not None:
            conn.sendall(answer)
        done.wait(10)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        with pytest.raises(ConfigError) as err:
            probe_scheduler(f"tcp://127.0.0.1:{port}", timeout=1.0)
    finally:
        done.set()
        server.close()
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"--scheduler tcp://127.0.0.1:{port}: ")
    assert ("no answer as a Dask scheduler" if answer is None else "does not answer as a Dask scheduler") in message


def test_a_result_lost_with_its_worker_ends_in_one_line_not_a_wait_without_end():
    # a helper's find: the only worker died while it held a finished file's records; distributed runs the
    # task again, and with no worker left `future.result()` waited until the run was killed
    import time

    pytest.importorskip("distributed")
    from chunkctl.errors import ChunkctlError
    from chunkctl.pipeline.engines.dask import _Runner

    class LostFuture:
        status = "finished"

        def result(self, timeout=None):
            time.sleep(min(timeout or 0.05, 0.05))
            raise TimeoutError

        def release(self):
            pass

    class NoWorkers:
        status = "running"

        def nthreads(self):
            return {}

    runner = _Runner(NoWorkers(), lambda item: item, "tcp://127.0.0.1:8786", wait=0.2)
    with pytest.raises(ChunkctlError, match=r"has had no workers for 0.2 s"):
        runner.outcome(LostFuture())


def test_workers_that_cannot_see_the_files_stop_the_run_in_one_line(tmp_path, monkeypatch):
    # a helper's find: a worker without the shared folder failed every file with a line of its own (and the
    # issue asks for one line naming the cause); after UNSEEN_STOP such files in a row the run stops
    pytest.importorskip("distributed")
    import importlib

    from chunkctl.config import ChunkConfig
    from chunkctl.errors import ChunkctlError
    from chunkctl.pipeline.engines import dask as dask_engine
    from chunkctl.pipeline.inputs import discover

    run_mod = importlib.import_module("chunkctl.pipeline.run")  # (the package's `run` is a function)
    for i in range(6):
        (tmp_path / f"d{i}.md").write_text(f"# Doc {i}\n")
    items = discover([str(tmp_path)]).inputs

    def blind(fn, items, scheduler, jobs, group=True):  # what workers without the folder return
        for it in items:
            yield run_mod.FileResult(it.source, it.format, error_type="LoaderError",
                                     error=f"{it.source}: cannot read file ([Errno 2] No such file or directory)")

    monkeypatch.setattr(dask_engine, "map_ordered", blind)
    got = []
    with pytest.raises(ChunkctlError, match=r"the Dask workers cannot read the input files \(3 of 6 tried"):
        for res in run_mod._compute(items, ChunkConfig(), 2, None, engine="dask", scheduler="tcp://127.0.0.1:1"):
            got.append(res)
    assert len(got) == run_mod.UNSEEN_STOP - 1 and all("shared file system" in r.error for r in got)


def test_workers_of_another_chunkctl_version_are_refused_in_one_line():
    # a helper's observation: workers started before an upgrade wrote records of the old version beside
    # the client's, without a word
    pytest.importorskip("distributed")
    from chunkctl.__about__ import __version__
    from chunkctl.errors import ConfigError
    from chunkctl.pipeline.engines.dask import check_worker_versions

    class Workers:
        def __init__(self, versions):
            self.versions = versions

        def run(self, fn):
            return dict(self.versions)

    check_worker_versions(Workers({"w1": __version__, "w2": __version__}), "tcp://h:8786")  # no error
    with pytest.raises(ConfigError) as err:
        check_worker_versions(Workers({"w1": "0.1.10", "w2": __version__, "w3": "0.1.10"}), "tcp://h:8786")
    assert str(err.value).startswith(f"--scheduler tcp://h:8786: the workers run chunkctl 0.1.10 on 2, "
                                     f"{__version__} on 1 of 3, this command {__version__}")
