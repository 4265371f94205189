"""The C allocator of chunkctl's own processes: memory a document frees goes back to the system.

glibc's `malloc` serves a request of 128 KiB or more with its own mapping, returned to the
system when freed, but raises that threshold (up to 32 MiB) each time such a block is
freed (the "dynamic mmap threshold", mallopt(3)). After the first document, the big
arrays and buffers of the next ones (a token table, block columns, a parser's piece, a
JSONL buffer) come from the heap, which keeps what they free for as long as anything
lives above it. Measured (`--jobs 1`, an 8 MB Markdown text of one-word paragraphs): the
resident set ended at 12.3x the file with the dynamic threshold, 8.8x with a fixed one;
CPU time on the shared corpus (md and txt) was the same (2.1-2.5 s either way, 4 interleaved
rounds). Dask gives the same advice for its workers (`MALLOC_TRIM_THRESHOLD_`,
"Memory not released back to the OS" in distributed's documentation).

Only the command line and its local worker processes call `return_freed_memory`; the
library never changes the allocator of an application that imports it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

MMAP_THRESHOLD = 256 * 1024
"""Bytes: requests this big or bigger get a mapping of their own (fixed, not raised as blocks are freed)."""
_M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
HEAP_THRESHOLD = 32 * 1024 * 1024
"""Bytes: the threshold inside `large_buffers_from_heap` (glibc's own ceiling for its dynamic one on 64-bit)."""

_tuned: bool | None = None


def return_freed_memory() -> bool:
    """Fix glibc's mmap threshold at MMAP_THRESHOLD bytes for this process (once; a forked
    child inherits it).

    Returns:
        True when the allocator was set (Linux with glibc), else False (musl, macOS,
        Windows: nothing is changed there). Never raises.
    """
    global _tuned
    if _tuned is not None:
        return _tuned
    _tuned = False
    if not sys.platform.startswith("linux"):
        return False
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return False
        _tuned = _set_threshold(MMAP_THRESHOLD)
    except (OSError, ValueError, AttributeError):
        _tuned = False
    return _tuned


def _set_threshold(size: int) -> bool:
    """glibc's mallopt(M_MMAP_THRESHOLD, size): True when it took. Raises OSError,
    AttributeError (no glibc symbols) or ValueError, which the callers catch."""
    import ctypes

    mallopt = ctypes.CDLL(None).mallopt  # glibc's, from the symbols already in the process
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, size) == 1)


@contextmanager
def large_buffers_from_heap() -> Iterator[None]:
    """Inside the block, serve requests below HEAP_THRESHOLD bytes from the heap again;
    after it, fix the threshold back at MMAP_THRESHOLD and return the heap's free memory
    to the system (`malloc_trim`).

    For code that allocates and frees many big buffers in a row: onnxruntime as
    RapidOCR runs it (its memory arena turned off, every tensor a `malloc`). With each
    of those a mapping of its own, every one is new pages the kernel must map and zero:
    measured on the shared corpus's PDFs (`--jobs 1`), OCR of one scanned page took 7.5 s
    with the fixed threshold and 5.5 s without it, two thirds of it system time.

    Does nothing where `return_freed_memory` did not set the allocator. Never raises.
    """
    if not _tuned:
        yield
        return
    try:
        _set_threshold(HEAP_THRESHOLD)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        yield
    finally:
        try:
            _set_threshold(MMAP_THRESHOLD)
        except (OSError, ValueError, AttributeError):
            pass
        release_heap()


def release_heap() -> None:
    """Give the heap's free pages back to the system (glibc's `malloc_trim(0)`), where
    `return_freed_memory` set the allocator; elsewhere nothing. Never raises.

    For a big document once it is loaded: what its loader freed (a PDF's packed pages and
    its text's parts, an HTML tree) stays in the heap, among blocks still in use, while
    the token table and the JSONL buffer of its chunking take mappings of their own
    (measured: an 8,000-page PDF book, 46.7 M characters, 296 -> 274 MB at the peak).
    """
    if not _tuned:
        return
    try:
        import ctypes

        trim = ctypes.CDLL(None).malloc_trim
        trim.argtypes = (ctypes.c_size_t,)
        trim(0)
    except (OSError, ValueError, AttributeError):
        pass
