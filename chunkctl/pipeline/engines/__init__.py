"""Engines map a function they are given over items and yield the results in input order: `local` (worker processes here), `dask` (a Dask cluster); they know nothing of chunking."""

import os


def cpu_count() -> int:
    """Cores this process may run on (the affinity mask where the system has one).

    Here rather than in `local`, so that asking costs no import of `multiprocessing`."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1
