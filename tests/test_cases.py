"""The txt and Markdown cases of ../shared/cases: every "Must hold" point as an assertion."""

from __future__ import annotations

import re

import pytest
import regex

from tests.conftest import CASES, bodies, check_records, chunk_case, needs_shared, run_cli

pytestmark = needs_shared()


def starts(recs):
    return [r["start"] for r in recs]


def _no_overlap(recs):
    for a, b in zip(recs, recs[1:]):
        assert b["start"] >= a["end"]


def _progress(recs):
    for a, b in zip(recs, recs[1:]):
        assert b["start"] > a["start"] and b["end"] > a["end"]


# ---------------------------------------------------------------- BR-01
@pytest.mark.parametrize("strategy,size,overlap", [("recursive", 5, 0), ("recursive", 5, 2), ("fixed", 6, 3)])
def test_br01_repeated_text_points_at_its_own_occurrence(tmp_path, strategy, size, overlap):
    recs, doc = chunk_case("BR-01-repeated-text-offsets.txt", strategy=strategy, chunk_size=size, overlap=overlap)
    check_records(recs, CASES, tmp_path)
    _progress(recs)
    assert len(set(starts(recs))) == len(recs)
    if overlap == 0:
        _no_overlap(recs)
        seal = [r["start"] for r in recs if bodies([r])[0] == "Check the seal."]
        occurrences = [m.start() for m in re.finditer(re.escape("Check the seal."), doc)]
        assert len(seal) == len(set(seal)) >= 5
        assert set(seal) <= set(occurrences)


# ---------------------------------------------------------------- BR-03
@pytest.mark.parametrize("size,overlap,expected", [(80, 20, 1), (40, 10, 2), (128, 32, 1)])
def test_br03_window_count(tmp_path, size, overlap, expected):
    recs, doc = chunk_case("BR-03-short-doc-window.txt", strategy="fixed", chunk_size=size, overlap=overlap)
    check_records(recs, CASES, tmp_path)
    assert len(recs) == expected
    for a in recs:
        for b in recs:
            if a is not b:
                assert not (b["start"] <= a["start"] and a["end"] <= b["end"]), "a window inside another"
    if expected == 1:
        assert recs[0]["start"] == 0 and recs[0]["end"] == len(doc.rstrip())
    else:
        from chunkctl.tokenizers import get_tokenizer

        enc = get_tokenizer().encoding
        assert recs[0]["n_tokens"] == 40
        assert recs[1]["end"] == len(doc.rstrip())
        shared = doc[recs[1]["start"]:recs[0]["end"]]
        assert 9 <= len(enc.encode_ordinary(shared)) <= 10


# ---------------------------------------------------------------- BR-04
@pytest.mark.parametrize("strategy,overlap", [("sentence", 0), ("sentence", 4), ("recursive", 0)])
def test_br04_long_sentence_is_split_at_words(tmp_path, strategy, overlap):
    recs, doc = chunk_case("BR-04-long-sentence-limit.txt", strategy=strategy, chunk_size=16, overlap=overlap)
    check_records(recs, CASES, tmp_path)
    assert all(r["n_tokens"] <= 16 for r in recs)
    long_start = doc.index("Inside you will find")
    long_end = doc.index("\n", long_start)
    pieces = [r for r in recs if r["start"] < long_end and r["end"] > long_start]
    assert len(pieces) >= 3
    for r in recs:
        s, e = r["start"], r["end"]
        assert s == 0 or not doc[s - 1].isalnum() or not doc[s].isalnum(), "starts inside a word"
        assert e == len(doc) or not doc[e - 1].isalnum() or not doc[e].isalnum(), "ends inside a word"
    if overlap == 0:
        texts = bodies(recs)
        for sentence in ("The shed is locked.", "Please close the door when you leave."):
            assert any(sentence in t for t in texts)


