"""Records load into the real stores and tables (issue 15): uniform `meta` keys, flat metadata, Parquet output.

Every test loads records of all four formats into one collection or table, with a
deterministic stand-in for an embedding model (nothing is downloaded). The libraries are
in the `test` extra; a test whose library is missing is skipped with its name.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys

import pytest
from typer.testing import CliRunner

import chunkctl
from chunkctl.cli import app
from chunkctl.contract.schema import record_schema
from chunkctl.errors import OutputError
from chunkctl.fields import META_FIELDS, META_KEYS, RECORD_KEYS
from chunkctl.output.flavours import convert, flat_metadata, to_records
from tests.conftest import ROOT, parse_jsonl

FORMATS = {"md", "txt", "html", "pdf"}
DIM = 8
_PY_TYPE = {"string": str, "integer": int, "boolean": bool}
ODD_MD = """---
title: Odd headings
tags: [a, b]
owner: {name: Ops, since: 2024-01-02}
---
# Settings > Advanced

Text under a heading that holds the separator.

## Plain

More text here, enough of it to make a chunk of its own.
"""


def embed(texts):
    return [[b / 255 for b in hashlib.sha256(t.encode("utf-8")).digest()[:DIM]] for t in texts]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """examples/ (one file per format) plus a Markdown file with nested front matter and a ' > ' heading."""
    import shutil

    root = tmp_path_factory.mktemp("mixed")
    shutil.copytree(ROOT / "examples", root / "docs")
    (root / "docs" / "odd.md").write_text(ODD_MD, "utf-8")
    return root / "docs"


@pytest.fixture(scope="module")
def runs(folder):
    """Records of the folder by several strategies: {strategy: records}."""
    opts = {"recursive": {}, "hierarchical": {"levels": (256, 64), "overlap": 0}, "auto": {},
            "fixed": {"chunk_size": 128, "overlap": 16}, "section": {}, "sentence": {"chunk_size": 128}}
    return {name: list(chunkctl.chunk_paths([str(folder)], strategy=name, **o)) for name, o in opts.items()}


@pytest.fixture(scope="module")
def tree(runs):
    return runs["hierarchical"]


# ----------------------------------------------------------------------------- uniform meta keys
def test_every_record_of_every_format_and_strategy_has_the_same_keys_and_types(runs):
    for strategy, records in runs.items():
        assert {r["format"] for r in records} == FORMATS, strategy
        for r in records:
            assert tuple(r) == RECORD_KEYS and tuple(r["meta"]) == META_KEYS, (strategy, r["source"])
            for f in META_FIELDS:
                value = r["meta"][f.name]
                if value is None:
                    assert f.nullable, (strategy, f.name)
                else:
                    assert type(value) is _PY_TYPE[f.type], (strategy, f.name, value)


def test_meta_facts_by_format_and_strategy(runs):
    by_source = {r["source"]: r for r in runs["recursive"]}
    html, pdf, txt = by_source["on-call-runbook.html"], by_source["cold-storage-handbook.pdf"], by_source[
        "returns-policy.txt"]
    assert (html["meta"]["lang"], html["meta"]["n_pages"]) == ("en", None)
    assert (pdf["meta"]["lang"], pdf["meta"]["n_pages"]) == (None, 3)
    assert txt["meta"]["n_pages"] == 1 + txt["text"].count("\f") or txt["meta"]["n_pages"] >= 1
    odd = by_source["odd.md"]
    assert json.loads(odd["meta"]["front_matter"]) == {"title": "Odd headings", "tags": ["a", "b"],
                                                       "owner": {"name": "Ops", "since": "2024-01-02"}}
    assert by_source["backup-guide.md"]["meta"]["front_matter"] is not None and pdf["meta"]["front_matter"] is None
    assert all(r["meta"]["content_type"] is None and r["meta"]["parent_chunk_size"] is None
               for r in runs["recursive"])
    assert all(r["meta"]["content_type"] in ("legal", "narrative", "code", "other") for r in runs["auto"])
    assert all(r["meta"]["parent_chunk_size"] == 256 for r in runs["hierarchical"])


def test_the_schema_describes_exactly_these_records(runs):
    jsonschema = pytest.importorskip("jsonschema")
    schema = record_schema()
    assert schema["required"] == list(RECORD_KEYS) and schema["properties"]["meta"]["required"] == list(META_KEYS)
    validator = jsonschema.Draft202012Validator(schema)
    for records in runs.values():
        for r in records:
            validator.validate(r)
    bad = json.loads(json.dumps(runs["recursive"][0]))
    del bad["meta"]["lang"]
    assert not validator.is_valid(bad)  # a missing key is an error, not an absent value
    bad["meta"]["lang"] = 3
    assert not validator.is_valid(bad)


def test_the_schema_command_prints_it():
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0 and json.loads(result.stdout) == record_schema()


# ----------------------------------------------------------------------------- flat metadata
def test_flat_metadata_holds_scalars_only_and_round_trips_exactly(runs):
    for records in runs.values():
        for flavour in ("langchain", "llamaindex"):
            objs = convert(records, flavour)
            for o in objs:
                assert all(type(v) in (str, int, float, bool) for v in o["metadata"].values())
            assert to_records(json.loads(json.dumps(objs)), flavour) == records


def test_a_heading_holding_the_separator_also_travels_as_json(runs):
    odd = [r for r in runs["recursive"] if r["source"] == "odd.md"]
    first = flat_metadata(odd[0])
    assert odd[0]["headings"] == ["Settings > Advanced"]
    assert first["headings"] == "Settings > Advanced" and json.loads(first["headings_json"]) == ["Settings > Advanced"]
    plain = flat_metadata(next(r for r in runs["recursive"] if r["source"] == "backup-guide.md" and r["headings"]))
    assert " > " in plain["headings"] or plain["headings"] and "headings_json" not in plain
    empty = dict(odd[0], headings=[])
    assert flat_metadata(empty)["headings"] == "" and to_records([convert([empty], "langchain")[0]],
                                                                  "langchain")[0]["headings"] == []


def test_records_of_earlier_versions_are_read_back_too():
    # 0.1.1 wrote lists and nulls in the metadata, and fewer meta keys
    old = {"id": "a", "page_content": "T", "type": "Document", "metadata": {
        "id": "a", "doc_id": "d", "source": "s.md", "format": "md", "chunk_index": 0, "n_chunks": 1, "prefix": "",
        "start": 0, "end": 1, "n_tokens": 1, "headings": ["H"], "kind": "text", "page_start": 1, "page_end": 1,
        "oversize": False, "parent_id": None, "title": "t", "encoding": "utf-8", "sha256": "x", "tokenizer": "c",
        "strategy": "recursive", "chunk_size": 8, "overlap": 0, "version": "0.1.1"}}
    rec = to_records([old], "langchain")[0]
    assert rec["headings"] == ["H"] and rec["parent_id"] is None and rec["text"] == "T"
    assert tuple(rec["meta"]) == META_KEYS and rec["meta"]["lang"] is None


# ----------------------------------------------------------------------------- the stores
def test_chroma_takes_both_flavours_of_a_mixed_run_and_gives_the_records_back(tree):
    chromadb = pytest.importorskip("chromadb")
    client = chromadb.Client()
    for flavour in ("langchain", "llamaindex"):
        objs = convert(tree, flavour)
        text_key, id_key = ("page_content", "id") if flavour == "langchain" else ("text", "id_")
        collection = client.get_or_create_collection(f"stores-{flavour}")
        collection.add(ids=[o[id_key] for o in objs], documents=[o[text_key] for o in objs],
                       metadatas=[o["metadata"] for o in objs], embeddings=embed([o[text_key] for o in objs]))
        assert collection.count() == len(tree)
        got = collection.get(where={"format": "html"})
        assert got["ids"] and all(m["lang"] == "en" and "page_start" not in m for m in got["metadatas"])
        parent = next(r["parent_id"] for r in tree if r["parent_id"])
        children = collection.get(where={"parent_id": parent})["ids"]
        assert children == [r["id"] for r in tree if r["parent_id"] == parent]
        # what Chroma stores gives the exact records back
        got = collection.get(include=["documents", "metadatas"])
        by_id = {i: (d, m) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])}
        if flavour == "langchain":
            back = to_records([{"page_content": by_id[r["id"]][0], "metadata": by_id[r["id"]][1]} for r in tree],
                              flavour)
        else:
            spans = {r["id"]: (r["start"], r["end"]) for r in tree}  # a TextNode's own fields, not metadata
            back = to_records([{"id_": r["id"], "text": by_id[r["id"]][0], "metadata": by_id[r["id"]][1],
                                "start_char_idx": spans[r["id"]][0], "end_char_idx": spans[r["id"]][1]}
                               for r in tree], flavour)
        assert back == tree


def _with_vectors(table):
    import pyarrow as pa

    vectors = embed(table["text"].to_pylist())
    return table.append_column("vector", pa.array(vectors, pa.list_(pa.float32(), DIM)))


def test_lancedb_appends_html_pdf_and_txt_records_to_a_table_made_from_markdown(folder, tmp_path, monkeypatch):
    lancedb = pytest.importorskip("lancedb")
    import pyarrow as pa
    import pyarrow.parquet as pq

    from chunkctl.output.parquet import arrow_schema

    monkeypatch.chdir(folder)
    runner = CliRunner()
    for name in ("backup-guide.md", "on-call-runbook.html", "cold-storage-handbook.pdf"):
        out = tmp_path / f"{name}.parquet"
        assert runner.invoke(app, ["chunk", name, "-q", "-o", str(out)]).exit_code == 0
    db = lancedb.connect(str(tmp_path / "lance"))
    table = db.create_table("chunks", _with_vectors(pq.read_table(tmp_path / "backup-guide.md.parquet")))
    for name in ("on-call-runbook.html", "cold-storage-handbook.pdf"):
        table.add(_with_vectors(pq.read_table(tmp_path / f"{name}.parquet")))
    # JSONL records typed by the same schema append too
    txt = list(chunkctl.chunk_paths(["returns-policy.txt"]))
    table.add(_with_vectors(pa.Table.from_pylist(txt, schema=arrow_schema())))
    rows = table.to_arrow()
    assert set(rows["format"].to_pylist()) == FORMATS
    assert rows.schema.remove(rows.schema.get_field_index("vector")).equals(arrow_schema())
    hits = table.search(embed(["restore"])[0]).where("meta.n_pages = 3 AND format = 'pdf'").limit(50).to_list()
    assert hits and all(h["source"] == "cold-storage-handbook.pdf" for h in hits)


def test_langchain_and_llamaindex_load_a_mixed_hierarchical_run(tree):
    documents = pytest.importorskip("langchain_core.documents")
    vectorstores = pytest.importorskip("langchain_core.vectorstores")
    embeddings = pytest.importorskip("langchain_core.embeddings")
    docs = [documents.Document(**o) for o in convert(tree, "langchain")]
    store = vectorstores.InMemoryVectorStore(embeddings.DeterministicFakeEmbedding(size=DIM))
    assert store.add_documents(docs) == [r["id"] for r in tree]
    assert {d.metadata["format"] for d in docs} == FORMATS
    assert to_records([d.model_dump() for d in docs], "langchain") == tree

    core = pytest.importorskip("llama_index.core")
    schema = pytest.importorskip("llama_index.core.schema")
    nodes = [schema.TextNode.model_validate(o) for o in convert(tree, "llamaindex")]
    index = core.VectorStoreIndex(nodes, embed_model=core.MockEmbedding(embed_dim=DIM))
    assert len(index.docstore.docs) == len(tree)
    by_id = {r["id"]: r for r in tree}
    for node in nodes:
        rec = by_id[node.node_id]
        assert (node.parent_node.node_id if node.parent_node else None) == rec["parent_id"]
        assert node.get_content(metadata_mode=schema.MetadataMode.EMBED) == rec["text"]
    assert to_records([n.to_dict() for n in nodes], "llamaindex") == tree


# ----------------------------------------------------------------------------- Parquet output
def test_parquet_holds_exactly_the_jsonl_records_for_pyarrow_and_duckdb(folder, tmp_path, monkeypatch):
    pq = pytest.importorskip("pyarrow.parquet")
    monkeypatch.chdir(folder.parent)
    runner = CliRunner()
    args = ["chunk", "docs", "--strategy", "hierarchical", "--levels", "256,64", "--overlap", "0", "-q"]
    assert runner.invoke(app, [*args, "-o", str(tmp_path / "run.jsonl")]).exit_code == 0
    assert runner.invoke(app, [*args, "-o", str(tmp_path / "run.parquet")]).exit_code == 0
    records = parse_jsonl((tmp_path / "run.jsonl").read_bytes())
    assert pq.read_table(tmp_path / "run.parquet").to_pylist() == records
    duckdb = pytest.importorskip("duckdb")
    path = str(tmp_path / "run.parquet")
    query = f"SELECT count(*), count(DISTINCT format), count(parent_id) FROM '{path}'"
    n, formats, parents = duckdb.sql(query).fetchall()[0]
    assert (n, formats, parents) == (len(records), 4, sum(r["parent_id"] is not None for r in records))
    types = dict(duckdb.sql(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '{path}')").fetchall())
    assert types["headings"] == "VARCHAR[]" and types["n_tokens"] == "BIGINT" and types["meta"].startswith("STRUCT(")
    query = f"SELECT DISTINCT meta.front_matter FROM '{path}' WHERE source = 'odd.md'"
    fm = duckdb.sql(query).fetchall()[0][0]
    assert json.loads(fm)["owner"]["name"] == "Ops"


def _lines(records):
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def test_parquet_is_written_in_row_groups_and_lands_only_at_commit(runs, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    from chunkctl.output.parquet import ParquetOutput

    records = runs["fixed"]
    target = tmp_path / "out.parquet"
    out = ParquetOutput(str(target), row_group_rows=4)
    out.write(_lines(records))
    assert not target.exists() and [p for p in os.listdir(tmp_path) if p.startswith(".out.parquet.chunkctl-")]
    out.commit()
    assert os.listdir(tmp_path) == ["out.parquet"] and out.rows == len(records)
    meta = pq.ParquetFile(target).metadata
    assert meta.num_row_groups == math.ceil(len(records) / 4) and meta.num_rows == len(records)
    assert pq.read_table(target).to_pylist() == records


def test_parquet_abort_keeps_the_previous_file_and_an_empty_run_is_a_valid_file(runs, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    from chunkctl.output.parquet import ParquetOutput, arrow_schema

    target = tmp_path / "out.parquet"
    target.write_bytes(b"old")
    out = ParquetOutput(str(target))
    out.write(_lines(runs["recursive"]))
    out.abort()
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["out.parquet"]
    empty = ParquetOutput(str(target))
    empty.commit()
    table = pq.read_table(target)
    assert table.num_rows == 0 and table.schema.equals(arrow_schema())


def test_parquet_refuses_a_meta_key_outside_its_schema(runs, tmp_path):
    pytest.importorskip("pyarrow")
    from chunkctl.output.parquet import ParquetOutput

    rec = json.loads(json.dumps(runs["recursive"][0]))
    rec["meta"]["my_key"] = 1
    out = ParquetOutput(str(tmp_path / "x.parquet"))
    with pytest.raises(OutputError, match="meta.my_key .* is not a column"):
        out.write(_lines([rec]))
    out.abort()
    assert os.listdir(tmp_path) == []


def test_parquet_without_pyarrow_stops_before_any_work_with_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if it were not installed
    target = tmp_path / "out.parquet"
    result = CliRunner().invoke(app, ["chunk", str(ROOT / "examples"), "-o", str(target)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "pip install 'chunkctl[parquet]'" in lines[0], result.output
    assert not target.exists() and os.listdir(tmp_path) == []


def test_parquet_with_another_flavour_is_bad_usage(tmp_path):
    pytest.importorskip("pyarrow")
    result = CliRunner().invoke(app, ["chunk", str(ROOT / "examples"), "--flavour", "langchain", "-o",
                                      str(tmp_path / "out.parquet")])
    assert result.exit_code == 2 and "Parquet output holds the chunkctl records" in result.output
    assert os.listdir(tmp_path) == []
