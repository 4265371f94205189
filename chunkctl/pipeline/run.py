"""A run: process_file (the per-file function every engine maps) and run (inputs -> results in order, cache, time limits).

`process_file` takes picklable inputs and returns a picklable FileResult, and never
raises for a bad file: the local worker pool, Dask, or a user's Ray/Spark job map
it. `run` maps it over a run's inputs in order, with a per-file time limit and an
optional record cache. How a document becomes records is
`chunkctl.pipeline.document.process_document`, the one way.
"""

from __future__ import annotations

import functools
import sys
import time
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chunkctl.allocator import release_heap
from chunkctl.config import ChunkConfig
from chunkctl.errors import ChunkctlError, LoaderError
from chunkctl.pipeline.capture import library_messages, tidy
from chunkctl.pipeline.document import load, model_assisted, process_document, serialize, warm
from chunkctl.pipeline.inputs import InputFile
from chunkctl.spill import Lines, make_spill_folder, remove_spill_folder

if TYPE_CHECKING:
    from chunkctl.model import Document
    from chunkctl.pipeline.cache import RecordCache
    from chunkctl.tokenizers import Tokenizer, TokenTable

DEFAULT_FILE_TIMEOUT = 300.0
"""Seconds one file may take by default before its worker is stopped (generous: a slow PDF, not a hang)."""
ENGINES = ("local", "dask")
"""`--engine` values: worker processes of this machine, or a Dask cluster."""
SMALL_FILE = 256_000
"""Bytes: files this small share their trip to a local worker (up to this many bytes of files a trip)."""
ISOLATED_FORMATS = frozenset({"pdf"})
"""Formats that a one-job run with a time limit still sends to a worker process: their native
libraries (pdfium, OCR) can hang where no signal reaches them, or crash."""
REFIRE = 0.1
"""Seconds between the time-limit signals to a file in this process once it is over its limit (see `_Alarm.run`)."""
AHEAD_MIN, AHEAD_MAX = 4096, 2 << 20
"""Characters: a one-job run has the token table of a document of this size encoded on a
thread while it chunks the documents before (`_TablesAhead`); smaller, the hand-over costs
about what it saves. It loads files up to AHEAD_MAX characters of text ahead of the one it
chunks (a file is let in by its size in bytes), so at most that much waits in memory."""
AHEAD_FILES = 32
"""Files a one-job run loads ahead of the one it chunks, at most (see AHEAD_MAX)."""
RELEASE_AFTER = 1 << 20
"""Characters: a document this big has the heap's free memory given back once it is loaded
(`chunkctl.allocator.release_heap`; a few milliseconds, against its chunking's second or more)."""
SWITCH = 0.0001
"""Seconds: Python's thread switch interval while `_TablesAhead`'s thread runs (see there)."""
SAMPLE, SHARE = 0.25, 0.8
"""`_TablesAhead.wanted`: every SAMPLE seconds, whether this thread had SHARE of a core."""


UNSEEN_STOP = 3
"""Files in a row, before any was read, that the Dask workers could not read though this machine
can, after which the run stops with one line: the workers do not see the input files (no shared
file system), and every other file would fail the same way."""


@dataclass(frozen=True)
class RunOptions:
    """How a run is carried out (never what the records say), checked when built.

    Attributes:
        jobs: worker processes; 0 means all cores.
        max_file_size: skip files larger than this many bytes (None: no limit).
        file_timeout: seconds one file may take (0 or None: no limit).
        engine: "local" or "dask".
        scheduler: the Dask scheduler address (engine "dask" only).

    Raises:
        ConfigError: a bad value, in one line naming the option.
    """

    jobs: int = 1
    max_file_size: int | None = None
    file_timeout: float | None = DEFAULT_FILE_TIMEOUT
    engine: str = "local"
    scheduler: str | None = None

    def __post_init__(self) -> None:
        from chunkctl.errors import ConfigError

        if self.jobs < 0:
            raise ConfigError("--jobs must be 0 (all cores) or a positive number")
        if self.max_file_size is not None and self.max_file_size < 0:
            raise ConfigError("--max-file-size must not be negative")
        if not 0 <= (self.file_timeout or 0) <= 366 * 86400:  # NaN fails too
            raise ConfigError("--file-timeout must be 0 (no limit) or a number of seconds up to a year")
        if self.engine not in ENGINES:
            raise ConfigError(f"--engine {self.engine!r} is not one of: {', '.join(ENGINES)}")
        if self.scheduler and self.engine != "dask":
            raise ConfigError("--scheduler needs --engine dask")

    def ready(self) -> None:
        """Raise MissingExtraError when the engine's extra is not installed, ConfigError for a malformed `scheduler`."""
        if self.engine == "dask":
            from chunkctl.pipeline.engines.dask import check, check_scheduler

            check()
            if self.scheduler is not None:
                check_scheduler(self.scheduler)  # a malformed address is bad usage, found before any work
                # (an empty one too: it started a local cluster without a word; helper-114)

    @property
    def workers(self) -> int:
        """Worker processes to start (`jobs`, or the usable cores for 0)."""
        if self.jobs:
            return self.jobs
        from chunkctl.pipeline.engines import cpu_count

        return cpu_count()


