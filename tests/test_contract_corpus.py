"""Every strategy over the whole shared corpus (all formats) and ../shared/tools/check_chunks.py: 0 violations.

Documents are loaded once per test session and chunked in-process; the checker runs
in-process too, reading pdf/html document text from files written once from the same
`load()` that `chunkctl extract` prints (tests/test_cli.py and the pdf/html corpus
tests check that command end to end through the real CLI).
"""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from chunkctl.chunking import STRATEGIES
from chunkctl.config import ChunkConfig
from chunkctl.errors import ChunkctlError
from chunkctl.loaders import LOADERS
from chunkctl.pipeline import chunk_records, discover, load
from tests.conftest import CORPUS, check_records, needs_shared

pytestmark = needs_shared()

ALLOW_MISSING = ["zero-bytes.pdf", "truncated-mid-stream.pdf", "encrypted-password-test.pdf",
                 "scanned-jbig2-no-text-rot270.pdf"]


def _runnable(name: str) -> bool:
    """Registered strategies that run here with no model endpoint (llm needs one; semantic an extra)."""
    if name == "llm":
        return False
    try:
        STRATEGIES[name].ready(ChunkConfig(strategy=name))
    except ChunkctlError:
        return False
    return True


# Every registered strategy at 256/32 (a new strategy is covered without anyone adding it
# here), plus the edge settings of the two that every other one builds on.
CONFIGS = [(name, 256, 32) for name in STRATEGIES if _runnable(name)] + [
    ("recursive", 128, 16), ("recursive", 512, "15%"), ("fixed", 64, 0), ("hierarchical", 128, 16)]
FORMATS = [f for f in LOADERS if (CORPUS / f).is_dir()]  # a new format without a corpus folder is covered by the property tests


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """{format: [Document]} for every corpus file that loads, and an extract command over cached texts."""
    cache = tmp_path_factory.mktemp("extracted")
    docs = {}
    for fmt in FORMATS:
        docs[fmt] = []
        for item in discover([str(CORPUS / fmt)]).inputs:
            try:
                doc = load(item.path, source=item.source)
            except ChunkctlError:
                continue
            docs[fmt].append(doc)
            if fmt in ("pdf", "html"):
                (cache / item.source).write_bytes(doc.text.encode("utf-8", "surrogatepass"))
    extract = "sh -c " + shlex.quote(f'cat "{cache}/$(basename "$0")"')
    return docs, extract


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("strategy,size,overlap", CONFIGS)
def test_corpus_passes_the_contract_checker(tmp_path, corpus, fmt, strategy, size, overlap):
    docs, extract = corpus
    config = ChunkConfig(strategy=strategy, chunk_size=size, overlap=overlap)
    records = [r for doc in docs[fmt] for r in chunk_records(doc, config)]
    # The html phrases of encodings.json are checked on whole pages in test_html_corpus.py: one
    # of them is an invisible skip link, which the main-content default leaves out.
    phrases = () if fmt == "html" else ("--phrases", str(CORPUS / "encodings.json"))
    report = check_records(records, CORPUS / fmt, tmp_path, "--expect-all", *phrases,
                           "--allow-missing", *ALLOW_MISSING, extract_cmd=extract)
    assert report.splitlines()[-1].startswith("OK")


@pytest.mark.parametrize("name", ["html/winfuture-de-latin1.html", "pdf/tracemonkey-two-column-paper.pdf"])
def test_extract_command_prints_what_load_returns(name):
    p = subprocess.run([sys.executable, "-m", "chunkctl", "extract", str(CORPUS / name)], capture_output=True)
    assert p.returncode == 0
    assert p.stdout == load(CORPUS / name).text.encode("utf-8")
