"""Tokenizer seam: offline resolution, exact counts from the token table, safe split points."""

from __future__ import annotations

import random
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkctl.errors import TokenizerError
from chunkctl.tokenizers import _SAFE, get_tokenizer, stable_split

ALPHABET = st.sampled_from(
    list("abcXYZ019 .,;:'\"!?-_/()[]{}#*|`~") + ["\n", "\r", "\r\n", "\t", "\f", "  ", "\u00a0", "\u3000",
    "中", "文", "。", "，", "！", "é", "e\u0301", "ß", "Ж", "λ", "ا", "🚀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "가", "\u1100\u1161\u11a8",
    "'s", "'ll", "...", "—", "“", "”", "’", "1234567", "https://x.y/z",
    # letters newer than Python's Unicode tables (15.0-17.0): the `regex` module may class
    # them as letters where tiktoken's pre-tokenizer does not (CJK Ext H/I/J, Kawi, Kannada)
    "\U00031350", "\U0002ebf0", "\U000323b0", "\U00011f04", "\u0cf3", "word\U000323b0\"a"]
)
TEXTS = st.lists(ALPHABET, min_size=1, max_size=80).map("".join)


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base"])
def tok(request):
    return get_tokenizer(request.param)


def test_offline_encodings_load_and_count():
    cl = get_tokenizer("cl100k_base")
    assert cl.name == "cl100k_base"
    assert cl.encode("hello world") == [15339, 1917]
    o2 = get_tokenizer("o200k_base")
    assert o2.encode("hello world") == [24912, 2375]
    assert get_tokenizer("gpt-4o").name == "o200k_base"


def test_unknown_tokenizer_is_a_clear_error(tmp_path):
    with pytest.raises(TokenizerError, match="unknown tokenizer"):
        get_tokenizer("no_such_encoding")
    with pytest.raises(TokenizerError, match="not found"):
        get_tokenizer(str(tmp_path / "missing.tiktoken"))
    bad = tmp_path / "bad.tiktoken"
    bad.write_bytes(b"not base64 at all\n")
    with pytest.raises(TokenizerError):
        get_tokenizer(str(bad))


def test_local_tiktoken_file_counts_like_the_named_encoding(tmp_path):
    import base64

    enc = get_tokenizer("cl100k_base").encoding
    lines = [base64.b64encode(tok) + b" " + str(rank).encode() for tok, rank in enc._mergeable_ranks.items()]
    path = tmp_path / "my-cl100k.tiktoken"
    path.write_bytes(b"\n".join(lines) + b"\n")
    local = get_tokenizer(str(path))
    assert local.name == str(path)
    text = "Local files use the cl100k pattern: it's 2026, über-fast!"
    assert local.encode(text) == enc.encode_ordinary(text)


def test_chunk_ids_follow_a_tokenizer_files_content_not_how_its_path_is_written(tmp_path, monkeypatch):
    """helper-99: `--tokenizer tok.tiktoken` and `--tokenizer ./tok.tiktoken` gave the same records
    with other ids (a store upserting by id got each chunk twice); a file changed in place kept
    them."""
    import base64

    import chunkctl

    enc = get_tokenizer("cl100k_base").encoding
    lines = [base64.b64encode(tok) + b" " + str(rank).encode() for tok, rank in enc._mergeable_ranks.items()]
    (tmp_path / "tok.tiktoken").write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.chdir(tmp_path)
    text = "Pumps are logged daily. Valves are checked weekly.\n\nSheets are kept for two years."

    def ids(tokenizer: str) -> list[str]:
        return [r["id"] for r in chunkctl.chunk_text(text, "txt", tokenizer=tokenizer, chunk_size=8, overlap=0)]

    spelled = [ids(p) for p in ("tok.tiktoken", "./tok.tiktoken", str(tmp_path / "tok.tiktoken"))]
    assert spelled[0] == spelled[1] == spelled[2] and len(spelled[0]) > 1
    (tmp_path / "tok.tiktoken").write_bytes(b"\n".join(lines[:-1]) + b"\n")  # (another file, same path)
    assert ids("tok.tiktoken") != spelled[0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, data=st.data())