@dataclass
class FileResult:
    """What processing one input produced (picklable; sent back from worker processes).

    Attributes:
        source, format: as in the records.
        lines: the document's records as JSONL: bytes (empty on failure), or a
            `SpilledLines` (a file of the run's spill folder) for a document whose JSONL
            passed `SPILL_AT` bytes, or a big cache entry's body (see `chunkctl.spill`).
        n_chunks, n_tokens: records written and their total `n_tokens`.
        nbytes: input size in bytes.
        warnings: non-fatal problems, one line each.
        error: one-line reason when the file failed, else None.
        error_type: short class of the failure ("LoaderError", "Timeout", "internal", ...).
        seconds: wall time spent on the file.
        skipped: not processed (no loader for the extension, or over the size limit).
        sha256: sha256 of the file's bytes when it was read (the cache key needs it);
            None for a password-protected document, which is never cached.
        cached: the lines came from the record cache.
        model_failures: model calls that failed without stopping the file (the records
            are written without their contexts or summaries), one line each; they make
            the run exit 1 and go to `--errors`.
        lost: parts of the file that could not be read (`Document.lost`), one line each,
            with the source: written without them, the file fails the run as model_failures do.
        llm_plan: with `--llm-dry-run`, (calls, prompt tokens, cached answers) of the file.
    """

    source: str
    format: str | None
    lines: Lines = b""
    n_chunks: int = 0
    n_tokens: int = 0
    nbytes: int = 0
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    error_type: str | None = None
    seconds: float = 0.0
    skipped: bool = False
    sha256: str | None = None
    cached: bool = False
    model_failures: list[str] = field(default_factory=list)
    llm_plan: tuple[int, int, int] | None = None
    lost: list[str] = field(default_factory=list)


def process_file(item: InputFile, config: ChunkConfig, max_file_size: int | None = None,
                 spill: str | None = None) -> FileResult:
    """Load, chunk and serialize one input; never raises for a bad file.

    Args:
        item: the input.
        config: the run's options.
        max_file_size: skip the file (with a warning) when it is larger (bytes).
        spill: the run's spill folder (`chunkctl.spill`): a document whose JSONL
            passes `SPILL_AT` bytes has it written there (`lines` is then a
            `SpilledLines` the caller owns). None: always in memory.

    Returns:
        a FileResult with the JSONL of the document, or with `error` set.
    """
    job = _FileJob(item, config, max_file_size, spill)
    job.load()
    return job.finish()


class _OverTime(BaseException):
    """Raised by the SIGALRM handler (`_Alarm`) in the file that ran over its time limit in this process.

    A BaseException, as KeyboardInterrupt: code that catches `Exception` lets it through."""


