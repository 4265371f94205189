"""The command line's rich renderings (progress, summary, inspect, stats, config); only the cli package imports it, and it holds no logic."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group
from rich.filesize import decimal
from rich.panel import Panel
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn
from rich.table import Table
from rich.text import Text

from chunkctl.cli.console import one_line, shown_text

if TYPE_CHECKING:
    from chunkctl.contract.stats import ChunkStats
    from chunkctl.pipeline.inspection import ChunkView
    from chunkctl.pipeline.summary import RunSummary

STYLES = {"breadcrumb": "bold cyan", "header": "bold magenta", "context": "cyan", "overlap": "dim italic",
          "body": ""}


class RunProgress:
    """The live progress display of `chunkctl chunk` on stderr: files and bytes done, chunks, rate and ETA.

    A file counts as done when it finishes (`done`, called by `pipeline.run` in the
    order the workers finish files), not when its records are written in input
    order; failed files are done too, skipped ones are shown apart and are not work
    to do. The rate is of the files processed since the first one was done (so the
    workers' start is not counted; files from the cache cost nothing and are left
    out), and the ETA is the bytes left at that rate. It is redrawn by the caller's
    thread when a file is done, at most every REDRAW seconds: no refresh thread, so
    worker processes can be forked safely.

    Args:
        console: a stderr console (a terminal).
        files: number of inputs.
        total_bytes: their bytes.
        clock: seconds (tests give their own).
        skipped: inputs known before the run to be skipped (`pipeline.run.is_skipped`), counted
            apart from the first frame; their results, when they come, are not counted again
            (helper-114: the first frames of a run over a folder of many unsupported files said
            "0/2721 files", then the count fell as their results came).
        skipped_bytes: their bytes.
    """

    REDRAW = 0.1
    RATE_AFTER = 1.0
    """Seconds after the first file was done before a rate and an ETA are shown (the first files say little)."""

    def __init__(self, console: Console, files: int, total_bytes: int, clock: Callable[[], float] = time.monotonic,
                 skipped: int = 0, skipped_bytes: int = 0):
        self.files, self.total_bytes, self.clock = files, total_bytes, clock
        self.done_files = self.done_bytes = self.chunks = self.failed = 0
        self.cached_bytes = 0
        self.skipped, self.skipped_bytes = skipped, skipped_bytes
        self._known_skips = skipped  # skipped results still to come that are counted already
        self.first: tuple[float, int, int] | None = None  # (when, bytes, files) at the first file processed
        self._drawn = float("-inf")
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.fields[files]}"), BarColumn(),
                                 TextColumn("{task.fields[info]}"), console=console, transient=True,
                                 auto_refresh=False)
        files_text, info = self.text()
        self.task = self.progress.add_task("chunk", total=max(total_bytes, 1), files=files_text, info=info)

    def __enter__(self) -> RunProgress:
        self.progress.start()
        self.redraw()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def done(self, res: Any) -> None:
        """Count one input whose result is known (a `FileResult`: skipped, error, cached, nbytes, n_chunks)."""
        if res.skipped:
            if self._known_skips:
                self._known_skips -= 1
            else:
                self.skipped += 1
                self.skipped_bytes += res.nbytes
        else:
            self.done_files += 1
            self.done_bytes += res.nbytes
            self.chunks += res.n_chunks
            self.failed += bool(res.error)
            self.cached_bytes += res.nbytes if res.cached else 0
            if self.first is None and not res.cached:
                self.first = (self.clock(), self.done_bytes - self.cached_bytes, self.done_files)
        if self.clock() - self._drawn >= self.REDRAW or self.done_files + self.skipped >= self.files:
            self.redraw()

    def rate(self) -> tuple[float, float] | None:
        """(bytes, files) processed per second since the first file was, cache hits left out; None
        until RATE_AFTER seconds after it."""
        if self.first is None:
            return None
        since, nbytes, files = self.first
        seconds = self.clock() - since
        work = self.done_bytes - self.cached_bytes - nbytes
        if seconds < self.RATE_AFTER or work <= 0:
            return None
        return work / seconds, (self.done_files - files) / seconds

    def eta(self) -> float | None:
        """Seconds left: the bytes not done yet at the rate so far (None before a rate)."""
        rate = self.rate()
        if rate is None:
            return None
        return max(0, self.total_bytes - self.skipped_bytes - self.done_bytes) / rate[0]

    def text(self) -> tuple[str, str]:
        """What the display says: ("12/40 files", "1.2 MB/3.4 MB  97 chunks  ...  ETA 0:07")."""
        todo = self.files - self.skipped
        parts = [f"{decimal(self.done_bytes)}/{decimal(self.total_bytes - self.skipped_bytes)}",
                 f"{self.chunks:,} chunks"]
        if self.failed:
            parts.append(f"{self.failed:,} failed")
        if self.skipped:
            parts.append(f"{self.skipped:,} skipped")
        rate, eta = self.rate(), self.eta()
        if rate is not None and eta is not None:
            parts.append(f"{decimal(round(rate[0]))}/s, {rate[1]:,.0f} files/s")
            parts.append(f"ETA {_clock_time(eta)}")
        return f"{self.done_files:,}/{todo:,} files", "  ".join(parts)

    def redraw(self) -> None:
        """Show the counts now."""
        files, info = self.text()
        self.progress.update(self.task, total=max(self.total_bytes - self.skipped_bytes, 1),
                             completed=self.done_bytes, files=files, info=info)
        self.progress.refresh()
        self._drawn = self.clock()


def _clock_time(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def summary_table(s: RunSummary) -> Table:
    """The end-of-run summary as a table (for a terminal)."""
    t = Table(title="chunkctl", show_header=False, title_justify="left", box=None, padding=(0, 2))
    t.add_column(style="bold")
    t.add_column(justify="right")
    fmts = ", ".join(f"{k} {v}" for k, v in sorted(s.by_format.items())) or "none"
    t.add_row("files", f"{s.files} ({fmts})")
    t.add_row("chunks", f"{s.chunks:,}")
    t.add_row("tokens", f"{s.tokens:,}")
    t.add_row("failed", Text(str(s.failed), style="bold red" if s.failed else ""))
    detail = s.skipped_detail()
    t.add_row("skipped", f"{s.skipped} ({detail})" if detail else str(s.skipped))
    t.add_row("empty", str(s.empty))
    if s.cached:
        t.add_row("from cache", str(s.cached))
    t.add_row("time", f"{s.seconds:.2f} s")
    t.add_row("speed", f"{s.mb_per_s:.1f} MB/s")
    return t


def chunk_panels(views: list[ChunkView], preview: int = 0) -> Group:
    """Each chunk as a panel: index, tokens/budget, span, pages, kind, headings in the title;
    the breadcrumb, repeated header and overlap styled apart from the body."""
    panels = []
    for v in views:
        r = v.record
        text = Text()
        shown = 0
        for role, part in v.parts:
            part = shown_text(part)  # page breaks visible, no control character reaches the terminal
            if preview and shown + len(part) > preview:
                text.append(part[: max(0, preview - shown)], style=STYLES[role])
                text.append(" …", style="dim")
                break
            text.append(part, style=STYLES[role])
            shown += len(part)
        pages = f" p{r['page_start']}" + (f"-{r['page_end']}" if r["page_end"] != r["page_start"] else "") \
            if r.get("page_start") else ""
        budget = r["meta"].get("chunk_size")
        title = (f"#{r['chunk_index']}  {r['n_tokens']}/{budget} tok  [{r['start']}:{r['end']}){pages}  {r['kind']}"
                 + ("  OVERSIZE" if r["oversize"] else "") + (f"  overlap {v.overlap} ch" if v.overlap else ""))
        subtitle = Text(one_line(" > ".join(r["headings"]))) if r["headings"] else None  # Text: never read as markup
        panels.append(Panel(text, title=Text(title), title_align="left", subtitle=subtitle, subtitle_align="left"))
    legend = Text.assemble(("breadcrumb", STYLES["breadcrumb"]), "  ", ("repeated header", STYLES["header"]), "  ",
                           ("overlap with the previous chunk", STYLES["overlap"]), "  body")
    return Group(legend, *panels)


def stats_tables(st: ChunkStats, top: int = 5, max_violations: int = 20) -> Group:
    """Sizes, formats, kinds, chunks per document and violations of a JSONL file (the size histogram is `charts.py`)."""
    parts: list[Any] = []
    t = Table(title="records", show_header=False, title_justify="left", box=None, padding=(0, 2))
    t.add_column(style="bold")
    t.add_column(justify="right")
    t.add_row("records", f"{st.records:,}")
    t.add_row("documents", f"{st.documents:,}")
    t.add_row("tokens", f"{st.tokens:,}")
    t.add_row("tokens per chunk", f"min {min(st.sizes, default=0)}  median {st.percentile(50)}  "
                                  f"p95 {st.percentile(95)}  max {max(st.sizes, default=0)}")
    t.add_row("oversize", str(st.oversize))
    parts.append(t)
    f = Table(title="by format", title_justify="left", box=None, padding=(0, 2))
    f.add_column("format")
    f.add_column("documents", justify="right")
    f.add_column("chunks", justify="right")
    docs = st.docs_by_format()
    for fmt in sorted(st.by_format):
        f.add_row(Text(one_line(str(fmt))), str(docs.get(fmt, 0)), str(st.by_format[fmt]))
    parts.append(f)
    k = Table(title="by kind", title_justify="left", box=None, padding=(0, 2))
    k.add_column("kind")
    k.add_column("chunks", justify="right")
    for kind, c in st.by_kind.most_common():
        k.add_row(Text(one_line(str(kind))), str(c))
    parts.append(k)
    per = sorted(st.chunks_per_doc.values())
    d = Table(title="chunks per document", title_justify="left", box=None, padding=(0, 2))
    d.add_column("document")
    d.add_column("chunks", justify="right")
    if per:
        d.add_row("(min / median / max)", f"{per[0]} / {per[len(per) // 2]} / {per[-1]}")
    for src, c in sorted(st.chunks_per_doc.items(), key=lambda kv: -kv[1])[:top]:
        d.add_row(Text(one_line(str(src))), str(c))
    parts.append(d)
    if st.violations:
        v = Table(title=f"contract violations: {len(st.violations)}", title_justify="left", title_style="bold red",
                  box=None, padding=(0, 2))
        v.add_column("line", justify="right")
        v.add_column("rule")
        v.add_column("document")
        v.add_column("problem")
        for x in st.violations[:max_violations]:
            v.add_row(str(x.line), Text(one_line(x.rule)), Text(one_line(x.source or "")), Text(one_line(x.message)))
        parts.append(v)
    else:
        parts.append(Text("contract: no violations found", style="bold green"))
    return Group(*parts)


def config_table(values: dict[str, Any], origins: dict[str, str]) -> Table:
    """The effective configuration: option, value, where it came from."""
    t = Table(box=None, padding=(0, 2))
    t.add_column("option", style="bold")
    t.add_column("value")
    t.add_column("from", style="dim")
    for key, value in values.items():
        t.add_row(key.replace("_", "-"), Text(repr(value)), Text(str(origins[key])))
    return t
