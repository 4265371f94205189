"""Peak memory of `chunkctl chunk` on the worst input shapes, as a multiple of the file size.

Each shape is written to a temporary folder outside the project (one file of about
`--mb` MB) and chunked by the CLI in a fresh process:

    chunkctl chunk FILE --jobs 1 --file-timeout 0 -o /dev/null   (in the main process)
    chunkctl chunk FILE COMPANION --jobs 2 -o /dev/null          (worker processes)

(A run of one file is chunked in the main process whatever `--jobs` says, so the worker
mode adds a one-line companion file to get workers.)

The peak is the largest resident set of any process of the run (the CLI or its
worker), read from `getrusage(RUSAGE_CHILDREN).ru_maxrss` of a small parent that
waits for the CLI (workers are waited for by the CLI, so their peaks count too). The
start-up of the same command on a one-line file is measured the same way and
subtracted: "x file" = (peak - start-up) / file size. Nothing here is a test.

    python bench/memory.py                    # every shape, 50 MB, both modes
    python bench/memory.py --mb 20 --only line-letters --only table-md
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
# `python -m chunkctl` of this checkout, or of the folder in $CHUNKCTL_SRC (to compare two trees).
CLI = [sys.executable, "-m", "chunkctl"]

_PEAK = ("import resource, subprocess, sys, time\n"
         "t0 = time.perf_counter()\n"
         "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
         "sys.stderr.buffer.write(r.stderr[-2000:])\n"
         "rc = r.returncode\n"
         "print(rc, time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def _prose_seed() -> str:
    p = CORPUS / "txt" / "war-and-peace-bom-cr-3mb.txt"
    if p.is_file():
        return p.read_bytes()[3:].decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    words = ("the of and to in a is that for it as was with be by on not he this are or his from at which "
             "but have an they you were her she there been one all we their has would when if so no").split()
    rng = random.Random(7)
    paras = []
    for _ in range(2000):
        sents = [" ".join(rng.choice(words) for _ in range(rng.randint(6, 24))).capitalize() + "."
                 for _ in range(rng.randint(2, 8))]
        paras.append(" ".join(sents))
    return "\n\n".join(paras) + "\n"


def _repeat(path: Path, size: int, make_piece: Callable[[int], str], head: str = "", tail: str = "") -> None:
    """Write `head`, pieces from `make_piece(i)` until about `size` bytes, then `tail`."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(head)
        i = 0
        while fh.tell() < size - len(tail):
            fh.write(make_piece(i))
            i += 1
        fh.write(tail)