def test_encoding_splits_exactly_at_safe_points(tok, text, data):
    """encode(t) == encode(t[:x]) + encode(t[x:]) at every safe, stable point x (the claim `TokenTable.count` rests on)."""
    safe = _SAFE[tok.name]
    full = tok.encode(text)
    for m in safe.finditer(text):
        x = m.end()
        if not stable_split(text, x):
            continue
        assert tok.encode(text[:x]) + tok.encode(text[x:]) == full, (text, x)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(TEXTS, min_size=1, max_size=6).map(" ".join), data=st.data())
def test_table_count_is_exact_for_any_span_and_prefix(tok, text, data):
    table = tok.table(text)
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, len(text)))
    prefix = data.draw(st.sampled_from(["", "A > B\n\n", "Why? > /usr\n\n", "| a | b |\n| --- | --- |\n"]))
    assert table.count(a, b, prefix) == len(tok.encode(prefix + text[a:b]))


def test_table_count_on_real_text_matches_encoding(tok):
    from tests.conftest import CORPUS

    text = (CORPUS / "txt" / "rfc791-internet-protocol.txt").read_text("utf-8")[:60000]
    text += (CORPUS / "md" / "fastapi-async-ja.md").read_text("utf-8")[:20000]
    table = tok.table(text)
    assert table.n_tokens == len(tok.encode(text))
    rng = random.Random(7)
    for _ in range(300):
        a = rng.randrange(len(text))
        b = min(len(text), a + rng.randrange(1, 4000))
        assert table.count(a, b) == len(tok.encode(text[a:b]))


def test_incomplete_vocabulary_is_refused(tmp_path):
    bad = tmp_path / "tiny.tiktoken"
    bad.write_bytes(b"YQ== 0\nYg== 1\n")  # only "a" and "b": tiktoken would panic on "hello"
    with pytest.raises(TokenizerError, match="not a complete byte-level BPE vocabulary"):
        get_tokenizer(str(bad))


def test_table_built_in_pieces_equals_the_whole_texts_table(tok, monkeypatch):
    """A long document is tokenized piece by piece (bounded encoder memory): same starts."""
    import numpy as np

    import chunkctl.tokenizers as tokenizers
    from tests.conftest import CORPUS

    text = (CORPUS / "txt" / "sanguo-yanyi-zh-crlf.txt").read_text("utf-8")[:30000]
    text += (CORPUS / "md" / "fastapi-async-ja.md").read_text("utf-8")[:20000]
    text += (CORPUS / "txt" / "rfc791-internet-protocol.txt").read_text("utf-8")[:30000]
    whole = tok.table(text).starts
    monkeypatch.setattr(tokenizers, "TABLE_PIECE", 701)
    pieces = list(tok._pieces(text))
    assert len(pieces) > 50 and pieces[0][0] == 0 and pieces[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))
    assert np.array_equal(tok.table(text).starts, whole)
    assert whole[-1] == len(text) and len(whole) - 1 == len(tok.encode(text))


