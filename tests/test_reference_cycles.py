"""No reference cycles left by chunking (issue 14, point 7).

A cycle is freed by Python's cyclic collector only, which runs when it likes: what the
cycle reaches stays until then. `hierarchical` made its levels with a closure that called
itself (a cycle), which held the document, its blocks, packers and token table while the
records were written: a file of one-letter pages peaked at 9.1x its size, 7.9x without
it. Smaller cycles (a recursive closure in the Markdown loader, a new ctypes array type
for each sentence split) left garbage a document. Here every strategy chunks documents of
every text format with the cyclic collector off, and nothing may be left for it.
"""

from __future__ import annotations

import collections
import gc
import types

import pytest

import chunkctl
from chunkctl.chunking.registry import strategy_names
from tests.conftest import CORPUS

MD = """---
title: Returns
tags: [a, {b: [1, 2]}]
---
# Warranty ![shield](s.png) *terms*

Returns are accepted within 30 days. Keep the receipt! Refunds take a week.

## Enterprise `returns`

| Plan | Days |
| --- | --- |
| Basic | 30 |
| Pro | 60 |

```python
def refund(order):
    return order.total
```

- one item
- two items with more words. And a second sentence.

> A quote. Another sentence here.
"""

TXT = "WARRANTY\n\nReturns are accepted within 30 days. Keep the receipt!\n\f" \
      "1. Scope\n\nRefunds take a week. Ask the desk.\n\n    code line\n    more code\n"

HTML = """<html><head><title>Returns</title></head><body><h1>Warranty <img alt="shield"></h1>
<p>Returns are accepted within 30 days. Keep the receipt!</p><h2>Enterprise</h2>
<table><tr><th>Plan</th><th>Days</th></tr><tr><td>Basic</td><td>30</td></tr></table>
<pre><code>def refund(order):
    return order.total</code></pre><ul><li>one</li><li>two. And more.</li></ul></body></html>"""

DOCS = {"md": MD * 6, "txt": TXT * 6, "html": HTML.replace("</body>", "<p>More text. Here.</p>" * 40 + "</body>")}
STRATEGIES = [s for s in strategy_names() if s != "llm"]  # (llm: a model; its own tests)


def _garbage_left_by(run) -> list[object]:
    """What the cyclic collector finds after `run()` (run once before, so lazy set-up is not counted)."""
    run()
    gc.collect()
    gc.disable()
    try:
        run()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    return left


def _describe(left: list[object]) -> str:
    kinds = collections.Counter(type(o).__name__ for o in left)
    functions = sorted({o.__qualname__ for o in left if isinstance(o, types.FunctionType)})
    return f"{len(left)} objects in cycles: {kinds.most_common(6)}, functions {functions}"


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("fmt", sorted(DOCS))
def test_chunking_leaves_no_reference_cycle(fmt, strategy):
    def run():
        recs = chunkctl.chunk_text(DOCS[fmt], format=fmt, source=f"doc.{fmt}", strategy=strategy,
                                   chunk_size=48, overlap=8)
        assert recs

    left = _garbage_left_by(run)
    assert not left, _describe(left)


@pytest.mark.parametrize("strategy", ["recursive", "hierarchical"])
def test_a_pdf_leaves_nothing_of_ours_in_cycles(strategy):
    """pypdfium2 makes a ctypes array type for each text range it reads (a few small cycles a
    document, its own); nothing of chunkctl's may be among them."""
    path = CORPUS / "pdf" / "tracemonkey-two-column-paper.pdf"

    def run():
        assert chunkctl.chunk_file(path, strategy=strategy, chunk_size=128, overlap=16)

    left = _garbage_left_by(run)
    ours = [o for o in left if (getattr(o, "__module__", None) or "").startswith("chunkctl")
            or type(o).__module__.startswith("chunkctl")]
    assert not ours, _describe(ours)
    assert {type(o).__name__ for o in left} <= {"PyCArrayType", "StgDict", "getset_descriptor", "tuple"}, \
        _describe(left)


@pytest.mark.parametrize("name", ["truncated-mid-stream.pdf", "trailing-garbage-no-startxref.pdf",
                                  "xref-keyword-missing.pdf", "zen-of-python-corrupt-zlib.pdf",
                                  "japanese-vertical-text.pdf"])
def test_pdfminer_leaves_no_cycle_behind(name):
    """Damaged files and text layers pdfium cannot map are read again by pdfminer, whose
    parser and document refer to each other (and to the file's bytes): the loader collects
    them once pdfminer is done, and walks its layouts without a closure that calls itself."""
    path = CORPUS / "pdf" / name

    def run():
        try:
            chunkctl.load(path)
        except chunkctl.LoaderError:
            pass

    left = _garbage_left_by(run)
    assert {type(o).__name__ for o in left} <= {"PyCArrayType", "StgDict", "getset_descriptor", "tuple"}, \
        _describe(left)
