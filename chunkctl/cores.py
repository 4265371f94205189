"""The cores a chunkctl process may use, and its share of them inside a pool of worker processes; no chunking."""

from __future__ import annotations

import os

WORKERS_ENV = "CHUNKCTL_WORKER_PROCESSES"
"""Set by the local engine in each worker process to the number of workers of its pool, so that
a library starting threads of its own (onnxruntime for OCR) takes its share of the cores."""


def cpu_count() -> int:
    """Cores this process may run on (the affinity mask where the system has one), at least 1."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worker_share() -> int:
    """Cores this process may keep busy: `cpu_count()` divided among the workers of its pool
    (WORKERS_ENV; 1 outside a pool or when unreadable), at least 1."""
    try:
        workers = max(1, int(os.environ.get(WORKERS_ENV, "1")))
    except ValueError:
        workers = 1
    return max(1, cpu_count() // workers)