# ---------------------------------------------------------------- BR-05
@pytest.mark.parametrize("args", [
    ["--strategy", "fixed", "--chunk-size", "4", "--overlap", "4"],
    ["--strategy", "fixed", "--chunk-size", "4", "--overlap", "6"],
    ["--strategy", "recursive", "--chunk-size", "4", "--overlap", "4"],
    ["--strategy", "fixed", "--chunk-size", "4", "--overlap", "-1"],
    ["--strategy", "fixed", "--chunk-size", "0", "--overlap", "0"],
])
def test_br05_bad_overlap_is_a_usage_error_before_reading(args):
    for target in (str(CASES / "BR-05-overlap-equals-size.txt"), "/no/such/file.txt"):
        p = run_cli("chunk", target, *args, timeout=10)
        assert p.returncode == 2
        assert p.stdout == b""
        err = p.stderr.decode().strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert "--overlap" in err or "--chunk-size" in err


def test_br05_step_of_one_token(tmp_path):
    recs, doc = chunk_case("BR-05-overlap-equals-size.txt", strategy="fixed", chunk_size=4, overlap=3)
    check_records(recs, CASES, tmp_path)
    assert len(recs) in (19, 20)
    assert all(r["n_tokens"] <= 4 for r in recs)
    from chunkctl.tokenizers import get_tokenizer

    table = get_tokenizer().table(doc)
    for i, r in enumerate(recs):  # window i starts at token i (its leading space may be trimmed)
        t = table.char(i)
        assert r["start"] == t or (r["start"] == t + 1 and doc[t] == " ")
    assert recs[-1]["end"] == len(doc.rstrip())


# ---------------------------------------------------------------- BR-07
FAKE = ["stop the writer first", "this line is a shell comment too", "Fake title inside the example",
        "Still inside the four-backtick block", "indented fence opener, still code"]


@pytest.mark.parametrize("strategy,size", [("section", 512), ("section", 48), ("recursive", 48)])
def test_br07_hash_lines_in_fences_are_code(tmp_path, strategy, size):
    recs, doc = chunk_case("BR-07-heading-in-fence.md", strategy=strategy, chunk_size=size, overlap=0)
    check_records(recs, CASES, tmp_path)
    paths = {tuple(r["headings"]) for r in recs}
    assert paths == {("Backup guide",), ("Backup guide", "Restore")}
    assert not any(f in h for r in recs for h in r["headings"] for f in FAKE)
    lines = doc.split("\n")
    line_start = [0]
    for ln in lines:
        line_start.append(line_start[-1] + len(ln) + 1)
    fences = [(line_start[a], line_start[b] - 1) for a, b in ((4, 10), (11, 18), (19, 23))]
    restore = doc.index("## Restore")
    if size == 512:
        assert len(recs) == 2
        assert recs[0]["start"] == 0 and recs[0]["end"] <= restore and doc[recs[0]["end"]:restore].strip() == ""
        assert recs[1]["start"] == restore
    else:
        for fs, fe in fences:
            holders = [r for r in recs if r["start"] < fe and r["end"] > fs]
            assert len(holders) == 1
            assert holders[0]["start"] <= doc.index(doc[fs:fe].strip()) and holders[0]["end"] >= fs + len(doc[fs:fe].rstrip())
            assert holders[0]["headings"] == ["Backup guide"]
    for body in bodies(recs):
        if body.startswith("#"):
            assert body.startswith("# Backup guide") or body.startswith("## Restore")


# ---------------------------------------------------------------- BR-09
@pytest.mark.parametrize("strategy,size", [("section", 512), ("recursive", 64)])
def test_br09_tabs_and_nbsp_survive(tmp_path, strategy, size):
    recs, doc = chunk_case("BR-09-tabs-nbsp-code.md", strategy=strategy, chunk_size=size, overlap=0)
    check_records(recs, CASES, tmp_path)
    covered = "".join(bodies(recs))
    assert covered.count("\t") == 5 and covered.count("\u00a0") == 5
    if size == 512:
        first = bodies(recs)[0]
        assert "\tmkdir -p out" in first and "\tcc -O2 -o out/tool src/main.c" in first
        assert "as is.\n\nDo not reformat" in first
    joined = "\n".join(bodies(recs))
    assert "  two leading spaces\n" in joined and "trailing spaces here   \n" in joined
    assert "16 GB" not in joined


