"""`chunkctl eval`: a grid of chunkings scored on questions with reference excerpts (table, baseline intervals,
held-out pick); `eval generate` and `eval squad` make question sets."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from chunkctl.cli.console import EXIT_FAILED, Console, usage_error
from chunkctl.errors import ConfigError, LoaderError, MissingExtraError, TokenizerError


def eval_(
    corpus_dir: Annotated[str, typer.Argument(help="Folder of corpus files; a question's corpus_id is a file stem.",
                                              metavar="CORPUS_DIR",
                                              show_default=False)],
    questions: Annotated[str, typer.Option("--questions", help="Questions with reference excerpts: CSV or JSON "
                                           "lines (question, references, corpus_id).", show_default=False)],
    grid: Annotated[str, typer.Option("--grid", help="Configurations, comma-separated strategy:size/overlap"
                                      "[:key=value], e.g. recursive:200/0,hierarchical:200/0:parent=800.")
                    ] = "recursive:200/0,recursive:400/0,sentence:256/32,section:400/0,hierarchical:200/0,fixed:200/0",
    retriever: Annotated[str, typer.Option("--retriever", help="bm25 (no model), embedding (WordLlama, the "
                                           "semantic extra) or openai (your model at --embed-base-url).")
                         ] = "bm25",
    k: Annotated[Optional[int], typer.Option("--k", help="Chunks retrieved per question [default: 5, or no limit "
                                             "with --token-budget].", show_default=False)] = None,
    token_budget: Annotated[Optional[int], typer.Option("--token-budget", help="Retrieve chunks in rank order "
                                                        "while their tokens fit in this many.")] = None,
    equal_tokens: Annotated[Optional[int], typer.Option("--equal-tokens", help="Also score every configuration "
                                                        "at this many retrieved tokens (no count limit).")] = None,
    optimize: Annotated[str, typer.Option("--optimize", help="Pick the best configuration by iou or "
                                          "recall, leaving one corpus out in turn.")] = "iou",
    baseline: Annotated[Optional[str], typer.Option("--baseline", help="Grid entry the others are compared to "
                                                    "(paired 95% bootstrap intervals) [default: the first].",
                                                    show_default=False)] = None,
    sample: Annotated[Optional[int], typer.Option("--sample", help="Score this many questions, drawn at random "
                                                  "(--seed).", show_default=False)] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of --sample.")] = 0,
    embed_base_url: Annotated[Optional[str], typer.Option("--embed-base-url", help="OpenAI-compatible endpoint "
                                                          "of --retriever openai, e.g. http://localhost:8000/v1.",
                                                          show_default=False)] = None,
    embed_model: Annotated[Optional[str], typer.Option("--embed-model", help="Embedding model name (chunk "
                                                       "texts).", show_default=False)] = None,
    embed_query_model: Annotated[Optional[str], typer.Option("--embed-query-model", help="Model name for "
                                                             "questions [default: --embed-model].",
                                                             show_default=False)] = None,
    embed_query_prefix: Annotated[str, typer.Option("--embed-query-prefix", help="Text put before each question "
                                                    "(e5 served raw: 'query: ').")] = "",
    embed_doc_prefix: Annotated[str, typer.Option("--embed-doc-prefix", help="Text put before each chunk text "
                                                  "(e5 served raw: 'passage: ').")] = "",
    embed_batch_size: Annotated[int, typer.Option("--embed-batch-size", help="Texts per embeddings request.")
                                ] = 32,
    embed_api_key_env: Annotated[str, typer.Option("--embed-api-key-env", help="Environment variable holding "
                                                   "the API key.")] = "OPENAI_API_KEY",
    cache: Annotated[Optional[str], typer.Option("--cache", help="Folder of the embedding cache [default: "
                                                 "~/.cache/chunkctl/embeddings].", show_default=False)] = None,
    min_recall: Annotated[Optional[float], typer.Option("--min-recall", help="Only configurations with at least "
                                                        "this mean recall (percent) can be best.")] = None,
    json_out: Annotated[Optional[str], typer.Option("--json", help="Write every figure (per corpus and per "
                                                    "question too) to this JSON file.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
    html_out: Annotated[Optional[str], typer.Option("--html", help="Write a page with recall and IoU against chunk "
                                                    "size per strategy, and the table, to this HTML file.")] = None,
) -> None:
    """Measure retrieval quality of chunkings on questions with known answers; print the recommended flags.

    Each configuration chunks every corpus file; the chunks of all corpora form one
    pool; each question retrieves from it, and the retrieved chunk bodies are scored
    on characters against the reference excerpts (recall, precision, precision_Ω and
    IoU of Smith & Troynikov 2024, Chroma). Every row is compared to --baseline
    (paired differences, 95% bootstrap intervals over questions). The pick is made
    leaving one corpus out in turn (chosen on the others, scored on it). Needs the
    eval extra for BM25. No questions yet? `chunkctl eval generate CORPUS --help`;
    a SQuAD file as a set: `chunkctl eval squad FILE OUT`.

    Examples:

    \b
      chunkctl eval corpora --questions questions.csv
      chunkctl eval corpora --questions q.jsonl --grid "recursive:200/0,sentence:256/32" --json results.json
      chunkctl eval corpora --questions q.csv --token-budget 1000 --optimize iou --min-recall 87
      chunkctl eval corpora --questions q.csv --grid "recursive:100/0,recursive:200/0,recursive:400/0" --html eval.html
      chunkctl eval corpora --questions q.csv --retriever openai --embed-base-url http://localhost:8000/v1 \\
        --embed-model e5-passage --embed-query-model e5-query --equal-tokens 800
    """
    import orjson

    import chunkctl.eval as evaluate
    from chunkctl.llm.client import LLMError
    from chunkctl.output.writer import Output

    def progress(entry: str, secs: float) -> None:
        if not quiet:
            print(f"chunkctl: eval: {entry} done in {secs:.1f} s", file=sys.stderr, flush=True)

    if optimize not in evaluate.OPTIMIZE:
        raise usage_error(f"--optimize {optimize!r} is not one of: {', '.join(evaluate.OPTIMIZE)}")
    if min_recall is not None and not 0 <= min_recall <= 100:
        raise usage_error(f"--min-recall {min_recall} is not a percentage from 0 to 100")
    _check_reports(corpus_dir, questions, json_out, html_out)
    embedder = None
    try:
        if retriever == "openai" or embed_base_url or embed_model:
            from chunkctl.eval.embedder import Embedder, EmbedderSettings, default_cache

            if retriever != "openai":
                raise ConfigError("--embed-base-url and --embed-model go with --retriever openai")
            if not embed_base_url or not embed_model:
                raise ConfigError("--retriever openai needs --embed-base-url URL and --embed-model NAME")
            embedder = Embedder(EmbedderSettings(
                embed_base_url, embed_model, embed_query_model, embed_query_prefix, embed_doc_prefix,
                embed_api_key_env, embed_batch_size, cache_dir=cache or str(default_cache())))
        entries = evaluate.parse_grid(grid)
        if baseline is not None and baseline.removesuffix(" → parents") not in [e.spec for e in entries]:
            raise ConfigError(f"--baseline {baseline!r} is not a grid entry of this run (entries: "
                              f"{', '.join(e.spec for e in entries)})")
        report = evaluate.run(corpus_dir, questions, entries, retriever, k, token_budget, progress,
                              equal_tokens, embedder, sample, seed)
        base = report.baseline(baseline)
    except (ConfigError, MissingExtraError, TokenizerError) as exc:  # (a grid entry's tokenizer= is usage too)
        raise usage_error(str(exc)) from None
    except (LoaderError, LLMError) as exc:
        Console().error(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    floor = None if min_recall is None else min_recall / 100
    if json_out:
        out = Output(json_out)
        out.write(orjson.dumps(report.to_dict(optimize, floor, baseline), option=orjson.OPT_INDENT_2) + b"\n")
        out.commit()
    if html_out:
        from chunkctl.view import eval_page

        page = Output(html_out)
        page.write(eval_page(report.to_dict(optimize, floor)).encode("utf-8"))
        page.commit()
    _print_eval(report, report.best(optimize, floor), optimize, min_recall, base, floor)


def _check_reports(corpus_dir: str, questions: str, json_out: str | None, html_out: str | None) -> None:
    """A usage error when a report would overwrite the questions, a corpus document (or be read as one: a
    name in the corpus folder that a loader reads) or the other report.

    Raises:
        typer.Exit: (code 2, the reason printed) for such a report path.
    """
    from chunkctl.loaders import format_for
    from chunkctl.output.checks import check_not_read_back

    real = os.path.realpath
    corpus = real(corpus_dir)
    reports = [(flag, path) for flag, path in (("--json", json_out), ("--html", html_out)) if path and path != "-"]
    for flag, path in reports:
        if questions != "-" and real(path) == real(questions):
            raise usage_error(f"{flag} {path} is also the --questions file: it would be overwritten")
        if real(path) == corpus:
            raise usage_error(f"{flag} {path} is the corpus folder, not a file")
    try:  # (the rule `chunk` applies to its outputs in an input folder)
        check_not_read_back(reports, [corpus], True, lambda path: format_for(path) is not None)
    except ConfigError as exc:
        raise usage_error(str(exc)) from None
    if len(reports) == 2 and real(reports[0][1]) == real(reports[1][1]):
        raise usage_error(f"--json and --html name the same file {reports[0][1]}: one would overwrite the other")


def _print_eval(report, best, optimize: str, min_recall: Optional[float], base, floor) -> None:
    """The results table and the best configuration, on stdout."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    s = report.settings
    limit = f"k={s['k']}" if s["token_budget"] is None else f"token budget {s['token_budget']}" + (
        f", k={s['k']}" if s["k"] else "")
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
    held = report.held_out(optimize, floor)
    at = f" at {s['equal_tokens']} retrieved tokens" if report.token_rows else ""
    if held.in_sample is not None:
        best = held.in_sample
    pick = held.pick or best
    held_rows = report.token_rows or report.rows
    regimes = [(report.rows, limit)]
    if report.token_rows:
        regimes.append((report.token_rows, f"equal retrieved tokens: {s['equal_tokens']}"))
    for rows, what in regimes:
        head, body = report.table(rows, base)
        table = Table(title=f"{s['n_questions']} questions, {s['retriever']['name']}, {what} (metrics in %, mean ± "
                            f"std over questions; Δ: paired, 95% bootstrap interval)")
        for i, name in enumerate(head):
            table.add_column(name, justify="left" if i == 0 else "right")
        for row, cells in zip(rows, body):
            style = "bold" if pick is not None and row.name == pick.name and rows is held_rows else None
            table.add_row(*map(Text, cells), style=style)  # Text: never read as markup
        console.print(table)
    if best is None:
        console.print(f"no configuration reaches a mean recall of {min_recall}%")
        return
    for cid, n, row, value, here in held.folds:
        chosen = "nothing qualifies" if row is None else f"{row.name}: {optimize} {100 * value:.1f}%"
        console.print(f"  without {cid} ({n} questions), chosen {chosen} on {cid} (in-sample best {best.name}: "
                      f"{100 * here:.1f}%)", soft_wrap=True, markup=False)
    if held.folds:
        console.print(f"leave-one-corpus-out{at}: a pick made without a corpus scores {optimize} {100 * held.mean:.1f}% "
                      f"on it; the in-sample best {best.name} scores {100 * best.mean(optimize):.1f}% (the "
                      f"difference is what tuning on the same questions overstates)", soft_wrap=True, markup=False)
    else:
        console.print("one corpus only: no held-out check; the pick is the in-sample best", markup=False)
    assert pick is not None
    how = "chosen in most leave-one-corpus-out folds" if held.pick is not None else "in-sample best"
    note = " (retrieve the children, give the generator their parents)" if pick.scored == "parents" else ""
    console.print(f"pick by {optimize}{at} ({how}): {pick.name} ({optimize} {100 * pick.mean(optimize):.1f}%, recall "
                  f"{100 * pick.mean('recall'):.1f}%)\n  chunkctl chunk DOCS {pick.flags}{note}",
                  soft_wrap=True, markup=False)
    caution = recall_caution(held_rows, pick, optimize, min_recall)
    if caution:
        console.print(caution, soft_wrap=True, markup=False)