def test_parsed_bpe_files_are_cached_checked_and_optional(tmp_path, monkeypatch):
    """The parsed copy is read back (start-up), a damaged copy, another file's copy, or
    something that is not a regular file at its path is ignored, an unwritable folder costs
    nothing, and the cache can be turned off."""
    import hashlib
    import marshal
    import os

    import chunkctl.tokenizers as tokenizers

    data = b"YQ== 0\nYg== 1\nYWI= 2\n"
    digest = hashlib.sha256(data).hexdigest()
    # the ranks, and per rank the characters that start in the token (int16 array bytes)
    want = ({b"a": 0, b"b": 1, b"ab": 2}, array("h", [1, 1, 2]).tobytes())
    folder = tmp_path / "cache"
    monkeypatch.setenv(tokenizers.BPE_CACHE_ENV, str(folder))
    assert tokenizers._parse_bpe(data, "x") == want
    entry = folder / f"{digest}.v2.marshal"
    assert entry.is_file() and [p.name for p in folder.iterdir()] == [entry.name]
    # read back: a sound entry is what the next parse returns
    other = marshal.dumps(({b"z": 7}, bytes(16)))  # ranks 0-7: 16 bytes
    entry.write_bytes(tokenizers._bpe_check(digest, other) + other)
    assert tokenizers._parse_bpe(data, "x") == ({b"z": 7}, bytes(16))
    # an entry of another layout (the ranks alone, as 0.1.6 wrote them), or a table of the
    # wrong size: written again
    for old in (marshal.dumps(want[0]), marshal.dumps((want[0], bytes(4)))):
        entry.write_bytes(tokenizers._bpe_check(digest, old) + old)
        assert tokenizers._read_bpe_cache(digest) is None
        assert tokenizers._parse_bpe(data, "x") == want
        assert tokenizers._read_bpe_cache(digest) == want
    # another file's entry copied under this name (its checksum names its own file): ignored
    entry.write_bytes(tokenizers._bpe_check("0" * 64, other) + other)
    assert tokenizers._parse_bpe(data, "x") == want
    # damaged: ignored, parsed again and rewritten
    entry.write_bytes(entry.read_bytes()[:-1] + b"\x00")
    assert tokenizers._parse_bpe(data, "x") == want
    assert tokenizers._read_bpe_cache(digest) == want
    # an empty vocabulary with a sound checksum: ignored
    empty = marshal.dumps(({}, b""))
    entry.write_bytes(tokenizers._bpe_check(digest, empty) + empty)
    assert tokenizers._read_bpe_cache(digest) is None
    # a FIFO at the entry's path: not read (reading would wait for a writer forever)
    entry.unlink()
    os.mkfifo(entry)
    assert tokenizers._read_bpe_cache(digest) is None
    assert tokenizers._parse_bpe(data, "x") == want
    entry.unlink()
    # a folder that cannot be made (a file is in the way): parsed, nothing raised
    blocked = tmp_path / "file"
    blocked.write_text("x")
    monkeypatch.setenv(tokenizers.BPE_CACHE_ENV, str(blocked / "cache"))
    assert tokenizers._parse_bpe(data, "x") == want
    # XDG: a relative XDG_CACHE_HOME is ignored (~/.cache then); no home folder, no cache
    monkeypatch.delenv(tokenizers.BPE_CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert tokenizers._bpe_cache_dir() == tmp_path / "home" / ".cache" / "chunkctl" / "tokenizers"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tokenizers._bpe_cache_dir() == tmp_path / "xdg" / "chunkctl" / "tokenizers"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/")
    assert tokenizers._bpe_cache_dir() is None
    # turned off: nothing written
    for off in tokenizers.BPE_CACHE_OFF:
        monkeypatch.setenv(tokenizers.BPE_CACHE_ENV, off.upper())
        assert tokenizers._bpe_cache_dir() is None
    monkeypatch.setenv(tokenizers.BPE_CACHE_ENV, "0")
    written = folder / f"{digest}.v2.marshal"
    assert not written.exists()
    assert tokenizers._parse_bpe(data, "x") == want and not written.exists()


def test_bpe_files_with_repeated_tokens_or_ranks_are_refused(tmp_path):
    """tiktoken panics (a long native traceback) on two tokens of one rank: a one-line error."""
    import base64

    enc = get_tokenizer("cl100k_base").encoding
    lines = [base64.b64encode(tok) + b" " + str(rank).encode() for tok, rank in enc._mergeable_ranks.items()]
    same_rank = tmp_path / "same-rank.tiktoken"
    same_rank.write_bytes(b"\n".join([lines[0], lines[1].split()[0] + b" 0", *lines[2:]]) + b"\n")
    with pytest.raises(TokenizerError, match="two tokens share a rank"):
        get_tokenizer(str(same_rank))
    same_token = tmp_path / "same-token.tiktoken"
    same_token.write_bytes(b"\n".join([*lines, lines[5].split()[0] + b" 999999"]) + b"\n")
    with pytest.raises(TokenizerError, match="a token is listed twice"):
        get_tokenizer(str(same_token))
    # helper-117: a rank past 64 bits was tiktoken's "Python int too large to convert to C long"
    huge = tmp_path / "huge-rank.tiktoken"
    huge.write_bytes(b"\n".join([*lines[:-1], lines[-1].split()[0] + b" 99999999999999999999"]) + b"\n")
    with pytest.raises(TokenizerError, match="a rank past 2,147,483,647"):
        get_tokenizer(str(huge))
    with pytest.raises(TokenizerError, match=f"tokenizer file {tmp_path} is a folder"):
        get_tokenizer(str(tmp_path))


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_lead_table_counts_the_characters_starting_in_each_token(name):
    """The table of characters per token (from the cache, or computed when the tokenizer is
    made without it) equals the count of non-continuation bytes of each token's bytes, one by
    one; ranks listed out of order give the same table."""
    import numpy as np

    from chunkctl.tokenizers import Tokenizer, _lead_of_ranks

    base = get_tokenizer(name)
    fresh = Tokenizer(base.name, base.encoding, name)
    enc = base.encoding
    want = np.zeros(enc.n_vocab, dtype=np.int16)
    for token, rank in enc._mergeable_ranks.items():
        want[rank] = sum(1 for b in token if b & 0xC0 != 0x80)
    for token, rank in enc._special_tokens.items():
        want[rank] = len(token)
    assert np.array_equal(fresh._lead_bytes(), want)
    assert np.array_equal(base._lead_bytes(), want)
    assert list(fresh._lead_array()) == want.tolist()
    shuffled = dict(reversed(list(enc._mergeable_ranks.items())))
    assert _lead_of_ranks(shuffled) == _lead_of_ranks(enc._mergeable_ranks)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(TEXTS, min_size=0, max_size=8).map(" ".join), data=st.data())
