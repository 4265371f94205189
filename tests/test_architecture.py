"""The shape of the code: imports point one way; README and --help name every loader and strategy."""

from __future__ import annotations

import ast
from pathlib import Path

from typer.testing import CliRunner

from chunkctl.chunking import STRATEGIES
from chunkctl.cli import app
from chunkctl.loaders import LOADERS
from tests.conftest import ROOT

PKG = ROOT / "chunkctl"


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            names.add(("." * node.level) + mod)
            for a in node.names:
                names.add(("." * node.level) + (mod + "." if mod else "") + a.name)
    return names


def test_loaders_never_import_chunking_or_tokenizers():
    for path in (PKG / "loaders").glob("*.py"):
        for name in imports_of(path):
            assert "chunking" not in name and "tokenizers" not in name, (path.name, name)


def test_nothing_below_the_cli_imports_typer_or_rich():
    # cli_render.py is the command line's presentation (rich tables, panels, progress):
    # part of the CLI layer, imported by cli.py alone (tests/test_cli_views.py checks that).
    for path in PKG.rglob("*.py"):
        if path.name in ("cli.py", "cli_render.py"):
            continue
        for name in imports_of(path):
            root = name.lstrip(".").split(".")[0]
            assert root not in ("typer", "rich", "click"), (path, name)


def test_strategies_never_open_files():
    for path in (PKG / "chunking").glob("*.py"):
        src = path.read_text("utf-8")
        tree = ast.parse(src)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.id if isinstance(fn, ast.Name) else (fn.attr if isinstance(fn, ast.Attribute) else "")
                assert name not in ("open", "read_bytes", "read_text", "write_bytes", "write_text"), (path, name)


def test_every_strategy_and_loader_is_documented():
    readme = (ROOT / "README.md").read_text("utf-8")
    helptext = CliRunner().invoke(app, ["chunk", "--help"], terminal_width=200).stdout
    for name in STRATEGIES:
        assert f"**`{name}`**" in readme, name
        assert name in helptext, name
    for fmt in LOADERS:
        assert f"**{fmt}**" in readme, fmt