RECALL_GAP = 0.05
"""Mean recall (a fraction) the pick may lose against the configuration of best recall before the
report says so (`recall_caution`)."""


def recall_caution(rows, pick, optimize: str, min_recall: Optional[float]) -> str | None:
    """A note when a pick by another metric than recall finds answers much less often than the
    configuration of best recall in `rows`, and no --min-recall was given (helper-102: a pick by
    iou at 76.5% recall beside 88.5%: a user copying the flags lost 12 points); else None."""
    if optimize == "recall" or min_recall is not None or not rows:
        return None
    top = max(rows, key=lambda r: r.mean("recall"))
    gap = top.mean("recall") - pick.mean("recall")
    if gap < RECALL_GAP:
        return None
    return (f"note: the pick finds the answer {100 * gap:.1f} points less often than {top.name} (recall "
            f"{100 * top.mean('recall'):.1f}%); --min-recall {int(100 * top.mean('recall')) - 5} picks by "
            f"{optimize} among configurations near that recall")


def squad(
    path: Annotated[str, typer.Argument(help="A SQuAD v1.1/v2.0 JSON file (e.g. dev-v2.0.json).", show_default=False)],
    out_dir: Annotated[str, typer.Argument(help="Folder to write: corpora/<article>.txt and questions.jsonl.",
                                           show_default=False)],
    excerpt: Annotated[str, typer.Option("--excerpt", help="Reference excerpt: the sentence holding the answer, "
                                         "or the answer text alone.")] = "sentence",
    sample: Annotated[Optional[int], typer.Option("--sample", help="Keep this many questions, drawn at random "
                                                  "(--seed).", show_default=False)] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of --sample.")] = 0,
) -> None:
    """Convert SQuAD question-answering data into an evaluation set (one corpus file per article).

    Each article becomes a plain-text corpus file (title, then paragraphs); each
    answerable question a question whose reference excerpt is, at its character
    offsets, the sentence holding its first answer. Then:

    \b
      chunkctl eval squad dev-v2.0.json squad-eval
      chunkctl eval squad-eval/corpora --questions squad-eval/questions.jsonl
    """
    from chunkctl.eval.squad import convert_squad

    try:
        done = convert_squad(path, out_dir, excerpt, sample, seed)
    except ConfigError as exc:
        raise usage_error(str(exc)) from None
    print(f"chunkctl: eval squad: {done.corpora} corpus files ({done.chars} characters), {done.questions} "
          f"questions ({done.skipped} left out: unanswerable, offset mismatch or not sampled) in {out_dir}",
          file=sys.stderr)


