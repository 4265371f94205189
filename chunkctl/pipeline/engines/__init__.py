"""Engines map a function they are given over items and yield the results in input order: `local` (worker processes here), `dask` (a Dask cluster); they know nothing of chunking."""

from chunkctl.cores import cpu_count

__all__ = ["cpu_count"]  # the run asks here (costs no import of `multiprocessing`); tests replace it here
