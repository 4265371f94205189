"""The view as one self-contained HTML page: an index of documents, each document's data and header, the script; no I/O.

Everything that comes from a document (text, names, titles, headings, records) reaches
the page either escaped as HTML text (`html.escape`) or inside a JSON data block whose
`<`, `>`, `&`, U+2028 and U+2029 are written as `\\uXXXX` escapes, so neither a
`</script>` nor a `<!--` can end it; the script puts text into the page only through
`textContent`. A Content-Security-Policy lets only the page's own two scripts run
(by their sha256) and fetches nothing.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from chunkctl.__about__ import __version__
from chunkctl.view import svg
from chunkctl.view.assets import CSS, ERRORS_JS, VIEW_JS
from chunkctl.view.data import DocumentView, payload
from chunkctl.view.svg import esc

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(value: Any) -> str:
    """`value` as JSON text that is safe inside `<script type="application/json">`.

    The characters `<`, `>`, `&`, U+2028 and U+2029 appear only inside JSON strings,
    where `\\uXXXX` stands for them, so `JSON.parse` gives back the same value.

    Raises:
        TypeError: a value orjson cannot encode (a lone surrogate in a string).
    """
    text = orjson.dumps(value).decode("utf-8")
    return "".join(_JSON_ESCAPES.get(c, c) for c in text) if any(c in text for c in _JSON_ESCAPES) else text


def _csp(*scripts: str) -> str:
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'"
                      for s in scripts)
    return (f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data:; "
            "base-uri 'none'; form-action 'none'")


def _head(title: str, attrs: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"{attrs}>\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{esc(_csp(ERRORS_JS, VIEW_JS))}\">\n"
            f"<meta name=\"generator\" content=\"chunkctl {esc(__version__)}\">\n"
            f"<title>{esc(title)}</title>\n<style>[hidden] {{ display: none !important; }}{CSS}</style>\n"
            f"</head>\n<body>\n<script>{ERRORS_JS}</script>\n")


def _settings(views: Sequence[DocumentView]) -> dict[str, str]:
    """The run's options as the records name them: strategy, chunk size, overlap, tokenizer ("mixed" when they differ)."""
    out: dict[str, str] = {}
    for key in ("strategy", "chunk_size", "overlap", "tokenizer"):
        values = {str((r.get("meta") or {}).get(key)) for v in views for r in v.records[:1]
                  if (r.get("meta") or {}).get(key) is not None}
        if values:
            out[key] = values.pop() if len(values) == 1 else "mixed"
    return out


def _sizes_line(sizes: Sequence[int]) -> str:
    if not sizes:
        return ""
    s = sorted(sizes)
    return f"{s[0]} / {s[(len(s) - 1) // 2]} / {s[-1]}"


def _bytes(n: int) -> str:
    if n < 1000:
        return f"{n} B"
    for unit in ("kB", "MB", "GB"):
        n_ = n / 1000
        if n_ < 1000 or unit == "GB":
            return f"{n_:.1f} {unit}"
        n = int(n_)
    return f"{n} B"


def _index(views: Sequence[DocumentView], title: str) -> str:
    sizes = [n for v in views for n in v.sizes]
    budget = max((v.budget for v in views), default=0)
    settings = _settings(views)
    failed = [v for v in views if not v.shown]
    chunks = sum(len(v.records) for v in views)
    facts = [f"{len(views)} document{'s' if len(views) != 1 else ''}", f"{chunks} chunks", f"{sum(sizes)} tokens"]
    if failed:
        facts.append(f"<span class=\"bad\">{len(failed)} failed</span>")
    facts += [f"{esc(k.replace('_', ' '))} {esc(v)}" for k, v in settings.items()]
    out = [f"<div id=\"index\" class=\"wrap\">\n<h1>{esc(title)}</h1>\n<p class=\"settings\">{' · '.join(facts)} "
           f"· made by chunkctl {esc(__version__)}</p>\n<div class=\"plots\">"]
    summary = svg.SizeSummary.of(sizes, budget)
    out.append(f"<figure>{svg.histogram(sizes, budget, title='chunk sizes of every document')}"
               f"<figcaption>Chunk sizes in tokens: {esc(summary.line())}.</figcaption></figure>")
    per_doc = [(v.source, float(len(v.records))) for v in views if v.shown]
    if per_doc:
        out.append(f"<figure>{svg.bars(per_doc)}<figcaption>Chunks per document.</figcaption></figure>")
    out.append("</div>\n<h2>Documents</h2>\n<table class=\"docs\"><thead><tr><th class=\"name\">document</th>"
               "<th>format</th><th>size</th><th>characters</th><th>pages</th><th>chunks</th><th>tokens</th>"
               "<th>min / median / max</th><th>at 90% of the budget</th><th class=\"status\">status</th></tr></thead>"
               "<tbody>\n")
    for k, v in enumerate(views):
        sz = v.sizes
        wall = sum(1 for n in sz if v.budget and n >= svg.WALL * v.budget)
        name = f"<a href=\"#d={k}\">{esc(v.source)}</a>" if v.shown else esc(v.source)
        if v.error is not None:
            status = f"<span class=\"bad\">failed: {esc(v.error)}</span>"
        elif not v.records:
            status = "no records (no text)" if v.text is not None and not v.text.strip() else "no records"
        else:
            status = "ok"
        if v.warnings:
            status += "".join(f"<br><span class=\"muted\">warning: {esc(w)}</span>" for w in v.warnings)
        out.append(f"<tr class=\"{'ok' if v.shown else 'failed'}\" data-doc=\"{k}\"><td class=\"name\" "
                   f"title=\"{esc(v.source)}\">{name}</td><td>{esc(v.format or '')}</td><td>{_bytes(v.nbytes)}</td>"
                   f"<td>{len(v.text) if v.text is not None else ''}</td><td>{v.pages or ''}</td>"
                   f"<td>{len(v.records)}</td><td>{sum(sz)}</td><td>{_sizes_line(sz)}</td><td>{wall if sz else ''}</td>"
                   f"<td class=\"status\">{status}</td></tr>\n")
    out.append("</tbody></table>\n</div>\n")
    return "".join(out)