class _FileJob:
    """One input's processing in two steps, `load` and `finish`, each timed on its own (a run
    in this process limits the time of both). Neither step raises for a bad file: the
    failure goes into the result."""

    def __init__(self, item: InputFile, config: ChunkConfig, max_file_size: int | None = None,
                 spill: str | None = None):
        self.item = item
        self.config = config
        self.spill = spill
        self.doc: Document | None = None
        self.seconds = 0.0  # spent in the steps so far (wall time)
        self.said: list[str] = []  # what libraries report meanwhile, named with the file (see capture.py)
        self.table: _Ahead | None = None  # its token table, being built on a thread (`_TablesAhead`)
        self.chars = 0  # of the loaded document's text
        self.done = _precheck(item, max_file_size)  # the result of an input not to process
        self.res = FileResult(item.source, item.format, nbytes=item.size)

    def load(self) -> Document | None:
        """Read and load the file; the Document, or None when it failed or is not to be processed."""
        if self.done is None:
            self._step(self._load)
        return self.doc

    def finish(self) -> FileResult:
        """Chunk and serialize the loaded document; the file's result (the same one when called again)."""
        if self.done is not None:
            return self.done
        if self.doc is not None:
            self._step(self._chunk)
        self.doc = None
        res = self.res
        res.warnings.extend(f"{self.item.source}: {line}" for line in tidy(self.said))
        res.seconds = self.seconds
        self.done = res
        return res

    def timed_out(self, limit: float) -> None:
        """The file ran over `limit` seconds in this process: its result is that failure."""
        self.doc = None
        self.table = None
        self.done = FileResult(self.item.source, self.item.format, nbytes=self.item.size, error_type="Timeout",
                               error=f"{self.item.source}: took longer than {limit:g} s")  # as a worker's timeout

    def _load(self) -> None:
        item, res = self.item, self.res
        doc = load(item.path or item.source, self.config, source=item.source, data=item.data, format=item.format)
        res.nbytes = item.size or len(item.data or b"")
        res.warnings.extend(f"{item.source}: {w}" for w in doc.warnings)
        res.lost.extend(f"{item.source}: {w}" for w in doc.lost)
        # a password-protected document's records never go to the cache: a later run
        # without the password must not be served them, and its text must not sit on
        # disk in clear (see RecordCache)
        res.sha256 = None if doc.protected else (str(doc.meta.get("sha256") or "") or None)
        self.doc = doc
        if len(doc.text) >= RELEASE_AFTER:
            release_heap()  # what the loader freed, before the chunking's big buffers (chunkctl.allocator)

    def _chunk(self) -> None:
        item, res, doc = self.item, self.res, self.doc
        assert doc is not None
        self.doc = None
        ahead, self.table = self.table, None
        table = ahead.result() if ahead is not None else None
        del ahead
        n_chars = len(doc.text)
        out = process_document(doc, self.config, table=table)
        del doc, table  # (the records need neither the blocks nor the token table: freed before they are made)
        if n_chars >= RELEASE_AFTER:
            release_heap()  # what the chunking freed (the token table, its buffers), before the records
        try:
            res.lines, res.n_chunks, res.n_tokens = serialize(out.records, self.spill)
        except OSError as exc:  # the spill file (a full disk)
            raise ChunkctlError(f"cannot write its records to the temporary folder {self.spill} "
                                f"({exc.strerror or exc})") from None
        del out.records
        if out.plan is not None:
            res.llm_plan = (out.plan.calls, out.plan.prompt_tokens, out.plan.cached)
        res.model_failures.extend(str(f) for f in out.failures)
        if not res.n_chunks and res.llm_plan is None:
            res.warnings.append(f"{item.source}: no text to chunk (empty or whitespace only)")

    def _step(self, fn: Callable[[], None]) -> None:
        """Run one step with library messages kept; a failure (never a raise) ends the file."""
        item, res = self.item, self.res
        t0 = time.perf_counter()
        said: list[str] = []
        try:
            with library_messages(said):
                fn()
        except ChunkctlError as exc:
            res.error = str(exc) if isinstance(exc, LoaderError) else f"{item.source}: {exc}"
            res.error_type = exc.__class__.__name__
        except RecursionError:
            res.error = f"{item.source}: structure nested too deeply to process"
            res.error_type = "RecursionError"
        except MemoryError:
            res.error = f"{item.source}: out of memory"
            res.error_type = "MemoryError"
        except (KeyboardInterrupt, SystemExit, GeneratorExit, _OverTime):
            raise
        except BaseException as exc:  # a bug (or a panic in a native library): one line, the run goes on
            res.error = f"{item.source}: internal error: {exc.__class__.__name__}: {exc}"
            res.error_type = "internal"
        finally:
            self.said.extend(said)
            self.seconds += time.perf_counter() - t0
        if res.error is not None:
            self.doc = None
            self.table = None


