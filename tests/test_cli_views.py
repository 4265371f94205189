"""`inspect`, `stats`, the in-library validator, help texts, shell completion and the import direction."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import chunkctl
from chunkctl.cli import app
from chunkctl.contract.validate import check_records
from chunkctl.pipeline.inspection import split_prefix, views
from tests.conftest import CLI, ROOT, parse_jsonl

runner = CliRunner()
GUIDE = str(ROOT / "examples" / "backup-guide.md")
TABLE_MD = "# Prices\n\n## Fruit\n\n| Fruit | Price |\n| --- | --- |\n" + "".join(
    f"| fruit number {i} with a long name | {i}.00 EUR |\n" for i in range(40))


def invoke(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def test_inspect_shows_every_chunk_with_its_parts(tmp_path):
    recs = chunkctl.chunk_file(GUIDE, chunk_size=64, overlap=10)
    r = invoke("inspect", GUIDE, "--chunk-size", "64", "--overlap", "10")
    assert r.exit_code == 0, r.stderr
    titles = re.findall(r"#(\d+)  (\d+)/64 tok  \[(\d+):(\d+)\)", r.stdout)
    assert [tuple(map(int, t)) for t in titles] == [(x["chunk_index"], x["n_tokens"], x["start"], x["end"])
                                                     for x in recs]
    assert "Backup and Restore Guide > Scheduling" in r.stdout
    assert any(v.overlap for v in views(recs)) and "overlap" in r.stdout
    assert invoke("inspect", "no/such.md").exit_code == 1
    bad = invoke("inspect", GUIDE, "--preview", "-1")  # (helper-117: a negative preview was taken)
    assert bad.exit_code == 2 and "--preview" in bad.stderr and bad.stdout == ""


def test_inspect_and_view_say_a_document_warning_once_on_one_line(tmp_path):
    # helper-65: both printed Python's two-line warning ("chunkctl/cli/commands.py:125: DocumentWarning: ..."
    # and a line of chunkctl's code, naming no file), and view then said it again in its own words
    f = tmp_path / "latin1.txt"
    f.write_bytes("Caf\xe9 cr\xe8me, na\xefve fa\xe7ade: a short text written in Latin-1.\n".encode("latin-1"))
    for args in (["inspect", str(f)], ["view", str(f), "-o", str(tmp_path / "v.html")]):
        p = subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=ROOT)
        said = [line for line in p.stderr.splitlines() if "encoding not declared" in line]
        assert p.returncode == 0, p.stderr
        assert len(said) == 1 and said[0].startswith(f"chunkctl: warning: {f}: encoding not declared; decoded as "), said
        assert all(line.startswith("chunkctl: ") for line in p.stderr.splitlines()), p.stderr


def test_inspect_shows_cr_line_breaks_as_line_breaks(tmp_path):
    # helper-65: a classic Mac file's lines ran together in the panel ("# Aline oneline two"); records were right
    f = tmp_path / "cr.md"
    f.write_bytes(b"# A\r\rline one\rline two\r\r## B\r\rmore text here\r")
    r = invoke("inspect", f, "-n", "16")
    assert r.exit_code == 0, r.stderr
    lines = [line.strip("│ ") for line in r.stdout.splitlines()]
    assert "line one" in lines and "line two" in lines and "# A" in lines


@pytest.mark.parametrize("control", [chr(c) for c in (*range(1, 0x20), 0x7f, *range(0x80, 0xa0)) if c not in (9, 10, 13)])
def test_inspect_and_stats_never_send_a_documents_control_characters_to_the_terminal(tmp_path, control):
    # A document's escape sequence (ESC [31m, an OSC title, 8-bit CSI U+009B) reached the terminal raw in
    # inspect's panels, and a heading or source name with one in stats' tables; a page break (form feed)
    # vanished, so "with\fchilled" showed as "withchilled" (helper-100). (NUL makes a binary file.)
    f = tmp_path / f"doc{control}name.md"
    f.write_text(f"# Head{control}ing\n\nBefore {control}[31mafter, a sentence that goes on.\n", encoding="utf-8")
    shown = {"\f": "\u240c\n", **{chr(c): f"\\u{c:04x}" for c in range(0x80, 0xa0)}}.get(control, f"\\x{ord(control):02x}")
    r = invoke("inspect", f)
    assert r.exit_code == 0, r.stderr
    assert control not in r.stdout
    assert f"Before {shown}[31mafter" in r.stdout or control == "\f" and "Before ␌" in r.stdout
    out = tmp_path / "c.jsonl"
    assert invoke("chunk", f, "-o", out, "-q").exit_code == 0
    r = invoke("stats", out)
    assert r.exit_code == 0 and control not in r.stdout, r.stdout


def test_inspect_shows_a_page_break_inside_a_sentence(tmp_path):
    f = tmp_path / "ff.txt"
    f.write_text("The hold has two compartments, the forward one with\fchilled pallets and the aft one dry.\n")
    r = invoke("inspect", f)
    assert r.exit_code == 0, r.stderr
    lines = [line.strip("│ ") for line in r.stdout.splitlines()]
    assert "The hold has two compartments, the forward one with␌" in lines
    assert "chilled pallets and the aft one dry." in lines


def test_inspect_labels_breadcrumb_repeated_header_and_overlap():
    recs = chunkctl.chunk_text(TABLE_MD, format="md", chunk_size=64, overlap=0)
    table = [v for v in views(recs) if v.record["kind"] == "table" and v.record["prefix"]]
    assert table, "the table was not split"
    roles = dict(table[0].parts)
    assert roles["breadcrumb"] == "Prices > Fruit\n\n"
    assert roles["header"] == "| Fruit | Price |\n| --- | --- |\n"
    for v in views(recs):
        assert "".join(t for _, t in v.parts) == v.record["text"]
    assert split_prefix("A > B\n\n", "text") == [("breadcrumb", "A > B\n\n")]
    prose = chunkctl.chunk_text("One sentence here. " * 200, chunk_size=64, overlap=16)
    shared = views(prose)[1]
    assert shared.overlap == prose[0]["end"] - prose[1]["start"] > 0
    assert shared.parts[0] == ("overlap", prose[1]["text"][:shared.overlap])


def test_stats_of_a_good_file(tmp_path):
    out = tmp_path / "o.jsonl"
    assert invoke("chunk", ROOT / "examples", "-n", "128", "-o", out, "--quiet").exit_code == 0
    recs = parse_jsonl(out.read_bytes())
    r = invoke("stats", out, "--json")
    assert r.exit_code == 0, r.stdout
    st = json.loads(r.stdout)
    assert st["records"] == len(recs) and st["documents"] == 4
    assert st["tokens"] == sum(x["n_tokens"] for x in recs)
    assert st["by_format"] == {fmt: sum(x["format"] == fmt for x in recs) for fmt in ("html", "md", "pdf", "txt")}
    assert st["documents_by_format"] == {"html": 1, "md": 1, "pdf": 1, "txt": 1}
    assert sum(b["chunks"] for b in st["histogram"]) == len(recs) and st["histogram"][-1]["high"] == 128
    assert st["chunks_per_document"] == {x["source"]: x["n_chunks"] for x in recs} and len(recs) > 4
    assert st["violations"] == []
    table = invoke("stats", out)
    assert table.exit_code == 0 and "no violations" in table.stdout and "token sizes" in table.stdout
    piped = invoke("stats", "-", "--json", input=out.read_bytes())
    assert json.loads(piped.stdout)["records"] == len(recs)


WRONG_VALUES = [None, [], ["x"], {}, {"a": 1}, "str", 1.5, -3, 10**15, True]


@pytest.mark.parametrize("field", ["id", "source", "parent_id", "text", "start", "n_tokens", "headings", "meta",
                                   "meta.chunk_size", "meta.sha256"])
def test_records_of_wrong_types_are_violations_never_a_traceback(tmp_path, field):
    # a helper's fuzz: id or parent_id as a list (unhashable), source as a float, meta as a string and
    # meta.chunk_size as a string crashed `stats` or `view --records`; n_tokens 10**15 drew a chart that wide
    good = chunkctl.chunk_text("A first sentence. A second one.", format="txt", source="a.txt")[0]
    lines = []
    for value in WRONG_VALUES:
        rec = copy.deepcopy(good)
        if field.startswith("meta."):
            rec["meta"][field[5:]] = value
        else:
            rec[field] = value
        rec["id"] = rec["id"] if field == "id" else f"{rec['id']}-{len(lines)}"
        lines.append(json.dumps(rec))
    out = tmp_path / "bad.jsonl"
    out.write_text("\n".join(lines) + "\n")
    r = invoke("stats", out)
    assert r.exit_code == 1 and (r.exception is None or isinstance(r.exception, SystemExit)), r.output[-2000:]
    assert "contract violations" in r.stdout
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("A first sentence. A second one.")
    v = invoke("view", docs, "--records", out, "-o", tmp_path / "v.html")
    assert v.exit_code in (0, 1) and (v.exception is None or isinstance(v.exception, SystemExit)), v.output[-2000:]
    assert "Traceback" not in v.output and (tmp_path / "v.html").exists()  # (a source of no input fails: exit 1)


def test_stats_of_a_file_that_is_not_jsonl_is_one_line(tmp_path):
    f = tmp_path / "notes.md"
    f.write_text("# Notes\n\nNot records.\n")
    r = invoke("stats", f)
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [f"chunkctl: error: {f}: not chunkctl JSONL records (line 1: not valid "
                                             "JSON (unexpected character, expected a JSON value: line 1 column 1 "
                                             "(char 0)); 2 such lines)"]  # the blank line is not counted


def test_stats_reports_records_that_break_the_contract(tmp_path):
    recs = chunkctl.chunk_file(GUIDE, chunk_size=64, overlap=8)
    bad = copy.deepcopy(recs)
    bad[0]["n_tokens"] = 999                      # over the budget
    bad[1]["id"] = bad[0]["id"]                   # duplicate id
    del bad[2]["headings"]                        # missing field
    bad[3]["text"] = bad[3]["text"] + "extra"     # body no longer matches its span
    bad[5]["chunk_index"] = 9                     # order
    lines = [json.dumps(r) for r in bad] + ["{not json"]
    f = tmp_path / "bad.jsonl"
    f.write_text("\n".join(lines) + "\n")
    r = invoke("stats", f, "--json")
    assert r.exit_code == 1
    found = json.loads(r.stdout)["violations"]
    where = f"({GUIDE}): "
    for needle in (f"line 1 {where}G5: 999 tokens is over meta.chunk_size 64",
                   f"line 2 {where}ids: id {recs[0]['id']} is not unique",
                   f"line 3 {where}G1: missing field 'headings'",
                   f"line 4 {where}G3: the body has",
                   f"line 6 {where}index: chunk_index 9 where 5 was due",
                   f"line {len(recs) + 1}: G1: not valid JSON"):
        assert any(v.startswith(needle) for v in found), (needle, found)
    assert "contract violations" in invoke("stats", f).stdout
    assert check_records(recs) == []


def test_validator_checks_parents_and_order():
    tree = chunkctl.chunk_file(GUIDE, strategy="hierarchical", levels=(256, 64), overlap=0)
    assert check_records(tree) == []
    broken = copy.deepcopy(tree)
    child = next(r for r in broken if r["parent_id"])
    child["parent_id"] = "nope"
    found = check_records(broken)
    assert {v.rule for v in found} == {"G4"} and any("not a chunk of this document" in v.message for v in found)
    other = chunkctl.chunk_text("Another document.", source="other.txt")
    split = copy.deepcopy(tree) + other + [copy.deepcopy(tree[0])]
    split[-1]["id"] = "other"
    assert "not contiguous" in " ".join(str(v) for v in check_records(split))


def test_every_command_has_help_with_examples():
    for cmd in ("chunk", "extract", "schema", "config", "inspect", "stats", "view"):
        r = invoke(cmd, "--help")
        assert r.exit_code == 0 and "Example" in r.stdout, cmd
        assert f"chunkctl {cmd}" in r.stdout, cmd


def test_shell_completion_is_offered_and_completes():
    r = invoke("--help")
    assert "--install-completion" in r.stdout and "--show-completion" in r.stdout
    script = Path(sys.executable).parent / "chunkctl"  # completion keys on the program name
    if not script.exists():
        pytest.skip("the chunkctl console script is not installed beside this Python")
    env = dict(os.environ, _CHUNKCTL_COMPLETE="complete_bash", COMP_WORDS="chunkctl chunk --chunk-s", COMP_CWORD="2")
    p = subprocess.run([str(script)], env=env, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.stdout.split() == ["--chunk-size"]


def test_only_the_cli_imports_its_renderings():
    pkg = ROOT / "chunkctl"
    users = {p.relative_to(pkg).parent.name for p in pkg.rglob("*.py")
             if "cli.render" in p.read_text() and p.name != "render.py"}
    assert users == {"cli"}


@pytest.mark.parametrize("args", [["--help"], ["chunk", "--help"]])
def test_help_runs_as_a_module(args):
    p = subprocess.run([*CLI, *args], capture_output=True, cwd=ROOT, timeout=60)
    assert p.returncode == 0 and b"Usage" in p.stdout
