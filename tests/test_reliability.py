"""Issue 14: every readable file's chunks land, whatever else the run meets (names, links, signals, outputs, cache)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chunkctl.pipeline.inputs import discover, source_name
from tests.conftest import CLI, CORPUS, ROOT, parse_jsonl

SHARED_PDF = CORPUS / "pdf"


def _cli(*args: str | Path, cwd: Path | None = None, input: bytes | None = None, timeout: float = 120
         ) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *map(os.fsdecode, args)], input=input, capture_output=True, timeout=timeout,
                          cwd=cwd or ROOT)


# --- 1. file names that are not UTF-8 -------------------------------------------------------------------------

def test_source_name_escapes_undecodable_bytes_only():
    assert source_name("plain/é.md") == "plain/é.md"
    assert source_name(os.fsdecode(b"caf\xe9 \xff.txt")) == "caf\\xe9 \\xff.txt"
    assert source_name(os.fsdecode(b"caf\xe9.txt")) == source_name(os.fsdecode(b"caf\xe9.txt"))  # stable


def _odd_names(tmp_path: Path) -> Path:
    d = tmp_path / "t"
    d.mkdir()
    (d / "good.txt").write_bytes(b"Hello world. This is a test.\n")
    with open(os.path.join(os.fsencode(d), b"bad\xff\xfename.txt"), "wb") as fh:
        fh.write(b"Bad name but good text.\n")
    with open(os.path.join(os.fsencode(d), b"latin\xe9.md"), "wb") as fh:
        fh.write(b"\x00\x01\x02\x00binary\x00" * 50)  # fails: a binary file with a text extension
    (d / "new\nline.md").write_bytes(b"# T\n\nNewline name.\n")
    return d


def test_names_that_are_not_utf8_are_chunked_and_named_by_one_rule(tmp_path):
    d = _odd_names(tmp_path)
    out, errs = tmp_path / "o.jsonl", tmp_path / "e.jsonl"
    p = _cli("chunk", d, "--errors", errs, "-o", out)
    assert p.returncode == 1, p.stderr  # the binary file failed; everything else landed
    recs = parse_jsonl(out.read_bytes())
    assert [r["source"] for r in recs] == ["bad\\xff\\xfename.txt", "good.txt", "new\nline.md"]
    assert recs[0]["text"] == "Bad name but good text."
    errors = parse_jsonl(errs.read_bytes())
    assert [(e["source"], e["error_type"]) for e in errors] == [("latin\\xe9.md", "LoaderError")]
    lines = p.stderr.decode().splitlines()
    assert any(line.startswith("chunkctl: error: latin\\xe9.md: ") for line in lines)
    assert "Traceback" not in p.stderr.decode()
    # the same bytes give the same ids in a second run, and an --output-dir file of the same name
    again = tmp_path / "o2.jsonl"
    assert _cli("chunk", d, "-o", again).returncode == 1
    assert again.read_bytes() == out.read_bytes()
    od = tmp_path / "od"
    assert _cli("chunk", d, "--output-dir", od).returncode == 1
    assert sorted(p.name for p in od.iterdir()) == ["bad\\xff\\xfename.txt.jsonl", "good.txt.jsonl",
                                                    "new\nline.md.jsonl"]


def test_patterns_given_with_bytes_that_are_not_utf8_match_those_names(tmp_path):
    """helper-114: `--exclude $'d\\xff/'` still chunked d\\xff/a.txt (and warned the pattern matched
    nothing), and `--include $'caf\\xe9.md'` selected nothing: the pattern's bytes were matched
    against the sources' `\\xNN` form. The escaped form keeps working."""
    t = tmp_path / "t"
    (t / os.fsdecode(b"d\xff")).mkdir(parents=True)
    (t / os.fsdecode(b"d\xff") / "a.txt").write_text("In the odd folder.\n")
    (t / "b.txt").write_text("Good.\n")
    (t / os.fsdecode(b"caf\xe9.md")).write_text("# Menu\n")
    for args, sources in [(["--exclude", os.fsdecode(b"d\xff/")], ["b.txt", "caf\\xe9.md"]),
                          (["--include", os.fsdecode(b"caf\xe9.md")], ["caf\\xe9.md"]),
                          (["--include", "caf\\\\xe9.md"], ["caf\\xe9.md"])]:
        p = _cli("chunk", t, "-q", *args)
        assert p.returncode == 0 and p.stderr == b"", (args, p.stderr)
        assert sorted({r["source"] for r in parse_jsonl(p.stdout)}) == sources, args


@pytest.mark.parametrize("flag", ["-o", "--errors", "--summary-json", "--output-dir"])
def test_paths_in_messages_write_bytes_that_are_not_utf8_by_the_rule(tmp_path, flag):
    """helper-114: an output path's undecodable byte showed as `\\udcff` in the error line; every
    message writes it as `\\xff`, as sources are written."""
    (tmp_path / "a.txt").write_text("Some text.\n")
    bad = os.fsdecode(b"a.txt/out\xff.jsonl")  # (under a file: cannot be written)
    p = _cli("chunk", "a.txt", flag, bad, cwd=tmp_path)
    err = p.stderr.decode("utf-8")
    assert p.returncode == 2 and "a.txt/out\\xff.jsonl" in err and "udc" not in err, err