class _Alarm:
    """The per-file time limit of files processed in this process: a SIGALRM timer whose
    handler raises `_OverTime` in the file that runs over it.

    Python code (the txt, Markdown and HTML loaders, chunking) sees the signal at once; a
    native call (one tiktoken pass over a big text) sees it when it returns. Usable in the
    main thread of a POSIX process whose SIGALRM nobody else uses (`usable`); elsewhere a
    run keeps its worker processes, which are killed when over the limit.

    A signal handled inside a garbage-collector callback or a `__del__` cannot raise into
    the file's code (Python reports the raise as unraisable and goes on). That happens
    whenever the file is in a native call that makes containers while a library has a gc
    callback installed (hypothesis and distributed do): every collection runs the
    callback, and the signal is handled there. The handler then arms a trace function on
    the file's frames instead, which raises at the next line of the file's own code
    (unless a tracer such as coverage or a debugger is active: then the signal fires
    again every REFIRE seconds, as before).
    """

    def __init__(self) -> None:
        self.armed = False
        self.previous: Any = None
        self.hook: Any = None
        self._traced: list[Any] = []  # frames given `_late` as their trace function

    @staticmethod
    def usable() -> bool:
        """Whether this thread may time files with SIGALRM."""
        import signal
        import threading

        return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
                and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))

    def __enter__(self) -> _Alarm:
        import signal

        self.previous = signal.signal(signal.SIGALRM, self._fire)
        self.hook = sys.unraisablehook
        sys.unraisablehook = self._unraisable
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        self.armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        self._untrace()
        signal.signal(signal.SIGALRM, self.previous)
        sys.unraisablehook = self.hook

    def _unraisable(self, info: Any) -> None:
        # A raise inside a garbage-collector callback, a `__del__` or a weakref callback the
        # collector runs cannot reach the file's code; it is no error to print. The trace is
        # armed again, so the file stops at its next line (and the timer fires again anyway).
        if info.exc_type is not _OverTime:
            self.hook(info)
            return
        if self.armed and sys.gettrace() is None and not self._traced:
            self._arm(sys._getframe(1))

    def _fire(self, signum: int, frame: Any) -> None:
        if not self.armed:
            return
        if frame is not None and _in_finalizer(frame):
            if sys.gettrace() is None and not self._traced:
                self._arm(frame)
            return
        raise _OverTime

    def _arm(self, frame: Any) -> None:
        """Set `_late` as the trace function of `frame` and the frames below it (the file's;
        finalizer frames left out) and of every frame called from now on."""
        f = frame
        while f is not None:
            if not _finalizer_code(f.f_code):
                f.f_trace = self._late
                self._traced.append(f)
            f = f.f_back
        sys.settrace(self._late)

    def _late(self, frame: Any, event: str, arg: Any) -> Any:
        """Trace function armed by `_fire`: raises `_OverTime` at the first event of the
        file's own code (none inside a gc callback or a `__del__`)."""
        if not self.armed:
            self._untrace()
            return None
        if _in_finalizer(frame):
            return None
        self._untrace()
        raise _OverTime

    def _untrace(self) -> None:
        if self._traced:
            sys.settrace(None)
            for f in self._traced:
                f.f_trace = None
            self._traced.clear()

    def run(self, step: Callable[[], Any], seconds: float) -> bool:
        """Run `step` within `seconds`; False when it ran over (it was stopped, or was quick to return after).

        The timer fires again every REFIRE seconds past the limit while the step goes on:
        a raise inside a garbage-collector callback or a `__del__` is swallowed by Python.
        """
        import signal

        if seconds <= 0:
            return False
        self.armed = True
        try:
            try:
                signal.setitimer(signal.ITIMER_REAL, seconds, REFIRE)  # (inside: a tiny limit fires at once)
                step()
            finally:
                self.armed = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                self._untrace()
        except _OverTime:  # (maybe raised in the clean-up above: then disarm here)
            self.armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            self._untrace()
            return False
        return True


def _finalizer_code(code: Any) -> bool:
    """Whether `code` is that of a `__del__` or of a garbage-collector callback (where a
    raise is reported as unraisable, never reaching the code that was running)."""
    import gc

    if code.co_name == "__del__":
        return True
    for cb in gc.callbacks:
        fn = getattr(cb, "__func__", cb)
        call = type(cb).__dict__.get("__call__")  # a callable object's method
        if getattr(fn, "__code__", None) is code or getattr(call, "__code__", None) is code:
            return True
    return False


def _in_finalizer(frame: Any) -> bool:
    """Whether `frame` runs inside a `__del__` or a gc callback (see `_finalizer_code`)."""
    f = frame
    while f is not None:
        if _finalizer_code(f.f_code):
            return True
        f = f.f_back
    return False


def is_skipped(item: InputFile, max_file_size: int | None) -> bool:
    """True when `run` will skip `item` without reading it (no loader for its extension, or over
    `max_file_size` bytes): known before the run, so a progress display counts it apart from the start."""
    return _precheck(item, max_file_size) is not None


def _precheck(item: InputFile, max_file_size: int | None) -> FileResult | None:
    """The result of an input that needs no processing (unsupported, over the size limit), else None."""
    if item.format is None:
        return FileResult(item.source, None, nbytes=item.size, skipped=True)
    if max_file_size is not None and item.size > max_file_size:
        return FileResult(item.source, item.format, nbytes=item.size, skipped=True, warnings=[
            f"{item.source}: skipped, {item.size} bytes is over --max-file-size {max_file_size}"])
    return None


def _from_cache(item: InputFile, config: ChunkConfig, cache: RecordCache) -> FileResult | None:
    """The cached result of an input whose bytes, source and options are unchanged, else None."""
    import hashlib

    from chunkctl.pipeline.cache import file_sha256

    try:
        sha = hashlib.sha256(item.data).hexdigest() if item.data is not None else file_sha256(item.path or item.source)
    except OSError:
        return None  # the worker reports why it cannot be read
    entry = cache.get(cache.key(sha, item.source, item.format or "", config))
    if entry is None:
        return None
    return FileResult(item.source, item.format, entry.lines, entry.n_chunks, entry.n_tokens, item.size,
                      list(entry.warnings), sha256=sha, cached=True)


