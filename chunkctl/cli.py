"""Command line: parse and cross-check options, wire inputs -> pipeline -> output; rich output only here, on stderr."""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from typing import Annotated, Optional

import typer

from .__about__ import __version__
from .errors import ChunkctlError, ConfigError, MissingExtraError, TokenizerError

app = typer.Typer(
    name="chunkctl",
    help="Chunk documents (txt, Markdown, PDF, HTML) into token-budgeted JSONL for RAG.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class _Console:
    """One-line messages and the summary on stderr (rich only when stderr is a terminal)."""

    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self._rich = None

    @property
    def rich(self):
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(stderr=True, highlight=False)
        return self._rich

    def error(self, msg: str) -> None:
        print(f"chunkctl: error: {msg}", file=sys.stderr, flush=True)

    def warn(self, msg: str) -> None:
        if not self.quiet:
            print(f"chunkctl: warning: {msg}", file=sys.stderr, flush=True)


def _usage_error(msg: str) -> "typer.Exit":
    print(f"chunkctl: error: {msg}", file=sys.stderr, flush=True)
    return typer.Exit(EXIT_USAGE)


def _version(value: bool) -> None:
    if value:
        print(f"chunkctl {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """chunkctl: structure-aware, token-exact chunking for retrieval-augmented generation."""


def _build_config(**kw):
    from .config import ChunkConfig

    try:
        return ChunkConfig(**kw)
    except ConfigError as exc:
        raise _usage_error(str(exc))


def _parse_levels(levels: Optional[str]) -> Optional[tuple[int, ...]]:
    if not levels:
        return None
    try:
        return tuple(int(x) for x in levels.replace(" ", "").split(",") if x)
    except ValueError:
        raise _usage_error(f"--levels {levels!r}: give budgets in tokens separated by commas, e.g. 2048,512,128")


@app.command()
def chunk(
    paths: Annotated[list[str], typer.Argument(help="Files and folders to chunk (folders are walked recursively).",
                                               show_default=False)],
    output: Annotated[Optional[str], typer.Option("-o", "--output", help="Write JSONL here (atomically); '-' or "
                                                  "nothing: stdout. A name ending in .gz is gzip-compressed.")] = None,
    strategy: Annotated[str, typer.Option("--strategy", "-s", help="Chunking strategy: recursive, fixed, sentence, "
                                          "section, hierarchical, semantic, auto.")] = "recursive",
    chunk_size: Annotated[int, typer.Option("--chunk-size", "-n", help="Token budget per chunk, prefix included.")] = 512,
    overlap: Annotated[str, typer.Option("--overlap", help="Tokens shared by consecutive chunks at most: a number "
                                         "or a percentage of --chunk-size.")] = "15%",
    tokenizer: Annotated[str, typer.Option("--tokenizer", help="cl100k_base, o200k_base, a model name, or a "
                                           ".tiktoken file.")] = "cl100k_base",
    tokenizer_pattern: Annotated[Optional[str], typer.Option("--tokenizer-pattern", help="Pre-tokenizer regex "
                                                             "for a local .tiktoken file.")] = None,
    context: Annotated[str, typer.Option("--context", help="What goes in prefix: none, headings, "
                                         "title+headings.")] = "headings",
    no_breadcrumbs: Annotated[bool, typer.Option("--no-breadcrumbs", help="Same as --context none.")] = False,
    encoding: Annotated[Optional[str], typer.Option("--encoding", help="Force the text encoding of txt/md/html "
                                                    "files (default: detect).")] = None,
    min_chunk_tokens: Annotated[int, typer.Option("--min-chunk-tokens", help="section: merge sibling sections "
                                                  "smaller than this.")] = 0,
    parent_chunk_size: Annotated[Optional[int], typer.Option("--parent-chunk-size", help="hierarchical: parent "
                                                             "budget (default 4x --chunk-size).")] = None,
    levels: Annotated[Optional[str], typer.Option("--levels", help="hierarchical: budgets from largest to "
                                                  "smallest, e.g. 2048,512,128.")] = None,
    sentence_splitter: Annotated[str, typer.Option("--sentence-splitter", help="blingfire (fast) or pysbd "
                                                   "(accurate).")] = "blingfire",
    breakpoint_percentile: Annotated[float, typer.Option("--breakpoint-percentile", help="semantic: cut below "
                                                         "this percentile of neighbour similarity.")] = 95.0,
    content_type: Annotated[Optional[str], typer.Option("--content-type", help="auto: force legal, narrative, "
                                                        "code or other.")] = None,
    main_content: Annotated[bool, typer.Option("--main-content", help="html: keep only the main article.")] = False,
    keep_boilerplate: Annotated[bool, typer.Option("--keep-boilerplate", help="html: keep navigation, headers, "
                                                   "footers and asides.")] = False,
    password: Annotated[Optional[str], typer.Option("--password", help="pdf: password of encrypted files.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes (0: all cores).")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No warnings, progress or summary.")] = False,
    include: Annotated[Optional[list[str]], typer.Option("--include", help="Only files matching this glob "
                                                         "(repeatable).")] = None,
    exclude: Annotated[Optional[list[str]], typer.Option("--exclude", help="Skip files matching this glob "
                                                         "(repeatable).")] = None,
    hidden: Annotated[bool, typer.Option("--hidden", help="Also walk hidden files and folders.")] = False,
    max_file_size: Annotated[Optional[int], typer.Option("--max-file-size", help="Skip files larger than this "
                                                         "many bytes, with a warning.")] = None,
) -> None:
    """Chunk files and folders into JSONL records (one per chunk).

    Examples:

      chunkctl chunk ./docs -o chunks.jsonl

      chunkctl chunk ./docs --strategy recursive --chunk-size 256 --overlap 32 | jq .text

      chunkctl chunk policy.txt --strategy fixed --chunk-size 128 --overlap 15%
    """
    from . import pipeline
    from .tokenizers import get_tokenizer
    from .writer import Output

    con = _Console(quiet)
    if no_breadcrumbs:
        context = "none"
    config = _build_config(
        strategy=strategy, chunk_size=chunk_size, overlap=overlap, tokenizer=tokenizer,
        tokenizer_pattern=tokenizer_pattern, context=context, encoding=encoding,
        min_chunk_tokens=min_chunk_tokens, parent_chunk_size=parent_chunk_size, levels=_parse_levels(levels),
        sentence_splitter=sentence_splitter, breakpoint_percentile=breakpoint_percentile,
        content_type=content_type, main_content=main_content, keep_boilerplate=keep_boilerplate,
        password=password,
    )
    if jobs < 0:
        raise _usage_error("--jobs must be 0 (all cores) or a positive number")
    if max_file_size is not None and max_file_size < 0:
        raise _usage_error("--max-file-size must not be negative")
    if encoding:
        import codecs

        try:
            codecs.lookup(encoding)
        except LookupError:
            raise _usage_error(f"--encoding {encoding!r} is not an encoding Python knows")
    try:
        get_tokenizer(config.tokenizer, config.tokenizer_pattern)
        from .chunking import STRATEGIES

        STRATEGIES[config.strategy].ready(config)
    except (TokenizerError, ConfigError, MissingExtraError) as exc:
        raise _usage_error(str(exc))

    found = pipeline.discover(paths, include or (), exclude or (), hidden)
    failures = 0
    for p in found.problems:
        con.error(p)
        failures += 1
    n_workers = jobs or (os.cpu_count() or 1)
    t0 = time.perf_counter()
    out = Output(output)
    stats = Counter()
    by_format = Counter()
    try:
        for res in pipeline.run(found.inputs, config, n_workers, max_file_size):
            for w in res.warnings:
                con.warn(w)
            if res.skipped:
                stats["skipped"] += 1
                continue
            if res.error:
                con.error(res.error)
                failures += 1
                continue
            out.write(res.lines)
            stats["files"] += 1
            stats["chunks"] += res.n_chunks
            stats["tokens"] += res.n_tokens
            stats["bytes"] += res.nbytes
            by_format[res.format] += 1
            if res.n_chunks == 0:
                stats["empty"] += 1
        out.commit()
    except KeyboardInterrupt:
        out.abort()
        con.error("interrupted; no output file was written")
        raise typer.Exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        out.abort()
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        raise typer.Exit(EXIT_OK if not failures else EXIT_FAILED)
    except BaseException:
        out.abort()
        raise
    secs = time.perf_counter() - t0
    if not quiet:
        fmts = ", ".join(f"{k} {v}" for k, v in sorted(by_format.items()))
        mb = stats["bytes"] / 1e6
        line = (f"chunkctl: {stats['files']} files ({fmts or 'none'}), {stats['chunks']} chunks, "
                f"{stats['tokens']} tokens, {failures} failed, {stats['skipped']} skipped, "
                f"{stats['empty']} empty, {secs:.2f} s, {mb / secs if secs else 0:.1f} MB/s")
        print(line, file=sys.stderr, flush=True)
    raise typer.Exit(EXIT_FAILED if failures else EXIT_OK)


@app.command()
def extract(
    file: Annotated[str, typer.Argument(help="The file whose document text to print.", show_default=False)],
    blocks: Annotated[bool, typer.Option("--blocks", help="Print the typed blocks as JSONL instead.")] = False,
    encoding: Annotated[Optional[str], typer.Option("--encoding", help="Force the text encoding.")] = None,
    main_content: Annotated[bool, typer.Option("--main-content", help="html: keep only the main article.")] = False,
    keep_boilerplate: Annotated[bool, typer.Option("--keep-boilerplate", help="html: keep page furniture.")] = False,
    password: Annotated[Optional[str], typer.Option("--password", help="pdf: password.")] = None,
) -> None:
    """Print the document text that chunk offsets (start, end) index, as UTF-8.

    Examples:

      chunkctl extract report.pdf > report.txt

      chunkctl extract page.html --blocks | jq -c '[.kind, .headings]'
    """
    import orjson

    from .errors import LoaderError
    from .pipeline import load

    config = _build_config(encoding=encoding, main_content=main_content, keep_boilerplate=keep_boilerplate,
                           password=password)
    try:
        doc = load(file, config)
    except LoaderError as exc:
        print(f"chunkctl: error: {exc}", file=sys.stderr)
        raise typer.Exit(EXIT_FAILED)
    for w in doc.warnings:
        print(f"chunkctl: warning: {file}: {w}", file=sys.stderr)
    out = sys.stdout.buffer
    if blocks:
        for b in doc.blocks:
            d = b.to_dict()
            d["text"] = doc.text[b.start:b.end]
            out.write(orjson.dumps(d, option=orjson.OPT_APPEND_NEWLINE))
    else:
        out.write(doc.text.encode("utf-8", "surrogatepass"))
    out.flush()


@app.command("eval")
def eval_(
    corpus_dir: Annotated[str, typer.Argument(help="Folder of corpus files; a question's corpus_id is a file stem.",
                                              show_default=False)],
    questions: Annotated[str, typer.Option("--questions", help="Questions with reference excerpts: CSV or JSON "
                                           "lines (question, references, corpus_id).", show_default=False)],
    grid: Annotated[str, typer.Option("--grid", help="Configurations, comma-separated strategy:size/overlap"
                                      "[:key=value], e.g. recursive:200/0,hierarchical:200/0:parent=800.")
                    ] = "recursive:200/0,recursive:400/0,sentence:256/32,section:400/0,hierarchical:200/0,fixed:200/0",
    retriever: Annotated[str, typer.Option("--retriever", help="bm25 (no model) or embedding (WordLlama, the "
                                           "semantic extra).")] = "bm25",
    k: Annotated[Optional[int], typer.Option("--k", help="Chunks retrieved per question [default: 5, or no limit "
                                             "with --token-budget].", show_default=False)] = None,
    token_budget: Annotated[Optional[int], typer.Option("--token-budget", help="Retrieve chunks in rank order "
                                                        "while their tokens fit in this many.")] = None,
    optimize: Annotated[str, typer.Option("--optimize", help="Pick the best configuration by iou or "
                                          "recall.")] = "iou",
    min_recall: Annotated[Optional[float], typer.Option("--min-recall", help="Only configurations with at least "
                                                        "this mean recall (percent) can be best.")] = None,
    json_out: Annotated[Optional[str], typer.Option("--json", help="Write every figure (per corpus and per "
                                                    "question too) to this JSON file.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
) -> None:
    """Measure retrieval quality of chunkings on questions with known answers; print the best flags.

    Each configuration chunks every corpus file; the chunks of all corpora form one
    pool; each question retrieves from it, and the retrieved chunk bodies are scored
    on characters against the reference excerpts (recall, precision, precision_Ω and
    IoU of Smith & Troynikov 2024, Chroma). Needs the eval extra for BM25.

    Examples:

      chunkctl eval corpora --questions questions.csv

      chunkctl eval corpora --questions q.jsonl --grid "recursive:200/0,sentence:256/32" --json results.json

      chunkctl eval corpora --questions q.csv --token-budget 1000 --optimize iou --min-recall 87
    """
    import orjson

    from . import evaluate
    from .errors import LoaderError
    from .writer import Output

    def progress(entry: str, secs: float) -> None:
        if not quiet:
            print(f"chunkctl: eval: {entry} done in {secs:.1f} s", file=sys.stderr, flush=True)

    if optimize not in evaluate.OPTIMIZE:
        raise _usage_error(f"--optimize {optimize!r} is not one of: {', '.join(evaluate.OPTIMIZE)}")
    try:
        report = evaluate.run(corpus_dir, questions, grid, retriever, k, token_budget, progress)
    except (ConfigError, MissingExtraError) as exc:
        raise _usage_error(str(exc))
    except LoaderError as exc:
        _Console().error(str(exc))
        raise typer.Exit(EXIT_FAILED)
    floor = None if min_recall is None else min_recall / 100
    if json_out:
        out = Output(json_out)
        out.write(orjson.dumps(report.to_dict(optimize, floor), option=orjson.OPT_INDENT_2) + b"\n")
        out.commit()
    _print_eval(report, report.best(optimize, floor), optimize, min_recall)


def _print_eval(report, best, optimize: str, min_recall: Optional[float]) -> None:
    """The results table and the best configuration, on stdout."""
    from rich.console import Console
    from rich.table import Table

    s = report.settings
    limit = f"k={s['k']}" if s["token_budget"] is None else f"token budget {s['token_budget']}" + (
        f", k={s['k']}" if s["k"] else "")
    head, body = report.table()
    table = Table(title=f"{s['n_questions']} questions, {s['retriever']['name']}, {limit} "
                        f"(metrics in %, mean ± std over questions)")
    for i, name in enumerate(head):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row, cells in zip(report.rows, body):
        table.add_row(*cells, style="bold" if row is best else None)
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    console.print(table)
    if best is None:
        console.print(f"no configuration reaches a mean recall of {min_recall}%")
        return
    note = " (retrieve the children, give the generator their parents)" if best.scored == "parents" else ""
    console.print(f"best by {optimize}: {best.name} ({optimize} {100 * best.mean(optimize):.1f}%, recall "
                  f"{100 * best.mean('recall'):.1f}%)\n  chunkctl chunk DOCS {best.flags}{note}", soft_wrap=True)


@app.command()
def schema() -> None:
    """Print the JSON Schema of one output record (contract v1)."""
    import orjson

    from .schema import record_schema

    sys.stdout.buffer.write(orjson.dumps(record_schema(), option=orjson.OPT_INDENT_2) + b"\n")


def run() -> None:
    """Console-script entry point."""
    try:
        app()
    except ChunkctlError as exc:
        print(f"chunkctl: error: {exc}", file=sys.stderr)
        sys.exit(EXIT_FAILED)
    except KeyboardInterrupt:
        print("chunkctl: error: interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
