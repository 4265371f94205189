"""Issue 15 (3, 7, 8, 9): stable sources with --source-root, --summary-json and --dry-run for CI, a `chunkctl config`
that reads back, shell completion, human sizes and gitignore-style patterns."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import chunkctl
from chunkctl.cli import app
from chunkctl.errors import ConfigError
from chunkctl.pipeline.inputs import discover, gather
from tests.conftest import CLI, ROOT, parse_jsonl

runner = CliRunner()


def invoke(*args, input: bytes | str | None = None):
    return runner.invoke(app, [os.fsdecode(a) for a in args], input=input)


def cli(*args, cwd: Path, input: bytes | None = None, env: dict | None = None, timeout: float = 120):
    return subprocess.run([*CLI, *map(os.fsdecode, args)], input=input, capture_output=True, timeout=timeout,
                          cwd=cwd, env=env)


def _tree(tmp_path: Path) -> Path:
    """A small project: docs/ with every text format, a sub-folder, files no loader reads."""
    docs = tmp_path / "proj" / "docs"
    (docs / "guide" / "deep").mkdir(parents=True)
    (docs / "drafts").mkdir()
    (docs / "index.md").write_text("# Index\n\nThe start page of the docs.\n")
    (docs / "guide" / "install.md").write_text("# Install\n\nRun the installer, then restart.\n")
    (docs / "guide" / "deep" / "notes.txt").write_text("Deep notes.\n\nA second paragraph.\n")
    (docs / "guide" / "page.html").write_text("<html><body><h1>Page</h1><p>Some HTML text.</p></body></html>")
    (docs / "drafts" / "wip.md").write_text("# WIP\n\nNot ready.\n")
    (docs / "a.rst").write_text("rst\n")
    (docs / "b.rst").write_text("rst\n")
    (docs / "c.docx").write_bytes(b"PK\x03\x04")
    return docs


def _by_source(data: bytes) -> dict[str, list[bytes]]:
    out: dict[str, list[bytes]] = {}
    for line in data.splitlines():
        out.setdefault(json.loads(line)["source"], []).append(line)
    return out


# --- 3. sources that do not depend on how a path was given ------------------------------------------------------

def test_a_list_run_gives_the_records_of_a_folder_run(tmp_path):
    # `find docs ... | chunkctl chunk --from-list -` used to record "docs/x.md" where a run over the folder
    # recorded "x.md": other ids, duplicates in a store. --source-root makes them the same.
    docs = _tree(tmp_path)
    proj = docs.parent
    full = cli("chunk", "docs", "--no-config", "-o", "full.jsonl", cwd=proj)
    assert full.returncode == 0, full.stderr
    whole = _by_source((proj / "full.jsonl").read_bytes())
    assert "guide/install.md" in whole
    listed = b"docs/guide/install.md\n./docs/guide/deep/notes.txt\n" + os.fsencode(docs / "index.md") + b"\n"
    part = cli("chunk", "--from-list", "-", "--source-root", "docs", "--no-config", "-o", "part.jsonl",
               cwd=proj, input=listed)
    assert part.returncode == 0, part.stderr
    some = _by_source((proj / "part.jsonl").read_bytes())
    assert list(some) == ["guide/install.md", "guide/deep/notes.txt", "index.md"]
    assert all(some[s] == whole[s] for s in some)
    # the same from another folder, the root given as an absolute path, and for a folder named inside the root
    other = cli("chunk", docs / "guide", "--source-root", docs, "--no-config", cwd=tmp_path)
    assert other.returncode == 0, other.stderr
    sub = _by_source(other.stdout)
    assert sorted(sub) == ["guide/deep/notes.txt", "guide/install.md", "guide/page.html"]
    assert all(sub[s] == whole[s] for s in sub)
    # and with the root in the configuration file (relative to the file's folder)
    (proj / "chunkctl.toml").write_text('source-root = "docs"\n')
    cfg = cli("chunk", "docs/guide/install.md", "-q", cwd=proj)
    assert cfg.returncode == 0 and _by_source(cfg.stdout) == {"guide/install.md": whole["guide/install.md"]}


def test_the_python_api_takes_the_same_source_root(tmp_path):
    docs = _tree(tmp_path)
    folder = list(chunkctl.chunk_paths([docs], chunk_size=64))
    listed = list(chunkctl.chunk_paths([docs / "guide" / "install.md"], source_root=docs, chunk_size=64))
    assert listed and listed == [r for r in folder if r["source"] == "guide/install.md"]


def test_a_file_outside_the_source_root_fails_and_the_rest_is_written(tmp_path):
    docs = _tree(tmp_path)
    stray = tmp_path / "stray.md"
    stray.write_text("# Stray\n\nOutside.\n")
    out, errs = tmp_path / "o.jsonl", tmp_path / "e.jsonl"
    p = cli("chunk", docs / "index.md", stray, tmp_path / "proj", "--source-root", docs, "--no-config",
            "-o", out, "--errors", errs, cwd=tmp_path)
    assert p.returncode == 1
    err = p.stderr.decode()
    assert f"chunkctl: error: {stray}: outside --source-root {docs}; not chunked" in err
    assert f"{tmp_path / 'proj'}: outside --source-root" in err
    assert [r["source"] for r in parse_jsonl(out.read_bytes())] == ["index.md"]
    assert [(e["source"], e["error_type"]) for e in parse_jsonl(errs.read_bytes())] == [
        (str(stray), "OutsideSourceRoot"), (str(tmp_path / "proj"), "OutsideSourceRoot")]
    bad = cli("chunk", docs, "--source-root", tmp_path / "nope", "--no-config", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.decode().strip() == \
        f"chunkctl: error: --source-root {tmp_path / 'nope'}: no such folder"


def test_source_root_keeps_the_name_rule_and_the_link_rule(tmp_path):
    docs = _tree(tmp_path)
    odd = os.fsencode(docs / "guide") + b"/caf\xe9.md"
    with open(odd, "wb") as fh:
        fh.write(b"# Caf\n\nLatin-1 name, UTF-8 text.\n")
    (docs / "guide" / "link.md").symlink_to(docs / "index.md")  # leads out of guide/, stays inside docs/
    found = discover([os.fsdecode(odd)], source_root=str(docs))
    assert [i.source for i in found.inputs] == ["guide/caf\\xe9.md"]
    walked = discover([str(docs / "guide")], source_root=str(docs))
    assert "guide/caf\\xe9.md" in [i.source for i in walked.inputs]
    assert walked.outside == ["guide/link.md"]  # out of the walked folder: skipped, as without a root
    followed = discover([str(docs / "guide")], source_root=str(docs), follow_links=True)
    assert "guide/link.md" in [i.source for i in followed.inputs]
    # a root reached through a symbolic link is the same folder
    (tmp_path / "alias").symlink_to(docs, target_is_directory=True)
    assert [i.source for i in discover([str(docs / "index.md")], source_root=str(tmp_path / "alias")).inputs] \
        == ["index.md"]


def test_stdin_name_is_written_as_given(tmp_path):
    docs = _tree(tmp_path)
    p = cli("chunk", "-", "--stdin-name", "guide/install.md", "--source-root", docs, "--no-config", "-q",
            cwd=tmp_path, input=(docs / "guide" / "install.md").read_bytes())
    full = cli("chunk", docs, "--no-config", "-q", cwd=tmp_path)
    assert p.returncode == 0 and _by_source(p.stdout)["guide/install.md"] == \
        _by_source(full.stdout)["guide/install.md"]


@pytest.mark.slow
def test_dask_workers_give_the_same_sources(tmp_path):
    pytest.importorskip("distributed")
    docs = _tree(tmp_path)
    local = cli("chunk", "docs/guide", "--source-root", "docs", "--no-config", "-q", cwd=docs.parent)
    dask = cli("chunk", "docs/guide", "--source-root", "docs", "--engine", "dask", "--jobs", "1", "--no-config",
               "-q", cwd=docs.parent, timeout=300)
    assert dask.returncode == 0, dask.stderr
    assert dask.stdout == local.stdout and b'"source":"guide/install.md"' in dask.stdout


# --- 7. --summary-json, skipped files by extension, --dry-run ---------------------------------------------------

def test_summary_json_counts_failures_by_reason_and_skips_by_extension(tmp_path):
    docs = _tree(tmp_path)
    (docs / "binary.txt").write_bytes(b"\x00\x01\x02 binary")
    (docs / "big.md").write_text("# Big\n\n" + "word " * 400)
    summary = tmp_path / "out" / "summary.json"
    summary.parent.mkdir()
    summary.write_text("old")
    p = cli("chunk", docs, "nope.md", "--max-file-size", "1kB", "--summary-json", summary, "--no-config",
            "-o", tmp_path / "o.jsonl", cwd=tmp_path)
    assert p.returncode == 1
    s = json.loads(summary.read_text())
    assert list(s) == ["summary_version", "status", "exit_code", "files", "files_by_format", "chunks", "tokens",
                       "bytes", "failed", "failures_by_reason", "skipped", "skipped_by_extension",
                       "skipped_by_reason", "empty", "cached", "incomplete", "seconds", "error"]
    assert (s["status"], s["exit_code"], s["error"]) == ("failed", 1, None)  # (files failed: counted, no error)
    assert s["files"] == 5 and s["files_by_format"] == {"html": 1, "md": 3, "txt": 1}
    assert s["chunks"] == len(parse_jsonl((tmp_path / "o.jsonl").read_bytes())) and s["tokens"] > 0
    assert s["failed"] == 2 and s["failures_by_reason"] == {"LoaderError": 1, "NotFound": 1}
    assert s["skipped"] == 4 and s["skipped_by_extension"] == {".docx": 1, ".rst": 2}
    assert s["skipped_by_reason"] == {"no loader for the extension": 3, "over --max-file-size": 1}
    assert isinstance(s["seconds"], float) and s["seconds"] > 0
    assert [f.name for f in summary.parent.iterdir()] == ["summary.json"]  # no temporary file left
    line = p.stderr.decode().strip().splitlines()[-1]
    assert "2 failed, 4 skipped (2 .rst, 1 .docx, 1 over --max-file-size)" in line, line


def test_the_closing_line_names_documents_without_model_output_and_without_unreadable_parts_apart():
    from types import SimpleNamespace

    from chunkctl.pipeline.summary import RunSummary

    s = RunSummary()
    base = dict(llm_plan=None, skipped=False, error=None, format="pdf", n_chunks=1, n_tokens=5, nbytes=10, cached=False)
    for failures, lost in (([], ["p.pdf: page 2 cannot be read"]), (["x: model call failed"], []),
                           (["y: model call failed"], ["q.pdf: page 1 cannot be read"]), ([], [])):
        s.add(SimpleNamespace(**base, source="d", model_failures=failures, lost=lost))
    assert s.incomplete == 3
    assert s.line().endswith(", 2 written without some model output, 2 written without parts that could not be read")


def test_summary_table_names_skipped_extensions():
    from rich.console import Console

    from chunkctl.cli.render import summary_table
    from chunkctl.pipeline.summary import SKIP_NO_LOADER, RunSummary

    s = RunSummary()
    for name in ("a.rst", "b.RST", "c.docx", "Makefile"):
        s.skip(SKIP_NO_LOADER, name)
    console = Console(width=100, record=True)
    console.print(summary_table(s))
    assert "4 (2 .rst, 1 (none), 1 .docx)" in console.export_text()


def test_summary_json_ends_every_started_run(tmp_path):
    docs = _tree(tmp_path)
    summary = tmp_path / "s.json"
    (docs / "binary.txt").write_bytes(b"\x00\x01\x02 binary")
    stopped = cli("chunk", docs, "--fail-fast", "--summary-json", summary, "--no-config", "-q", cwd=tmp_path)
    assert stopped.returncode == 1
    s = json.loads(summary.read_text())
    assert s["status"] == "stopped" and s["error"].startswith("stopped at the first failure (--fail-fast)")
    none = cli("chunk", docs, "--include", "*.zzz", "--summary-json", summary, "--no-config", "-q", cwd=tmp_path)
    assert none.returncode == 1
    s = json.loads(summary.read_text())
    assert (s["status"], s["files"], s["exit_code"]) == ("nothing-selected", 0, 1)
    assert s["error"] == "no input files selected (--allow-empty writes an empty output and exits 0)"
    ok = cli("chunk", docs / "index.md", "--summary-json", summary, "--no-config", "-q", cwd=tmp_path)
    assert ok.returncode == 0 and ok.stderr == b""
    s = json.loads(summary.read_text())
    assert (s["status"], s["error"]) == ("ok", None)
    if os.path.exists("/dev/full"):  # a full disk: the files were read, none of their records landed
        full = cli("chunk", docs / "index.md", "-o", "/dev/full", "--summary-json", summary, "--no-config", "-q",
                   cwd=tmp_path)
        s = json.loads(summary.read_text())
        assert full.returncode == 1 and (s["status"], s["failed"], s["files"]) == ("failed", 0, 1)
        assert s["error"] == full.stderr.decode().strip().removeprefix("chunkctl: error: ")
        assert "No space left on device" in s["error"], s  # (helper-114: "failed": 0 and no reason)


def test_summary_json_refuses_bad_paths_before_any_work(tmp_path):
    docs = _tree(tmp_path)
    out = tmp_path / "o.jsonl"
    for path, why in (("-", "needs a file name"), (str(tmp_path), "is a folder"), (str(out), "also the -o file"),
                      (str(docs / "index.md"), "also an input")):
        p = cli("chunk", docs, "-o", out, "--summary-json", path, "--no-config", cwd=tmp_path)
        lines = p.stderr.decode().strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1 and "--summary-json" in lines[0] and why in lines[0], lines
        assert not out.exists()


def test_summary_json_is_written_on_ctrl_c(tmp_path):
    pytest.importorskip("httpx")
    from tests.fake_llm import FakeLLM

    server = FakeLLM()
    server.http, server.delay = "slow", 60.0
    summary, out = tmp_path / "s.json", tmp_path / "o.jsonl"
    env = dict(os.environ, FAKE_LLM_KEY="k")
    try:
        proc = subprocess.Popen([*CLI, "chunk", str(ROOT / "examples" / "returns-policy.txt"), "--contextualize",
                                 "--llm-base-url", server.base_url, "--llm-model", "m", "--llm-api-key-env",
                                 "FAKE_LLM_KEY", "--llm-timeout", "120", "--cache", str(tmp_path / "cache"),
                                 "--jobs", "1", "--summary-json", str(summary), "-o", str(out), "--no-config"],
                                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 60
        while server.count() == 0 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert server.count() > 0, "the run never asked the model"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.close()
    assert proc.returncode == 130, err
    s = json.loads(summary.read_text())
    assert (s["status"], s["exit_code"], s["files"]) == ("interrupted", 130, 0)
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_dry_run_lists_what_a_run_would_take_and_touches_nothing(tmp_path):
    docs = _tree(tmp_path)
    (docs / "big.md").write_text("x" * 5000)
    (docs / "broken.md").symlink_to(tmp_path / "missing")
    cache, out = tmp_path / "cache", tmp_path / "o.jsonl"
    # an unknown tokenizer is a usage error for a real run: the dry run loads none
    p = cli("chunk", docs, "--dry-run", "--tokenizer", "no_such_tokenizer", "--exclude", "drafts/",
            "--max-file-size", "4kB", "--cache", cache, "-o", out, "--summary-json", tmp_path / "s.json",
            "--no-config", cwd=tmp_path)
    rows = [line.split("\t") for line in p.stdout.decode().splitlines()]
    assert rows == [
        ["skip", "-", "a.rst", "no loader for .rst (txt, md, html and pdf are read)"],
        ["skip", "-", "b.rst", "no loader for .rst (txt, md, html and pdf are read)"],
        ["skip", "md", "big.md", "5000 bytes is over --max-file-size 4000"],
        ["skip", "-", "c.docx", "no loader for .docx (txt, md, html and pdf are read)"],
        ["take", "txt", "guide/deep/notes.txt"],
        ["take", "md", "guide/install.md"],
        ["take", "html", "guide/page.html"],
        ["take", "md", "index.md"],
        ["skip", "md", "drafts/wip.md", "matches --exclude 'drafts/'"],
        ["fail", "-", "broken.md", "broken symbolic link"],
    ], p.stdout.decode()
    assert p.returncode == 1  # the run would fail broken.md
    assert "dry run: 4 files would be chunked (html 1, md 2, txt 1), 5 skipped, 1 failed" in p.stderr.decode()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["proj"]  # no output, summary or cache
    (docs / "broken.md").unlink()
    assert cli("chunk", docs, "--dry-run", "--no-config", cwd=tmp_path).returncode == 0


# --- 8. `chunkctl config > chunkctl.toml` reads back ------------------------------------------------------------

def test_config_output_is_a_configuration_file_with_the_same_values(tmp_path):
    docs = _tree(tmp_path)
    proj = docs.parent
    flags = ["--chunk-size", "200", "--overlap", "10%", "--context", "title+headings", "--levels", "800,200",
             "--include", "*.md", "--include", "*.txt", "--exclude", "drafts/", "--max-file-size", "10MB",
             "--cache", ".chunk-cache", "--source-root", "docs", "--follow-links", "--jobs", "2",
             "--file-timeout", "30", "--flavour", "langchain", "--quiet"]
    written = cli("config", *flags, "--no-config", cwd=proj)
    assert written.returncode == 0, written.stderr
    assert b"# quiet = true  (command line only" in written.stdout
    (proj / "chunkctl.toml").write_bytes(written.stdout)
    want = json.loads(cli("config", *flags, "--json", "--no-config", cwd=proj).stdout)["values"]
    got = cli("config", "--json", cwd=proj)
    assert got.returncode == 0, got.stderr  # used to be: unknown key 'quiet'
    values = json.loads(got.stdout)["values"]
    assert {k: v for k, v in values.items() if k != "quiet"} == {k: v for k, v in want.items() if k != "quiet"}
    # chunk reads it: the same records as the same flags on the command line
    from_file = cli("chunk", "docs", "-q", cwd=proj)
    from_flags = cli("chunk", "docs", *flags, "--no-config", cwd=proj)
    assert from_file.returncode == 0, from_file.stderr
    assert from_file.stdout == from_flags.stdout and b'"page_content"' in from_file.stdout


def test_a_tokenizer_file_in_a_configuration_file_is_found_beside_it_from_any_folder(tmp_path):
    """helper-99: `tokenizer = "models/tok.tiktoken"` was looked for in the current folder (exit 2
    from a sub-folder), where the file's other paths are its own folder's."""
    import base64

    from chunkctl.tokenizers import get_tokenizer

    enc = get_tokenizer("cl100k_base").encoding
    proj = tmp_path / "proj"
    (proj / "models").mkdir(parents=True)
    (proj / "sub").mkdir()
    (proj / "models" / "tok.tiktoken").write_bytes(b"\n".join(
        base64.b64encode(tok) + b" " + str(rank).encode() for tok, rank in enc._mergeable_ranks.items()) + b"\n")
    (proj / "sub" / "notes.md").write_text("# Notes\n\nPumps are logged daily. Valves are checked weekly.\n")
    (proj / "chunkctl.toml").write_text('tokenizer = "models/tok.tiktoken"\n')
    from_sub = cli("chunk", "notes.md", cwd=proj / "sub")
    assert from_sub.returncode == 0, from_sub.stderr
    given = cli("chunk", "notes.md", "--tokenizer", "../models/tok.tiktoken", "--no-config", cwd=proj / "sub")
    assert given.returncode == 0, given.stderr
    read, typed = parse_jsonl(from_sub.stdout), parse_jsonl(given.stdout)
    assert [r["id"] for r in read] == [r["id"] for r in typed]  # (ids take the file's content)
    assert read[0]["meta"]["tokenizer"] == str((proj / "models" / "tok.tiktoken").resolve())
    # helper-101: `chunkctl config` wrote a tokenizer file given on the command line as given
    # ("../models/tok.tiktoken"), which the file then read against its own folder and did not find;
    # it writes it absolute, as it does the other paths (a name as given)
    (proj / "chunkctl.toml").unlink()
    made = cli("config", "--tokenizer", "../models/tok.tiktoken", "--cache", "../.cc", cwd=proj / "sub")
    assert made.returncode == 0, made.stderr
    toml = made.stdout.decode()
    assert f'tokenizer = "{(proj / "models" / "tok.tiktoken").resolve()}"  # command line' in toml
    (proj / "chunkctl.toml").write_text(toml)
    from_root = cli("chunk", "sub/notes.md", cwd=proj)
    assert from_root.returncode == 0, from_root.stderr
    named = cli("config", "--tokenizer", "cl100k_base", "--no-config", cwd=proj / "sub")
    assert b'\ntokenizer = "cl100k_base"  # command line\n' in named.stdout


def test_config_writes_a_token_count_as_a_number_and_a_percentage_as_a_string(tmp_path):
    # (helper-99: `overlap = "0"`, a string in the file for a count of tokens)
    assert b'\noverlap = 0  # default\n' in cli("config", "--no-config", cwd=tmp_path).stdout
    assert b'\noverlap = "15%"  # command line\n' in cli("config", "--overlap", "15%", "--no-config", cwd=tmp_path).stdout


def test_command_line_only_options_are_refused_in_a_file_and_sizes_are_checked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chunkctl.toml").write_text("llm-dry-run = true\n")
    r = invoke("config")
    assert r.exit_code == 2 and "unknown key 'llm-dry-run'" in r.stderr
    (tmp_path / "chunkctl.toml").write_text('max-file-size = "10XB"\n')
    r = invoke("config")
    # a bad value in the file is named like any other value set there (helper-47: it had a form of its own)
    assert r.exit_code == 2 and "--max-file-size '10XB': not a size" in r.stderr
    assert r.stderr.rstrip().endswith(f"(--max-file-size set in {tmp_path / 'chunkctl.toml'})"), r.stderr
    r = invoke("chunk", tmp_path)
    assert r.exit_code == 2 and r.stderr.rstrip().endswith(f"(--max-file-size set in {tmp_path / 'chunkctl.toml'})")
    (tmp_path / "chunkctl.toml").write_text('max-file-size = "1.5GiB"\nfollow-links = true\n')
    r = invoke("config", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["values"]["max_file_size"] == "1.5GiB"


# --- 9. completion, human sizes, gitignore-style patterns -------------------------------------------------------

def _complete(words: str) -> list[str]:
    exe = shutil.which("chunkctl", path=os.path.dirname(sys.executable))
    if exe is None:
        pytest.skip("the chunkctl console script is not installed beside this Python")
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = dict(os.environ, _CHUNKCTL_COMPLETE="complete_bash", COMP_WORDS=words, COMP_CWORD=str(cword))
    p = subprocess.run([exe], env=env, capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.decode().split()


def test_shell_completion_offers_option_values():
    from chunkctl.chunking import strategy_names
    from chunkctl.cli.options import complete_context, complete_flavour, complete_strategy, complete_tokenizer

    assert _complete("chunkctl chunk --strategy ") == strategy_names()
    assert _complete("chunkctl chunk --strategy se") == ["sentence", "section", "semantic"]
    assert _complete("chunkctl chunk --flavour l") == ["langchain", "llamaindex"]
    assert _complete("chunkctl chunk --format ") == ["chunkctl", "langchain", "llamaindex"]
    assert _complete("chunkctl config --context t") == ["title+headings"]
    assert _complete("chunkctl inspect --tokenizer o2") == ["o200k_base"]
    # the completers themselves, as the other shells call them
    assert [v for v, _ in complete_strategy("hier")] == ["hierarchical"]
    assert [v for v, _ in complete_flavour("")] == ["chunkctl", "langchain", "llamaindex"]
    assert [v for v, _ in complete_context("")] == ["none", "headings", "title+headings"]
    names = [v for v, _ in complete_tokenizer("")]
    assert names[:4] == ["cl100k_base", "o200k_base", "p50k_base", "r50k_base"] and "gpt-4o" in names
    assert complete_tokenizer("./my") == []  # a path: the shell completes file names


def test_sizes_take_units():
    from chunkctl.configfile import parse_size

    assert parse_size(None) is None and parse_size(512) == 512 and parse_size("512") == 512
    assert parse_size("10MB") == 10_000_000 and parse_size("10mb") == 10_000_000 and parse_size("1k") == 1000
    assert parse_size("1.5GiB") == 3 * 2**29 and parse_size(" 2 KiB ") == 2048 and parse_size("0.5B") == 0
    for bad in ("10XB", "-1", "1e6", "", "MB", "1.2.3", True):
        with pytest.raises(ConfigError, match=r"--max-file-size .*(not a size|must not be negative)"):
            parse_size(bad)


def test_levels_with_an_empty_budget_are_refused():
    # helper-44: `--levels ,` was read as no --levels at all (the run went on with one level)
    from chunkctl.config import parse_levels

    assert parse_levels("2048, 512,128") == (2048, 512, 128) and parse_levels(None) is None
    for bad in (",", "", "2048,,128", "2048,", "a,b"):
        with pytest.raises(ConfigError, match=r"--levels .*give budgets in tokens"):
            parse_levels(bad)
    p = subprocess.run([*CLI, "chunk", str(ROOT / "examples"), "--strategy", "hierarchical", "--levels", ",",
                        "-o", "/dev/null"], capture_output=True)
    assert p.returncode == 2 and p.stderr.decode().count("\n") == 1


def test_a_bad_value_from_the_configuration_file_names_the_file(tmp_path):
    # helper-46: `levels = [100, 500]` in chunkctl.toml was reported as a bad --levels, with no word of the file
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nSome text here.\n")
    for body, flag in (("levels = [100, 500]\n", "--levels"), ('levels = "a,b"\n', "--levels"),
                       ("chunk_size = -5\n", "--chunk-size"), ("overlap = 900\n", "--overlap"),
                       ("jobs = -3\n", "--jobs"), ('tokenizer = "nope_base"\n', "--tokenizer"),
                       ('cache = "a.md"\n', "--cache")):
        conf = tmp_path / "chunkctl.toml"
        conf.write_text(body)
        p = cli("chunk", doc, "--config", conf, "-o", tmp_path / "out.jsonl", cwd=tmp_path)
        err = p.stderr.decode()
        assert p.returncode == 2 and err.count("\n") == 1, err
        assert err.startswith(f"chunkctl: error: {flag}") and err.rstrip().endswith(f"({flag} set in {conf})"), err
    p = cli("chunk", doc, "--no-config", "--overlap", "900", "-o", tmp_path / "out.jsonl", cwd=tmp_path)
    assert p.returncode == 2 and " set in " not in p.stderr.decode()  # typed on the command line: no file to name
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "o.toml").write_text("chunk_size = -5\n")  # helper-47: a relative --config was named as typed
    p = cli("chunk", doc, "--config", "sub/../sub/o.toml", "-o", tmp_path / "out.jsonl", cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.decode().endswith(f"(--chunk-size set in {tmp_path / 'sub' / 'o.toml'})\n")


def test_a_nul_character_in_a_configuration_file_value_is_a_usage_error(tmp_path):
    # helper-47: TOML's "\u0000" reached os.path and codecs: a ValueError traceback, exit 1
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nSome text here.\n")
    conf = tmp_path / "chunkctl.toml"
    for line, key in (('encoding = "utf-8\\u0000"', "encoding"), ('cache = "x\\u0000y"', "cache"),
                      ('source-root = "x\\u0000y"', "source-root"), ('exclude = ["a\\u0000"]', "exclude")):
        conf.write_text(line + "\n")
        for cmd in (("chunk", doc, "-o", tmp_path / "out.jsonl"), ("config",)):
            p = cli(*cmd, "--config", conf, cwd=tmp_path)
            assert p.returncode == 2, p.stderr
            assert p.stderr.decode() == f"chunkctl: error: {conf}: {key} holds a NUL character (\\u0000)\n"


def test_levels_warns_about_the_budgets_it_replaces(tmp_path):
    # helper-46: --levels silently replaced --chunk-size and --parent-chunk-size
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nSome text here.\n")
    base = ("chunk", doc, "--strategy", "hierarchical", "--levels", "512,128", "-o", tmp_path / "out.jsonl")
    p = cli(*base, "--no-config", "-n", "300", cwd=tmp_path)
    assert p.returncode == 0
    assert ("chunkctl: warning: --levels replaces --chunk-size 300 (command line): its budgets are used, the smallest "
            "as the chunk size") in p.stderr.decode()
    assert all(r["n_tokens"] <= 128 for r in parse_jsonl((tmp_path / "out.jsonl").read_bytes()))
    conf = tmp_path / "chunkctl.toml"
    conf.write_text("parent_chunk_size = 900\n")
    p = cli(*base, "--config", conf, cwd=tmp_path)
    assert p.returncode == 0 and f"--levels replaces --parent-chunk-size 900 ({conf})" in p.stderr.decode()
    p = cli(*base, "--no-config", cwd=tmp_path)
    assert p.returncode == 0 and "warning" not in p.stderr.decode()


def test_levels_and_the_options_it_replaces_are_named_right(tmp_path):
    # helper-47: with --levels the chunk size is its smallest budget, yet errors blamed --chunk-size's origin;
    # a --parent-chunk-size that --levels ignores still failed the run; other strategies were cut at the
    # smallest budget without a word; `config` showed a chunk size not in force; a warning came before an error
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nSome text here.\n")
    out = ("-o", tmp_path / "out.jsonl")
    conf = tmp_path / "chunkctl.toml"
    conf.write_text("chunk_size = 1000\n")
    p = cli("chunk", doc, "--config", conf, "--overlap", "200", "--levels", "2048,512,128", *out, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.decode() == (
        "chunkctl: error: --overlap (200 tokens) must be smaller than --chunk-size (128 tokens) (--chunk-size is the "
        "smallest --levels budget)\n")
    conf.write_text("levels = [2048, 512, 128]\n")
    p = cli("chunk", doc, "--config", conf, "--overlap", "200", *out, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.decode().endswith(
        f"(--chunk-size is the smallest --levels budget, --levels set in {conf})\n")
    p = cli("chunk", doc, "--config", conf, *out, cwd=tmp_path)  # recursive: only the chunk size
    assert p.returncode == 0 and (f"chunkctl: warning: --levels ({conf}) is for --strategy hierarchical; with "
                                  "recursive it only sets the chunk size, to its smallest budget (128 tokens)"
                                  ) in p.stderr.decode()
    p = cli("config", "--config", conf, cwd=tmp_path)
    assert p.returncode == 0 and f"chunk-size = 128  # --levels ({conf})" in p.stdout.decode()
    p = cli("chunk", doc, "--no-config", "-s", "hierarchical", "--levels", "2048,512", "--parent-chunk-size", "100",
            *out, cwd=tmp_path)
    assert p.returncode == 0 and "--levels replaces --parent-chunk-size 100 (command line)" in p.stderr.decode()
    p = cli("chunk", doc, "--no-config", "--levels", "2048,512", "-n", "256", "--jobs", "-1", *out, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.decode().count("\n") == 1  # the usage error alone
    p = cli("inspect", doc, "--no-config", "-s", "hierarchical", "--levels", "2048,512", "-n", "256", cwd=tmp_path)
    assert p.returncode == 0 and "--levels replaces --chunk-size 256 (command line)" in p.stderr.decode()
    conf.write_text('chunk_size = 100\nstrategy = "--chunk-size"\n')  # a value that looks like an option
    p = cli("chunk", doc, "--config", conf, *out, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.decode().endswith(f"(--strategy set in {conf})\n"), p.stderr


def test_a_run_stopped_before_any_record_does_not_claim_records_went_to_standard_output(tmp_path):
    # helper-47: "the records written so far went to standard output" with 0 bytes on standard output
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\nSome text here.\n")
    p = cli("chunk", doc, "--no-config", "--llm-concurrency", "-1", cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == b""
    assert p.stderr.decode() == "chunkctl: error: --llm-concurrency must be at least 1; nothing was written to standard output\n"
    (tmp_path / "chunkctl.toml").write_text("llm_concurrency = -1\n")  # found late, named like the others
    p = cli("chunk", doc, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.decode() == (
        f"chunkctl: error: --llm-concurrency must be at least 1 (--llm-concurrency set in {tmp_path / 'chunkctl.toml'}); "
        "nothing was written to standard output\n")
    (tmp_path / "chunkctl.toml").write_text("summary_min_tokens = -1\n")  # helper-47: named without "--", so no file
    p = cli("chunk", doc, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.decode().startswith(
        f"chunkctl: error: --summary-min-tokens must not be negative (--summary-min-tokens set in {tmp_path / 'chunkctl.toml'})")


def test_max_file_size_on_the_command_line(tmp_path):
    (tmp_path / "small.md").write_text("# S\n\nSmall.\n")
    (tmp_path / "big.md").write_text("# B\n\n" + "word " * 300)
    r = invoke("chunk", tmp_path, "--max-file-size", "1KiB", "--no-config")
    assert r.exit_code == 0 and {x["source"] for x in parse_jsonl(r.stdout)} == {"small.md"}
    assert "big.md: skipped, 1505 bytes is over --max-file-size 1024" in r.stderr
    r = invoke("chunk", tmp_path, "--max-file-size", "ten", "--no-config")
    assert r.exit_code == 2 and r.stderr.strip().splitlines() == [
        "chunkctl: error: --max-file-size 'ten': not a size; give bytes (1000000) or a number with a unit "
        "(10MB, 1.5GiB; units B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)"]


def test_patterns_follow_gitignore_rules(tmp_path):
    docs = _tree(tmp_path)

    def taken(include=(), exclude=()):
        return [i.source for i in discover([str(docs)], include, exclude).inputs if i.format]

    assert taken(["*.md"]) == ["drafts/wip.md", "guide/install.md", "index.md"]  # no slash: any depth
    assert taken(["guide/*.md"]) == ["guide/install.md"]
    assert taken(["guide/*"]) == ["guide/deep/notes.txt", "guide/install.md", "guide/page.html"]  # folder taken
    assert taken(["*/*.txt"]) == []  # * does not cross /
    assert taken(["guide/**/*.txt"]) == ["guide/deep/notes.txt"]  # ** does
    assert taken(["**/*.txt"]) == ["guide/deep/notes.txt"]
    assert taken(exclude=["drafts/", "*.html"]) == ["guide/deep/notes.txt", "guide/install.md", "index.md"]
    assert taken(exclude=["deep"]) == ["drafts/wip.md", "guide/install.md", "guide/page.html", "index.md"]
    assert taken(exclude=["*.md", "!index.md"]) == ["guide/deep/notes.txt", "guide/page.html", "index.md"]
    assert taken(["/index.md"]) == ["index.md"]


def test_a_pattern_that_matches_nothing_is_named(tmp_path):
    from chunkctl.pipeline.inputs import Selection

    docs = _tree(tmp_path)
    found = gather([str(docs)], include=["*.md", "*.mdx"], exclude=["drafts/", "tmp/"])
    assert found.unmatched == ["--include '*.mdx'", "--exclude 'tmp/'"]
    r = invoke("chunk", docs, "--include", "*.md", "--include", "*.markdown", "--no-config")
    assert r.exit_code == 0
    assert "chunkctl: warning: --include '*.markdown' matched no file" in r.stderr
    assert "'*.md'" not in r.stderr
    with pytest.raises(ConfigError, match=r"--exclude '!': not a valid pattern"):
        Selection(exclude=["!"])


@pytest.mark.parametrize("args, message", [
    (("--include", "[z-a]"), "--include '[z-a]': not a valid pattern (bad character range z-a"),
    (("--exclude", "docs/[9-0]*"), "--exclude 'docs/[9-0]*': not a valid pattern"),
    (("--errors", ""), "--errors needs a file name: it is empty"),
    (("--output-dir", ""), "--output-dir needs a folder name: it is empty"),
    (("--summary-json", ""), "--summary-json needs a file name: it is empty"),
    (("--errors", "failed.parquet"), "--errors failed.parquet: the errors file is JSON Lines"),
    (("--summaries", "--summary-min-tokens", "99999999999999999999", "--llm-base-url", "http://127.0.0.1:9/v1",
      "--llm-model", "x"), "--summary-min-tokens 99999999999999999999 is too large: at most 2,147,483,647"),
    (("--contextualize", "--llm-concurrency", "99999999999999999999", "--llm-base-url", "http://127.0.0.1:9/v1",
      "--llm-model", "x"), "--llm-concurrency 99999999999999999999 is too large"),
])
def test_bad_patterns_empty_paths_and_huge_counts_are_usage_errors_before_any_work(tmp_path, args, message):
    # helper-117: a backward bracket range printed a traceback (exit 1); `--errors ''` ran the whole
    # job then failed it; `--summary-json ''` and `--output-dir ''` were taken for "not given"; a
    # summary threshold past 64 bits failed every file as an internal error
    docs = _tree(tmp_path)
    p = cli("chunk", docs, *args, "--no-config", "-o", tmp_path / "o.jsonl", cwd=tmp_path) if "--output-dir" not in args \
        else cli("chunk", docs, *args, "--no-config", cwd=tmp_path)
    lines = p.stderr.decode().strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and message in lines[0], lines
    assert not (tmp_path / "o.jsonl").exists() and p.stdout == b""


def test_every_output_file_gets_the_umask_mode_like_a_new_file(tmp_path):
    # --summary-json was written 0600 (a temporary file renamed), so a CI step running as another
    # user could not read it, while -o gave 0644 (a helper's find); every file the user asked for alike
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n")
    (tmp_path / "docs" / "bad.md").write_bytes(b"\x00\x01\x02binary\x00" * 20)
    out, summary, errors, od = (tmp_path / n for n in ("o.jsonl", "s.json", "e.jsonl", "od"))
    script = (f"umask 027; exec \"$@\" chunk {tmp_path / 'docs'} -q -o {out} --summary-json {summary} "
              f"--errors {errors}; ")
    subprocess.run(["sh", "-c", script, "sh", *CLI], cwd=ROOT, timeout=120)
    subprocess.run(["sh", "-c", f'umask 027; exec "$@" chunk {tmp_path / "docs"} -q --output-dir {od}', "sh", *CLI],
                   cwd=ROOT, timeout=120)
    for path in (out, summary, errors, od / "a.md.jsonl"):
        assert path.stat().st_mode & 0o777 == 0o640, path


def _pdf_with_a_page_that_cannot_load() -> bytes:
    """Three pages of text, and a page-tree entry between the first two that points at no object:
    pdfium counts four pages and cannot load the second (as pages past the end of a cut file)."""
    from tests.conftest import pdf_file

    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for i in range(3):
        stream = f"BT /F1 10 Tf 72 700 Td (Page {i} text, a sentence of its own.) Tj ET".encode()
        objs.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                    b"/Contents %d 0 R >>" % len(objs))
        kids.append(len(objs))
    kids.insert(1, 99)
    objs[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    return pdf_file(objs)


def test_a_pdf_with_pages_that_cannot_be_read_is_written_without_them_and_fails_the_run(tmp_path):
    # helper-117: the first half of a real PDF was chunked (2 chunks of 34), a warning a page,
    # "status": "ok", exit 0, an empty --errors file: a CI job could not tell
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nA good file.\n")
    (docs / "cut.pdf").write_bytes(_pdf_with_a_page_that_cannot_load())
    for _run in range(2):  # (the second from the cache: such a document is never cached)
        out, errors, summary = tmp_path / "o.jsonl", tmp_path / "e.jsonl", tmp_path / "s.json"
        p = cli("chunk", docs, "-o", out, "--errors", errors, "--summary-json", summary, "--cache", tmp_path / "c",
                "--no-config", cwd=tmp_path)
        lines = p.stderr.decode().strip().splitlines()
        assert p.returncode == 1, lines
        want = "cut.pdf: page 2 cannot be read (Failed to load page.); the records are written without it"
        assert lines[0] == f"chunkctl: error: {want}"
        assert lines[-1].endswith(", 1 written without parts that could not be read")
        records = parse_jsonl(out.read_bytes())
        assert {r["source"] for r in records} == {"good.md", "cut.pdf"}
        text = " ".join(r["text"] for r in records if r["source"] == "cut.pdf")
        assert all(f"Page {i} text" in text for i in range(3))
        assert [json.loads(x) for x in errors.read_text().splitlines()] == [
            {"source": "cut.pdf", "error_type": "Incomplete", "message": want.removeprefix("cut.pdf: ")}]
        s = json.loads(summary.read_text())
        assert (s["status"], s["incomplete"], s["failed"], s["files"]) == ("failed", 1, 0, 2)
    with pytest.warns(RuntimeWarning, match=r"cut\.pdf: page 2 cannot be read"):  # (the Python API says it too)
        assert len(chunkctl.chunk_file(docs / "cut.pdf")) == 1
    with pytest.warns(RuntimeWarning, match=r"cut\.pdf: page 2 cannot be read"):
        assert len(list(chunkctl.chunk_paths([docs / "cut.pdf"]))) == 1


def test_a_document_that_fails_in_an_output_dir_run_names_the_file_it_keeps(tmp_path):
    # helper-117: a rerun at another --chunk-size in which a file failed left that file's output of
    # the earlier run (its old content, the old size) without a word
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text of the first file.\n")
    (docs / "b.txt").write_text("Text of the second file.\n")
    out = tmp_path / "out"
    assert cli("chunk", docs, "--output-dir", out, "--no-config", "-q", cwd=tmp_path).returncode == 0
    old = (out / "b.txt.jsonl").read_bytes()
    (docs / "b.txt").write_bytes(b"\x00\x01binary")
    p = cli("chunk", docs, "--output-dir", out, "--chunk-size", "128", "--no-config", "-q", cwd=tmp_path)
    lines = p.stderr.decode().strip().splitlines()
    assert p.returncode == 1 and len(lines) == 1, lines
    assert lines[0].startswith("chunkctl: error: b.txt: binary file") and lines[0].endswith(
        f"; {out / 'b.txt.jsonl'}, written by an earlier run, is left as it was")
    assert (out / "b.txt.jsonl").read_bytes() == old
    (out / "b.txt.jsonl").unlink()  # no file of an earlier run: nothing more said
    p = cli("chunk", docs, "--output-dir", out, "--no-config", "-q", cwd=tmp_path)
    assert p.stderr.decode().strip().splitlines()[0].endswith("not a text document")


def test_view_refuses_to_write_its_page_where_the_next_run_would_read_it(tmp_path):
    # helper-117: `view docs -o docs/view.html` was written, and the next `chunk docs` chunked the page
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text.\n")
    p = cli("view", docs, "-o", docs / "view.html", "--no-config", cwd=tmp_path)
    lines = p.stderr.decode().strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and "is inside the input folder" in lines[0], lines
    assert not (docs / "view.html").exists()
    assert cli("view", docs, "-o", tmp_path / "view.html", "--no-config", "-q", cwd=tmp_path).returncode == 0


def test_a_summary_that_cannot_be_written_leaves_no_older_one_behind(tmp_path, monkeypatch):
    # helper-117: on a full disk the run failed, its summary could not be written, and the summary of
    # an earlier run ("status": "ok") stayed for the CI job to read
    from chunkctl import atomic

    docs = _tree(tmp_path)
    summary = tmp_path / "s.json"
    summary.write_text('{"status": "ok"}')

    def full(path, data, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "replace_atomically", full)
    r = invoke("chunk", docs / "index.md", "--summary-json", summary, "--no-config", "-q")
    assert r.exit_code == 1
    assert r.stderr.strip() == (f"chunkctl: error: --summary-json {summary}: cannot write it (No space left on "
                                "device); the summary of an earlier run there was removed")
    assert not summary.exists()


def test_an_output_dir_a_stopped_run_made_is_not_left_empty(tmp_path):
    # helper-117: a failed, full-disk or --fail-fast run left the new, empty output folder behind
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.bin.txt").write_bytes(b"\x00\x01binary")
    (docs / "b.md").write_text("# B\n\nText.\n")
    out = tmp_path / "new" / "out"
    p = cli("chunk", docs, "--output-dir", out, "--fail-fast", "--no-config", "-q", cwd=tmp_path)
    assert p.returncode == 1 and not out.exists()
    out.mkdir(parents=True)  # a folder that was there stays, empty or not
    p = cli("chunk", docs, "--output-dir", out, "--fail-fast", "--no-config", "-q", cwd=tmp_path)
    assert p.returncode == 1 and out.is_dir() and list(out.iterdir()) == []