def test_two_names_written_alike_fail_one_file_in_one_readable_line(tmp_path):
    # a helper's find: the Latin-1 name caf<E9>.md and the literal name caf\xe9.md are both written
    # `caf\xe9.md`; the line showed the internal `caf\udce9.md` and advised a common parent folder.
    # Then the whole run was refused (exit 2, nothing written): now the file whose name is not
    # UTF-8 fails, with one line and one error record, and every other file is written.
    d = tmp_path / "t"
    d.mkdir()
    (d / "caf\\xe9.md").write_text("# Literal\n\nThe literal name.\n")
    (d / "other.md").write_text("# Other\n\nAnother file.\n")
    with open(os.path.join(os.fsencode(d), b"caf\xe9.md"), "wb") as fh:
        fh.write(b"# Latin-1\n")
    out, errors = tmp_path / "o.jsonl", tmp_path / "e.jsonl"
    p = _cli("chunk", d, "-o", out, "--errors", errors)
    assert p.returncode == 1
    lines = [x for x in p.stderr.decode().splitlines() if x.startswith("chunkctl: error:")]
    assert len(lines) == 1 and "udc" not in lines[0]
    assert lines[0].startswith("chunkctl: error: caf\\xe9.md: its path ") and "is not UTF-8" in lines[0]
    assert "rename one" in lines[0]
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["source"], r["text"]) for r in records] == [("caf\\xe9.md", "# Literal\n\nThe literal name."),
                                                          ("other.md", "# Other\n\nAnother file.")]
    assert [(e["source"], e["error_type"]) for e in map(json.loads, errors.read_text().splitlines())] == [
        ("caf\\xe9.md", "NameClash")]
    # helper-46: the same with folders (`s<E9>/a.md` beside `s\xe9/a.md`) refused the run, and
    # the clashing file named twice (its folder and itself) failed twice
    d2 = tmp_path / "t2"
    (d2 / "s\\xe9").mkdir(parents=True)
    (d2 / "s\\xe9" / "a.md").write_text("# Literal folder\n")
    os.makedirs(os.path.join(os.fsencode(d2), b"s\xe9"))
    with open(os.path.join(os.fsencode(d2), b"s\xe9", b"a.md"), "wb") as fh:
        fh.write(b"# Latin-1 folder\n")
    with open(os.path.join(os.fsencode(d2), b"s\xe9", b"b.md"), "wb") as fh:
        fh.write(b"# Only in the Latin-1 folder\n")
    latin = os.path.join(os.fsdecode(d2), os.fsdecode(b"s\xe9/a.md"))
    p = _cli("chunk", d2, latin, "--source-root", d2, "-o", out, "--errors", errors)
    assert p.returncode == 1
    assert [(r["source"], r["text"]) for r in parse_jsonl(out.read_bytes())] == [
        ("s\\xe9/a.md", "# Literal folder"), ("s\\xe9/b.md", "# Only in the Latin-1 folder")]
    assert [(e["source"], e["error_type"]) for e in map(json.loads, errors.read_text().splitlines())] == [
        ("s\\xe9/a.md", "NameClash")]
    # helper-46: a twin that is a broken link failed, and the Latin-1 file was written under
    # the same source: one source both written and failed
    d3 = tmp_path / "t3"
    d3.mkdir()
    os.symlink("/nonexistent/x.md", d3 / "caf\\xe9.md")
    (d3 / "other.md").write_text("# Other\n")
    with open(os.path.join(os.fsencode(d3), b"caf\xe9.md"), "wb") as fh:
        fh.write(b"# Latin-1\n")
    p = _cli("chunk", d3, "-o", out, "--errors", errors)
    assert p.returncode == 1
    assert [r["source"] for r in parse_jsonl(out.read_bytes())] == ["other.md"]
    assert sorted((e["source"], e["error_type"]) for e in map(json.loads, errors.read_text().splitlines())) == [
        ("caf\\xe9.md", "BrokenLink"), ("caf\\xe9.md", "NameClash")]


def test_every_command_and_the_api_name_such_files_by_the_rule(tmp_path):
    import chunkctl

    d = _odd_names(tmp_path)
    bad = os.path.join(os.fsdecode(d), os.fsdecode(b"bad\xff\xfename.txt"))
    assert chunkctl.chunk_file(bad)[0]["source"].endswith("/t/bad\\xff\\xfename.txt")
    for cmd in ("inspect", "extract"):
        p = _cli(cmd, bad)
        assert p.returncode == 0 and b"Traceback" not in p.stderr, (cmd, p.stderr)
        assert b"Bad name but good text." in p.stdout


def test_discover_names_problems_by_the_same_rule(tmp_path):
    link = os.path.join(os.fsencode(tmp_path), b"gone\xff.md")
    os.symlink(b"/nonexistent/x.md", link)
    found = discover([str(tmp_path)])
    assert [(p.source, p.error_type) for p in found.problems] == [("gone\\xff.md", "BrokenLink")]


# --- 3. an empty selection keeps the old output -------------------------------------------------------------

def test_a_run_that_selects_nothing_keeps_the_old_output_and_fails(tmp_path):
    out = tmp_path / "chunks.jsonl"
    out.write_bytes(b"good old records\n")
    p = _cli("chunk", "examples", "--include", "nomatch/*.md", "-o", out)
    assert p.returncode == 1
    assert p.stderr.decode().strip().splitlines()[-1] == (
        f"chunkctl: error: no input files selected; {out} was left as it was "
        f"(--allow-empty writes an empty output and exits 0)")
    assert out.read_bytes() == b"good old records\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _cli("chunk", empty, "-o", out).returncode == 1 and out.read_bytes() == b"good old records\n"
    p = _cli("chunk", empty, "-o", out, "--allow-empty")
    assert p.returncode == 0 and out.read_bytes() == b""
    # no output there before: nothing to leave as it was (helper-60 read "x.jsonl was left as it was")
    new = tmp_path / "new.jsonl"
    p = _cli("chunk", empty, "-o", new)
    assert p.returncode == 1 and not new.exists()
    assert p.stderr.decode().strip().splitlines()[-1] == (
        "chunkctl: error: no input files selected; nothing was written "
        "(--allow-empty writes an empty output and exits 0)")