# ---------------------------------------------------------------- BR-10
@pytest.mark.parametrize("strategy", ["section", "recursive"])
def test_br10_split_table_repeats_its_header(tmp_path, strategy):
    from markdown_it import MarkdownIt

    header = "| Part no | Name | Bin | Qty |\n| --- | --- | --- | ---: |"
    recs, doc = chunk_case("BR-10-table-header-repeat.md", strategy=strategy, chunk_size=64, overlap=0)
    check_records(recs, CASES, tmp_path)
    assert all(r["n_tokens"] <= 64 for r in recs)
    rows = re.findall(r"^\| P-\d+ .*\|$", doc, re.M)
    assert len(rows) == 14
    seen = []
    md = MarkdownIt("commonmark").enable("table")
    for r in recs:
        has_rows = [row for row in rows if row in r["text"]]
        if not has_rows:
            continue
        text = r["text"]
        table_part = text[text.index("| Part no"):] if "| Part no" in text else ""
        assert table_part.startswith(header + "\n"), text
        assert r["headings"] == ["Spare parts, workshop 3"]
        tokens = md.parse(table_part)
        ths = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "th_open"]
        assert ths == ["Part no", "Name", "Bin", "Qty"]
        seen.extend(row for row in rows if row in bodies([r])[0])
    assert seen == rows  # every row exactly once, in order, never cut


@pytest.mark.parametrize("strategy", ["section", "recursive"])
def test_br10_table_that_fits_stays_whole(tmp_path, strategy):
    recs, doc = chunk_case("BR-10-table-header-repeat.md", strategy=strategy, chunk_size=300, overlap=0)
    check_records(recs, CASES, tmp_path)
    holders = [r for r in recs if "| P-101" in r["text"]]
    assert len(holders) == 1 and "| P-114" in holders[0]["text"]
    assert sum(r["text"].count("| Part no | Name | Bin | Qty |") for r in recs) == 1


# ---------------------------------------------------------------- BR-16
@pytest.mark.parametrize("strategy,size,overlap", [("fixed", 24, 12), ("fixed", 16, 15), ("recursive", 24, 8)])
def test_br16_pages_with_overlap(tmp_path, strategy, size, overlap):
    recs, doc = chunk_case("BR-16-page-breaks-overlap.txt", strategy=strategy, chunk_size=size, overlap=overlap)
    check_records(recs, CASES, tmp_path)
    pages = [r["page_start"] for r in recs]
    assert pages == sorted(pages) and min(pages) == 1 and max(pages) == 3
    for r in recs:
        assert r["page_start"] == 1 + doc[:r["start"]].count("\f")
        body = bodies([r])[0]
        if body.startswith("Page two."):
            assert r["page_start"] == 2
        if body.startswith("Page three."):
            assert r["page_start"] == 3
    assert recs[-1]["page_start"] == 3


# ---------------------------------------------------------------- BR-17
@pytest.mark.parametrize("strategy,size", [("sentence", 40), ("recursive", 40), ("recursive", 20)])
def test_br17_cjk_punctuation_stays_with_its_sentence(tmp_path, strategy, size):
    recs, doc = chunk_case("BR-17-cjk-fullstop.txt", strategy=strategy, chunk_size=size, overlap=0)
    check_records(recs, CASES, tmp_path)
    for body in bodies(recs):
        assert body.lstrip()[0] not in "。？！，、；：", body
        if size == 40:
            assert body.rstrip()[-1] in "。？！"
        else:
            assert body.rstrip()[-1] in "。？！，"
    if strategy == "sentence":
        sents = re.findall(r"[^。？！\n]+[。？！]", doc)
        assert bodies(recs) == [sents[0], sents[1], sents[2], sents[3] + sents[4], sents[5]]