def _failure(item: InputFile, failure: Any, config: ChunkConfig) -> FileResult:
    kind = {"timeout": "Timeout", "crashed": "WorkerCrashed"}.get(failure.kind, "internal")
    return FileResult(item.source, item.format, nbytes=item.size,
                      error=f"{item.source}: {failure.message}{_timeout_hint(item, config) if kind == 'Timeout' else ''}",
                      error_type=kind)


def _timeout_hint(item: InputFile, config: ChunkConfig) -> str:
    """What to do about a PDF over the time limit when OCR may have read it: scanned pages take
    seconds each (helper-102: 28 pages, 466 s, reported as "took longer than 300 s" alone)."""
    if item.format != "pdf" or config.ocr == "never":
        return ""
    from chunkctl.loaders.pdf import ocr

    if not ocr.available():
        return ""
    return " (OCR of scanned pages takes seconds a page: raise --file-timeout, 0 for no limit, or give --ocr never)"


def _compute(items: list[InputFile], config: ChunkConfig, jobs: int, file_timeout: float | None,
             engine: str = "local", scheduler: str | None = None,
             on_done: Callable[[FileResult], None] | None = None,
             spill: str | None = None) -> Generator[FileResult, None, None]:
    """Process inputs in order: in worker processes, or in this process when there is one
    job or one file (a worker would only add its start-up: about 0.3 s) and a time limit,
    if any, can be kept by a signal timer. Runs that call a model keep their worker.

    The local engine calls `on_done` with each result as soon as the file is done (in
    the order files finish); the dask engine does not (`run` reports its results).
    """
    if not items:
        return
    if engine == "dask":
        import dataclasses
        import os

        from chunkctl.pipeline.engines import dask as dask_engine
        from chunkctl.pipeline.engines.local import TaskFailure as Failure

        # Workers open paths in their own working folder: send absolute ones (`source`,
        # what the records say, is a field of its own and stays as given).
        items = [dataclasses.replace(it, path=os.path.abspath(it.path)) if it.path else it for it in items]
        # (no spill folder: the workers may be other machines)
        # (a run that calls a model takes seconds a file whatever its size: one task a file)
        answers = dask_engine.map_ordered(functools.partial(process_file, config=config), items, scheduler, jobs,
                                          group=not model_assisted(config))
        unseen = 0  # files the workers could not read (while none was read): 3 in a row stop the run
        try:
            for item, res in zip(items, answers):
                if isinstance(res, Failure):
                    res = _failure(item, res, config)
                elif res.error_type == "LoaderError" and ": cannot read file (" in (res.error or "") \
                        and item.path and os.access(item.path, os.R_OK):
                    if unseen >= 0:
                        unseen += 1
                    if unseen == UNSEEN_STOP:
                        raise ChunkctlError(f"the Dask workers cannot read the input files ({UNSEEN_STOP} of "
                                            f"{len(items)} tried, all readable here): they need the input "
                                            "files at the same path (a shared file system)")
                    res.error = f"{res.error} on the Dask workers, though this machine can read it: the " \
                                "workers need the input files at the same path (a shared file system)"
                elif not res.error_type:
                    unseen = -1  # a worker read one: the others are files of their own
                yield res
        finally:
            answers.close()
        return
    if (jobs <= 1 or len(items) == 1) and (not file_timeout or _Alarm.usable()) and not _calls_model(config):
        yield from _in_process(items, config, file_timeout or None, on_done, spill)
        return
    task = functools.partial(process_file, config=config, spill=spill)
    from chunkctl.pipeline.engines.local import TaskFailure, imap_ordered

    def done(i: int, res: Any) -> None:
        if on_done is not None:
            on_done(_failure(items[i], res, config) if isinstance(res, TaskFailure) else res)

    # Look ahead up to 64 MB of input past the next file to write, so one slow big
    # file does not leave the other workers idle; memory stays bounded by that.
    # Files of up to SMALL_FILE bytes go to a worker several at a time, up to that
    # much in all: a round trip per file would cost more than the file (issue 14).
    results = imap_ordered(task, items, jobs, file_timeout, weight=lambda it: it.size,
                           init=_warm_for(items, config), ahead=64e6, batch_weight=SMALL_FILE,
                           on_done=done if on_done is not None else None)
    try:
        for i, res in results:
            yield _failure(items[i], res, config) if isinstance(res, TaskFailure) else res
    finally:
        results.close()