def generate(
    corpus_dir: Annotated[str, typer.Argument(help="Folder of corpus files to ask about.", show_default=False,
                                              metavar="CORPUS_DIR")],
    output: Annotated[str, typer.Option("--output", "-o", help="Questions file to write (JSON lines, the form "
                                        "`chunkctl eval --questions` reads).")] = "questions.jsonl",
    llm_base_url: Annotated[Optional[str], typer.Option("--llm-base-url", help="OpenAI-compatible endpoint, "
                                                        "e.g. http://localhost:8080/v1.", show_default=False)] = None,
    llm_model: Annotated[Optional[str], typer.Option("--llm-model", help="Model name.", show_default=False)] = None,
    llm_api_key_env: Annotated[str, typer.Option("--llm-api-key-env", help="Environment variable holding the "
                                                 "API key.")] = "OPENAI_API_KEY",
    llm_concurrency: Annotated[int, typer.Option("--llm-concurrency", help="Requests in flight.")] = 4,
    llm_timeout: Annotated[float, typer.Option("--llm-timeout", help="Seconds per request attempt.")] = 60.0,
    cache: Annotated[Optional[str], typer.Option("--cache", help="Answer cache folder [default: "
                                                 "~/.cache/chunkctl/llm]; a rerun resumes from it.",
                                                 show_default=False)] = None,
    n: Annotated[int, typer.Option("--n", help="Questions wanted.")] = 50,
    per_passage: Annotated[int, typer.Option("--per-passage", help="Questions asked per passage.")] = 2,
    passage_tokens: Annotated[int, typer.Option("--passage-tokens", help="Passage size in tokens.")] = 400,
    seed: Annotated[int, typer.Option("--seed", help="Passage sampling seed.")] = 0,
    max_requests: Annotated[Optional[int], typer.Option("--max-requests", help="Most passages asked about "
                                                        "[default: 3 x what --n needs].", show_default=False)] = None,
    dedupe: Annotated[float, typer.Option("--dedupe", help="Drop a question whose words overlap a kept one's "
                                          "this much (Jaccard).")] = 0.7,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Send nothing; use cached answers only.")] = False,
) -> None:
    """Make questions with verbatim reference excerpts from your corpus, asking a model.

    Passages are drawn at random; the model writes questions and copies the excerpts
    that answer them; only excerpts found exactly in the corpus are kept (with their
    character offsets), near-duplicate questions are dropped. Answers are cached:
    an interrupted run resumes at no cost.

    \b
      chunkctl eval generate docs --llm-base-url http://localhost:8080/v1 --llm-model qwen2.5 -o q.jsonl --n 80
      chunkctl eval docs --questions q.jsonl
    """
    import orjson

    from chunkctl.config import ChunkConfig
    from chunkctl.eval.corpora import load_corpora
    from chunkctl.eval.generate import generate as run_generate
    from chunkctl.llm.client import LLMError
    from chunkctl.llm.options import LLMOptions
    from chunkctl.output.writer import Output

    def progress(done) -> None:
        print(f"chunkctl: eval generate: {len(done.questions)} questions from {done.requests} passages "
              f"({done.cached} cached)", file=sys.stderr, flush=True)

    try:
        options = LLMOptions.from_config(ChunkConfig(extras={
            "llm_base_url": llm_base_url, "llm_model": llm_model, "llm_api_key_env": llm_api_key_env,
            "llm_concurrency": llm_concurrency, "llm_timeout": llm_timeout, "cache_dir": cache,
            "llm_dry_run": dry_run}))
        corpora = load_corpora(corpus_dir)
        done = run_generate(corpora, options, n, per_passage, passage_tokens, seed, max_requests, dedupe,
                            progress=progress)
    except (ConfigError, MissingExtraError) as exc:
        raise usage_error(str(exc)) from None
    except (LoaderError, LLMError) as exc:
        Console().error(str(exc))
        raise typer.Exit(EXIT_FAILED) from None
    if not done.questions:
        Console().error(f"{corpus_dir}: no question kept ({done.requests} passages asked; {done.not_found} with an "
                        f"excerpt not in the corpus, {done.too_short} too short, {done.unparsed} unreadable answers, "
                        f"{sum(done.failed.values())} failed requests); nothing written")
        raise typer.Exit(EXIT_FAILED)
    out = Output(output)
    for row in done.questions:
        out.write(orjson.dumps(row) + b"\n")
    out.commit()
    failed = "; ".join(f"{c} failed: {r}" for r, c in done.failed.items())
    print(f"chunkctl: eval generate: {len(done.questions)} questions written to {output} ({done.requests} passages "
          f"asked, {done.cached} from the cache; dropped: {done.not_found} excerpt not in the corpus, "
          f"{done.too_short} excerpt too short, {done.duplicates} near-duplicates, {done.unparsed} unreadable "
          f"answers{'; ' + failed if failed else ''})" + (f"; stopped at --max-requests {done.requests} before "
                                                          f"--n {n}" if done.stopped_by_budget else ""),
          file=sys.stderr)