def _doc_header(k: int, v: DocumentView, multi: bool) -> str:
    sz = v.sizes
    leaves = [r for r in v.records if r.get("kind") != "summary"]
    overlaps = sum(1 for a, b in zip(leaves, leaves[1:]) if b["start"] < a["end"] and b.get("parent_id") == a.get(
        "parent_id"))
    facts = [f"<b>{esc(v.source)}</b>", esc(v.format or ""), f"{len(v.text or '')} characters"]
    if v.pages:
        facts.append(f"{v.pages} page{'s' if v.pages != 1 else ''}")
    facts += [f"<b>{len(v.records)}</b> chunks", f"{sum(sz)} tokens"]
    settings = _settings([v])
    facts += [f"{esc(key.replace('_', ' '))} {esc(val)}" for key, val in settings.items()]
    if overlaps:
        facts.append(f"{overlaps} overlaps")
    back = "<a href=\"#\">← all documents</a>" if multi else ""
    warn = "".join(f"<div class=\"muted\">warning: {esc(w)}</div>" for w in v.warnings)
    summary = svg.SizeSummary.of(sz, v.budget)
    return (f"<template id=\"t-{k}\"><header class=\"dochead\"><div>{back}<h1>{esc(v.title or v.source)}</h1>"
            f"<div class=\"facts\">{' · '.join(facts)}</div><div class=\"toolbar\"><span class=\"legend\">"
            "<span class=\"sw c0\">a chunk</span><span class=\"sw c1\">the next</span>"
            "<span class=\"sw ov\">overlap</span><span class=\"sw gap\">in no chunk</span>"
            "<span class=\"mk\">#3</span>start <span class=\"pfx\">prefix</span></span>"
            "<label><input type=\"checkbox\" class=\"opt-prefix\" checked> show prefixes</label>"
            "<button type=\"button\" class=\"opt-all\" title=\"Draw every page now, so that the browser's find in "
            "page sees all the text\">draw all pages</button><span class=\"muted\">keys j / k: next / previous chunk"
            "</span></div>"
            f"{warn}</div><figure>{svg.histogram(sz, v.budget, width=420, height=120, title='chunk sizes')}"
            f"<figcaption>{esc(summary.line())}</figcaption></figure></header></template>\n")


def render_view(views: Sequence[DocumentView], title: str = "chunkctl view") -> str:
    """The HTML page of `views`: an index (sizes, plots, failures) and every shown document.

    One document shown with no failure opens directly; otherwise the index comes
    first and `#d=K` opens the K-th document. Each document's text and records are a
    JSON block read only when it is opened.

    Args:
        views: the documents (`chunk_views` or `record_views`).
        title: the page title (escaped).

    Returns:
        the whole page as text (encode it as UTF-8).
    """
    single = len(views) == 1 and views[0].shown
    attrs = f" data-docs=\"{len(views)}\" data-single=\"{1 if single else 0}\" data-title=\"{esc(title)}\""
    out = [_head(title, attrs), _index(views, title), "<div id=\"doc\" hidden></div>\n"]
    for k, v in enumerate(views):
        if not v.shown:
            continue
        out.append(_doc_header(k, v, multi=not single))
        out.append(f"<script type=\"application/json\" id=\"j-{k}\">{script_json(payload(v))}</script>\n")
    out.append(f"<script>{VIEW_JS}</script>\n</body>\n</html>\n")
    return "".join(out)