def _warm_for(items: list[InputFile], config: ChunkConfig) -> Callable[[], None]:
    """The workers' warm-up for these items: their formats' loaders are imported here first
    (a forked worker inherits them) and only their samples are chunked, so a run of
    Markdown files does not load the PDF stack in every worker."""
    from chunkctl.loaders import LOADERS

    formats = sorted({it.format for it in items if it.format is not None and it.format in LOADERS})
    for fmt in formats:
        try:
            LOADERS.get(fmt)
        except Exception:  # (a loader that cannot be imported: each of its files reports why)
            pass
    return functools.partial(warm, config, formats)


_STOPPED: list[BaseException] = []


def note_stop(exc: BaseException) -> None:
    """Record the exception a stop signal raised (the CLI's signal handler calls this).

    Raised inside a native call, it can be swallowed (ctypes turns it into an
    `ArgumentError` that the file's step reports as an error); files run in this process
    check between steps and raise it again, so the run stops as the signal asked.
    """
    _STOPPED.append(exc)


def _calls_model(config: ChunkConfig) -> bool:
    """Whether the run sends model requests: those go to a worker even with one job, since a
    request in flight holds its pool thread (joined at exit) past Ctrl-C, while a worker
    process is simply stopped."""
    if not config.extras:
        return False
    from chunkctl.llm.options import LLMOptions

    opts = LLMOptions.from_config(config)
    return bool(opts.active and not opts.dry_run)


class _Ahead:
    """A token table whose encoder pass runs on `_TablesAhead`'s thread: `result()` makes it."""

    __slots__ = ("owner", "text", "ids", "error", "done", "taken")

    def __init__(self, owner: _TablesAhead, text: str):
        import threading

        self.owner = owner
        self.text = text
        self.ids: Any = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.taken = False  # by the thread, or by `result` (set under the owner's lock)

    def result(self) -> TokenTable:
        """The table. When the thread has not started its pass yet (it is still on an
        earlier file's), this thread runs it: a file never waits for another's pass, so
        its time limit counts only its own work. Otherwise waits for the thread's ids (a
        time-limit signal still interrupts the wait).

        Raises:
            what the encoder raised (on the thread: e.g. MemoryError).
        """
        owner = self.owner
        with owner.lock:
            mine = not self.taken
            self.taken = True
        if mine:
            ids = owner.tok.pass_ids(self.text)
        else:
            t0 = time.perf_counter()
            self.done.wait()
            owner.waited += time.perf_counter() - t0
            if self.error is not None:
                raise self.error
            ids, self.ids = self.ids, None
        return owner.tok.table_of_ids(self.text, ids)


class _TablesAhead:
    """One daemon thread that runs the encoder pass of token tables (`Tokenizer.pass_ids`)
    in the order asked.

    tiktoken's encoder releases the GIL while it encodes, so a one-job run has the next
    documents encoded on this thread while Python code loads and chunks the ones before;
    the two overlap on two cores, and the tables are the same, so the records are. The
    thread runs one encoder call per document and nothing else: it needs the GIL only to
    start and to end that call, and while it runs Python's switch interval is SWITCH, so
    it gets the GIL within that time (with the default 5 ms, those waits tripled its time
    when the main thread was busy). A text that `Tokenizer.one_pass` says is tokenized
    piece by piece is not taken; `wanted` says when the machine has no core to spare.
    """

    def __init__(self, tok: Tokenizer):
        import queue
        import threading

        self.tok = tok
        self.lock = threading.Lock()
        self.queue: queue.SimpleQueue[_Ahead | None] = queue.SimpleQueue()
        self.thread: Any = None
        self.switch = 0.0
        self.use = True
        self.waited = 0.0  # seconds `result` waited for the thread since the last sample
        self.mark = (time.perf_counter(), time.thread_time(), 0.0)

    def wanted(self) -> bool:
        """Whether to hand the next document to the thread: whether this (the main) thread
        ran on a core SHARE of the time over the last SAMPLE seconds, not counting its
        waits for the thread. On a busy machine it does not, and the hand-overs would
        cost more than they save: each one makes this thread wait until the other is
        given a core (measured on the bench's md: 22% slower than without the thread
        under two busy loops on two cores when the thread was always used; 5% faster
        there with this check, 17% faster idle). Sampled the same way while the thread
        is not used, so it is used again once a core is free.
        """
        now, cpu = time.perf_counter(), time.thread_time()
        wall0, cpu0, waited0 = self.mark
        if now - wall0 >= SAMPLE:
            ran = now - wall0 - (self.waited - waited0)
            self.use = ran <= 0 or (cpu - cpu0) >= SHARE * ran
            self.mark = (now, cpu, self.waited)
        return self.use

    def submit(self, text: str) -> _Ahead | None:
        """Queue the encoder pass of `text`; its handle at once, or None (not one pass)."""
        if not self.tok.one_pass(text):
            return None
        ahead = _Ahead(self, text)
        if self.thread is None:
            import threading

            # The thread waits for the GIL twice a document (after the queue, after the
            # encoder): at most this long while the Python code runs, not the default 5 ms.
            self.switch = sys.getswitchinterval()
            sys.setswitchinterval(min(self.switch, SWITCH))
            self.thread = threading.Thread(target=self._serve, name="chunkctl-tables", daemon=True)
            self.thread.start()
        self.queue.put(ahead)
        return ahead

    def close(self) -> None:
        """Let the thread end after the pass it runs, if any (it is not waited for)."""
        if self.thread is not None:
            self.queue.put(None)
            sys.setswitchinterval(self.switch)

    def _serve(self) -> None:
        pass_ids = self.tok.pass_ids
        lock = self.lock
        while (ahead := self.queue.get()) is not None:
            with lock:
                if ahead.taken:  # its file's chunk step came first and builds the table itself
                    continue
                ahead.taken = True
            try:
                ahead.ids = pass_ids(ahead.text)
            except BaseException as exc:  # handed to the file's chunk step, which reports it
                ahead.error = exc
            finally:
                ahead.done.set()


