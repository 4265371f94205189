"""Engines map a function they are given over items and yield the results in input order: `local` (worker processes here), `dask` (a Dask cluster); they know nothing of chunking."""
