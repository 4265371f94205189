"""The shape of the code: layers import downward only, no import cycles, registries drive docs and help."""

from __future__ import annotations

import ast
from pathlib import Path

from typer.testing import CliRunner

from chunkctl.chunking import STRATEGIES
from chunkctl.cli import app
from chunkctl.loaders import LOADERS
from tests.conftest import ROOT

PKG = ROOT / "chunkctl"

# Layer of each module (by longest matching prefix) and the layers each may import.
# Data flows one way: cli -> {view, pipeline, eval, contract, output} -> {enrich -> chunking, loaders}
# -> {llm (the model seam), text} -> core. The package facade (chunkctl/__init__.py) may
# import any layer but the CLI.
LAYER_OF = {
    "chunkctl.__about__": "core", "chunkctl.model": "core", "chunkctl.config": "core", "chunkctl.errors": "core",
    "chunkctl.tokenizers": "core", "chunkctl.atomic": "core", "chunkctl.configfile": "core", "chunkctl.fields": "core",
    "chunkctl.spill": "core", "chunkctl.allocator": "core", "chunkctl.cores": "core",
    "chunkctl.text": "text", "chunkctl.loaders": "loaders", "chunkctl.llm": "llm", "chunkctl.chunking": "chunking",
    "chunkctl.enrich": "enrich", "chunkctl.pipeline": "pipeline", "chunkctl.output": "output",
    "chunkctl.contract": "contract", "chunkctl.eval": "eval", "chunkctl.view": "view", "chunkctl.cli": "cli",
    "chunkctl.__main__": "cli",
    "chunkctl": "api",
}
BELOW = {
    "core": {"core"},
    "text": {"core"},
    "loaders": {"text", "core"},
    "llm": {"core"},
    "chunking": {"llm", "text", "core"},
    "enrich": {"chunking", "llm", "text", "core"},
    "pipeline": {"enrich", "chunking", "loaders", "llm", "text", "core"},
    "output": {"core"},
    "contract": {"output", "loaders", "core"},
    "eval": {"pipeline", "chunking", "loaders", "llm", "text", "output", "core"},  # llm: the user's embedder, eval generate
    "view": {"pipeline", "enrich", "chunking", "loaders", "llm", "text", "output", "core"},
    "cli": {"api", "view", "eval", "contract", "output", "pipeline", "enrich", "chunking", "loaders", "llm", "text",
            "core"},
    "api": {"view", "eval", "contract", "output", "pipeline", "enrich", "chunking", "loaders", "llm", "text", "core"},
}


def modules() -> dict[str, Path]:
    out = {}
    for path in PKG.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = modules()


def layer(module: str) -> str:
    best = max((p for p in LAYER_OF if module == p or module.startswith(p + ".")), key=len)
    return LAYER_OF[best]


def imports_of(module: str) -> set[str]:
    """chunkctl modules `module` imports anywhere in its file (lazy imports too), resolved to module names."""
    path = MODULES[module]
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")[: len(module.split(".")) - (node.level - (1 if is_pkg else 0))]
                base = ".".join(parts + ([node.module] if node.module else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        out.update(n for n in names if n in MODULES and n != module)
    return out


def raw_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_every_module_has_a_layer_and_imports_only_below_it():
    wrong = []
    for module in MODULES:
        mine = layer(module)
        for other in imports_of(module):
            theirs = layer(other)
            if theirs != mine and theirs not in BELOW[mine]:
                wrong.append(f"{module} ({mine}) imports {other} ({theirs})")
    assert wrong == []


def test_no_import_cycles():
    graph = {m: imports_of(m) for m in MODULES}
    # A package's __init__ that imports its own submodules (registration, re-exports) is the
    # facade of that package, not a dependency of it: leave those edges out.
    for m in graph:
        if MODULES[m].name == "__init__.py":
            graph[m] = {o for o in graph[m] if not o.startswith(m + ".")}
    state: dict[str, int] = {}
    cycles = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for o in sorted(graph[m]):
            if state.get(o) == 1:
                cycles.append(" -> ".join(stack[stack.index(o):] + [o]))
            elif o not in state:
                visit(o, stack + [o])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == []


def test_the_layer_rules_catch_an_upward_import():
    # the check itself can fail: a strategy importing the pipeline is caught
    assert "pipeline" not in BELOW[layer("chunkctl.chunking.recursive")]
    assert layer("chunkctl.pipeline.engines.dask") == "pipeline" and layer("chunkctl.cli.render") == "cli"


def test_loaders_never_count_tokens_and_strategies_never_open_files():
    for module, path in MODULES.items():
        if layer(module) == "loaders":
            assert not any("tokenizers" in n or "chunking" in n for n in raw_imports(path)), module
        if layer(module) == "chunking":
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.Call):
                    fn = node.func
                    name = fn.id if isinstance(fn, ast.Name) else (fn.attr if isinstance(fn, ast.Attribute) else "")
                    assert name not in ("open", "read_bytes", "read_text", "write_bytes", "write_text"), (module, name)


def test_only_the_cli_imports_typer_or_rich():
    for module, path in MODULES.items():
        if layer(module) == "cli":
            continue
        roots = {n.split(".")[0] for n in raw_imports(path)}
        assert not roots & {"typer", "rich", "click"}, module


def test_no_strategy_writes_into_the_document():
    # strategies return what they found (chunking.Chunked) instead of writing doc.meta
    for module, path in MODULES.items():
        if layer(module) == "chunking":
            assert "doc.meta[" not in path.read_text("utf-8") and "doc.meta.setdefault" not in path.read_text("utf-8")


def test_every_strategy_and_loader_is_documented_and_in_the_help():
    readme = (ROOT / "README.md").read_text("utf-8")
    strategies_doc = (ROOT / "docs" / "strategies.md").read_text("utf-8")
    loaders_doc = (ROOT / "docs" / "loaders.md").read_text("utf-8")
    helptext = CliRunner().invoke(app, ["chunk", "--help"], terminal_width=200).stdout
    for name in STRATEGIES:
        assert f"**`{name}`**" in readme, name
        assert f"`{name}`" in strategies_doc, name
        assert name in helptext, name
    for fmt in LOADERS:
        assert f"**{fmt}**" in readme, fmt
        assert fmt in loaders_doc, fmt


def test_the_code_points_inside_the_repository():
    # the project stands alone: rules are cited from docs/, never from a sibling folder
    for module, path in MODULES.items():
        text = path.read_text("utf-8")
        assert "../shared" not in text and "RULINGS" not in text and "CONTRACT.md" not in text, module
