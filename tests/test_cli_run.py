"""`chunkctl chunk` in pipelines: byte-identical output, cache, interruption, failures, time limit, inputs and outputs."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chunkctl.cli import app
from tests.conftest import CLI, CORPUS, ROOT, check_records, needs_shared, parse_jsonl, run_cli

runner = CliRunner()
EXAMPLES = ROOT / "examples"


def invoke(*args: str, input: bytes | str | None = None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def _tmp_files(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.name.endswith(".tmp")]


def _mixed_corpus(tmp_path: Path) -> Path:
    """A small copy of ../shared/corpus: every format, a few files each (the whole corpus is for `make bench`)."""
    d = tmp_path / "corpus"
    picks = {"md": ["rust-book-data-types.md", "gfm-extensions-table-cases.md", "fastapi-features-zh.md",
                    "jekyll-hooks-html-table.md", "utf8-bom-frontmatter.md", "table-with-latin1-byte.md"],
             "html": ["v8-blog-code.html", "xinhua-gb2312-conflicting-meta.html", "sjis-no-charset-decl.html"],
             "txt": ["agpl-3.0-license.txt", "koi8r-russian.txt", "latin1-portuguese-prose.txt"]}
    for fmt, names in picks.items():
        (d / fmt).mkdir(parents=True)
        for name in names:
            (d / fmt / name).write_bytes((CORPUS / fmt / name).read_bytes())
    return d


@needs_shared()
def test_jobs_cache_and_reruns_give_identical_bytes(tmp_path):
    corpus = str(_mixed_corpus(tmp_path))
    cache = str(tmp_path / "cache")
    outs = {}
    for name, extra in [("j1", ["--jobs", "1"]), ("j2", ["--jobs", "2"]), ("cold", ["--jobs", "2", "--cache", cache]),
                        ("warm", ["--jobs", "2", "--cache", cache])]:
        out = tmp_path / f"{name}.jsonl"
        p = run_cli("chunk", corpus, str(EXAMPLES), "--chunk-size", "256", "--overlap", "32", "-o", str(out), *extra)
        assert p.returncode == 0, p.stderr
        outs[name] = (out.read_bytes(), p.stderr.decode())
    first = outs["j1"][0]
    assert len(parse_jsonl(first)) > 100
    assert all(data == first for data, _ in outs.values())  # jobs 1 = jobs 2 = a second run = cached
    assert ", cached" not in outs["cold"][1]
    assert ", 16 cached" in outs["warm"][1]  # 12 corpus files + 4 examples


def test_cache_ignores_corrupt_entries_and_keys_on_options(tmp_path):
    cache = tmp_path / "cache"
    base = ["chunk", EXAMPLES, "--cache", cache, "--jobs", "1", "--quiet"]
    first = invoke(*base)
    assert first.exit_code == 0
    entries = [p for p in cache.rglob("*.jsonl")]
    assert len(entries) == 4  # one per example file
    # A damaged entry (half written by a crash, or edited) is ignored and rewritten.
    entries[0].write_bytes(entries[0].read_bytes()[:-40])
    entries[1].write_bytes(b"not json\n")
    again = invoke(*base)
    assert again.stdout_bytes == first.stdout_bytes
    assert not _tmp_files(cache)
    # Other options are another key: no stale records.
    smaller = invoke(*base, "--chunk-size", "64")
    assert all(r["meta"]["chunk_size"] == 64 for r in parse_jsonl(smaller.stdout_bytes))
    assert len(list(cache.rglob("*.jsonl"))) == 8


@needs_shared()
def test_sigint_half_way_keeps_the_previous_output_and_stops_workers(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    many = tmp_path / "many"
    many.mkdir()
    for name in "abcd":  # four views of the txt corpus, so there is work left to interrupt
        (many / name).symlink_to(CORPUS / "txt", target_is_directory=True)
    proc = subprocess.Popen([*CLI, "chunk", str(many), "--follow-links", "--jobs", "2", "-o", str(out)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            tmps = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
            if tmps and tmps[0].stat().st_size > 0:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        children = _descendants(proc.pid)
        assert children, "no worker processes"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many", "out.jsonl"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and [c for c in children if _alive(c)]:
        time.sleep(0.05)
    assert not [c for c in children if _alive(c)]


def _descendants(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        return out
    return out + [g for c in out for g in _descendants(c)]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _bad_folder(tmp_path: Path) -> Path:
    d = tmp_path / "in"
    (d / "sub").mkdir(parents=True)
    (d / "guide.md").write_text("# Guide\n\nSome text to keep.\n\n## Part\n\nMore text here.\n")
    (d / "sub" / "notes.txt").write_text("First paragraph.\n\nSecond paragraph.\n")
    (d / "corrupt.txt").write_bytes(b"\x00\x01\x02PK\x03\x04 not text")
    (d / "unreadable.md").symlink_to(d / "gone.md")  # as root, chmod 000 would not stop a read
    return d


def test_bad_files_give_exit_1_error_records_and_complete_chunks_for_the_rest(tmp_path):
    d = _bad_folder(tmp_path)
    out, errors = tmp_path / "o.jsonl", tmp_path / "errors.jsonl"
    r = invoke("chunk", d, "-o", out, "--errors", errors, "--jobs", "2")
    assert r.exit_code == 1
    errs = parse_jsonl(errors.read_bytes())
    assert sorted((e["source"], e["error_type"]) for e in errs) == [("corrupt.txt", "LoaderError"),
                                                                     ("unreadable.md", "BrokenLink")]
    assert {e["message"] for e in errs} == {"binary file (NUL bytes in the first 8 KiB); not a text document",
                                            "broken symbolic link"}
    recs = parse_jsonl(out.read_bytes())
    assert sorted({r["source"] for r in recs}) == ["guide.md", "sub/notes.txt"]
    check_records(recs, d, tmp_path)
    assert "2 failed" in r.stderr


def test_fail_fast_stops_without_writing_the_output(tmp_path):
    d = _bad_folder(tmp_path)
    (d / "unreadable.md").unlink()
    out = tmp_path / "o.jsonl"
    out.write_text("previous\n")
    r = invoke("chunk", d, "-o", out, "--fail-fast", "--jobs", "1")
    assert r.exit_code == 1
    assert "corrupt.txt: binary file" in r.stderr and "--fail-fast" in r.stderr
    assert out.read_text() == "previous\n" and not _tmp_files(tmp_path)


@needs_shared()
def test_file_timeout_stops_a_slow_file_and_the_run_goes_on(tmp_path):
    big = tmp_path / "big.txt"
    war = (CORPUS / "txt" / "war-and-peace-bom-cr-3mb.txt").read_bytes()
    big.write_bytes(war + war[3:] * 9)  # about 32 MB: seconds of work, far over the limit (10 MB took 0.9 s warm)
    errors = tmp_path / "errors.jsonl"
    r = invoke("chunk", big, EXAMPLES, "--file-timeout", "1", "--jobs", "1", "--errors", errors)
    assert r.exit_code == 1, r.stderr
    assert f"{big}: took longer than 1 s" in r.stderr
    assert parse_jsonl(errors.read_bytes()) == [{"source": str(big), "error_type": "Timeout",
                                                 "message": "took longer than 1 s"}]
    assert {rec["source"] for rec in parse_jsonl(r.stdout_bytes)} == {"backup-guide.md", "cold-storage-handbook.pdf", "on-call-runbook.html", "returns-policy.txt"}


def test_from_list_reads_paths_relative_to_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    listing = tmp_path / "files.txt"
    listing.write_text("# chunk these\nexamples/returns-policy.txt\n\n  examples/backup-guide.md  \r\n")
    r = invoke("chunk", "--from-list", listing, "--quiet")
    assert r.exit_code == 0, r.stderr
    recs = parse_jsonl(r.stdout_bytes)
    assert [x["source"] for x in recs][0] == "examples/returns-policy.txt"
    assert {x["source"] for x in recs} == {"examples/returns-policy.txt", "examples/backup-guide.md"}
    piped = invoke("chunk", "--from-list", "-", "--quiet", input="examples/backup-guide.md\n")
    assert {x["source"] for x in parse_jsonl(piped.stdout_bytes)} == {"examples/backup-guide.md"}
    missing = invoke("chunk", "--from-list", tmp_path / "nope.txt")
    assert missing.exit_code == 2 and "--from-list" in missing.stderr


def test_from_list_keeps_a_carriage_return_inside_a_name(tmp_path, monkeypatch):
    # a helper's find: a list file was read with universal newlines, so "docs/cr\rname.txt" (legal on
    # Linux, listed by find) became two missing paths and the file was lost
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "cr\rname.txt").write_text("carriage return in the name\n")
    (tmp_path / "list.txt").write_bytes(b"docs/cr\rname.txt\n")
    r = invoke("chunk", "--from-list", "list.txt", "--quiet")
    assert r.exit_code == 0, r.stderr
    assert [x["source"] for x in parse_jsonl(r.stdout_bytes)] == ["docs/cr\rname.txt"]


def test_stdin_document(tmp_path):
    text = "# Title\n\nA paragraph from a pipe.\n\n## Next\n\nAnother one.\n"
    r = invoke("chunk", "-", "--stdin-format", "md", "--stdin-name", "piped.md", "--quiet", input=text.encode())
    assert r.exit_code == 0, r.stderr
    recs = parse_jsonl(r.stdout_bytes)
    assert {x["source"] for x in recs} == {"piped.md"} and recs[0]["format"] == "md"
    assert "".join(x["text"][len(x["prefix"]):] for x in recs).replace("\n", "") in text.replace("\n", "")
    assert recs == __import__("chunkctl").chunk_text(text, format="md", source="piped.md")
    r = invoke("chunk", "-", input=b"text")
    assert r.exit_code == 2 and "--stdin-format" in r.stderr
    r = invoke("chunk", "-", "--stdin-format", "docx", input=b"text")
    assert r.exit_code == 2 and "docx" in r.stderr


def test_output_dir_mirrors_the_tree(tmp_path):
    d = _bad_folder(tmp_path)
    (d / "unreadable.md").unlink()
    (d / "corrupt.txt").unlink()
    od = tmp_path / "chunks"
    r = invoke("chunk", d, "--output-dir", od, "--quiet")
    assert r.exit_code == 0, r.stderr
    files = sorted(str(p.relative_to(od)) for p in od.rglob("*") if p.is_file())
    assert files == ["guide.md.jsonl", "sub/notes.txt.jsonl"]
    whole = parse_jsonl(invoke("chunk", d, "--quiet").stdout_bytes)
    assert parse_jsonl((od / "guide.md.jsonl").read_bytes()) == [x for x in whole if x["source"] == "guide.md"]
    assert r.stdout_bytes == b""
    both = invoke("chunk", d, "--output-dir", od, "-o", tmp_path / "x.jsonl")
    assert both.exit_code == 2 and "not both" in both.stderr


def test_usage_errors_of_run_options(tmp_path):
    for args, msg in [(["--jobs", "-1"], "--jobs"), (["--file-timeout", "-2"], "--file-timeout"),
                      (["--flavour", "haystack"], "--flavour"), (["--format", "haystack"], "--flavour"), ([], "give files")]:
        r = invoke("chunk", *(["examples"] if args else []), *args)
        assert r.exit_code == 2, args
        assert msg in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_summary_line_when_stderr_is_not_a_terminal():
    p = run_cli("chunk", "examples", "--jobs", "2")
    assert p.returncode == 0
    line = p.stderr.decode().strip()
    assert line.startswith("chunkctl: 4 files (html 1, md 1, pdf 1, txt 1), ") and " chunks, " in line and line.endswith(" MB/s")


def test_the_live_display_counts_files_skipped_unread_apart_from_its_first_frame(tmp_path):
    # helper-114: over a folder of files without a loader, the first frames said "0/6 files", the count
    # falling as their results came; they are known before the run and shown apart from the start.
    import pty

    d = tmp_path / "d"
    d.mkdir()
    for i in range(5):
        (d / f"f{i}.bin").write_text("x\n")
    (d / "a.md").write_text("# T\n\nhello world.\n")
    leader, follower = pty.openpty()
    p = subprocess.Popen([*CLI, "chunk", str(d), "-o", str(tmp_path / "out.jsonl")], stderr=follower,
                         stdout=subprocess.DEVNULL, cwd=ROOT, env={**os.environ, "TERM": "xterm", "COLUMNS": "160"})
    os.close(follower)
    shown = b""
    while True:
        try:
            got = os.read(leader, 65536)
        except OSError:  # (the other end closed)
            break
        if not got:
            break
        shown += got
    os.close(leader)
    assert p.wait(timeout=120) == 0
    frames = [f for f in shown.decode(errors="replace").split("\r") if " files " in f]
    assert frames and "0/1 files" in frames[0] and "5 skipped" in frames[0]
    assert not any("/6 files" in f for f in frames)


def test_python_api_does_the_same_job(tmp_path):
    import chunkctl

    cli = parse_jsonl(invoke("chunk", EXAMPLES, "-n", "128", "--quiet").stdout_bytes)
    assert list(chunkctl.chunk_paths([EXAMPLES], jobs=2, chunk_size=128, cache=tmp_path / "c")) == cli
    assert list(chunkctl.chunk_paths([EXAMPLES], chunk_size=128, cache=tmp_path / "c")) == cli  # from the cache
    d = _bad_folder(tmp_path)
    with pytest.raises(chunkctl.LoaderError, match="unreadable.md: broken symbolic link"):
        list(chunkctl.chunk_paths([d]))
    kept = list(chunkctl.chunk_paths([d], errors="skip", flavour="langchain"))
    assert {o["metadata"]["source"] for o in kept} == {"guide.md", "sub/notes.txt"}


def test_outputs_that_would_destroy_files_are_refused_or_written_through(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("Hello world. This is a short text.\n")
    # -o or --errors naming an input: usage error, the input untouched
    for flag in ("-o", "--errors"):
        r = invoke("chunk", src, flag, src)
        assert r.exit_code == 2 and "is also an input" in r.stderr, flag
    assert src.read_text() == "Hello world. This is a short text.\n"
    # a folder, an empty name, the same file twice: usage errors in one line
    for args, msg in [(["-o", tmp_path], "is a folder"), (["-o", ""], "empty"),
                      (["-o", tmp_path / "x.jsonl", "--errors", tmp_path / "x.jsonl"], "same file"),
                      (["--output-dir", src], "is a file, not a folder")]:
        r = invoke("chunk", src, *args)
        assert r.exit_code == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, args
    # a symbolic link: the file it points to is replaced, the link stays a link
    real, link = tmp_path / "real.jsonl", tmp_path / "link.jsonl"
    real.write_text("old\n")
    link.symlink_to(real.name)
    assert invoke("chunk", src, "-o", link, "--quiet").exit_code == 0
    assert link.is_symlink() and parse_jsonl(real.read_bytes())[0]["source"].endswith("a.txt")
    # a device is written to, not replaced by a regular file
    assert invoke("chunk", src, "-o", os.devnull, "--quiet").exit_code == 0
    assert not Path(os.devnull).is_file() and Path(os.devnull).exists()
    if Path("/dev/full").exists():  # a full disk: one line, exit 1
        r = invoke("chunk", src, "-o", "/dev/full")
        assert r.exit_code == 1 and "No space left on device" in r.stderr
    assert _tmp_files(tmp_path) == []


def test_output_dir_refuses_two_documents_with_one_output_file(tmp_path):
    # A file given by its absolute path keeps that path (less the leading "/") as source,
    # which a folder input can repeat below itself.
    (tmp_path / "d4").mkdir()
    (tmp_path / "d4" / "a.txt").write_text("A one.\n")
    nested = tmp_path / "d5" / str(tmp_path / "d4").lstrip("/")
    nested.mkdir(parents=True)
    (nested / "a.txt").write_text("B two.\n")
    r = invoke("chunk", tmp_path / "d4" / "a.txt", tmp_path / "d5", "--output-dir", tmp_path / "out")
    assert r.exit_code == 2 and "would both be written to" in r.stderr
    clash = tmp_path / "c"
    (clash / "__").mkdir(parents=True)
    (clash / "__" / "x.txt").write_text("folder file.\n")
    r = invoke("chunk", clash, "-", "--stdin-format", "txt", "--stdin-name", "../x.txt",
               "--output-dir", tmp_path / "out2", input="stdin text.\n")
    assert r.exit_code == 2 and "would both be written to" in r.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "out2").exists()


def test_error_lines_stay_one_line_and_bad_values_are_usage_errors(tmp_path):
    d = tmp_path / "nl"
    d.mkdir()
    # a PNG header: binary (three bytes like b"a\0b" may be BOM-less UTF-16 since issue 16)
    (d / "evil\nchunkctl: 0 files ok.txt").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0")
    p = run_cli("chunk", str(d), "-o", str(tmp_path / "o.jsonl"))
    err = p.stderr.decode().strip().splitlines()
    assert p.returncode == 1 and err[0] == ("chunkctl: error: evil\\nchunkctl: 0 files ok.txt: binary file "
                                            "(NUL bytes in the first 8 KiB); not a text document")
    src = tmp_path / "a.txt"
    src.write_text("Hello.\n")
    for args, msg in [(["--encoding", "rot13"], "not a text encoding"), (["--encoding", "hex"], "not a text encoding"),
                      (["--encoding", "zlib"], "not a text encoding"), (["--encoding", "uu"], "not a text encoding"),
                      (["--encoding", "undefined"], "not a text encoding"),  # (helper-114: tracebacks, exit 1)
                      (["--chunk-size", "99999999999999999999"], "too large"),
                      (["--file-timeout", "1e308"], "--file-timeout"), (["--file-timeout", "nan"], "--file-timeout"),
                      (["--tokenizer-pattern", r"(?<=a+)b"], "--tokenizer-pattern")]:
        r = invoke("chunk", src, *args)
        assert r.exit_code == 2 and msg in r.stderr, args


@pytest.mark.parametrize("pattern", ["a*", r"\b", "(?<=a)", r"\w+|\s*"])
def test_a_tokenizer_pattern_that_matches_nothing_is_one_line_without_a_panic(tmp_path, pattern):
    # a helper's find: tiktoken panicked on the empty piece and Rust printed its message (177 lines with
    # RUST_BACKTRACE=1) before chunkctl's own error
    (tmp_path / "a.txt").write_text("Hello, world.\n")
    p = subprocess.run([*CLI, "chunk", str(tmp_path / "a.txt"), "--tokenizer-pattern", pattern, "-o",
                        str(tmp_path / "o.jsonl")], capture_output=True, timeout=120,
                       env={**os.environ, "RUST_BACKTRACE": "1"})
    err = p.stderr.decode().strip().splitlines()
    assert p.returncode == 2 and len(err) == 1 and "matches the empty string" in err[0], err[:5]


def test_a_tokenizer_pattern_that_skips_a_character_fails_that_file_by_name(tmp_path):
    # a helper's find: the sample text has no snowman, so the pattern passed the start-up check; the file with one
    # failed as "internal error: AssertionError: token table out of step with the text"
    (tmp_path / "a.txt").write_text("Snow \u2603 man.\n")
    (tmp_path / "b.txt").write_text("Fine text.\n")
    r = invoke("chunk", tmp_path, "--tokenizer-pattern", r"[^\x{2603}]+|(?=\x{2603})", "-o", tmp_path / "o.jsonl")
    assert r.exit_code == 1
    [line] = [ln for ln in r.stderr.splitlines() if "error" in ln]
    assert line.startswith("chunkctl: error: a.txt: tokenizer ") and "pre-tokenizer pattern leaves characters" in line
    assert [x["source"] for x in parse_jsonl((tmp_path / "o.jsonl").read_bytes())] == ["b.txt"]


def test_named_pipes_and_folders_are_not_read_by_extract_and_inspect(tmp_path):
    fifo = tmp_path / "f.txt"
    os.mkfifo(fifo)
    for cmd in ("extract", "inspect"):
        r = invoke(cmd, fifo)
        assert r.exit_code == 1 and "not a regular file" in r.stderr, cmd
        r = invoke(cmd, tmp_path)
        assert r.exit_code == 1 and "is a folder" in r.stderr, cmd


def test_square_brackets_in_documents_are_text_not_markup(tmp_path):
    md = tmp_path / "h.md"
    md.write_text("# Install to [/usr/local]\n\nRun it [bold]x[/bold].\n")
    r = invoke("inspect", md)
    assert r.exit_code == 0 and "[/usr/local]" in r.stdout and "[bold]x[/bold]" in r.stdout
    out = tmp_path / "r.jsonl"
    weird = tmp_path / "r" / "a["
    weird.mkdir(parents=True)
    (weird / "b]c.md").write_text("hi\n")  # source "a[/b]c.md": reads as a closing tag to rich
    assert invoke("chunk", tmp_path / "r", "-o", out, "--quiet").exit_code == 0
    r = invoke("stats", out)
    assert r.exit_code == 0 and "a[/b]c.md" in r.stdout


def test_a_configuration_file_that_is_not_utf8_is_a_usage_error(tmp_path, monkeypatch):
    (tmp_path / "chunkctl.toml").write_bytes(b"\xff\xfe x\n")
    (tmp_path / "a.txt").write_text("Hello.\n")
    monkeypatch.chdir(tmp_path)
    r = invoke("chunk", "a.txt")
    assert r.exit_code == 2 and "not UTF-8" in r.stderr


def test_bad_cache_and_configuration_paths_are_usage_errors(tmp_path, monkeypatch):
    src = tmp_path / "a.txt"
    src.write_text("Hello.\n")
    assert invoke("chunk", src, "--cache", src).exit_code == 2
    if Path("/dev/zero").exists():  # reading it would never end
        r = invoke("chunk", src, "--config", "/dev/zero")
        assert r.exit_code == 2 and "not a regular file" in r.stderr
    (tmp_path / "chunkctl.toml").write_text("chunk-size = 100\nchunk_size = 200\n")
    monkeypatch.chdir(tmp_path)
    r = invoke("chunk", "a.txt")
    assert r.exit_code == 2 and "given twice" in r.stderr


def test_a_named_pipe_in_the_cache_is_a_miss_not_a_hang(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("Hello there. A second sentence.\n")
    cache = tmp_path / "cache"
    first = invoke("chunk", src, "--cache", cache, "--quiet")
    entry = next(cache.rglob("*.jsonl"))
    entry.unlink()
    os.mkfifo(entry)
    again = invoke("chunk", src, "--cache", cache, "--quiet")
    assert again.exit_code == 0 and again.stdout_bytes == first.stdout_bytes


def test_link_loops_are_named_as_loops_and_stdin_is_not_a_file_to_inspect(tmp_path):
    d = tmp_path / "lp"
    d.mkdir()
    (d / "loop1").symlink_to("loop2")
    (d / "loop2").symlink_to("loop1")
    (d / "broken").symlink_to("nowhere")
    (d / "ok.txt").write_text("Hello.\n")
    r = invoke("chunk", d, "-o", tmp_path / "o.jsonl")
    assert r.exit_code == 1
    assert "loop1: symbolic-link loop; not followed" in r.stderr and "broken: broken symbolic link" in r.stderr
    for cmd in ("inspect", "extract"):
        r = invoke(cmd, "-")
        assert r.exit_code == 2 and "not standard input" in r.stderr


@pytest.mark.skipif(importlib.util.find_spec("trafilatura") is not None, reason="trafilatura is installed")
def test_main_content_without_trafilatura_is_one_line_before_any_file(tmp_path):
    # before: one "needs the optional package" error per HTML file, exit 1 and an empty output
    for i in range(5):
        (tmp_path / f"page{i}.html").write_text(f"<html><body><h1>Page {i}</h1><p>Text of the page.</p></body></html>")
    out = tmp_path / "out.jsonl"
    p = run_cli("chunk", str(tmp_path), "--main-content", "-o", str(out))
    lines = p.stderr.decode().strip().splitlines()
    assert p.returncode == 2 and not out.exists()
    assert lines == ["chunkctl: error: --main-content needs the optional package trafilatura: "
                     "pip install 'chunkctl[html-main]' (or: pip install trafilatura)"]
    # extract says the same with the same exit code (helper-65: it exited 1, as for a file that failed)
    p = run_cli("extract", str(tmp_path / "page0.html"), "--main-content")
    assert p.returncode == 2 and p.stderr.decode().strip().splitlines() == lines and p.stdout == b""


def test_an_upper_case_gz_name_is_compressed_too(tmp_path):
    out = tmp_path / "CHUNKS.JSONL.GZ"
    assert run_cli("chunk", "examples/backup-guide.md", "-q", "-o", str(out)).returncode == 0
    import gzip

    assert parse_jsonl(gzip.decompress(out.read_bytes()))[0]["source"] == "examples/backup-guide.md"


def test_a_missing_extra_names_a_pip_command_a_shell_takes():
    from chunkctl.errors import MissingExtraError

    assert str(MissingExtraError("--engine dask", "dask", "dask[bag] distributed")).endswith(
        "pip install 'chunkctl[dask]' (or: pip install 'dask[bag]' distributed)")


def test_a_path_given_twice_is_one_input(tmp_path):
    # a list with a repeated line was a usage error naming a clash of sources (a helper's find)
    lst = tmp_path / "list.txt"
    lst.write_text("examples/backup-guide.md\nexamples/backup-guide.md\n./examples/backup-guide.md\n")
    once = run_cli("chunk", "examples/backup-guide.md", "-q")
    p = run_cli("chunk", "--from-list", str(lst), "-q")
    assert p.returncode == 0 and p.stdout == once.stdout
    assert run_cli("chunk", "examples", "examples/", "-q").stdout == run_cli("chunk", "examples", "-q").stdout
    # a folder by its real path: spelled from the root, or through a link (a helper's find)
    link = tmp_path / "ex"
    link.symlink_to(ROOT / "examples")
    whole = run_cli("chunk", "examples", "-q").stdout
    assert run_cli("chunk", "examples", str(ROOT / "examples"), "-q").stdout == whole
    assert run_cli("chunk", "examples", str(link), "-q").stdout == whole


def test_a_folder_and_a_path_inside_it_chunk_each_file_once(tmp_path):
    # helper-65: `chunk docs docs/sub` gave sub/b.md twice, as "sub/b.md" and as "b.md" (two doc ids for one
    # file, which an upsert by id never merges), and --output-dir wrote it twice; `docs docs/a.md --source-root
    # docs` was a usage error naming one file twice
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_text("# A\n\nAlpha text.\n")
    (docs / "sub" / "b.md").write_text("# B\n\nBeta text.\n")
    whole = run_cli("chunk", str(docs), "-q").stdout
    for inner, what in (("sub", "1 file was taken"), ("a.md", "taken"), ("sub/b.md", "taken")):
        p = run_cli("chunk", str(docs), str(docs / inner))
        err = p.stderr.decode().splitlines()
        assert p.returncode == 0 and p.stdout == whole
        assert err[0] == (f"chunkctl: warning: {docs / inner}: {what} through {docs} already; chunked once, "
                          f"with the source {docs} gives it"), err
    p = run_cli("chunk", str(docs / "sub"), str(docs), "-q")  # the folder given first names its files
    assert p.returncode == 0 and sorted(r["source"] for r in parse_jsonl(p.stdout)) == ["a.md", "b.md"]
    p = run_cli("chunk", str(docs), str(docs / "a.md"), "--source-root", str(docs), "-q")
    assert p.returncode == 0 and [r["source"] for r in parse_jsonl(p.stdout)] == ["a.md", "sub/b.md"]
    out = tmp_path / "out"
    assert run_cli("chunk", str(docs), str(docs / "sub"), "-q", "--output-dir", str(out)).returncode == 0
    assert sorted(str(f.relative_to(out)) for f in out.rglob("*.jsonl")) == ["a.md.jsonl", "sub/b.md.jsonl"]


def test_summary_json_named_by_a_link_is_written_through_it(tmp_path):
    target, link = tmp_path / "summary.json", tmp_path / "link.json"
    target.write_text("{}")
    link.symlink_to(target)
    assert run_cli("chunk", "examples/backup-guide.md", "-q", "-o", str(tmp_path / "o.jsonl"),
                   "--summary-json", str(link)).returncode == 0
    assert link.is_symlink() and '"status": "ok"' in target.read_text()


def test_an_output_a_later_run_would_read_back_is_refused_every_time(tmp_path):
    # a helper's find: "-o d/out.txt" worked once, then every later identical run was a usage error ("is also
    # an input"); --summary-json d/sum.html was read back as a document by the next run
    d = tmp_path / "d"
    d.mkdir()
    (d / "a.md").write_text("# A\n\nSome text to chunk.\n")
    for flag, name in (("-o", "out.txt"), ("--errors", "err.md"), ("--summary-json", "sum.html")):
        for _ in range(2):
            extra = [] if flag == "-o" else ["-o", str(tmp_path / "o.jsonl")]
            p = run_cli("chunk", str(d), flag, str(d / name), *extra)
            err = p.stderr.decode().strip().splitlines()
            assert p.returncode == 2 and len(err) == 1 and "is inside the input folder" in err[0], err
        assert sorted(x.name for x in d.iterdir()) == ["a.md"]
    # outputs under names no loader reads, and the cache, may live in the folder: two runs agree
    args = ["chunk", str(d), "-o", str(d / "out.jsonl"), "--errors", str(d / "err.jsonl"), "--summary-json",
            str(d / "sum.json"), "--cache", str(d / "cache")]
    first = run_cli(*args)
    records = (d / "out.jsonl").read_bytes()
    second = run_cli(*args)
    assert first.returncode == second.returncode == 0, second.stderr
    assert (d / "out.jsonl").read_bytes() == records and len(parse_jsonl(records)) == 1
    summary = json.loads((d / "sum.json").read_text())
    assert (summary["files"], summary["cached"]) == (1, 1)


def test_a_list_file_with_a_byte_order_mark_reads_its_first_path(tmp_path):
    (tmp_path / "a.txt").write_text("Hello there.\n")
    lst = tmp_path / "list.txt"
    lst.write_bytes("\ufeff".encode() + str(tmp_path / "a.txt").encode() + b"\r\n")
    p = run_cli("chunk", "--from-list", str(lst), "-o", str(tmp_path / "o.jsonl"))
    assert p.returncode == 0, p.stderr
    assert len(parse_jsonl((tmp_path / "o.jsonl").read_bytes())) == 1


def test_text_commands_escape_what_an_ascii_stdout_cannot_encode(tmp_path):
    # a helper's find: `inspect` and `stats` died with UnicodeEncodeError under PYTHONIOENCODING=ascii
    (tmp_path / "a.md").write_text("# Café\n\nNaïve text — with a dash.\n", encoding="utf-8")
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    out = tmp_path / "o.jsonl"
    assert subprocess.run([*CLI, "chunk", str(tmp_path / "a.md"), "-o", str(out)], env=env).returncode == 0
    for args in (["inspect", str(tmp_path / "a.md")], ["stats", str(out)]):
        p = subprocess.run([*CLI, *args], capture_output=True, env=env, timeout=120)
        assert p.returncode == 0 and b"Traceback" not in p.stderr, (args, p.stderr[-500:])
        assert p.stdout.isascii() and p.stdout
    assert b"Caf\\xe9" in subprocess.run([*CLI, "inspect", str(tmp_path / "a.md")], capture_output=True,
                                         env=env).stdout