def test_a_run_that_selects_nothing_keeps_the_errors_file_of_the_old_output(tmp_path):
    """helper-114: the output was left as it was, but its --errors file was emptied, so the old
    output no longer matched its list of failed files (with -o and with --output-dir)."""
    src = tmp_path / "t"
    src.mkdir()
    (src / "a.txt").write_text("Good text.\n")
    (src / "b.txt").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    for target in (["-o", tmp_path / "o.jsonl"], ["--output-dir", tmp_path / "od"]):
        errs = tmp_path / f"errs{len(str(target[1]))}.jsonl"
        assert _cli("chunk", src, *target, "--errors", errs).returncode == 1
        old_errors, old_output = errs.read_bytes(), Path(target[1])
        assert b"b.txt" in old_errors and old_output.exists()
        p = _cli("chunk", src, *target, "--errors", errs, "--include", "*.rst")
        assert p.returncode == 1 and errs.read_bytes() == old_errors
        assert p.stderr.decode().strip().splitlines()[-1] == (
            f"chunkctl: error: no input files selected; {target[1]} and {errs} were left as they were "
            f"(--allow-empty writes an empty output and exits 0)")


def test_a_run_whose_every_file_fails_keeps_the_old_output(tmp_path):
    # a helper's find: with every file failing (binary files, or workers that cannot see the files), a good
    # earlier -o output was replaced by an empty file
    d = tmp_path / "d"
    d.mkdir()
    (d / "bad.txt").write_bytes(b"\0\1")
    out = tmp_path / "out.jsonl"
    out.write_text('{"old": 1}\n')
    p = _cli("chunk", d, "-o", out)
    assert p.returncode == 1
    assert out.read_text() == '{"old": 1}\n'
    assert b"every file failed; no output file was written or replaced" in p.stderr
    p = _cli("chunk", d, "-o", out, "--allow-empty")
    assert p.returncode == 1 and out.read_bytes() == b""


def test_a_run_whose_every_file_is_over_max_file_size_keeps_the_old_output(tmp_path):
    # the same class (a helper's find): every file skipped by --max-file-size emptied the output and exited 0
    out, od = tmp_path / "chunks.jsonl", tmp_path / "od"
    out.write_bytes(b"good old records\n")
    p = _cli("chunk", "examples", "--max-file-size", "10", "-o", out)
    n = len([f for f in os.listdir("examples") if f.endswith((".md", ".txt", ".html", ".pdf"))])
    lines = p.stderr.decode().strip().splitlines()
    assert p.returncode == 1 and out.read_bytes() == b"good old records\n"
    assert lines[-1] == (f"chunkctl: error: no file to chunk among {n} selected ({n} over --max-file-size 10); "
                         f"{out} was left as it was (--allow-empty writes an empty output and exits 0)")
    assert sum("bytes is over --max-file-size 10" in ln for ln in lines) == n
    assert _cli("chunk", "examples", "--max-file-size", "10", "--output-dir", od).returncode == 1
    assert not od.exists()
    p = _cli("chunk", "examples", "--max-file-size", "10", "-o", out, "--allow-empty")
    assert p.returncode == 0 and out.read_bytes() == b""


# --- 4. --output-dir lands whole; --prune ---------------------------------------------------------------------

def _tree(tmp_path: Path, n: int = 6) -> Path:
    d = tmp_path / "docs"
    (d / "sub").mkdir(parents=True)
    for i in range(n):
        (d / ("sub" if i % 2 else ".") / f"f{i}.md").write_text(f"# Doc {i}\n\nSentence number {i} here.\n")
    return d


def test_output_dir_is_all_old_when_a_run_stops_half_way(tmp_path):
    d = _tree(tmp_path)
    od = tmp_path / "od"
    assert _cli("chunk", d, "--output-dir", od, "--jobs", "1").returncode == 0
    before = {p: p.read_bytes() for p in od.rglob("*.jsonl")}
    assert len(before) == 6
    # a rerun with other options that fails half-way (--fail-fast on a broken file sorted in the middle)
    (d / "f3x.md").write_bytes(b"\x00\x01binary\x00" * 20)
    p = _cli("chunk", d, "--output-dir", od, "--chunk-size", "64", "--fail-fast", "--jobs", "1")
    assert p.returncode == 1
    assert f"(--fail-fast); no file in {od} was written or replaced" in p.stderr.decode()
    assert {p: p.read_bytes() for p in od.rglob("*.jsonl")} == before
    assert not [p for p in od.iterdir() if p.name.startswith(".")]  # no staging folder left


