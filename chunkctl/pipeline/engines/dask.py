"""The Dask engine: a function it is given mapped over Dask bags, results in input order; needs the `dask` extra."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from chunkctl.errors import ConfigError, MissingExtraError

T = TypeVar("T")
R = TypeVar("R")

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


def _batches(items: Sequence[T]) -> Iterator[list[T]]:
    batch: list[T] = []
    size = 0
    for item in items:
        batch.append(item)
        size += getattr(item, "size", 0)
        if size >= BATCH_BYTES or len(batch) >= BATCH_FILES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def map_ordered(fn: Callable[[T], R], items: Sequence[T], scheduler: str | None = None, workers: int = 2
                ) -> Iterator[R]:
    """Map `fn` over `items` on a Dask cluster and yield the results in input order.

    The engine knows nothing of chunking: the pipeline gives it the per-file function
    (`chunkctl.pipeline.run.process_file` with the run's options bound), which never
    raises for a bad file, so the records are byte-identical to the local engine's.
    Workers read the input paths themselves: on several machines the paths must be
    visible to every worker (a shared or network file system, the same mount point
    everywhere).

    Args:
        fn: a picklable function of one item.
        items: the items (picklable; their `size` attribute, in bytes, when present,
            sizes the batches).
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
            for batch in _batches(items):
                bag = db.from_sequence(batch, npartitions=min(len(batch), 4 * max(1, workers)))
                # Bag.compute keeps the order of the sequence, whatever finishes first.
                yield from bag.map(fn).compute(scheduler=client)
    finally:
        if cluster is not None:
            cluster.close()
