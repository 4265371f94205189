"""The README's "Using the output" section is true: its commands and snippets, run exactly as written, load a
mixed-format run (examples/: md, txt, html, pdf) into Chroma, LanceDB, LangChain, LlamaIndex, DuckDB and Arrow.

Nothing is downloaded: `embed`, `embeddings` and `embed_model` (which the README says stand
for the reader's embedding model) are deterministic stand-ins made here.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil

import pytest
from typer.testing import CliRunner

from chunkctl.cli import app
from tests.conftest import ROOT

FORMATS = {"md", "txt", "html", "pdf"}
DIM = 16


def section() -> str:
    text = (ROOT / "README.md").read_text("utf-8")
    start = text.index("\n## Using the output\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def commands() -> list[list[str]]:
    """The `chunkctl chunk ...` lines of the section (indented code), as argument lists."""
    return [shlex.split(m)[1:] for m in re.findall(r"^ {4}(chunkctl chunk .+)$", section(), re.M)]


def snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", section(), re.S)


def library(code: str) -> str:
    """The library a snippet is about: the first module it imports (json and pyarrow aside)."""
    names = re.findall(r"^(?:import|from) (\w+)", code, re.M)
    return next((n for n in names if n not in ("json", "pyarrow", "chunkctl")), "pyarrow")


def embed(texts: list[str]) -> list[list[float]]:
    """A deterministic stand-in for an embedding model: DIM numbers from a hash of each text."""
    return [[b / 255 for b in hashlib.sha256(t.encode("utf-8")).digest()[:DIM]] for t in texts]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A folder holding examples/ and the outputs of the section's commands, made in it."""
    folder = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "examples", folder / "examples")
    pytest.importorskip("pyarrow")
    runner = CliRunner()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        for args in commands():
            result = runner.invoke(app, [*args, "--quiet"])
            assert result.exit_code == 0, (args, result.output)
    records = [json.loads(line) for line in (folder / "chunks.jsonl").read_text("utf-8").splitlines()]
    assert {r["format"] for r in records} == FORMATS
    return folder, records


def test_the_section_has_the_commands_and_a_snippet_for_each_tool():
    outs = {a[a.index("-o") + 1] for a in commands()}
    assert outs == {"chunks.jsonl", "langchain.jsonl", "llamaindex.jsonl", "chunks.parquet"}
    assert [library(c) for c in snippets()] == ["chromadb", "lancedb", "langchain_core", "llama_index", "duckdb",
                                                "pyarrow"]


def _run(code: str, folder, monkeypatch) -> dict:
    lib = library(code)
    pytest.importorskip(lib)
    namespace: dict = {"embed": embed}
    if lib == "langchain_core":
        from langchain_core.embeddings import DeterministicFakeEmbedding

        namespace["embeddings"] = DeterministicFakeEmbedding(size=DIM)
    if lib == "llama_index":
        from llama_index.core import MockEmbedding

        namespace["embed_model"] = MockEmbedding(embed_dim=DIM)
    monkeypatch.chdir(folder)
    exec(compile(code, f"README.md ({lib})", "exec"), namespace)  # the snippet exactly as written
    return namespace


@pytest.mark.parametrize("index", range(6), ids=["chroma", "lancedb", "langchain", "llamaindex", "duckdb", "arrow"])
def test_each_snippet_loads_every_record_of_every_format(index, outputs, monkeypatch):
    folder, records = outputs
    code = snippets()[index]
    ns = _run(code, folder, monkeypatch)
    n = len(records)
    lib = library(code)
    if lib == "chromadb":
        got = ns["collection"].get()
        assert len(got["ids"]) == n and sorted(got["ids"]) == sorted(r["id"] for r in records)
        assert {m["format"] for m in got["metadatas"]} == FORMATS
        assert ns["hits"]["ids"][0] and all(m["format"] == "pdf" for m in ns["hits"]["metadatas"][0])
    elif lib == "lancedb":
        table = ns["table"]
        assert table.count_rows() == n
        assert set(table.to_arrow()["format"].to_pylist()) == FORMATS
        # (helper-99: `meta.lang = 'en'` alone kept the HTML page's chunks only: lang is null elsewhere)
        hits = ns["hits"]
        assert len(hits) == 3 and all(h["meta"]["lang"] in ("en", None) for h in hits)
        assert {h["format"] for h in hits} - {"html"}
    elif lib == "langchain_core":
        assert len(ns["store"].store) == n
        assert ns["hits"] and all(d.metadata["format"] == "md" for d in ns["hits"])
    elif lib == "llama_index":
        assert len(ns["index"].docstore.docs) == n
        assert len(ns["hits"]) == 3
        assert {h.node.metadata["format"] for h in ns["hits"]} <= FORMATS
    elif lib == "duckdb":
        sizes = {fmt: (chunks, tokens) for fmt, chunks, tokens in ns["sizes"]}
        assert set(sizes) == FORMATS and sum(c for c, _ in sizes.values()) == n
        assert sum(t for _, t in sizes.values()) == sum(r["n_tokens"] for r in records)
        firsts = {src.rsplit(".", 1)[1]: (title, pages, lang) for src, title, pages, lang in ns["firsts"]}
        assert firsts["pdf"][1:] == (3, None) and firsts["html"][1:] == (None, "en") and firsts["md"][1] == 1
    else:
        from chunkctl.output.parquet import arrow_schema

        assert ns["table"].num_rows == n and ns["table"].schema.equals(arrow_schema())
        assert ns["table"].to_pylist() == records