def test_output_dir_prune_removes_files_of_deleted_documents_only(tmp_path):
    d = _tree(tmp_path)
    od = tmp_path / "od"
    assert _cli("chunk", d, "--output-dir", od).returncode == 0
    (od / "notes.txt").write_text("mine")  # not a .jsonl: never touched
    (d / "sub" / "f1.md").unlink()
    assert _cli("chunk", d, "--output-dir", od).returncode == 0
    assert (od / "sub" / "f1.md.jsonl").exists()  # without --prune nothing is removed
    p = _cli("chunk", d, "--output-dir", od, "--prune")
    assert p.returncode == 0, p.stderr
    assert not (od / "sub" / "f1.md.jsonl").exists() and (od / "notes.txt").exists()
    assert sorted(str(p.relative_to(od)) for p in od.rglob("*.jsonl")) == [
        "f0.md.jsonl", "f2.md.jsonl", "f4.md.jsonl", "sub/f3.md.jsonl", "sub/f5.md.jsonl"]
    assert b"--prune: removed" in p.stderr
    assert _cli("chunk", d, "-o", tmp_path / "x.jsonl", "--prune").returncode == 2  # needs --output-dir


def test_output_dir_layouts_that_cannot_be_written_are_refused_before_any_work(tmp_path):
    # a helper's find: a file where a folder must go (d.md beside a folder d.md.jsonl/, or a plain file
    # `sub` in the output folder) replaced 2 of 3 files, then failed with "File exists", exit 1
    d = tmp_path / "tree"
    (d / "d.md.jsonl").mkdir(parents=True)
    (d / "d.md").write_text("# D\n\nText.\n")
    (d / "d.md.jsonl" / "e.md").write_text("# E\n\nText.\n")
    (d / "z.txt").write_text("plain\n")
    od = tmp_path / "od"
    p = _cli("chunk", d, "--output-dir", od)
    assert p.returncode == 2 and not od.exists()
    assert b"d.md.jsonl would be the file of d.md and a folder for d.md.jsonl/e.md" in p.stderr
    d2, od2 = tmp_path / "tree2", tmp_path / "od2"
    (d2 / "sub").mkdir(parents=True)
    (d2 / "sub" / "x.md").write_text("# X\n")
    (d2 / "a.md").write_text("# A\n")
    od2.mkdir()
    (od2 / "sub").write_text("a plain file\n")
    p = _cli("chunk", d2, "--output-dir", od2)
    assert p.returncode == 2 and b"is a file where the folder for sub/x.md must go" in p.stderr
    assert sorted(x.name for x in od2.iterdir()) == ["sub"]  # nothing written


def test_prune_keeps_files_of_documents_left_out_by_include(tmp_path):
    # a helper's find: `--include '*.md' --prune` removed b.txt.jsonl "(no such input any more)" while
    # tree/b.txt still existed (a file over --max-file-size kept its file)
    d = tmp_path / "tree"
    d.mkdir()
    (d / "a.md").write_text("# A\n\nText.\n")
    (d / "b.txt").write_text("plain text\n")
    od = tmp_path / "od"
    assert _cli("chunk", d, "--output-dir", od).returncode == 0
    p = _cli("chunk", d, "--output-dir", od, "--prune", "--include", "*.md")
    assert p.returncode == 0, p.stderr
    assert (od / "b.txt.jsonl").exists() and b"--prune: removed" not in p.stderr
    (d / "b.txt").unlink()
    p = _cli("chunk", d, "--output-dir", od, "--prune", "--include", "*.md")
    assert not (od / "b.txt.jsonl").exists()  # gone from the folder: its file goes


def test_prune_never_deletes_jsonl_files_chunkctl_did_not_write_there(tmp_path):
    # A QA find: --prune deleted every .jsonl it did not expect, the user's own included.
    d = _tree(tmp_path)
    od = tmp_path / "od"
    (od / "sub").mkdir(parents=True)
    (od / "important.jsonl").write_text('{"keep": "me"}\n')
    (od / "sub" / "other.jsonl").write_text("not json at all\n")
    (od / "empty.jsonl").write_text("")
    combined = tmp_path / "all.jsonl"  # records of this corpus, but not the file of their document
    assert _cli("chunk", d, "-o", combined).returncode == 0
    (od / "combined.jsonl").write_bytes(combined.read_bytes())
    for flavour in ("chunkctl", "langchain"):
        assert _cli("chunk", d, "--output-dir", od, "--flavour", flavour).returncode == 0
        assert (od / "sub" / "f1.md.jsonl").exists()
        (d / "sub" / "f1.md").unlink()
        p = _cli("chunk", d, "--output-dir", od, "--prune", "--flavour", flavour)
        assert p.returncode == 0, p.stderr
        assert not (od / "sub" / "f1.md.jsonl").exists(), flavour  # a record file of a deleted document goes
        for mine in ("important.jsonl", "sub/other.jsonl", "empty.jsonl", "combined.jsonl"):
            assert (od / mine).exists(), (flavour, mine)
        assert p.stderr.count(b"--prune: removed") == 1
        (d / "sub" / "f1.md").write_text("# One\n\nText of one.\n")


# --- 6. temporary files of killed runs ------------------------------------------------------------------------

def test_a_killed_runs_temporary_files_are_removed_by_the_next_run(tmp_path):
    dead = subprocess.run(["true"])  # noqa: S603, S607 -- a pid that is surely gone afterwards
    del dead
    out = tmp_path / "chunks.jsonl"
    proc = subprocess.Popen(["sleep", "0"])
    proc.wait()
    stale = tmp_path / f".chunks.jsonl.chunkctl-{proc.pid}-abc123.tmp"
    stale.write_text("half")
    other = tmp_path / f".other.jsonl.chunkctl-{proc.pid}-abc123.tmp"
    other.write_text("not ours to judge")
    live = tmp_path / f".chunks.jsonl.chunkctl-{os.getpid()}-abc123.tmp"  # a writer still alive
    live.write_text("in progress")
    od = tmp_path / "od"
    (od / f".chunkctl-staging-{proc.pid}").mkdir(parents=True)
    assert _cli("chunk", "examples", "-o", out).returncode == 0
    assert not stale.exists() and other.exists() and live.exists()
    assert _cli("chunk", "examples", "--output-dir", od).returncode == 0
    assert not [p for p in od.iterdir() if p.name.startswith(".")]


