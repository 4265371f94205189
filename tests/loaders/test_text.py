"""txt loader: decoding, paragraphs, clause headings, no newline translation."""

from __future__ import annotations

import pytest

from chunkctl.config import ChunkConfig
from chunkctl.errors import ConfigError, LoaderError
from chunkctl.loaders.decode import decode
from chunkctl.loaders.text import load_text
from chunkctl.model import BlockKind
from tests.conftest import CORPUS, needs_shared


def load(data: bytes, **kw):
    return load_text(data, "t.txt", ChunkConfig(**kw))


def spans(doc):
    return [(b.kind.value, doc.text[b.start:b.end]) for b in doc.blocks]


def test_paragraphs_keep_crlf_and_offsets():
    doc = load(b"First line\r\nstill first.\r\n\r\n  \r\nSecond.\r\n")
    assert doc.text == "First line\r\nstill first.\r\n\r\n  \r\nSecond.\r\n"
    assert spans(doc) == [("paragraph", "First line\r\nstill first."), ("paragraph", "Second.")]


def test_form_feed_separates_paragraphs_and_cr_only_lines():
    doc = load(b"Page one.\rMore.\f\rPage two.\r\rEnd.")
    assert spans(doc) == [("paragraph", "Page one.\rMore."), ("paragraph", "Page two."), ("paragraph", "End.")]


def test_clause_headings_rise_and_nest():
    text = ("POLICY\n\n1. Scope\n\nThis applies.\n\n1.1 Who\nEveryone here.\n\n"
            "2. Terms\n\nTable of contents line ........ 3\n\n3 things matter and this line goes on as a sentence,\n\n"
            "Section 4 Remedies\n\nText.\n\n§ 5 Final words\n\nEnd.\n")
    doc = load(text.encode())
    heads = [(b.level, doc.text[b.start:b.end], b.headings) for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads[0] == (1, "1. Scope", ("1. Scope",))
    assert heads[1] == (2, "1.1 Who", ("1. Scope", "1.1 Who"))
    assert heads[2] == (1, "2. Terms", ("2. Terms",))
    assert [h[1] for h in heads] == ["1. Scope", "1.1 Who", "2. Terms", "Section 4 Remedies", "§ 5 Final words"]
    body = [b for b in doc.blocks if doc.text[b.start:b.end] == "Everyone here."][0]
    assert body.kind == BlockKind.PARAGRAPH and body.headings == ("1. Scope", "1.1 Who")


def test_numbers_that_do_not_rise_are_not_headings():
    doc = load(b"1. Alpha\n\nx\n\n2. Beta\n\ny\n\n1. Again\n\nz\n\n3. Gamma\n\nw\n")
    heads = [doc.text[b.start:b.end] for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads == ["1. Alpha", "2. Beta", "3. Gamma"]


def test_chinese_chapter_lines_are_headings_anywhere():
    text = "第1章 桃园结义\n话说天下大势。\n第2章 张翼德怒鞭督邮\n且说董卓。\n"
    doc = load(text.encode())
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.kind == BlockKind.HEADING] == [
        "第1章 桃园结义", "第2章 张翼德怒鞭督邮"]


def test_bom_removed_and_encoding_recorded():
    doc = load("\ufeffHello".encode("utf-8"))
    assert doc.text == "Hello" and doc.meta["encoding"] == "utf-8-sig"
    doc = load("Hé".encode("utf-16"))
    assert doc.text == "Hé" and doc.meta["encoding"] == "utf-16"


def test_binary_and_bad_forced_encoding_are_errors():
    with pytest.raises(LoaderError, match="binary file"):
        load(b"\x00\x01\x02 not text")
    with pytest.raises(LoaderError, match="cannot decode as utf-8 at byte 1"):
        load(b"a\xe9b", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a text encoding"):  # options are checked when built
        load(b"abc", encoding="klingon-8")
    with pytest.raises(LoaderError, match="unknown encoding"):  # the decoder's own guard stays
        decode(b"abc", "x.txt", forced="klingon-8")


def test_empty_file_has_no_blocks():
    doc = load(b"")
    assert doc.text == "" and doc.blocks == []
    assert load(b"  \n\n\t \f ").blocks == []


@needs_shared()
@pytest.mark.parametrize("name,encoding", [("latin1-portuguese-prose.txt", "cp1252"), ("koi8r-russian.txt", "koi8-r"),
                                           ("big5-classical-chinese.txt", "big5"),
                                           ("utf8-bom-japanese-readme.txt", "utf-8-sig")])
def test_corpus_encodings(name, encoding):
    import json

    phrases = json.loads((CORPUS / "encodings.json").read_text("utf-8"))["phrases"]
    doc = load_text((CORPUS / "txt" / name).read_bytes(), name, ChunkConfig())
    assert doc.meta["encoding"] == encoding
    assert phrases[f"txt/{name}"] in doc.text


@needs_shared()
def test_legal_corpus_headings():
    doc = load_text((CORPUS / "txt" / "agpl-3.0-license.txt").read_bytes(), "agpl.txt", ChunkConfig())
    heads = [doc.text[b.start:b.end] for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads[:3] == ["0. Definitions.", "1. Source Code.", "2. Basic Permissions."]
    assert "17. Interpretation of Sections 15 and 16." in heads
    rfc = load_text((CORPUS / "txt" / "rfc791-internet-protocol.txt").read_bytes(), "rfc.txt", ChunkConfig())
    rheads = [rfc.text[b.start:b.end] for b in rfc.blocks if b.kind == BlockKind.HEADING]
    assert "1.  INTRODUCTION" in rheads and "1.1.  Motivation" in rheads
    assert not any("...." in h for h in rheads)


def test_mediawiki_heading_lines_in_plain_text():
    doc = load(b"== Scope ==\r\nApplies to all.\r\n\r\n=== Limits ===\r\nNone.\r\n")
    heads = [(b.level, b.headings) for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads == [(2, ("Scope",)), (3, ("Scope", "Limits"))]
