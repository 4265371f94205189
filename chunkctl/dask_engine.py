"""The Dask engine: `process_file` mapped over Dask bags, results in input order; needs the `dask` extra."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Iterator, Sequence

from .errors import ConfigError, MissingExtraError

if TYPE_CHECKING:
    from .config import ChunkConfig
    from .pipeline import FileResult, InputFile

# Files are sent to the cluster in batches of about this many bytes (and at most
# BATCH_FILES files), so the client holds a bounded amount of results at a time.
BATCH_BYTES = 64_000_000
BATCH_FILES = 256


def check() -> None:
    """Raise MissingExtraError when dask.bag or distributed is not installed."""
    try:
        import dask.bag  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise MissingExtraError("--engine dask", "dask", "dask[bag] distributed") from None


def _batches(items: Sequence["InputFile"]) -> Iterator[list["InputFile"]]:
    batch: list = []
    size = 0
    for item in items:
        batch.append(item)
        size += item.size
        if size >= BATCH_BYTES or len(batch) >= BATCH_FILES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def compute(items: Sequence["InputFile"], config: "ChunkConfig", scheduler: str | None = None, workers: int = 2
            ) -> Iterator["FileResult"]:
    """Process inputs on a Dask cluster and yield their results in input order.

    Every worker runs the same `chunkctl.pipeline.process_file` as the local engine,
    so the records are byte-identical. Workers read the input paths themselves: on
    several machines the paths must be visible to every worker (a shared or network
    file system, the same mount point everywhere).

    Args:
        items: the inputs to process (paths, or bytes already read for stdin).
        config: the chunking options (pickled to the workers).
        scheduler: address of a running scheduler ("tcp://host:8786"); None starts a
            local cluster of `workers` processes on this machine for the run.
        workers: processes of the local cluster.

    Raises:
        MissingExtraError: the `dask` extra is not installed.
        ConfigError: the scheduler cannot be reached.
    """
    check()
    import dask.bag as db
    from distributed import Client, LocalCluster

    from .pipeline import process_file

    cluster = None
    try:
        if scheduler:
            try:
                client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise ConfigError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
        else:
            cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
            client = Client(cluster)
        with client:
            fn = functools.partial(process_file, config=config)
            for batch in _batches(items):
                bag = db.from_sequence(batch, npartitions=min(len(batch), 4 * max(1, workers)))
                # Bag.compute keeps the order of the sequence, whatever finishes first.
                yield from bag.map(fn).compute(scheduler=client)
    finally:
        if cluster is not None:
            cluster.close()