# --- 8. encrypted PDFs and the cache --------------------------------------------------------------------------

@pytest.mark.skipif(not (SHARED_PDF / "encrypted-password-test.pdf").exists(), reason="../shared is not there")
def test_protected_pdf_is_never_served_from_or_stored_in_the_cache(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "secret.pdf").write_bytes((SHARED_PDF / "encrypted-password-test.pdf").read_bytes())
    (d / "open.md").write_text("# Open\n\nAnyone may read this.\n")
    cache = tmp_path / "cache"
    good = _cli("chunk", d, "--password", "test", "--cache", cache, "-o", tmp_path / "a.jsonl")
    assert good.returncode == 0, good.stderr
    recs = parse_jsonl((tmp_path / "a.jsonl").read_bytes())
    secret = [r["text"] for r in recs if r["source"] == "secret.pdf"]
    assert secret
    stored = b"".join(p.read_bytes() for p in cache.rglob("*") if p.is_file())
    assert b"open.md" in stored or b"Anyone may read" in stored  # the open file is cached
    assert secret[0][:40].encode() not in stored  # the protected text is not
    wrong = _cli("chunk", d, "--password", "wrong", "--cache", cache, "-o", tmp_path / "b.jsonl")
    assert wrong.returncode == 1 and b"secret.pdf: encrypted PDF: the password is wrong" in wrong.stderr
    assert [r["source"] for r in parse_jsonl((tmp_path / "b.jsonl").read_bytes())] == ["open.md"]


# --- 9. symbolic links that leave the tree --------------------------------------------------------------------