# ---------------------------------------------------------------- BR-18
CLUSTERS_OVER_2 = 12


@pytest.mark.parametrize("strategy,size,overlap", [("fixed", 2, 0), ("recursive", 4, 0), ("sentence", 1, 0),
                                                   ("recursive", 16, 4)])
def test_br18_graphemes_are_never_broken(tmp_path, strategy, size, overlap):
    recs, doc = chunk_case("BR-18-emoji-hangul-tiny-limit.txt", strategy=strategy, chunk_size=size, overlap=overlap)
    check_records(recs, CASES, tmp_path)
    bounds = {m.start() for m in regex.finditer(r"\X", doc)} | {len(doc)}
    for r in recs:
        assert r["start"] in bounds and r["end"] in bounds
        body = bodies([r])[0]
        assert "\ufffd" not in r["text"]
        first = ord(body[0])
        assert not (0x300 <= first <= 0x36F or first == 0x200D or 0x1F3FB <= first <= 0x1F3FF or 0x1161 <= first <= 0x11FF)
        if r["n_tokens"] > size:
            assert r["oversize"] and regex.fullmatch(r"\X", body)
        else:
            assert not r["oversize"]
    flagged = [bodies([r])[0] for r in recs if r["oversize"]]
    if size == 2:
        assert len(flagged) == CLUSTERS_OVER_2
        assert "e\u0301" not in flagged
    if size == 16:
        assert flagged == []


# ---------------------------------------------------------------- BR-20
def _big(k: int, tail: bool = True) -> str:
    seed = (CASES / "BR-20-far-paragraph-break.txt").read_text("utf-8").rstrip("\n")
    return "\n".join([seed] * k) + ("\n\nEnd of survey notes.\n" if tail else "")


@pytest.mark.parametrize("strategy,overlap,tail", [("recursive", 0, True), ("recursive", 0, False), ("fixed", 16, True)])
def test_br20_far_paragraph_break(tmp_path, strategy, overlap, tail):
    import chunkctl

    text = _big(700, tail)
    recs = chunkctl.chunk_text(text, format="txt", source="big.txt", strategy=strategy, chunk_size=64,
                               overlap=overlap)
    assert all(r["n_tokens"] <= 64 for r in recs)
    assert 2035 <= len(recs) < 10000
    for r in recs[::97]:
        assert r["text"][len(r["prefix"]):] == text[r["start"]:r["end"]]
    covered = bytearray(len(text))
    for r in recs:
        covered[r["start"]:r["end"]] = b"\x01" * (r["end"] - r["start"])
    assert all(covered[m.start()] for m in re.finditer(r"\S", text))


# ---------------------------------------------------------------- BR-21
SECTIONS21 = [(["Returns"], "Unused items can be returned within 30 days."),
              (["Returns", "Refunds"], "Refunds go back to the original card."),
              (["Returns", "Exchanges"], "Exchanges are free for a different size."),
              (["Shipping"], "Orders ship on weekdays.")]


@pytest.mark.parametrize("strategy", ["section", "recursive"])
def test_br21_every_heading_starts_a_chunk(tmp_path, strategy):
    recs, doc = chunk_case("BR-21-small-sections.md", strategy=strategy, chunk_size=512, overlap=0)
    check_records(recs, CASES, tmp_path)
    assert [(r["headings"], any(s in r["text"] for s in [t])) for r, (_, t) in zip(recs, SECTIONS21)] == \
        [(h, True) for h, _ in SECTIONS21]
    assert len(recs) == 4
    for r in recs:
        assert bodies([r])[0].startswith("#")
        assert not bodies([r])[0].rstrip().split("\n")[-1].startswith("#")