def _in_process(items: list[InputFile], config: ChunkConfig, limit: float | None,
                on_done: Callable[[FileResult], None] | None,
                spill: str | None = None) -> Generator[FileResult, None, None]:
    """Process inputs in this process, in order: one job without a worker process.

    With a time limit (`limit` seconds, timed by `_Alarm`), files of ISOLATED_FORMATS go
    to one worker process all the same, one at a time (and no thread is started, so that
    worker is a plain fork). Otherwise, on two cores or more and while this thread has a
    core to itself (`_TablesAhead.wanted`), files are loaded up to AHEAD_MAX characters
    and AHEAD_FILES files ahead of the one being chunked, and the token tables of those
    of AHEAD_MIN characters or more are encoded on a thread meanwhile (`_TablesAhead`).
    Results come in item order either way, and each file's time limit counts its own
    steps (a file never waits for another file's encoder pass: see `_Ahead.result`).
    """
    import contextlib

    from chunkctl.pipeline.engines import cpu_count
    from chunkctl.tokenizers import get_tokenizer

    isolated = [it for it in items if limit and it.format in ISOLATED_FORMATS]
    from_worker = None
    tables: _TablesAhead | None = None
    if isolated:
        from chunkctl.pipeline.engines.local import TaskFailure, imap_ordered

        from_worker = imap_ordered(functools.partial(process_file, config=config, spill=spill), isolated, 1, limit,
                                   init=_warm_for(isolated, config), window=1)
    elif len(items) > 1 and any(it.size > AHEAD_MIN for it in items) and cpu_count() > 1:
        try:
            tables = _TablesAhead(get_tokenizer(config.tokenizer, config.tokenizer_pattern))
        except ChunkctlError:
            pass  # each file reports it
    alarm = _Alarm() if limit else None

    def step(job: _FileJob, fn: Callable[[], Any]) -> None:
        if alarm is None:
            fn()
        elif limit is not None and not alarm.run(fn, limit - job.seconds):
            job.timed_out(limit)
        if _STOPPED:
            raise _STOPPED[0]

    def done(job: _FileJob) -> FileResult:
        step(job, job.finish)
        res = job.finish()  # the result the step gave, or the timeout
        if on_done is not None:
            on_done(res)
        return res

    _STOPPED.clear()
    # Loaded, not yet chunked, in item order: files are loaded up to AHEAD_MAX characters
    # (and AHEAD_FILES files) ahead of the one being chunked, so the thread encodes while
    # Python code loads and chunks the files before.
    window: deque[_FileJob] = deque()
    chars = 0
    try:
        with alarm if alarm is not None else contextlib.nullcontext():
            for item in items:
                if from_worker is not None and item.format in ISOLATED_FORMATS:
                    _, res = next(from_worker)
                    if isinstance(res, TaskFailure):
                        res = _failure(item, res, config)
                    if on_done is not None:
                        on_done(res)
                    yield res
                    continue
                ahead = tables is not None and tables.wanted()
                while window and (not ahead or chars + item.size > AHEAD_MAX or len(window) >= AHEAD_FILES):
                    job = window.popleft()
                    chars -= job.chars
                    yield done(job)
                    del job
                job = _FileJob(item, config, spill=spill)
                step(job, job.load)
                doc = job.doc
                if doc is not None:
                    job.chars = len(doc.text)
                    if tables is not None and ahead and AHEAD_MIN <= job.chars <= AHEAD_MAX:
                        job.table = tables.submit(doc.text)
                del doc
                if ahead:
                    window.append(job)
                    chars += job.chars
                else:
                    yield done(job)
                del job
            while window:
                job = window.popleft()
                yield done(job)
                del job
    finally:
        if tables is not None:
            tables.close()
        if from_worker is not None:
            from_worker.close()


