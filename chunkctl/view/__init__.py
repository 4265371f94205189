"""The HTML view: documents with their chunks drawn over the text, and plots, as one self-contained page; no terminal output.

Modules, in the order data flows:
    build   inputs -> DocumentViews (chunked here, or matched with records from a JSONL file)
    data    one document's text and records -> the JSON the page draws from (UTF-16 offsets, roles)
    svg     plots as inline SVG (chunk-size histogram, bars per document, metric against size)
    page    the page: index, per-document data and header, the inlined stylesheet and script (assets)
"""

from __future__ import annotations

from chunkctl.view.build import RecordFile, chunk_views, read_records, record_views
from chunkctl.view.data import DocumentView, mismatch, payload
from chunkctl.view.page import eval_page, render_view, script_json
from chunkctl.view.svg import SizeSummary, bars, histogram, lines, size_bins

__all__ = [
    "DocumentView", "RecordFile", "SizeSummary", "bars", "chunk_views", "eval_page", "histogram", "lines", "mismatch",
    "payload", "read_records", "record_views", "render_view", "script_json", "size_bins",
]