def test_small_table_is_the_numpy_table(tok, text, data):
    """Under SMALL_TABLE characters the table is built without numpy (`array`, `bisect`):
    the same starts, and the same answers to every question the packer asks."""
    from chunkctl.tokenizers import SMALL_TABLE, SmallTokenTable

    assert len(text) < SMALL_TABLE
    small, large = tok._small_table(text), tok._large_table(text)
    assert isinstance(tok.table(text), SmallTokenTable)
    assert list(small.starts) == large.starts.tolist()
    positions = data.draw(st.lists(st.integers(0, len(text)), max_size=20))
    spans = [(min(a, b), max(a, b)) for a, b in zip(positions, reversed(positions))]
    assert small.search_many(positions) == large.search_many(positions)
    assert small.estimate_many(spans) == large.estimate_many(spans)
    for p in positions:
        assert small.search(p) == large.search(p) and small.search(p, "right") == large.search(p, "right")
        assert small.index(p) == large.index(p) and small.tokens_before(p) == large.tokens_before(p)
        assert small.char(small.index(p) + 1) == large.char(large.index(p) + 1)
    for a, b in spans:
        assert small.estimate(a, b, "right") == large.estimate(a, b, "right")
        assert small.count(a, b) == large.count(a, b) == tok.count(text[a:b])