def plan(inputs: list[InputFile], config: ChunkConfig, max_file_size: int | None = None,
         cache: RecordCache | None = None) -> list[FileResult | None]:
    """The results known without processing: skipped inputs and, with a cache, unchanged files.

    Returns:
        one entry per input: its FileResult when known, else None (to be processed).
    """
    known: list[FileResult | None] = []
    for item in inputs:
        res = _precheck(item, max_file_size)
        if res is None and cache is not None:
            res = _from_cache(item, config, cache)
        known.append(res)
    return known


def run(inputs: list[InputFile], config: ChunkConfig, jobs: int = 1, max_file_size: int | None = None,
        file_timeout: float | None = DEFAULT_FILE_TIMEOUT, cache: RecordCache | None = None,
        known: list[FileResult | None] | None = None, engine: str = "local", scheduler: str | None = None,
        progress: Callable[[FileResult], None] | None = None,
        spill: bool = False) -> Generator[FileResult, None, None]:
    """Process a run's inputs and yield their results in input order.

    Files are processed by `jobs` worker processes (see `chunkctl.pipeline.engines.local`); the
    results come back in input order, so the output is byte-identical whatever
    `jobs` is. A file still running after `file_timeout` seconds has its worker
    stopped and replaced, and its result is a failure ("took longer than N s"); the
    run goes on. With `jobs=1` and no time limit, files are processed in this process.

    With a `cache`, a file whose bytes, source and options are unchanged is not
    parsed again: its records come from the cache, byte for byte what processing it
    would give; newly processed files are stored in it. Close the generator (or let
    an exception run through it) to stop the workers early.

    Args:
        inputs: from `discover` (and `stdin_input`).
        config: the chunking options.
        jobs: worker processes. Defaults to 1.
        max_file_size: skip (with a warning) files larger than this many bytes.
        file_timeout: seconds one file may take; None or 0: no limit. Defaults to
            DEFAULT_FILE_TIMEOUT (300).
        cache: record cache, or None.
        known: `plan(inputs, config, max_file_size, cache)` when the caller already
            made it (e.g. to load the tokenizer only when some file needs processing).
        engine: "local" (worker processes of this machine) or "dask" (a Dask cluster:
            `scheduler`'s address, or a local cluster of `jobs` processes; no per-file
            time limit there).
        scheduler: Dask scheduler address for engine "dask".
        progress: called with every input's result as soon as it is known, in the
            order files finish (not input order): first the results known without
            processing (skipped inputs, cache hits), then each processed file as its
            worker is done with it (with the dask engine, for now: as it is yielded).
            It runs in the caller's thread, between results (e.g. to redraw a
            progress display); it should be quick and not raise.
        spill: a document whose JSONL passes `chunkctl.spill.SPILL_AT` bytes
            keeps it in a file of a temporary folder of this run (engine "local"): its
            `lines` is then a `SpilledLines`, readable until the generator ends (read
            it with `line_blocks`; `discard` it once written to free the disk early).
            Defaults to False: processed files' `lines` are bytes. (A cache entry
            bigger than SPILL_AT is always a `SpilledLines` of the cache file.)

    Yields:
        one FileResult per input, in input order.
    """
    if known is None:
        known = plan(inputs, config, max_file_size, cache)
    todo = [item for item, res in zip(inputs, known) if res is None]
    report = progress if engine != "dask" else None
    folder = make_spill_folder() if spill and todo and engine != "dask" else None
    computed = _compute(todo, config, jobs, file_timeout, engine, scheduler, on_done=report, spill=folder)
    try:
        if progress is not None:
            for res in known:
                if res is not None:
                    progress(res)
        for res in known:
            if res is None:
                res = next(computed)
                if progress is not None and report is None:
                    progress(res)
                if cache is not None and res.error is None and res.sha256 and not res.model_failures \
                        and not res.lost and res.llm_plan is None:
                    from chunkctl.pipeline.cache import CacheEntry

                    key = cache.key(res.sha256, res.source, res.format or "", config)
                    cache.put(key, CacheEntry(res.lines, res.n_chunks, res.n_tokens, res.warnings))
            yield res
    finally:
        computed.close()
        remove_spill_folder(folder)
