"""Hugging Face `tokenizer.json` files as `--tokenizer` (issue 15, item 6): exact counts, the budget, offsets.

The tokenizer files are built here with the `tokenizers` library (a WordPiece model with
BERT's normalizer, lowercasing and accent stripping, a byte-level BPE and a Unigram model
with Metaspace), trained on a small mixed-script text and saved to a temporary folder:
nothing is downloaded. Generated documents go through the ready strategies and the
record contract checker of tests/test_invariants_core.py, with the HF tokenizer as the
run's tokenizer, with and without `--count-special-tokens`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

tokenizers = pytest.importorskip("tokenizers")

import chunkctl  # noqa: E402
from chunkctl.config import ChunkConfig  # noqa: E402
from chunkctl.errors import ConfigError, MissingExtraError, TokenizerError  # noqa: E402
from chunkctl.tokenizers import HFTokenizer, get_tokenizer  # noqa: E402
from tests import test_invariants_core as core  # noqa: E402

CORPUS = [
    "The backup policy keeps data for thirty days; restore within 4 hours.",
    "Naïve café owners in Straße 3.14 read the Refund Policy, e.g. section 2.",
    "日本語の文と中文字符、한국어 그리고 мир مرحبا 🚀 👍🏽 snake_case C++ $HOME 50%",
    "# Heading\n\n- item one\n- item two\n\n| a | b |\n| --- | --- |\n| 1 | 2 |",
    "https://example.com/a?b=c Dr. Smith said: unaffable, unbelievable, reconstruction!",
] * 20


def _build(kind: str, folder: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    special = ["[UNK]", "[CLS]", "[SEP]", "[PAD]"]
    if kind == "wordpiece":
        tk = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=30))
        tk.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=True)
        tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tk.decoder = decoders.WordPiece()
        tk.train_from_iterator(CORPUS, trainers.WordPieceTrainer(vocab_size=300, special_tokens=special))
        cls, sep = tk.token_to_id("[CLS]"), tk.token_to_id("[SEP]")
        tk.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
        tk.enable_truncation(64)  # as many published files do: chunkctl must switch it off to count
    elif kind == "bpe":
        tk = Tokenizer(models.BPE())
        tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tk.decoder = decoders.ByteLevel()
        tk.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=400, special_tokens=["<s>", "</s>"],
                                                          initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        tk.post_processor = processors.RobertaProcessing(("</s>", tk.token_to_id("</s>")),
                                                         ("<s>", tk.token_to_id("<s>")))
    else:
        tk = Tokenizer(models.Unigram())
        tk.normalizer = normalizers.NFKC()
        tk.pre_tokenizer = pre_tokenizers.Metaspace()
        tk.decoder = decoders.Metaspace()
        tk.train_from_iterator(CORPUS, trainers.UnigramTrainer(vocab_size=200, special_tokens=["<unk>", "</s>"],
                                                              unk_token="<unk>"))
        tk.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    path = folder / kind / "tokenizer.json"
    path.parent.mkdir()
    tk.save(str(path))
    return path


KINDS = ["wordpiece", "bpe", "unigram"]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hf")
    return {k: _build(k, folder) for k in KINDS}


def _raw(path: Path):
    from tokenizers import Tokenizer

    tk = Tokenizer.from_file(str(path))
    tk.no_truncation()
    return tk


@pytest.mark.parametrize("kind", KINDS)
def test_counts_are_the_models_own_and_the_name_identifies_the_file(files, kind):
    path = files[kind]
    tok = get_tokenizer(str(path))
    plus = get_tokenizer(str(path) + "+special")
    assert isinstance(tok, HFTokenizer)
    assert tok.name.startswith(f"hf:{path}#") and len(tok.name.split("#")[1]) == 12
    assert plus.name == tok.name + "+special"
    raw = _raw(path)
    added = len(raw.encode("x", add_special_tokens=True).ids) - len(raw.encode("x", add_special_tokens=False).ids)
    assert added == (2 if kind != "unigram" else 1)
    long = " ".join(CORPUS)  # longer than the file's truncation length
    for text in [*CORPUS[:5], long, "  leading space", "Ünïcödé ÀÉÎ", "x" * 80]:
        assert tok.count(text) == len(raw.encode(text, add_special_tokens=False).ids)
        assert plus.count(text) == tok.count(text) + added
    assert tok.count(long) > 64, "truncation stored in the file is switched off"
    table = tok.table(long)
    assert table.n_tokens == tok.count(long) and table.starts[-1] == len(long)
    assert (table.starts[1:] >= table.starts[:-1]).all()


def test_errors_are_one_line_and_never_download(tmp_path, monkeypatch):
    with pytest.raises(TokenizerError, match="never downloads") as err:
        get_tokenizer("BAAI/bge-small-en-v1.5")
    assert "\n" not in str(err.value) and "tokenizer.json" in str(err.value)
    with pytest.raises(TokenizerError, match="tokenizer.json"):
        get_tokenizer("bge-small-en")
    bad = tmp_path / "tokenizer.json"
    bad.write_text(json.dumps({"model": {"type": "Fancy"}}))
    with pytest.raises(TokenizerError, match="not a Hugging Face tokenizer.json"):
        get_tokenizer(str(bad))
    bad.write_text("not json")
    with pytest.raises(TokenizerError, match="not JSON"):
        get_tokenizer(str(bad))
    with pytest.raises(ConfigError, match="tokenizer.json"):
        ChunkConfig(count_special_tokens=True)
    bad.write_text(json.dumps({"model": {"type": "WordPiece"}}))
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(MissingExtraError, match=r"chunkctl\[hf\]"):
        get_tokenizer.__wrapped__(str(bad))


def test_pattern_option_is_refused_for_a_tokenizer_json(files):
    with pytest.raises(TokenizerError, match="tokenizer-pattern"):
        get_tokenizer(str(files["wordpiece"]), r"\w+")


def test_the_option_changes_ids_and_leaves_other_fingerprints_alone(files):
    path = str(files["wordpiece"])
    base = ChunkConfig(tokenizer=path)
    on = base.replace(count_special_tokens=True)
    assert on.tokenizer == path + "+special" and on.fingerprint() != base.fingerprint()
    assert on.replace(count_special_tokens=False).fingerprint() == base.fingerprint()
    assert "count_special_tokens" not in ChunkConfig().to_dict(), "fingerprints of existing configs unchanged"
    text = "The backup policy keeps data for thirty days. " * 40
    a = chunkctl.chunk_text(text, tokenizer=path, chunk_size=32, overlap=0)
    b = chunkctl.chunk_text(text, tokenizer=path, chunk_size=32, overlap=0, count_special_tokens=True)
    assert {r["id"] for r in a}.isdisjoint(r["id"] for r in b)
    assert all(r["n_tokens"] <= 32 for r in a + b)
    raw = _raw(files["wordpiece"])
    assert [r["n_tokens"] for r in b] == [len(raw.encode(r["text"]).ids) for r in b]


@pytest.mark.parametrize("special", [False, True], ids=["plain", "special"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("strategy", [s for s in core.STRATEGY_NAMES if s != "semantic"] or ["recursive"])
def test_generated_documents_keep_the_record_contract(files, kind, special, strategy):
    path = str(files[kind])
    tok = get_tokenizer(path + ("+special" if special else ""))
    raw = _raw(files[kind])
    core._TOKENIZERS[tok.name] = tok  # the checker resolves meta.tokenizer through this cache

    @settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=core.st.data(), budget=core.budgets())
    def run(data, budget):
        fmt = data.draw(core.st.sampled_from(core.FORMATS))
        text = data.draw(core.documents(fmt))
        size, overlap = budget
        source = f"doc.{fmt}"
        recs = chunkctl.chunk_text(text, format=fmt, source=source, strategy=strategy, chunk_size=size,
                                   overlap=overlap, tokenizer=path, count_special_tokens=special)
        if not recs:
            return
        doc = core.document_text(text, fmt, source, recs)
        core.check_contract(recs, doc, fmt, source, strategy)  # budget, exact count, body == doc[start:end]
        for r in recs:
            assert r["meta"]["tokenizer"] == tok.name
            assert r["n_tokens"] == len(raw.encode(r["text"], add_special_tokens=special).ids)

    run()


def test_a_special_suffix_on_the_tokenizer_counts_special_tokens_from_the_command_line_and_a_file(files, tmp_path):
    # helper-101: `--tokenizer tokenizer.json+special` (or the same in chunkctl.toml) gave the records
    # of no suffix: the flag's default (false) took it off, while `chunkctl config` showed it on
    import subprocess

    from tests.conftest import CLI

    path = files["bpe"]
    doc = tmp_path / "doc.md"
    doc.write_text("# Pumps\n\nPumps are logged daily. Valves are checked weekly by the night shift.\n")

    def chunk(*args: str, cwd: Path = tmp_path) -> list[dict]:
        p = subprocess.run([*CLI, "chunk", str(doc), "--chunk-size", "16", *args], capture_output=True, cwd=cwd)
        assert p.returncode == 0, p.stderr
        return [json.loads(line) for line in p.stdout.splitlines()]

    flag = chunk("--tokenizer", str(path), "--count-special-tokens", "--no-config")
    assert chunk("--tokenizer", f"{path}+special", "--no-config") == flag
    assert chunk("--tokenizer", str(path), "--no-config") != flag
    (tmp_path / "chunkctl.toml").write_text(f'tokenizer = "{path}+special"\n')
    assert chunk() == flag
    shown = subprocess.run([*CLI, "config"], capture_output=True, cwd=tmp_path).stdout.decode()
    assert f'\ntokenizer = "{path}"  #' in shown and "\ncount-special-tokens = true  # " in shown
