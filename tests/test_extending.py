"""docs/extending.md is true: its loader and strategy, installed as they are written there, work end to end."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.conftest import ROOT, check_records

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


def launcher(folder, names):
    """A script that runs the real command line with the plugins registered first (their one import line)."""
    script = folder / "run_chunkctl.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(folder)!r})\nimport {', '.join(names)}  # noqa\n"
                      f"from chunkctl.cli import run\nsys.argv[0] = 'chunkctl'\nrun()\n", encoding="utf-8")
    return script


def chunkctl(folder, names, *args, stdin=b""):
    """Run the command line with the plugins registered."""
    return subprocess.run([sys.executable, str(launcher(folder, names)), *map(str, args)], input=stdin,
                          capture_output=True, cwd=ROOT)


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
    assert {(r["page_start"], r["page_end"]) for r in rst} == {(None, None)}  # registered with paged=False
    # the whole record contract, the rst document text coming from `chunkctl extract` with the plugin
    check_records(recs, docs, tmp_path, extract_cmd=f"{sys.executable} {launcher(folder, names)} extract",
                  more_formats={"rst": False})

    piped = chunkctl(folder, names, "chunk", "-", "--stdin-format", "rst", stdin=RST.encode())
    assert piped.returncode == 0 and json.loads(piped.stdout.splitlines()[0])["format"] == "rst"


def test_the_guides_modules_pass_the_projects_lint(tmp_path):
    folder, _names = install_plugins(tmp_path)
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--config", str(ROOT / "pyproject.toml"),
                        str(folder / "rst.py"), str(folder / "pagewise.py")], capture_output=True, cwd=ROOT)
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
    for line in re.findall(r"```\n(from chunkctl\.\w+ import \w+ .*)\n```", GUIDE):
        assert "F401" in line, f"the registration line needs noqa F401 to pass the lint: {line}"