def test_br21_merging_is_opt_in_and_stops_at_top_level_headings(tmp_path):
    recs, doc = chunk_case("BR-21-small-sections.md", strategy="section", chunk_size=512, overlap=0,
                           min_chunk_tokens=100)
    check_records(recs, CASES, tmp_path)
    assert len(recs) == 2
    assert recs[0]["headings"] == ["Returns"]
    assert all(t in recs[0]["text"] for _, t in SECTIONS21[:3])
    assert recs[1]["headings"] == ["Shipping"] and "Orders ship" in recs[1]["text"]


# ---------------------------------------------------------------- BR-24
@pytest.mark.parametrize("size", [48, 78, 128])
@pytest.mark.parametrize("strategy", ["section", "recursive"])
def test_br24_long_breadcrumb_never_drops_text(tmp_path, size, strategy):
    recs, doc = chunk_case("BR-24-long-heading-context.md", strategy=strategy, chunk_size=size, overlap=0)
    check_records(recs, CASES, tmp_path)
    full = ["Regional water authority annual operations and maintenance report for the northern district",
            "Part three: treatment plants, pumping stations and reservoirs in the upland catchment areas",
            "Chapter seven: scheduled inspections, emergency repairs and replacement of ageing equipment",
            "Section seven point two: the Millbrook pumping station after the February flood"]
    joined = " ".join(r["text"] for r in recs)
    assert "The main pump was rebuilt in March." in joined
    assert "Both standby pumps passed their load test in April." in joined
    for r, body in zip(recs, bodies(recs)):
        assert r["n_tokens"] <= size
        if all(line.startswith("#") for line in body.splitlines() if line.strip()):
            # a chunk of heading lines alone: the path of its first heading (issue 17, item 4)
            first = next(i for i, h in enumerate(full) if body.lstrip("# ").startswith(h[:20]))
            assert r["headings"] == full[:first + 1]
        else:
            assert r["headings"] == full
    if size == 128:
        holder = [r for r in recs if "The main pump" in r["text"]][0]
        for h in full:
            assert h in holder["text"]
        assert "Both standby pumps" in holder["text"]


# ---------------------------------------------------------------- BR-25
def test_br25_bom_before_first_heading(tmp_path):
    recs, doc = chunk_case("BR-25-bom-heading.md", strategy="section", chunk_size=128, overlap=0)
    check_records(recs, CASES, tmp_path)
    assert doc[0] == "#"
    assert len(recs) == 2
    assert recs[0]["headings"] == ["Visitor guide"] and "The museum opens at ten." in recs[0]["text"]
    assert recs[1]["headings"] == ["Visitor guide", "Tickets"] and "Children under twelve" in recs[1]["text"]
    small, _ = chunk_case("BR-25-bom-heading.md", strategy="recursive", chunk_size=8, overlap=0)
    check_records(small, CASES, tmp_path)
    for r in recs + small:
        assert "\ufeff" not in r["text"] and not any("\ufeff" in h for h in r["headings"])
        if r["end"] <= doc.index("## Tickets"):
            assert r["headings"] == ["Visitor guide"]
    import chunkctl

    no_bom = chunkctl.chunk_text(doc, format="md", source="BR-25-bom-heading.md", strategy="section",
                                 chunk_size=128, overlap=0)
    def key(rs):
        return [(r["text"], r["start"], r["end"], r["headings"]) for r in rs]
    assert key(no_bom) == key(recs)


# ---------------------------------------------------------------- BR-27
def test_br27_cp1252_detected_or_given(tmp_path):
    want = ["Café", "Crème brûlée", "€", "½", "“house”", "blend™", "Straßburg", "©", "Naïve", "‘on request’", "—", "–"]
    for enc in (None, "cp1252", "windows-1252"):
        recs, doc = chunk_case("BR-27-cp1252-quotes.txt", strategy="recursive", chunk_size=32, overlap=0,
                               encoding=enc)
        check_records(recs, CASES, tmp_path)
        assert recs[0]["meta"]["encoding"] == "cp1252"
        joined = "".join(bodies(recs))
        for w in want:
            assert w in joined
        assert not any(0x80 <= ord(c) <= 0x9F or c == "\ufffd" for c in joined)