def _pdf(path: Path, size: int, make_page: Callable[[int], list[tuple[float, float, str]]]) -> int:
    """Write a PDF (US letter, Helvetica, Flate-compressed content streams as most writers make
    them) of pages from `make_page(i)` ((x, y from the top, text) items, points) until about
    `size` bytes; returns the characters of text drawn (its text is several times the file)."""
    offsets: list[int] = []
    chars = 0
    kids: list[int] = []
    with open(path, "wb") as fh:
        fh.write(b"%PDF-1.4\n")

        def obj(num: int, body: bytes) -> None:
            while len(offsets) < num:
                offsets.append(0)
            offsets[num - 1] = fh.tell()
            fh.write(b"%d 0 obj\n" % num + body + b"\nendobj\n")

        obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        obj(3, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        num, i = 4, 0
        while fh.tell() < size:
            ops = []
            for x, y, text in make_page(i):
                chars += len(text) + 1
                t = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                ops.append(f"BT /F1 10 Tf {x:.1f} {792 - y:.1f} Td ({t}) Tj ET")
            stream = zlib.compress("\n".join(ops).encode("latin-1"))
            obj(num, b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream")
            obj(num + 1, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                         b"/Contents %d 0 R >>" % num)
            kids.append(num + 1)
            num, i = num + 2, i + 1
        obj(2, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
        xref = fh.tell()
        fh.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
        fh.write(b"".join(b"%010d 00000 n \n" % o for o in offsets))
        fh.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
    return chars


def make_shapes(folder: Path, size: int) -> dict[str, tuple[Path, str]]:
    """{name: (file, what it is)} of the worst shapes, each about `size` bytes."""
    rng = random.Random(14)
    letters = "abcdefghijklmnopqrstuvwxyz"
    shapes: dict[str, tuple[Path, str]] = {}

    def add(name: str, file: str, what: str, writer: Callable[[Path], None]) -> None:
        p = folder / file
        writer(p)
        shapes[name] = (p, what)

    block = 1 << 16
    add("line-letters", "line-letters.txt", "one line of random lowercase letters, no space",
        lambda p: _repeat(p, size, lambda i: "".join(rng.choices(letters, k=block))))
    add("line-base64", "line-base64.txt", "one line of base64 (letters, digits, + and /), no space",
        lambda p: _repeat(p, size, lambda i: base64.b64encode(rng.randbytes(3 * block // 4)).decode()))
    prose = _prose_seed()
    paras = prose.split("\n\n")
    add("prose", "prose.txt", "ordinary prose (War and Peace, repeated)",
        lambda p: _repeat(p, size, lambda i: paras[i % len(paras)] + "\n\n"))
    add("prose-one-line", "prose-one-line.txt", "the same prose as one line (no line break at all)",
        lambda p: _repeat(p, size, lambda i: " ".join(paras[i % len(paras)].split()) + " ", tail="\n"))
    words = prose.split()
    plain = [w.strip(".,;:!?\"'()[]-").lower() for w in words]
    plain = [w for w in plain if w.isalpha()]
    add("words-one-line", "words-one-line.txt", "words and single spaces only: no punctuation, no line break",
        lambda p: _repeat(p, size, lambda i: " ".join(plain[(i * 1000) % len(plain):(i * 1000) % len(plain) + 1000])
                          + " ", tail="\n"))
    add("word-per-line", "word-per-line.txt", "one word per line, no blank line",
        lambda p: _repeat(p, size, lambda i: "\n".join(plain[(i * 1000) % len(plain):(i * 1000) % len(plain) + 1000])
                          + "\n"))
    add("tiny-paragraphs", "tiny-paragraphs.txt", "a word per paragraph (blank lines between)",
        lambda p: _repeat(p, size, lambda i: "\n\n".join(plain[(i * 1000) % len(plain):(i * 1000) % len(plain) + 1000])
                          + "\n\n"))
    add("letter-pages", "letter-pages.txt", "a letter per page: `a` and a form feed, repeated (since 0.1.30 one "
        "paragraph going on over its page breaks)", lambda p: _repeat(p, size, lambda i: "a\f" * block))
    add("line-pages", "line-pages.txt", "a line per page: `a`, a line break and a form feed, repeated (a block and "
        "a page every 3 bytes)", lambda p: _repeat(p, size, lambda i: "a\n\f" * block))
    add("tiny-paragraphs-md", "tiny-paragraphs.md", "Markdown: a word per paragraph",
        lambda p: _repeat(p, size, lambda i: "\n\n".join(plain[(i * 1000) % len(plain):(i * 1000) % len(plain) + 1000])
                          + "\n\n"))
    add("tiny-sections-md", "tiny-sections.md", "Markdown: a heading and a word per section",
        lambda p: _repeat(p, size, lambda i: "".join(f"## {w}\n\n{w}\n\n" for w in
                                                     plain[(i * 100) % len(plain):(i * 100) % len(plain) + 100])))
    add("letter-headings-md", "letter-headings.md", "Markdown: `# h` lines only (a heading and a heading path "
        "every 4 bytes)", lambda p: _repeat(p, size, lambda i: "# h\n" * block))
    add("list-md", "list.md", "Markdown: one bullet list, a word per item",
        lambda p: _repeat(p, size, lambda i: "".join(f"- {w}\n" for w in
                                                     plain[(i * 1000) % len(plain):(i * 1000) % len(plain) + 1000])))
    add("item-md", "item.md", "Markdown: one list item of paragraphs and sub-items",
        lambda p: _repeat(p, size, lambda i: f"   {' '.join(plain[i % 5000:i % 5000 + 6])}\n\n   - {plain[i % len(plain)]}\n"
                                             f"   - {plain[(7 * i) % len(plain)]}\n\n", head="# Steps\n\n1. First\n\n"))
    add("short-lists-md", "short-lists.md", "Markdown: a paragraph and a two-item list, repeated",
        lambda p: _repeat(p, size, lambda i: f"{' '.join(plain[i % 5000:i % 5000 + 6])}\n\n- {plain[i % len(plain)]}\n"
                                             f"- {plain[(7 * i) % len(plain)]}\n\n", head="# Notes\n\n"))
    add("table-md", "table.md", "Markdown: one pipe table (4 columns)",
        lambda p: _repeat(p, size, lambda i: f"| {i} | {words[i % len(words)]} | {words[(3 * i) % len(words)]} "
                                             f"| {' '.join(words[i % 5000:i % 5000 + 6])} |\n",
                          head="# Table\n\n| n | word | other | text |\n| --- | --- | --- | --- |\n"))
    add("table-cell-md", "table-cell.md", "Markdown: a pipe table whose one row holds a cell of prose the file's size",
        lambda p: _repeat(p, size, lambda i: " ".join(paras[i % len(paras)].split()) + " ",
                          head="# Table\n\n| n | text |\n| --- | --- |\n| 1 | ", tail=" |\n"))
    add("quote-depths-md", "quote-depths.md", "Markdown: one block quote nested to depths 1-30, no blank line",
        lambda p: _repeat(p, size, lambda i: "> " * (1 + i % 30) + " ".join(plain[i % 5000:i % 5000 + 8]) + "\n",
                          head="# Quote\n\n"))
    add("quote-table-md", "quote-table.md", "Markdown: one block quote of a one-column pipe table, a letter a row",
        lambda p: _repeat(p, size, lambda i: "> |a|\n" * (block // 6), head="# Quote\n\n> |h|\n> |-|\n"))
    code_lines = [f"    value_{k} = compute(item, {k}) + offset  # step {k}\n" for k in range(50)]
    add("code-md", "code.md", "Markdown: one fenced code block (no language)",
        lambda p: _repeat(p, size, lambda i: f"def function_{i}(item, offset):\n" + "".join(code_lines[:i % 40 + 5])
                          + "    return value_4\n\n", head="# Code\n\n```\n", tail="```\n"))
    add("python-md", "python.md", "Markdown: one fenced ```python block",
        lambda p: _repeat(p, size, lambda i: f"def function_{i}(item, offset):\n" + "".join(code_lines[:i % 40 + 5])
                          + "    return value_4\n\n", head="# Code\n\n```python\n", tail="```\n"))
    add("table-html", "table.html", "HTML: one <table> (4 columns)",
        lambda p: _repeat(p, size, lambda i: f"<tr><td>{i}</td><td>{words[i % len(words)]}</td>"
                                             f"<td>{words[(3 * i) % len(words)]}</td>"
                                             f"<td>{' '.join(words[i % 5000:i % 5000 + 6])}</td></tr>\n",
                          head="<html><body><h1>Table</h1><table>\n<tr><th>n</th><th>word</th><th>other</th>"
                               "<th>text</th></tr>\n", tail="</table></body></html>\n"))
    add("tiny-paragraphs-html", "tiny-paragraphs.html", "HTML: a word per <p>, a line each",
        lambda p: _repeat(p, size, lambda i: "".join(f"<p>{w}</p>\n" for w in
                                                     plain[(i * 1000) % len(plain):(i * 1000) % len(plain) + 1000]),
                          head="<html><body><h1>Words</h1>\n", tail="</body></html>\n"))
    add("code-html", "code.html", "HTML: one <pre><code> of highlighted Python (a <span> per token)",
        lambda p: _repeat(p, size, lambda i: f'<span class="kw">def</span> <span class="fn">function_{i}</span>'
                                             f'(item, offset):\n' + "".join(
                                                 f'    <span class="n">value_{k}</span> <span class="o">=</span> '
                                                 f'<span class="n">compute</span>(item, <span class="m">{k}</span>)\n'
                                                 for k in range(i % 40 + 5)) + "\n",
                          head='<html><body><h1>Code</h1><pre><code class="language-python">',
                          tail="</code></pre></body></html>\n"))
    add("paragraph-html", "paragraph.html", "HTML: one <p> of prose (no block to cut before: cut in its text)",
        lambda p: _repeat(p, size, lambda i: paras[i % len(paras)] + " ", head="<html><body><h1>One paragraph</h1><p>",
                          tail="</p></body></html>\n"))
    add("br-lines-html", "br-lines.html", "HTML: lines of text right in the body, joined by <br>",
        lambda p: _repeat(p, size, lambda i: " ".join(plain[i % 5000:i % 5000 + 9]) + "<br>\n",
                          head="<html><body>\n", tail="</body></html>\n"))
    add("prose-html", "prose.html", "HTML: prose in sections (h2, p, a list), as an article page",
        lambda p: _repeat(p, size, lambda i: f"<section><h2>Part {i}</h2>\n<p>{paras[i % len(paras)]}</p>\n"
                                             f"<ul><li>{' '.join(plain[i % 5000:i % 5000 + 5])}</li>"
                                             f"<li>{' '.join(plain[i % 3000:i % 3000 + 7])}</li></ul>\n</section>\n",
                          head="<html><head><title>Prose</title></head><body><main><h1>Prose</h1>\n",
                          tail="</main></body></html>\n"))
    add("svg-html", "svg.html", "HTML: a plot drawn inline, one <svg> of paths and labels",
        lambda p: _repeat(p, size, lambda i: f'<path d="M{i % 800} {i % 600} L{(7 * i) % 800} {(3 * i) % 600}" '
                                             f'stroke="#{(i * 2654435761) % 0xffffff:06x}"/>\n'
                                             + (f'<text x="{i % 800}" y="{i % 600}">label {i}</text>\n' if i % 50 == 0 else ""),
                          head='<html><body><h1>Plot</h1><p>Intro.</p><svg width="800" height="600"><g class="plot">\n',
                          tail="</g></svg><p>After the plot.</p></body></html>\n"))
    # PDF: text-only pages; the text is 2-3x the file, so "x file" is some 2.5x "x text" (in `what`)
    pdf_words = [w for w in plain if len(w) > 2][:5000]

    def pdf_prose(i: int) -> list[tuple[float, float, str]]:
        start = (i * 700) % (len(pdf_words) - 700)
        return [(72, 60 + 11 * k, " ".join(pdf_words[start + 12 * k:start + 12 * k + 12]).capitalize() + ".")
                for k in range(58)]

    def pdf_table(i: int) -> list[tuple[float, float, str]]:
        items = [(72, 50, "n"), (130, 50, "word"), (220, 50, "other"), (310, 50, "text")] if i == 0 else []
        for k in range(56):
            n = i * 56 + k
            items += [(72, 64 + 12 * k, str(n)), (130, 64 + 12 * k, pdf_words[n % len(pdf_words)]),
                      (220, 64 + 12 * k, pdf_words[(3 * n) % len(pdf_words)]),
                      (310, 64 + 12 * k, " ".join(pdf_words[n % 4000:n % 4000 + 5]))]
        return items

    for name, what, make_page in [("pdf-prose", "PDF: pages of prose lines (a text-only book)", pdf_prose),
                                  ("pdf-table", "PDF: one table of 4 columns without rulings over every page",
                                   pdf_table)]:
        p = folder / f"{name}.pdf"
        chars = _pdf(p, size, make_page)
        shapes[name] = (p, f"{what}; text {chars / 1e6:.0f} M characters, {chars / p.stat().st_size:.1f}x the file")
    # Old and ASP.NET pages: every block in one wrapper, a paragraph of one word a line (the worst case
    # for a page read as one tree; read whole until 0.1.16)
    for name, what, head, tail in [
            ("font-html", "HTML: one-word paragraphs in <font face=Arial> (an old page)",
             "<html><body><font face=Arial><h1>Words</h1>\n", "</font></body></html>\n"),
            ("layout-cell-html", "HTML: one-word paragraphs in one layout table cell",
             "<html><body><table><tr><td>nav</td><td><h1>Words</h1>\n", "</td></tr></table></body></html>\n"),
            ("form-html", "HTML: one-word paragraphs in one <form> (an ASP.NET page)",
             '<html><body><form method="post" id="form1"><input type="hidden" name="__VIEWSTATE" value="x">'
             "<div><h2>Words</h2>\n", "</div></form></body></html>\n"),
            ("form-plain-html", "HTML: one-word paragraphs in one <form> without a heading",
             '<html><body><form method="post" id="form1"><input type="hidden" name="__VIEWSTATE" value="x">\n',
             "</form></body></html>\n")]:
        add(name, name.replace("-html", ".html"), what,
            lambda p, head=head, tail=tail: _repeat(
                p, size, lambda i: "".join(f"<p>{w}</p>\n" for w in plain[(i * 1000) % len(plain):(i * 1000) % len(plain) + 1000]),
                head=head, tail=tail))
    # Markup without a block or a word to cut before: a gallery of images, a page of comments (read as
    # one tree until 0.1.22: helper-70's page of comments 11.8x, images 26x, line breaks 81x)
    for name, what, head, make in [
            ("images-html", "HTML: images with comments and line breaks, no text (a gallery)", "<html><body>",
             lambda i: f'<img src="/img/{i}.png" alt=""><!-- {i} --><br>\n'),
            ("comments-html", "HTML: comments only (helper-70)", "<html><body>", lambda i: f"<!-- c{i} -->"),
            ("column-html", "HTML: one table of one-cell rows (helper-74: 31.8x until 0.1.22)", "<html><body><table>",
             lambda i: f"<tr><td>row {i} of a column</td></tr>\n"),
            # Nesting: read whole past 200 open elements, and where an element was always just opened, until
            # 0.1.25 (deep 76x, nested 31x at 20 MB); past 4,096 the rest is paragraphs, once held as lists.
            ("deep-html", "HTML: one-word paragraphs in 300 nested <div>s", "<html><body>" + "<div>" * 300,
             lambda i: f"<p>w{i % 97}</p>\n"),
            ("nested-html", "HTML: sections each opened in the last (never closed), 40 one-word paragraphs each",
             "<html><body>", lambda i: f"<section><h2>S{i}</h2>\n" + "<p>w</p>\n" * 40),
            ("flat-html", "HTML: one-word paragraphs past 4,097 nested <div>s (read without a tree)",
             "<html><body>" + "<div>" * 4097, lambda i: f"<p>w{i % 97}</p>\n"),
            # Tag soup: a formatting element left open in a paragraph, which the parser opens again at
            # the next text (the rest of the page in it), or a link left open before another: read
            # whole until 0.1.26 (39x at 5 MB)
            ("unclosed-html", "HTML: one-word paragraphs after <p><b>Intro</p> (the <b> left open)",
             "<html><body><p><b>Intro</p>\n", lambda i: f"<p>w{i % 97}</p>\n"),
            ("links-html", "HTML: one-word paragraphs after a link left open before another",
             '<html><body><p><a href="/1">one<a href="/2">two</a></p>\n', lambda i: f"<p>w{i % 97}</p>\n"),
            # ...and with no white space between the blocks (minified), where it is opened again in each
            # paragraph, at its text, and waits on the list at every block's start: no cut while one
            # waited, read whole until 0.1.29 (108x at 5 MB)
            ("anchor-html", "HTML: minified one-word paragraphs after <p><a name=x>Top</p> (the anchor left open)",
             "<html><body><p><a name=x>Top</p>", lambda i: f"<p>w{i % 97}</p>"),
            # ...in a layout table's cell, where the anchor waits before the cell's marker: no cut until 0.1.30
            ("anchor-table-html", "HTML: minified one-word paragraphs in a layout table after <p><a name=x>Top</p>",
             "<html><body><p><a name=x>Top</p><table><tr><td>", lambda i: f"<p>w{i % 97}</p>"),
            # ...and soup the scanner does not follow (a `<font>` closed with a paragraph open in it: the
            # adoption agency), so no cut; each tenth paragraph leaves an `<i>` open, which the parser opens
            # again at the line break after it, the next paragraphs inside: past 4,096 of them the rest is
            # read without a tree (`nesting`). The scan's list of them made it quadratic until 0.1.26
            # (20 MB: 33.4 s, 29.0 s since; helper-89's soup page alone: 146 s, 4.5 s)
            ("soup-html", "HTML: one-word paragraphs, one in ten leaving an <i> open, after <font><p>Intro</font>",
             "<html><body><div><font face=Arial><p>Intro</font></div>\n", lambda i: f"<p><i>w{i % 97}</p>\n" + "<p>w</p>\n" * 9),
            # A list is one block, never cut, and every line of an item is indented under it: one-letter
            # lines 40 lists deep were 66 characters of text for 2 bytes of markup (2 GB, 100x, until
            # 0.1.28, where a list's indentation is at most half the rest of its text)
            ("indented-html", "HTML: a <pre> of one-letter lines in an item 40 lists deep",
             "<html><body>" + "<ul><li>x" * 40 + "<pre>", lambda i: "a\n" * 1000),
            # ...and a numbered list of one-letter items (read from 100,000 until 0.1.29, which reads
            # more than six digits), up to "5099999. a" for 5 bytes of markup: its lines, item spans
            # and text were held at once in 0.1.28 (11.7x)
            ("numbered-html", "HTML: one <ol start=1000000> of one-letter items (<li>a)",
             "<html><body><ol start=1000000>", lambda i: "<li>a" * 1000)]:
        add(name, name.replace("-html", ".html"), what,
            lambda p, head=head, make=make: _repeat(p, size, make, head=head, tail="</body></html>\n"))
    return shapes


MODES = {"jobs1": ["--jobs", "1", "--file-timeout", "0"], "worker": ["--jobs", "2"]}


def peak(file: Path, mode: str, extra: list[str] | None = None) -> tuple[float, float, int]:
    """(peak RSS in MB of the largest process, seconds, exit code) of one CLI run."""
    files = [str(file)]
    if mode == "worker":  # one file alone runs in the main process
        companion = file.parent / "companion.txt"
        if not companion.exists():
            companion.write_text("A companion file, so that the run uses worker processes.\n")
        files.append(str(companion))
    args = [*CLI, "chunk", *files, "--quiet", "-o", os.devnull, *MODES[mode], *(extra or [])]
    env = dict(os.environ)
    src = os.environ.get("CHUNKCTL_SRC")
    env["PYTHONPATH"] = src or str(ROOT)
    p = subprocess.run([sys.executable, "-c", _PEAK, *args], capture_output=True, text=True, env=env, cwd="/")
    try:
        rc, secs, kb = p.stdout.split()
        if rc != "0":
            sys.stderr.write(p.stderr[-2000:])
        return int(kb) / 1024, float(secs), int(rc)
    except ValueError:
        sys.stderr.write(p.stderr[-2000:])
        return float("nan"), float("nan"), p.returncode


def measure(mb: float, only: list[str] | None = None, modes: tuple[str, ...] = ("jobs1", "worker"),
            log: Callable[[str], None] | None = None, extra: list[str] | None = None) -> tuple[str, dict]:
    """Run every shape (or those in `only`) and return (Markdown table, raw figures)."""
    size = int(mb * 1e6)
    rows = []
    raw: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="chunkctl-mem-") as tmp:
        folder = Path(tmp)
        tiny = folder / "tiny.txt"
        tiny.write_text("Start-up only.\n")
        base = {m: peak(tiny, m, extra)[0] for m in modes}
        shapes = make_shapes(folder, size) if not only else {
            k: v for k, v in make_shapes(folder, size).items() if k in only}
        for name, (file, what) in shapes.items():
            fmb = file.stat().st_size / 1e6
            row = [name, what, f"{fmb:.1f}"]
            raw[name] = {"mb": fmb}
            for m in modes:
                pk, secs, rc = peak(file, m, extra)
                mult = (pk - base[m]) / fmb
                raw[name][m] = (pk, mult, secs, rc)
                row += [f"{pk:.0f}", f"{mult:.1f}" + ("" if rc == 0 else f" (exit {rc})"), f"{secs:.1f}"]
                if log:
                    log(f"  {name} {m}: {pk:.0f} MB peak, {mult:.1f}x, {secs:.1f} s, exit {rc}")
            rows.append(row)
    headers = ["shape", "what", "MB"]
    for m in modes:
        label = "--jobs 1" if m == "jobs1" else "worker"
        headers += [f"{label} peak MB", f"{label} x file", f"{label} s"]
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join("---" for _ in headers) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    starts = ", ".join(f"{'--jobs 1' if m == 'jobs1' else 'worker'} {base[m]:.0f} MB" for m in modes)
    return (f"Peak resident memory per input shape (largest process of the run; start-up on a one-line file, "
            f"subtracted in \"x file\": {starts}):\n\n" + "\n".join(out)), raw


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=50, help="size of each generated file (MB)")
    ap.add_argument("--only", action="append", help="run only these shapes")
    ap.add_argument("--mode", action="append", choices=sorted(MODES), help="jobs1 and/or worker (default both)")
    ap.add_argument("--args", default="", help="more chunkctl options, e.g. '--strategy sentence'")
    args = ap.parse_args()
    t0 = time.perf_counter()
    text, _ = measure(args.mb, args.only, tuple(args.mode or MODES),
                      log=lambda s: print(s, file=sys.stderr, flush=True), extra=args.args.split())
    print(text)
    print(f"\n({time.perf_counter() - t0:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