def test_links_out_of_the_folder_are_skipped_unless_asked(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd.txt").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (outside / "folder").mkdir()
    (outside / "folder" / "deep.md").write_text("# Deep\n\nOutside text.\n")
    repo = tmp_path / "repo"
    (repo / "inner").mkdir(parents=True)
    (repo / "inner" / "real.md").write_text("# Real\n\nInside text.\n")
    (repo / "notes.txt").symlink_to(outside / "passwd.txt")
    (repo / "linked").symlink_to(outside / "folder", target_is_directory=True)
    (repo / "alias.md").symlink_to(repo / "inner" / "real.md")  # inside: followed
    (repo / "view").symlink_to(repo / "inner", target_is_directory=True)  # inside: followed
    p = _cli("chunk", repo)
    assert p.returncode == 0, p.stderr
    assert [r["source"] for r in parse_jsonl(p.stdout)] == ["alias.md", "inner/real.md", "view/real.md"]
    err = p.stderr.decode()
    assert "linked: skipped, a symbolic link that leads out of the folder" in err
    assert "notes.txt: skipped, a symbolic link that leads out of the folder" in err
    assert "2 skipped" in err
    p = _cli("chunk", repo, "--follow-links")
    assert [r["source"] for r in parse_jsonl(p.stdout)] == ["alias.md", "inner/real.md", "linked/deep.md",
                                                            "notes.txt", "view/real.md"]
    # `chunkctl view` reads the same selection and says the same (it did not name the links)
    (repo / "image.png").write_bytes(b"\x89PNG")
    page = tmp_path / "page.html"
    p = _cli("view", repo, repo / "image.png", "-o", page)
    assert p.returncode == 0, p.stderr
    err = p.stderr.decode()
    assert "linked: skipped, a symbolic link that leads out of the folder (--follow-links follows it)" in err
    assert "notes.txt: skipped, a symbolic link that leads out of the folder" in err
    assert "image.png: skipped, no loader for its extension (" in err
    assert "Inside text." in page.read_text() and "root:x:0" not in page.read_text()


# --- 12. outputs that cannot be written are found before any work ---------------------------------------------

def test_unwritable_outputs_are_refused_before_any_work(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for flag, path in [("--errors", blocker / "e.jsonl"), ("-o", blocker / "sub" / "o.jsonl"),
                       ("--output-dir", blocker)]:
        p = _cli("chunk", "examples", flag, path)
        assert p.returncode == 2, (flag, p.stderr)
        assert p.stderr.decode().count("\n") == 1 and str(path) in p.stderr.decode()
        assert b"summary" not in p.stderr and b" chunks, " not in p.stderr  # nothing was chunked


def test_outputs_that_are_pipes_are_written_in_place_never_replaced(tmp_path):
    # a helper's find: --summary-json /dev/full renamed a file over the device node (as root /dev/full became
    # a regular file, exit 0), and -o /dev/stdout or --errors /dev/stderr on a pipe were refused ("cannot
    # write in /proc/PID/fd"); a FIFO stands for them here
    import stat
    import threading

    for flag in ("-o", "--errors", "--summary-json"):
        fifo = tmp_path / f"pipe{flag}"
        os.mkfifo(fifo)
        got: list[bytes] = []
        reader = threading.Thread(target=lambda f=fifo, into=got: into.append(Path(f).read_bytes()))
        reader.start()
        others = [a for a in (("-o", tmp_path / "o.jsonl"), ("--errors", tmp_path / "e.jsonl")) if a[0] != flag]
        p = _cli("chunk", "examples", *[x for a in others for x in a], flag, fifo)
        reader.join(60)
        assert p.returncode == 0, (flag, p.stderr)
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode), flag  # still the pipe, not a file renamed over it
        if flag != "--errors":
            assert got and got[0].strip(), flag


def test_a_cache_that_cannot_be_written_is_said_once(tmp_path):
    from chunkctl.pipeline.cache import CacheEntry, RecordCache

    blocker = tmp_path / "file"
    blocker.write_text("x")
    said: list[str] = []
    cache = RecordCache(tmp_path / "c", warn=said.append)
    (tmp_path / "c" / "ab").write_text("a file where a folder must go")
    for _ in range(3):
        cache.put("ab" + "0" * 30, CacheEntry(b"{}\n", 1, 1))
    assert len(said) == 1 and said[0].startswith(f"--cache {tmp_path / 'c'}: cannot write to it")


# --- 11. what libraries print is named with its file ----------------------------------------------------------

def test_library_messages_become_warnings_naming_the_file(monkeypatch, capfd):
    import importlib
    import logging
    import warnings

    from chunkctl.config import ChunkConfig
    from chunkctl.pipeline.inputs import InputFile

    run_mod = importlib.import_module("chunkctl.pipeline.run")

    real_load = run_mod.load

    def noisy_load(*args, **kwargs):
        logging.getLogger("pypdfium2._helpers.document").warning("A circular bookmark reference was detected.")
        warnings.warn("odd markup", UserWarning, stacklevel=1)
        os.write(2, b"native: bad xref entry\nnative: bad xref entry\n")
        return real_load(*args, **kwargs)

    monkeypatch.setattr(run_mod, "load", noisy_load)
    res = run_mod.process_file(InputFile(None, "doc.md", "md", 9, b"# A\n\nText."), ChunkConfig())
    assert res.error is None and res.n_chunks == 1
    assert res.warnings == ["doc.md: pypdfium2._helpers.document: A circular bookmark reference was detected.",
                            "doc.md: native: bad xref entry", "doc.md: UserWarning: odd markup"]
    assert capfd.readouterr().err == ""  # nothing reached stderr unnamed


# --- 5. a stop signal at any moment: what is printed and the exit code match the disk ----------------------

def test_sigterm_at_any_moment_says_what_is_on_disk(tmp_path):
    import signal
    import time

    ref = tmp_path / "ref.jsonl"
    assert _cli("chunk", "examples", "--jobs", "1", "--file-timeout", "0", "-o", ref).returncode == 0
    new = ref.read_bytes()
    out = tmp_path / "out.jsonl"

    def started(proc: subprocess.Popen) -> float:
        """Wait until the run has begun (its temporary output exists); returns that moment."""
        while proc.poll() is None and not any(p.name.startswith(".out.jsonl.") for p in tmp_path.iterdir()):
            time.sleep(0.002)
        return time.monotonic()

    # how long a run goes on once its output is open, measured like the trials below
    out.write_bytes(b"old\n")
    proc = subprocess.Popen([*CLI, "chunk", "examples", "--jobs", "1", "--file-timeout", "0", "-o", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t0 = started(proc)
    proc.communicate(timeout=60)
    took = time.monotonic() - t0
    outcomes = set()
    # Signals spread over the whole run, the final rename included; runs slower than the
    # measured one (a loaded machine) get later signals until two outcomes were seen.
    delays = [took * 0.12 * i for i in range(10)] + [took * (1.2 + 0.6 * j) for j in range(10)]
    for i, delay in enumerate(delays):
        if i >= 10 and len(outcomes) >= 2:
            break
        out.write_bytes(b"old\n")
        proc = subprocess.Popen([*CLI, "chunk", "examples", "--jobs", "1", "--file-timeout", "0", "-o", str(out)], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        started(proc)
        time.sleep(delay)  # from just after the output opened to after the end
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        last = err.decode().strip().splitlines()[-1] if err.strip() else ""
        disk = out.read_bytes()
        if proc.returncode == 0:
            assert disk == new
        elif proc.returncode == -signal.SIGTERM:  # killed before the run began: nothing was touched
            assert disk == b"old\n" and last == ""
        else:
            assert proc.returncode == 128 + signal.SIGTERM, err
            if disk == new:
                assert last.endswith(f" {out} was written"), last
            else:
                assert disk == b"old\n" and last.endswith("no output file was written or replaced"), last
        assert "Traceback" not in err.decode()
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        outcomes.add((proc.returncode, disk == new))
    assert len(outcomes) >= 2  # the signals did land at different moments


def test_a_link_to_a_folder_above_the_tree_is_skipped_as_leading_out_not_failed_as_a_loop(tmp_path):
    """helper-114: `in/root -> /` and `in/up -> ..` lead out of the folder, which without
    --follow-links is skipped with a warning; they were failed as symbolic-link loops (exit 1)."""
    repo = tmp_path / "in"
    repo.mkdir()
    (repo / "a.md").write_text("# A\n\nText.\n")
    (repo / "root").symlink_to("/", target_is_directory=True)
    (repo / "up").symlink_to("..", target_is_directory=True)
    (repo / "home").symlink_to(tmp_path, target_is_directory=True)
    errs = tmp_path / "e.jsonl"
    p = _cli("chunk", repo, "--errors", errs, "-o", tmp_path / "o.jsonl")
    err = p.stderr.decode()
    assert p.returncode == 0, err
    assert [r["source"] for r in parse_jsonl((tmp_path / "o.jsonl").read_bytes())] == ["a.md"]
    for name in ("home", "root", "up"):
        assert f"chunkctl: warning: {name}: skipped, a symbolic link that leads out of the folder" in err
    assert "loop" not in err and parse_jsonl(errs.read_bytes()) == []


def test_a_link_loop_is_named_like_the_files_beside_it(tmp_path):
    repo = tmp_path / "repo"
    (repo / "d").mkdir(parents=True)
    (repo / "d" / "a.md").write_text("# A\n\nText.\n")
    (repo / "d" / "up").symlink_to("..", target_is_directory=True)
    errs = tmp_path / "e.jsonl"
    p = _cli("chunk", repo, "--errors", errs, "-o", tmp_path / "o.jsonl")
    assert p.returncode == 1
    assert "chunkctl: error: d/up: symbolic-link loop; not followed" in p.stderr.decode()
    assert [e["source"] for e in parse_jsonl(errs.read_bytes())] == ["d/up"]


def test_a_stop_signal_while_the_command_sets_up_gives_one_line_and_its_exit_code(tmp_path):
    """Issue 14, point 5: a SIGTERM before any output is open (here: while standard input is
    read) used to end the run silently with 143; now one line says so, and nothing is written."""
    import signal
    import time

    out = tmp_path / "out.jsonl"
    out.write_bytes(b"old\n")
    proc = subprocess.Popen([*CLI, "chunk", "-", "--stdin-name", "a.md", "-o", str(out)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(b"# Title\n\nSome text")  # type: ignore[union-attr]
    proc.stdin.flush()  # type: ignore[union-attr]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the command reads standard input (its modules are loaded)
        with open(f"/proc/{proc.pid}/wchan") as fh:
            if "pipe" in fh.read() or _reads_stdin(proc.pid):
                break
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    assert err.decode().strip() == "chunkctl: error: stopped by SIGTERM"
    assert out.read_bytes() == b"old\n"
    assert not [p for p in tmp_path.iterdir() if p.name != "out.jsonl"]


def _reads_stdin(pid: int) -> bool:
    """True when the process's main thread is blocked in a read of its standard input."""
    try:
        with open(f"/proc/{pid}/syscall") as fh:
            fields = fh.read().split()
    except OSError:
        return False
    return len(fields) > 1 and fields[0] == "0" and int(fields[1], 16) == 0  # read(0, ...)


def test_a_stop_signal_while_an_output_opens_comes_once_it_is_open():
    """The SIGTERM test above once found a temporary output left behind: the signal came
    after the file was made and before the object that removes it was returned. Opening
    an output now holds stop signals and raises them when it is done."""
    import signal

    from chunkctl.cli import console

    steps = []
    console.catch_stop_signals(True)
    try:
        with pytest.raises(console.Terminated) as caught:
            with console.stop_signals_held():
                os.kill(os.getpid(), signal.SIGTERM)
                steps.append("opened")  # the block ends although the signal came in it
            steps.append("after")  # never reached: the held signal is raised here
        assert caught.value.signum == signal.SIGTERM
        assert steps == ["opened"]
        assert console.unreported_stop() == signal.SIGTERM
        with console.stop_signals_held():
            steps.append("quiet")  # no signal: nothing raised
    finally:
        console.stop_reported()
        console.catch_stop_signals(False)
    assert steps == ["opened", "quiet"]


def test_a_stop_signal_while_typer_builds_the_command_names_the_signal(tmp_path):
    """A SIGTERM that arrives while typer builds the command (before it can handle the
    exception) said "interrupted" and exited 130, as for Ctrl-C; it names the signal and
    exits 143 like any other SIGTERM, and Ctrl-C there still says "interrupted" (130)."""
    import signal
    import sys

    script = tmp_path / "stop_in_typer.py"
    script.write_text(
        "import os, signal, sys\n"
        "import typer.main as tm\n"
        "orig = tm.get_group\n"
        "def get_group(*a, **k):\n"
        "    os.kill(os.getpid(), int(sys.argv.pop(1)))\n"
        "    return orig(*a, **k)\n"
        "tm.get_group = get_group\n"
        "from chunkctl.cli.app import run\n"
        "sys.argv = ['chunkctl'] + sys.argv[1:]\n"
        "run()\n")
    out = tmp_path / "out.jsonl"
    for signum, line in ((signal.SIGTERM, "stopped by SIGTERM"), (signal.SIGINT, "interrupted")):
        p = subprocess.run([sys.executable, str(script), str(int(signum)), "chunk", "examples", "-o", str(out)],
                           cwd=ROOT, capture_output=True, timeout=120)
        assert p.returncode == (143 if signum == signal.SIGTERM else 130)
        assert p.stderr.decode().strip() == f"chunkctl: error: {line}"
        assert not out.exists()


def _byte_vocabulary(merges: list[bytes]) -> bytes:
    """A `.tiktoken` file: the 256 single bytes, then `merges` (each two tokens before it)."""
    import base64

    tokens = [bytes([b]) for b in range(256)] + merges
    return b"".join(base64.b64encode(t) + b" %d\n" % rank for rank, t in enumerate(tokens))


def test_a_cache_never_serves_records_of_a_tokenizer_file_since_changed(tmp_path):
    """Found by a break run: `--tokenizer my.tiktoken --cache` served the records counted with
    the file's old contents after it was replaced in place (n_tokens wrong, over budget)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# The theme\n\n" + "the other theme then there " * 60 + "\n", encoding="utf-8")
    tok = tmp_path / "my.tiktoken"
    tok.write_bytes(_byte_vocabulary([b"th", b"he", b"the", b" the", b"re", b"er"]))
    args = [docs, "--tokenizer", tok, "--chunk-size", "64", "--overlap", "0", "-q"]
    first = _cli("chunk", *args, "--cache", tmp_path / "cache", "-o", tmp_path / "1.jsonl")
    assert first.returncode == 0, first.stderr
    tok.write_bytes(_byte_vocabulary([]))  # the same path, another vocabulary
    cached = _cli("chunk", *args, "--cache", tmp_path / "cache", "-o", tmp_path / "2.jsonl")
    fresh = _cli("chunk", *args, "-o", tmp_path / "3.jsonl")
    assert cached.returncode == 0 and fresh.returncode == 0, cached.stderr + fresh.stderr
    assert (tmp_path / "1.jsonl").read_bytes() != (tmp_path / "3.jsonl").read_bytes()
    assert (tmp_path / "2.jsonl").read_bytes() == (tmp_path / "3.jsonl").read_bytes()
    again = _cli("chunk", *args, "--cache", tmp_path / "cache", "-o", tmp_path / "4.jsonl")  # now from the cache
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "4.jsonl").read_bytes() == (tmp_path / "3.jsonl").read_bytes()


def test_the_cache_key_of_a_tokenizer_file_holds_its_contents_with_or_without_special(tmp_path):
    """Found reading the change again: "my.tiktoken+special" (SPECIAL_SUFFIX) was not seen as a
    file, so its cache key held no digest of the file's contents."""
    from chunkctl.tokenizers import tokenizer_digest

    tok = tmp_path / "my.tiktoken"
    tok.write_bytes(_byte_vocabulary([b"th"]))
    first = tokenizer_digest(str(tok))
    assert len(first) == 64 and tokenizer_digest(str(tok) + "+special") == first
    tok.write_bytes(_byte_vocabulary([b"th", b"he"]))
    os.utime(tok, ns=(1, 1))  # (another mtime for certain: the digest is memoized on it)
    assert tokenizer_digest(str(tok) + "+special") not in ("", first)
    assert tokenizer_digest("cl100k_base") == "" and tokenizer_digest("cl100k_base+special") == ""


@pytest.mark.parametrize("limit", ["1e-300", "1e-6"])
def test_a_time_limit_that_fires_at_once_fails_the_file_not_the_run(tmp_path, limit):
    # helper-47: a limit so small that the timer fired before its guard was set up escaped as a
    # 56-line traceback (chunkctl.pipeline.run._OverTime), exit 1, in the in-process (--jobs 1) path
    (tmp_path / "a.md").write_text("# A\n\nText.\n")
    p = _cli("chunk", tmp_path / "a.md", "--no-config", "--jobs", "1", "--file-timeout", limit,
             "-o", tmp_path / "out.jsonl", cwd=tmp_path)
    err = p.stderr.decode()
    assert p.returncode == 1 and "Traceback" not in err, err
    assert f"a.md: took longer than {float(limit):g} s" in err


def test_a_stop_signals_exception_inside_a_finalizer_prints_no_traceback():
    """CI: a SIGTERM that came while `regex` compiled a pattern raised `Terminated` in its
    `SetBase.__del__`, where it cannot leave: Python printed "Exception ignored in" and a
    traceback. The run raises the noted stop again between steps and says what it did. (In a
    process of its own: pytest catches unraisable exceptions itself.)"""
    import signal

    code = ("import signal\n"
            "from chunkctl.cli import console\n"
            "class Finalized:\n"
            "    def __del__(self):\n"
            "        console._on_stop_signal(signal.SIGTERM, None)  # (as if the signal came here)\n"
            "console.catch_stop_signals(True)\n"
            "Finalized()\n"
            "print(console.unreported_stop())\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0 and p.stdout.strip() == str(int(signal.SIGTERM)), p.stderr
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr


@pytest.mark.parametrize("fmt, ocr_mode, engine, hinted", [
    ("pdf", "auto", True, True), ("pdf", "always", True, True), ("pdf", "never", True, False),
    ("pdf", "auto", False, False), ("md", "auto", True, False)])
def test_a_pdf_over_the_time_limit_says_that_ocr_is_slow_and_what_to_do(monkeypatch, fmt, ocr_mode, engine, hinted):
    # helper-102: two scanned papers failed with "took longer than 300 s" alone; OCR took 466 s for
    # 28 pages, and the line named neither OCR, nor --file-timeout, nor --ocr never
    import importlib

    from chunkctl.config import ChunkConfig
    from chunkctl.loaders.pdf import ocr
    from chunkctl.pipeline.engines.local import TaskFailure
    from chunkctl.pipeline.inputs import InputFile

    run_mod = importlib.import_module("chunkctl.pipeline.run")  # (the package's `run` is the function)

    monkeypatch.setattr(ocr, "available", lambda: engine)
    item = InputFile("scan." + fmt, "scan." + fmt, fmt, 10)
    res = run_mod._failure(item, TaskFailure("timeout", "took longer than 300 s"), ChunkConfig(ocr=ocr_mode))
    hint = " (OCR of scanned pages takes seconds a page: raise --file-timeout, 0 for no limit, or give --ocr never)"
    assert res.error == f"scan.{fmt}: took longer than 300 s" + (hint if hinted else "")
    assert res.error_type == "Timeout"
    crashed = run_mod._failure(item, TaskFailure("crashed", "the worker process died (exit code 1)"), ChunkConfig())
    assert crashed.error == f"scan.{fmt}: the worker process died (exit code 1)"