def test_table_switches_to_numpy_at_the_small_table_limit(tok):
    from chunkctl.tokenizers import SMALL_TABLE, SmallTokenTable

    line = "Tokens are counted by the encoder. " * 40 + "\n"
    text = (line * (SMALL_TABLE // len(line) + 1))[:SMALL_TABLE]
    assert not isinstance(tok.table(text), SmallTokenTable)
    assert isinstance(tok.table(text[:-1]), SmallTokenTable)
    assert list(tok.table(text[:-1]).starts) == tok._large_table(text[:-1]).starts.tolist()


@pytest.mark.parametrize("extra", ["sparse", "long"])
def test_local_vocabularies_a_dense_table_does_not_suit(tmp_path, monkeypatch, extra):
    """A local .tiktoken file with one rank of 300,000,000 (a dense per-rank table would be
    600 MB, written to the cache on every run), or with a token of 40,000 characters (over
    int16): no dense table, numpy's (untouched zeros) builds every token table, counts exact.
    A helper's break run found both in the first version of the small tables."""
    import base64

    from chunkctl.tokenizers import SmallTokenTable, _lead_of_ranks

    monkeypatch.setenv("CHUNKCTL_TOKENIZER_CACHE", str(tmp_path / "cache"))
    enc = get_tokenizer("cl100k_base").encoding
    lines = [base64.b64encode(tok) + b" " + str(rank).encode() for tok, rank in enc._mergeable_ranks.items()]
    if extra == "sparse":
        lines.append(base64.b64encode(b"zzzzqqqq") + b" 300000000")
    else:
        lines.append(base64.b64encode(b"a" * 40000) + b" " + str(len(lines)).encode())
    path = tmp_path / f"{extra}.tiktoken"
    path.write_bytes(b"\n".join(lines) + b"\n")
    get_tokenizer.cache_clear()
    try:
        tok = get_tokenizer(str(path))
        assert _lead_of_ranks(tok.encoding._mergeable_ranks) == b"" and tok._lead_array() is None
        text = "Tokens are counted exactly, " * 20 + "a" * 50 + " zzzzqqqq end."
        table = tok.table(text)
        assert not isinstance(table, SmallTokenTable)
        assert table.n_tokens == len(tok.encode(text)) and table.count(0, len(text)) == tok.count(text)
        import hashlib

        entry = tmp_path / "cache" / f"{hashlib.sha256(path.read_bytes()).hexdigest()}.v2.marshal"
        assert entry.stat().st_size < 4 << 20  # the ranks, no dense table
        again = get_tokenizer.__wrapped__(str(path))  # read back from the cache
        assert again._lead_array() is None and again.table(text).starts.tolist() == table.starts.tolist()
    finally:
        get_tokenizer.cache_clear()


def test_a_run_of_small_files_never_imports_numpy(tmp_path):
    """Start-up (issue 19): small texts get `SmallTokenTable`s and blingfire's offsets are
    mapped without numpy, so `chunkctl chunk` of small files (Markdown with front matter,
    German and Japanese text cut into sentences, text, HTML) does not import numpy (about
    75 ms of a 0.3 s run)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    (tmp_path / "ja.md").write_text("# 見出し\n\n" + "今日は雨が降っています。駅まで歩きました。" * 40 + "\n", "utf-8")
    (tmp_path / "de.md").write_text("# Titel\n\n" + "Der Zug fährt über die Brücke. Die Bäckerei öffnet früh. " * 30
                                    + "\n", "utf-8")  # blingfire, with offsets of a non-ASCII text
    for strategy in ("recursive", "sentence", "hierarchical"):
        code = ("import sys\n"
                "from chunkctl.cli.app import run\n"
                f"sys.argv = ['chunkctl', 'chunk', 'examples/backup-guide.md', 'examples/returns-policy.txt', 'examples/on-call-runbook.html', "
                f"{str(tmp_path / 'ja.md')!r}, {str(tmp_path / 'de.md')!r}, '--strategy', {strategy!r}, "
                f"'--jobs', '1', '-o', {str(tmp_path / 'out.jsonl')!r}]\n"
                "try:\n    run()\nexcept SystemExit as exc:\n    print(exc.code, 'numpy' in sys.modules)\n")
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.stdout.split() == ["0", "False"], (strategy, done.stdout, done.stderr)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.lists(TEXTS, min_size=0, max_size=12).map(" ".join), piece=st.sampled_from([16, 64, 1 << 18]),
       long_run=st.sampled_from(["", "x", "-", "7"]))
def test_a_one_pass_table_is_the_table(tok, text, piece, long_run):
    """A table from one encoder call over the whole text (`pass_ids`, run on a thread by a
    one-job run) has the starts of `table`, which cuts the text into ranges at safe points
    (TABLE_PIECE made small here, so short texts are cut too); a text holding a stretch
    without a safe point (a long run of one character) is never one pass."""
    import chunkctl.tokenizers as T

    if long_run:
        text = text[: len(text) // 2] + long_run * T.LONG_PIECE + text[len(text) // 2:]
        assert not tok.one_pass(text)
        return
    assert tok.one_pass(text)
    ids = tok.pass_ids(text)
    one = tok.table_of_ids(text, ids)
    saved = T.TABLE_PIECE
    T.TABLE_PIECE = piece
    try:
        ranges = list(tok._ranges(text))
        large = tok._large_table(text).starts.tolist()
    finally:
        T.TABLE_PIECE = saved
    assert sum(b - a for a, b, _ in ranges) == len(text)
    assert list(one.starts) == list(tok.table(text).starts) == large
    assert type(one) is type(tok.table(text))


def test_one_pass_ids_of_large_texts_are_numpy_and_a_hugging_face_tokenizer_never_one_pass(tok):
    import numpy as np

    from chunkctl.tokenizers import SMALL_TABLE, HFTokenizer

    text = ("Sentence with words, numbers 1234 and ünïcödé. " * 2000)[: 3 * SMALL_TABLE]
    ids = tok.pass_ids(text)
    assert isinstance(ids, np.ndarray) and ids.tolist() == tok.encode(text)
    assert tok.table_of_ids(text, ids).starts.tolist() == tok.table(text).starts.tolist()
    import chunkctl.tokenizers as T

    saved, T.TABLE_PIECE = T.TABLE_PIECE, 256
    try:
        assert len(list(tok._ranges(text))) > 100  # cut into ranges, encoded one by one
        assert tok._large_table(text).starts.tolist() == tok.table_of_ids(text, ids).starts.tolist()
    finally:
        T.TABLE_PIECE = saved
    with pytest.raises(AssertionError):
        tok.table_of_ids(text + "!", ids)  # ids of another text
    assert HFTokenizer.table is not type(tok).table
    hf = object.__new__(HFTokenizer)
    assert not hf.one_pass("any text")


@settings(max_examples=300, deadline=None)
@given(gaps=st.lists(st.one_of(st.integers(0, 3), st.integers(0, 300), st.integers(0, 70_000)), max_size=200),
       group=st.sampled_from([1, 2, 5, 32]), cuts=st.lists(st.integers(0, 200), max_size=6), data=st.data())
def test_packed_starts_answer_as_the_unpacked_array(gaps, group, cuts, data):
    """A token table packed in groups (`PackedStarts`: 1 byte a token while a group spans
    under 256 characters, widened when one spans more), built from slices of any length, gives
    the starts and every search numpy's `searchsorted` gives on the int array (4 bytes a token)."""
    import numpy as np

    import chunkctl.tokenizers as tokenizers

    saved = tokenizers.TABLE_GROUP
    tokenizers.TABLE_GROUP = group
    try:
        starts = np.cumsum([0, *gaps], dtype=np.int64)
        packed = tokenizers.PackedStarts()
        at = 0
        for cut in sorted(cuts) + [len(starts)]:
            packed.extend(starts[at:max(at, cut)])
            at = max(at, cut)
        packed.finish()
        assert len(packed) == len(starts) and packed.tolist() == starts.tolist()
        assert [packed[i] for i in range(len(starts))] == starts.tolist()
        widest = max((int(starts[i] - starts[i // group * group]) for i in range(len(starts))), default=0)
        assert packed.delta.itemsize == (1 if widest < 256 else 2 if widest < 65536 else 4)
        top = int(starts[-1]) + 2
        positions = data.draw(st.lists(st.integers(0, top), max_size=30)) + [int(x) for x in starts[:10]]
        for side in ("left", "right"):
            want = np.searchsorted(starts, positions, side=side).tolist()
            assert [packed.search(p, side) for p in positions] == want
            assert packed.search_array(np.array(positions, dtype=np.int64), side).tolist() == want
    finally:
        tokenizers.TABLE_GROUP = saved


def test_token_tables_of_large_texts_take_about_a_byte_a_token(tok):
    # an int32 array took 4 bytes a token: 4x a file of one-letter pages at its run's peak
    from chunkctl.tokenizers import PackedTokenTable

    text = "a\f" * 200_000 + " ".join(["word"] * 50_000)
    table = tok.table(text)
    assert isinstance(table, PackedTokenTable)
    held = table.starts.base.itemsize * len(table.starts.base) + table.starts.delta.itemsize * len(table.starts)
    assert table.starts.delta.itemsize == 1 and held / table.n < 1.2
    assert table.n == len(tok.encode(text))
