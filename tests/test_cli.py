"""The command line: exit codes, messages, outputs (CliRunner in-process, subprocess where it matters)."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from chunkctl.cli import app
from tests.conftest import ROOT, parse_jsonl, run_cli

runner = CliRunner()


def invoke(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_version_and_help():
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.startswith("chunkctl ")
    for cmd in ("chunk", "extract", "schema"):
        r = invoke(cmd, "--help")
        assert r.exit_code == 0, (cmd, r.output)
        assert "Example" in r.stdout, cmd


def test_the_console_script_builds_only_the_named_command_with_the_same_face():
    """`chunkctl NAME ...` runs a group holding only command NAME (typer would build every
    command's options at each start): the same help and the same one-line usage errors as the
    whole app; anything else (`--help`, `eval`, an unknown word) gets the whole app."""
    import sys

    app_module = sys.modules["chunkctl.cli.app"]
    names = list(app_module._COMMANDS)
    assert set(names) == {c.name for c in app.registered_commands}
    for name in names:
        one = app_module._app_for(["chunkctl", name, "--help"])
        assert one is not app and [c.name for c in one.registered_commands] == [name]
        for args in ([name, "--help"], [name, "--no-such-option"]):
            whole, single = runner.invoke(app, args), runner.invoke(one, args)
            assert (single.exit_code, single.output) == (whole.exit_code, whole.output), (name, args)
    for argv in (["chunkctl"], ["chunkctl", "--help"], ["chunkctl", "eval", "run"], ["chunkctl", "chunkk"]):
        assert app_module._app_for(argv) is app


def test_schema_lists_the_contract_fields():
    r = invoke("schema")
    assert r.exit_code == 0, (r.output, r.exception)
    schema = json.loads(r.stdout)
    assert isinstance(schema, dict)
    assert {"$schema", "$id", "title", "type", "required", "properties"} <= set(schema)
    assert schema["type"] == "object"
    assert set(schema["required"]) >= {"id", "text", "prefix", "start", "end", "n_tokens", "headings", "meta"}
    assert set(schema["required"]) <= set(schema["properties"])
    assert set(schema["properties"]["meta"]["required"]) >= {"tokenizer", "strategy", "chunk_size", "overlap",
                                                              "version"}


def test_schema_subprocess_prints_only_the_schema():
    p = run_cli("schema")
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    assert json.loads(p.stdout)["title"].startswith("chunkctl chunk record")


def test_chunk_examples_to_file(tmp_path):
    out = tmp_path / "o.jsonl"
    p = run_cli("chunk", "examples", "--chunk-size", "128", "--overlap", "16", "-o", str(out))
    assert p.returncode == 0, p.stderr
    recs = parse_jsonl(out.read_bytes())
    assert {r["source"] for r in recs} == {"backup-guide.md", "cold-storage-handbook.pdf", "on-call-runbook.html", "returns-policy.txt"}
    assert all(r["n_tokens"] <= 128 for r in recs)
    assert b"4 files" in p.stderr and p.stdout == b""
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_overlap_left_out_is_none_and_a_percentage_is_rounded_down():
    # Default 0 since 0.1.3 (README "Evaluation": the setting that held on both sets).
    import chunkctl
    from chunkctl.config import ChunkConfig

    assert ChunkConfig().overlap == 0 and ChunkConfig(chunk_size=512, overlap="15%").overlap == 76
    p = run_cli("chunk", "examples/returns-policy.txt", "--chunk-size", "64", "--quiet")
    recs = parse_jsonl(p.stdout)
    assert len(recs) > 2 and {r["meta"]["overlap"] for r in recs} == {0}
    assert all(a["end"] <= b["start"] for a, b in zip(recs, recs[1:]))  # nothing repeated
    api = chunkctl.chunk_text("One. Two. Three.", source="t.txt")
    assert api[0]["meta"]["overlap"] == 0


def test_stdout_is_pure_jsonl_and_quiet_is_silent():
    p = run_cli("chunk", "examples/returns-policy.txt", "--chunk-size", "64", "--quiet")
    assert p.returncode == 0 and p.stderr == b""
    recs = parse_jsonl(p.stdout)
    assert recs and recs[0]["source"] == "examples/returns-policy.txt"


def test_bad_files_are_reported_and_the_rest_is_chunked(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "good.md").write_text("# Good\n\nFine text.\n")
    (d / "binary.txt").write_bytes(b"\x00\x01\x02\x03 binary")
    (d / "empty.txt").write_bytes(b"")
    (d / "notes.docx").write_bytes(b"PK\x03\x04")
    (d / "dangling.txt").symlink_to(d / "missing-target.txt")
    out = tmp_path / "o.jsonl"
    p = run_cli("chunk", str(d), "-o", str(out))
    assert p.returncode == 1
    err = p.stderr.decode()
    assert "binary.txt: binary file" in err
    assert "dangling.txt: broken symbolic link" in err
    assert "empty.txt: no text to chunk" in err
    assert "Traceback" not in err
    recs = parse_jsonl(out.read_bytes())
    assert {r["source"] for r in recs} == {"good.md"}
    assert "1 skipped" in err


def test_usage_errors_exit_2_without_output(tmp_path):
    for args in (["--strategy", "nope"], ["--chunk-size", "0"], ["--overlap", "abc"], ["--context", "all"],
                 ["--tokenizer", "no_such_tokenizer"], ["--encoding", "no-such-codec"]):
        p = run_cli("chunk", "examples", *args, "-o", str(tmp_path / "x.jsonl"))
        assert p.returncode == 2, args
        assert len(p.stderr.decode().strip().splitlines()) == 1 and b"Traceback" not in p.stderr
        assert not (tmp_path / "x.jsonl").exists()


def test_parser_errors_are_one_line_naming_the_commands_help(tmp_path):
    # click's own errors (a word for a number, a mistyped option or command, a missing
    # option): one `chunkctl: error:` line and exit 2, like every other usage error.
    cases = {("chunk", "examples", "--chunk-size", "abc"): "Invalid value for '--chunk-size'",
             ("chunk", "examples", "--jobs", "abc"): "Invalid value for '--jobs'",
             ("chunk", "examples", "--chunksize", "100"): "No such option: --chunksize",
             ("chnk", "examples"): "No such command 'chnk'",
             ("view", "examples"): "Missing option '-o'",
             ("eval", "run"): "Missing argument"}
    for args, says in cases.items():
        p = run_cli(*args)
        err = p.stderr.decode().strip().splitlines()
        assert p.returncode == 2 and p.stdout == b"", args
        assert len(err) == 1 and err[0].startswith("chunkctl: error: ") and says in err[0], (args, err)
        assert err[0].endswith("--help')"), err
    bare = run_cli()  # no command: the help text, as before
    assert bare.returncode == 2 and b"Commands" in bare.stdout + bare.stderr
    assert run_cli("chunk", "--help").returncode == 0 and run_cli("--version").stdout.startswith(b"chunkctl ")


def test_missing_input_is_a_failure_not_a_crash():
    p = run_cli("chunk", "no/such/dir", "examples/backup-guide.md", "--quiet")
    assert p.returncode == 1 and b"Traceback" not in p.stderr, p.stderr
    assert parse_jsonl(p.stdout)[0]["source"] == "examples/backup-guide.md"
    assert b"no/such/dir: no such file or folder" in p.stderr
    # the only input missing (a typo): its own line says why, no hint about empty selections
    alone = run_cli("chunk", "no/such/file.md")
    assert alone.returncode == 1 and alone.stdout == b""
    assert alone.stderr.decode().splitlines() == ["chunkctl: error: no/such/file.md: no such file or folder"]


def test_failed_run_does_not_replace_previous_output(tmp_path):
    out = tmp_path / "o.jsonl"
    out.write_text("previous\n")
    p = run_cli("chunk", "examples", "--chunk-size", "0", "-o", str(out))
    assert p.returncode == 2 and out.read_text() == "previous\n"
    assert b"Traceback" not in p.stderr


def test_extract_prints_the_document_text_exactly(tmp_path):
    f = tmp_path / "crlf.txt"
    f.write_bytes(b"\xef\xbb\xbfLine one\r\nLine two\rEnd\f")
    p = run_cli("extract", str(f))
    assert p.returncode == 0 and p.stdout == b"Line one\r\nLine two\rEnd\f"
    p = run_cli("extract", str(ROOT / "examples" / "backup-guide.md"), "--blocks")
    assert p.returncode == 0, p.stderr
    blocks = parse_jsonl(p.stdout)
    assert blocks[0]["kind"] == "front_matter" and blocks[1]["kind"] == "heading"
    assert any(b["kind"] == "table" for b in blocks) and any(b["kind"] == "code" for b in blocks)


def test_gzip_output(tmp_path):
    import gzip

    out = tmp_path / "o.jsonl.gz"
    p = run_cli("chunk", "examples", "-o", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    recs = parse_jsonl(gzip.decompress(out.read_bytes()))
    plain = run_cli("chunk", "examples", "--quiet")
    assert plain.returncode == 0 and recs == parse_jsonl(plain.stdout)


def test_python_module_entry_point():
    p = run_cli("--version")
    assert p.returncode == 0 and p.stdout.startswith(b"chunkctl ")
    from chunkctl import __version__

    assert p.stdout.split() == [b"chunkctl", __version__.encode()], p.stdout


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "o200k_base"])
def test_tokenizer_is_recorded(tokenizer):
    p = run_cli("chunk", "examples/returns-policy.txt", "--tokenizer", tokenizer, "--quiet")
    assert p.returncode == 0, p.stderr
    assert {r["meta"]["tokenizer"] for r in parse_jsonl(p.stdout)} == {tokenizer}


def test_two_inputs_with_the_same_source_are_a_usage_error(tmp_path):
    for name in ("ca", "cb"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "x.md").write_text(f"# {name}\n\nText.\n")
    p = run_cli("chunk", str(tmp_path / "ca"), str(tmp_path / "cb"), "-o", str(tmp_path / "o.jsonl"))
    assert p.returncode == 2 and b"recorded as source x.md (" in p.stderr
    assert b"common parent folder" in p.stderr and b"Traceback" not in p.stderr
    assert not (tmp_path / "o.jsonl").exists()


def test_links_to_one_folder_are_views_but_a_link_to_a_parent_is_a_loop(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nText.\n")
    top = tmp_path / "top"
    top.mkdir()
    (top / "one").symlink_to(docs, target_is_directory=True)
    (top / "two").symlink_to(docs, target_is_directory=True)
    (docs / "back").symlink_to(docs, target_is_directory=True)
    p = run_cli("chunk", str(top), "--quiet", "--follow-links")  # the links lead out of top/
    assert {r["source"] for r in parse_jsonl(p.stdout)} == {"one/a.md", "two/a.md"}
    assert p.stderr.count(b"symbolic-link loop") == 2 and p.returncode == 1
    assert b"Traceback" not in p.stderr


def test_explicit_unsupported_file_is_named_and_stdin_format_follows_its_name(tmp_path):
    p = run_cli("chunk", "pyproject.toml")  # nothing to chunk: exit 1, says why
    assert p.returncode == 1 and b"pyproject.toml: skipped, no loader" in p.stderr
    assert b"no file to chunk among 1 selected" in p.stderr
    p = run_cli("chunk", "-", "--stdin-name", "notes.md", "--quiet", input=b"# Notes\n\nHello.\n")
    recs = parse_jsonl(p.stdout)
    assert p.returncode == 0 and recs[0]["format"] == "md" and recs[0]["source"] == "notes.md"


def test_stats_reads_the_other_flavours(tmp_path):
    for flavour in ("langchain", "llamaindex"):
        out = tmp_path / f"{flavour}.jsonl"
        assert run_cli("chunk", "examples", "--format", flavour, "-q", "-o", str(out)).returncode == 0
        p = run_cli("stats", str(out))
        assert p.returncode == 0 and b"no violations" in p.stdout, p.stdout
