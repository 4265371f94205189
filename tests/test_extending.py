"""docs/extending.md is true: its loader and strategy, installed as they are written there, work end to end."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.conftest import ROOT

GUIDE = (ROOT / "docs" / "extending.md").read_text("utf-8")
RST = """Guide
=====

Intro paragraph about the tool.

Install
-------

Run the installer. It takes a minute.

Upgrade
-------

Stop the service first.
"""


def install_plugins(tmp_path):
    """Write every ```python block of the guide whose first line names a module as that module."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    names = []
    for block in re.findall(r"```python\n(.*?)```", GUIDE, re.S):
        first = block.splitlines()[0]
        m = re.fullmatch(r"# chunkctl/\w+/(\w+)\.py", first)
        if m:
            (folder / f"{m.group(1)}.py").write_text(block, encoding="utf-8")
            names.append(m.group(1))
    assert sorted(names) == ["pagewise", "rst"]
    return folder, names


def chunkctl(folder, names, *args, stdin=b""):
    """Run the real command line in a process where the plugins are registered first (their one import line)."""
    script = (f"import sys; sys.path.insert(0, {str(folder)!r}); import {', '.join(names)}\n"
              f"from chunkctl.cli import run; sys.argv = ['chunkctl', *sys.argv[1:]]; run()")
    return subprocess.run([sys.executable, "-c", script, *map(str, args)], input=stdin, capture_output=True,
                          cwd=ROOT)


def test_the_guides_loader_and_strategy_are_one_module_each(tmp_path):
    folder, names = install_plugins(tmp_path)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.rst").write_text(RST, encoding="utf-8")
    paged = "First page, first paragraph.\n\nFirst page, second paragraph.\n\f\nSecond page starts here.\n"
    (docs / "paged.txt").write_text(paged, encoding="utf-8")
    out = tmp_path / "out.jsonl"

    helptext = chunkctl(folder, names, "chunk", "--help").stdout.decode()
    assert "pagewise" in helptext and "rst" in helptext  # --strategy and --stdin-format choices

    p = chunkctl(folder, names, "chunk", docs, "--strategy", "pagewise", "-n", "64", "--overlap", "0", "-j", "2",
                 "-o", out)
    assert p.returncode == 0, p.stderr.decode()
    recs = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    rst = [r for r in recs if r["source"] == "guide.rst"]
    assert {r["format"] for r in rst} == {"rst"} and {r["meta"]["strategy"] for r in recs} == {"pagewise"}
    assert [r["headings"] for r in rst] == [["Guide"], ["Guide", "Install"], ["Guide", "Upgrade"]]
    assert rst[0]["meta"]["title"] == "guide" and len(rst[0]["meta"]["sha256"]) == 64  # filled by the registry
    for r in recs:
        text = (RST if r["source"] == "guide.rst" else paged)
        assert r["text"] == r["prefix"] + text[r["start"]:r["end"]] and r["n_tokens"] <= 64
    txt = [r for r in recs if r["source"] == "paged.txt"]
    assert [(r["page_start"], r["page_end"]) for r in txt] == [(1, 1), (2, 2)]  # no chunk crosses the page

    piped = chunkctl(folder, names, "chunk", "-", "--stdin-format", "rst", stdin=RST.encode())
    assert piped.returncode == 0 and json.loads(piped.stdout.splitlines()[0])["format"] == "rst"
