"""`chunkctl eval`: a grid of chunkings scored on questions with reference excerpts; prints a table and the best flags."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from chunkctl.cli.console import EXIT_FAILED, Console, usage_error
from chunkctl.errors import ConfigError, LoaderError, MissingExtraError


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
    html_out: Annotated[Optional[str], typer.Option("--html", help="Write a page with recall and IoU against chunk "
                                                    "size per strategy, and the table, to this HTML file.")] = None,
) -> None:
    """Measure retrieval quality of chunkings on questions with known answers; print the best flags.

    Each configuration chunks every corpus file; the chunks of all corpora form one
    pool; each question retrieves from it, and the retrieved chunk bodies are scored
    on characters against the reference excerpts (recall, precision, precision_Ω and
    IoU of Smith & Troynikov 2024, Chroma). Needs the eval extra for BM25.

    Examples:

    \b
      chunkctl eval corpora --questions questions.csv
      chunkctl eval corpora --questions q.jsonl --grid "recursive:200/0,sentence:256/32" --json results.json
      chunkctl eval corpora --questions q.csv --token-budget 1000 --optimize iou --min-recall 87
      chunkctl eval corpora --questions q.csv --grid "recursive:100/0,recursive:200/0,recursive:400/0" --html eval.html
    """
    import orjson

    import chunkctl.eval as evaluate
    from chunkctl.output.writer import Output

    def progress(entry: str, secs: float) -> None:
        if not quiet:
            print(f"chunkctl: eval: {entry} done in {secs:.1f} s", file=sys.stderr, flush=True)

    if optimize not in evaluate.OPTIMIZE:
        raise usage_error(f"--optimize {optimize!r} is not one of: {', '.join(evaluate.OPTIMIZE)}")
    try:
        report = evaluate.run(corpus_dir, questions, grid, retriever, k, token_budget, progress)
    except (ConfigError, MissingExtraError) as exc:
        raise usage_error(str(exc)) from None
    except LoaderError as exc:
        Console().error(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    floor = None if min_recall is None else min_recall / 100
    if json_out:
        out = Output(json_out)
        out.write(orjson.dumps(report.to_dict(optimize, floor), option=orjson.OPT_INDENT_2) + b"\n")
        out.commit()
    if html_out:
        from chunkctl.view import eval_page

        page = Output(html_out)
        page.write(eval_page(report.to_dict(optimize, floor)).encode("utf-8"))
        page.commit()
    _print_eval(report, report.best(optimize, floor), optimize, min_recall)


def _print_eval(report, best, optimize: str, min_recall: Optional[float]) -> None:
    """The results table and the best configuration, on stdout."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    s = report.settings
    limit = f"k={s['k']}" if s["token_budget"] is None else f"token budget {s['token_budget']}" + (
        f", k={s['k']}" if s["k"] else "")
    head, body = report.table()
    table = Table(title=f"{s['n_questions']} questions, {s['retriever']['name']}, {limit} "
                        f"(metrics in %, mean ± std over questions)")
    for i, name in enumerate(head):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row, cells in zip(report.rows, body):
        table.add_row(*map(Text, cells), style="bold" if row is best else None)  # Text: never read as markup
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    console.print(table)
    if best is None:
        console.print(f"no configuration reaches a mean recall of {min_recall}%")
        return
    note = " (retrieve the children, give the generator their parents)" if best.scored == "parents" else ""
    console.print(f"best by {optimize}: {best.name} ({optimize} {100 * best.mean(optimize):.1f}%, recall "
                  f"{100 * best.mean('recall'):.1f}%)\n  chunkctl chunk DOCS {best.flags}{note}",
                  soft_wrap=True, markup=False)
