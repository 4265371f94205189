"""Output flavours (loaded by the real libraries when installed) and configuration files with their precedence."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import chunkctl
from chunkctl.cli import app
from chunkctl.configfile import find_config, load_config_file
from chunkctl.errors import ConfigError
from chunkctl.output.flavours import convert, to_records
from tests.conftest import ROOT, parse_jsonl

runner = CliRunner()
GUIDE = str(ROOT / "examples" / "backup-guide.md")


def invoke(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


@pytest.fixture(scope="module")
def records():
    return chunkctl.chunk_file(GUIDE, chunk_size=64, overlap=8)


@pytest.fixture(scope="module")
def tree():
    """Hierarchical records: parents and children, for the parent/child links."""
    return chunkctl.chunk_file(GUIDE, strategy="hierarchical", levels=(256, 64), overlap=0)


@pytest.mark.parametrize("flavour", ["chunkctl", "langchain", "llamaindex"])
def test_each_flavour_round_trips_without_loss(records, tree, flavour):
    for recs in (records, tree):
        objs = convert(recs, flavour)
        back = to_records(json.loads(json.dumps(objs)), flavour)
        assert back == recs


def test_langchain_flavour_shape(records):
    obj = convert(records, "langchain")[1]
    r = records[1]
    assert obj["page_content"] == r["text"] and obj["id"] == r["id"]
    md = obj["metadata"]
    assert (md["id"], md["source"], md["start"], md["end"], md["headings"], md["kind"], md["page_start"]) == (
        r["id"], r["source"], r["start"], r["end"], " > ".join(r["headings"]), r["kind"], r["page_start"])
    assert md["title"] == r["meta"]["title"] and "meta" not in md and "text" not in md
    # flat, store-safe metadata: scalars only, nulls left out
    assert all(isinstance(v, (str, int, float, bool)) for v in md.values()) and "parent_id" not in md


def test_llamaindex_flavour_links(tree):
    objs = {o["id_"]: o for o in convert(tree, "llamaindex")}
    parents = [r for r in tree if r["parent_id"] is None]
    children = [r for r in tree if r["parent_id"] is not None]
    assert parents and children
    kid = objs[children[1]["id"]]
    assert kid["relationships"]["4"]["node_id"] == children[1]["parent_id"]
    assert kid["relationships"]["2"]["node_id"] == children[0]["id"]  # previous of the same depth
    assert kid["relationships"]["1"] == {"node_id": tree[0]["doc_id"], "node_type": "4", "metadata": {},
                                         "hash": None, "class_name": "RelatedNodeInfo"}
    top = objs[parents[0]["id"]]
    assert "2" not in top["relationships"] and top["relationships"]["3"]["node_id"] == parents[1]["id"]
    assert [c["node_id"] for c in top["relationships"]["5"]] == [r["id"] for r in children
                                                                 if r["parent_id"] == parents[0]["id"]]
    assert (kid["start_char_idx"], kid["end_char_idx"]) == (children[1]["start"], children[1]["end"])


def test_langchain_loads_the_flavour(records):
    documents = pytest.importorskip("langchain_core.documents")
    objs = convert(records, "langchain")
    docs = [documents.Document(**o) for o in objs]
    assert [d.page_content for d in docs] == [r["text"] for r in records]
    assert docs[2].metadata["start"] == records[2]["start"] and docs[2].id == records[2]["id"]
    assert to_records([d.model_dump() for d in docs], "langchain") == records


def test_llamaindex_loads_the_flavour(tree):
    schema = pytest.importorskip("llama_index.core.schema")
    objs = convert(tree, "llamaindex")
    nodes = [schema.TextNode.model_validate(o) for o in objs]
    assert [schema.TextNode.from_dict(o).node_id for o in objs] == [r["id"] for r in tree]
    child = next(i for i, r in enumerate(tree) if r["parent_id"] is not None and i + 1 < len(tree)
                 and tree[i + 1]["parent_id"] is not None)
    node = nodes[child]
    assert node.parent_node.node_id == tree[child]["parent_id"]
    assert node.next_node.node_id == tree[child + 1]["id"]
    assert node.source_node.node_id == tree[child]["doc_id"]
    # What LlamaIndex embeds is the record's text, exactly (metadata is not prepended).
    assert node.get_content(metadata_mode=schema.MetadataMode.EMBED) == tree[child]["text"]
    assert to_records([n.to_dict() for n in nodes], "llamaindex") == tree


def test_cli_format_option(tmp_path):
    plain = parse_jsonl(invoke("chunk", GUIDE, "-n", "64", "--quiet").stdout_bytes)
    for flavour, key in (("langchain", "page_content"), ("llamaindex", "id_")):
        objs = parse_jsonl(invoke("chunk", GUIDE, "-n", "64", "--quiet", "--format", flavour).stdout_bytes)
        assert len(objs) == len(plain) and all(key in o for o in objs)
        assert to_records(objs, flavour) == plain


# ----------------------------------------------------------------------------- configuration files
def test_config_file_precedence(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.chunkctl]\nchunk-size = 200\n'
                                             'overlap = 0\nstrategy = "fixed"\n')
    sub = tmp_path / "docs" / "deeper"
    sub.mkdir(parents=True)
    (sub / "a.md").write_text("# A\n\n" + "Words and more words. " * 80 + "\n")
    monkeypatch.chdir(sub)
    assert find_config() == tmp_path / "pyproject.toml"
    r = invoke("chunk", "a.md", "--quiet", "--chunk-size", "100")
    assert r.exit_code == 0, r.stderr
    meta = parse_jsonl(r.stdout_bytes)[0]["meta"]
    assert (meta["chunk_size"], meta["overlap"], meta["strategy"]) == (100, 0, "fixed")  # flag > file > default
    # A chunkctl.toml nearer the working folder wins over the pyproject above it.
    (tmp_path / "docs" / "chunkctl.toml").write_text("chunk_size = 300\ncontext = 'none'\n")
    r = invoke("config", "--json", "--overlap", "5")
    cfg = json.loads(r.stdout)
    assert cfg["values"]["chunk_size"] == 300 and cfg["values"]["strategy"] == "recursive"
    assert cfg["origins"]["chunk_size"] == str(tmp_path / "docs" / "chunkctl.toml")
    assert cfg["origins"]["overlap"] == "command line" and cfg["origins"]["strategy"] == "default"
    plain = invoke("config", "--no-config").stdout
    assert "chunk-size = 512  # default" in plain
    assert invoke("config", "--config", tmp_path / "pyproject.toml", "--json").stdout.count("[tool.chunkctl]") == 3


def test_config_file_errors_are_usage_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chunkctl.toml").write_text("chunk-sise = 100\n")
    r = invoke("chunk", GUIDE)
    assert r.exit_code == 2 and "unknown key 'chunk-sise'; did you mean 'chunk-size'?" in r.stderr
    (tmp_path / "chunkctl.toml").write_text("chunk_size = 'big'\n")
    r = invoke("config")
    assert r.exit_code == 2 and "chunk-size must be int" in r.stderr
    (tmp_path / "chunkctl.toml").write_text("chunk_size = [\n")
    assert "not valid TOML" in invoke("config").stderr
    (tmp_path / "chunkctl.toml").write_text("overlap = 600\n")
    r = invoke("chunk", GUIDE)
    assert r.exit_code == 2 and "--overlap (600 tokens) must be smaller" in r.stderr


def test_settings_paths_are_relative_to_the_file(tmp_path):
    (tmp_path / "chunkctl.toml").write_text('cache = ".cache/chunks"\ninclude = "*.md"\n')
    s = load_config_file(start=tmp_path)
    assert s.values == {"cache": str(tmp_path / ".cache" / "chunks"), "include": ["*.md"]}
    with pytest.raises(ConfigError):
        load_config_file(tmp_path / "missing.toml")