class _EvalGroup(typer.core.TyperGroup):
    """`chunkctl eval ...` runs the evaluation unless its first word names a subcommand (generate, squad)."""

    def parse_args(self, ctx, args):
        if not args or args[0] not in self.commands:
            args = ["run", *args]
        return super().parse_args(ctx, args)


class _RunCommand(typer.core.TyperCommand):
    """The evaluation itself, run as `chunkctl eval CORPUS_DIR ...`: its usage line names no `run`."""

    def make_context(self, info_name, args, parent=None, **extra):
        # (no "run" in the command path that usage errors name: "see 'chunkctl eval --help'")
        return super().make_context("", args, parent=parent, **extra)

    def format_usage(self, ctx, formatter) -> None:
        path = ctx.parent.command_path if ctx.parent is not None else ctx.command_path
        formatter.write_usage(path, " ".join(self.collect_usage_pieces(ctx)))
        formatter.write_text(f"or: {path} generate|squad ... (see '{path} generate --help', '{path} squad --help')")


eval_app = typer.Typer(cls=_EvalGroup, rich_markup_mode=None, add_completion=False,
                       help="Measure retrieval quality of chunkings; make question sets.")
eval_app.command("run", hidden=True, cls=_RunCommand)(eval_)
eval_app.command("generate")(generate)
eval_app.command("squad")(squad)