def test_br27_forced_utf8_fails_with_the_byte_offset():
    p = run_cli("chunk", str(CASES / "BR-27-cp1252-quotes.txt"), "--encoding", "utf-8")
    assert p.returncode == 1
    err = p.stderr.decode()
    assert "BR-27-cp1252-quotes.txt" in err and "byte 11" in err and "Traceback" not in err
    assert p.stdout == b""


def test_a_forced_encoding_that_fails_on_a_byte_order_mark_names_the_marked_one():
    # helper-65: UTF-16 with its BOM, forced as utf-8, was told to try cp1252
    from chunkctl.errors import LoaderError
    from chunkctl.loaders.decode import decode_bytes

    for data, hint in [("Hi there\n".encode("utf-16"), "utf-16 byte order mark: try --encoding utf-16 or"),
                       ("Hi there\n".encode("utf-32"), "utf-32 byte order mark: try --encoding utf-32 or"),
                       (b"caf\xe9\n", "try --encoding cp1252 or")]:
        with pytest.raises(LoaderError) as caught:
            decode_bytes(data, "x.txt", "utf-8")
        assert hint in caught.value.reason, caught.value.reason


# ---------------------------------------------------------------- BR-30
@pytest.mark.parametrize("strategy,size,overlap", [("recursive", 12, 0), ("fixed", 2, 1), ("recursive", 256, 0),
                                                   ("fixed", 2, 0)])
def test_br30_blank_pages_give_no_chunks(tmp_path, strategy, size, overlap):
    recs, doc = chunk_case("BR-30-blank-pages.txt", strategy=strategy, chunk_size=size, overlap=overlap)
    check_records(recs, CASES, tmp_path)
    assert [r["chunk_index"] for r in recs] == list(range(len(recs)))
    for r in recs:
        assert r["text"].strip()
        s = r["start"]
        assert not doc[s].isspace() or (doc[s] == " " and not doc[s + 1].isspace())
        assert r["page_start"] not in (2, 4)
    for phrase, page in [("Inspection", 1), ("The boiler", 1), ("Second", 3), ("thermostat", 3), ("Signed", 5)]:
        holders = [r for r in recs if phrase in r["text"]]
        for r in holders:
            assert r["page_start"] <= page <= r["page_end"]
            if r["text"][len(r["prefix"]):].startswith(phrase):
                assert r["page_start"] == page
    if size == 256:
        assert recs[0]["page_start"] == 1 and recs[-1]["page_end"] == 5


# ---------------------------------------------------------------- BR-31
SENT_STARTS = [0, 52, 128, 188, 246, 314, 360]
SENT_ENDS = [51, 127, 187, 245, 313, 359, 396]


@pytest.mark.parametrize("size,overlap,expected", [(24, 0, [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 6)]),
                                                   (48, 0, [(0, 1), (2, 3), (4, 6)]),
                                                   (48, 22, None)])
def test_br31_sentences_and_abbreviations(tmp_path, size, overlap, expected):
    recs, doc = chunk_case("BR-31-abbreviations.txt", strategy="sentence", chunk_size=size, overlap=overlap)
    check_records(recs, CASES, tmp_path)
    for r in recs:
        assert r["start"] in SENT_STARTS and r["end"] in SENT_ENDS
    if expected is not None:
        assert [(SENT_STARTS.index(r["start"]), SENT_ENDS.index(r["end"])) for r in recs] == expected
    else:
        for a, b in zip(recs, recs[1:]):
            last = max(i for i, s in enumerate(SENT_STARTS) if s < a["end"])
            assert b["start"] == SENT_STARTS[last]
            assert b["end"] > a["end"]