def _eval_points(report: Mapping[str, Any]) -> dict[str, dict[str, list[tuple[float, float, str]]]]:
    """metric -> series (strategy, "→ parents" for parent rows) -> (chunk size, mean in %, label) points."""
    out: dict[str, dict[str, list[tuple[float, float, str]]]] = {"recall": {}, "iou": {}}
    for row in report.get("results", []):
        flags = str(row.get("flags") or "")
        strategy = re.search(r"--strategy (\S+)", flags)
        size = re.search(r"--chunk-size (\d+)", flags)
        if not strategy or not size:
            continue
        name = strategy.group(1) + (" → parents" if row.get("scored") == "parents" else "")
        for metric in out:
            value = 100 * float(row["metrics"][metric]["mean"])
            out[metric].setdefault(name, []).append((float(size.group(1)), value, str(row.get("config", ""))))
    return out


def eval_page(report: Mapping[str, Any], title: str = "chunkctl eval") -> str:
    """The HTML page of a `chunkctl eval` report: recall and IoU against chunk size per strategy, and the table.

    Args:
        report: `EvalReport.to_dict()` (fractions; each row's `flags` name its
            strategy and `--chunk-size` in tokens).
        title: the page title (escaped).

    Returns:
        the whole page as text.
    """
    s = report.get("settings", {})
    points = _eval_points(report)
    retriever = s.get("retriever", {})
    limit = f"k = {s.get('k')}" if s.get("token_budget") is None else f"token budget {s.get('token_budget')}"
    out = [_head(title, " data-docs=\"0\""), "<div id=\"index\" class=\"wrap\">",
           f"<h1>{esc(title)}</h1><p class=\"settings\">{esc(s.get('n_questions', '?'))} questions · retriever "
           f"{esc(retriever.get('name', '') if isinstance(retriever, dict) else retriever)} · {esc(limit)} · "
           f"made by chunkctl {esc(__version__)}</p><div class=\"plots\">"]
    for metric, label in (("recall", "recall (%)"), ("iou", "IoU (%)")):
        values = [p[1] for pts in points[metric].values() for p in pts]
        top, low = max(values, default=0.0), min(values, default=0.0)
        y_max = 100.0 if metric == "recall" else max(5.0, math.ceil(top * 1.15 / 5) * 5)
        y_min = max(0.0, math.floor((low - 5) / 10) * 10) if metric == "recall" else 0.0
        out.append(f"<figure>{svg.lines(points[metric], label, y_max=y_max, y_min=y_min, title=f'{metric} against chunk size')}"
                   f"<figcaption>Mean {esc(label)} over the questions against the chunk size in tokens, one line "
                   "per strategy.</figcaption></figure>")
    out.append("</div><h2>Results</h2><table class=\"docs\"><thead><tr><th class=\"name\">configuration</th>"
               "<th>chunks</th><th>tokens</th><th>retrieved tokens</th><th>recall</th><th>precision</th>"
               "<th>precision Ω</th><th>IoU</th></tr></thead><tbody>")
    best = report.get("best") or {}
    for row in report.get("results", []):
        m = row["metrics"]
        name = str(row.get("config", "")) + (" → parents" if row.get("scored") == "parents" else "")
        is_best = best and best.get("config") == row.get("config") and best.get("scored") == row.get("scored")
        cells = "".join(f"<td>{100 * m[k]['mean']:.1f} ± {100 * m[k]['std']:.1f}</td>"
                        for k in ("recall", "precision", "precision_omega", "iou"))
        row_class = ' class="best"' if is_best else ""
        out.append(f"<tr{row_class}><td class=\"name\">{esc(name)}"
                   f"{' (best)' if is_best else ''}</td><td>{row.get('n_units', '')}</td>"
                   f"<td>{float(row.get('mean_unit_tokens', 0)):.0f}</td>"
                   f"<td>{float(row.get('retrieved', {}).get('tokens', 0)):.0f}</td>{cells}</tr>")
    out.append("</tbody></table>")
    if best:
        out.append(f"<p>Best by {esc(best.get('optimize', ''))}: <b>{esc(best.get('config', ''))}</b>: "
                   f"<code>chunkctl chunk DOCS {esc(best.get('flags', ''))}</code></p>")
    out.append(f"</div><div id=\"doc\" hidden></div><script>{VIEW_JS}</script>\n</body>\n</html>\n")
    return "".join(out)
