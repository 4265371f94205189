"""The whole shared corpus through the real CLI and ../shared/tools/check_chunks.py: 0 violations."""

from __future__ import annotations

import pytest

from tests.conftest import CORPUS, needs_shared, run_checker, run_cli

pytestmark = needs_shared()

SETTINGS = [("128", "16"), ("256", "32"), ("512", "15%")]
ALLOW_MISSING = ["zero-bytes.pdf", "truncated-mid-stream.pdf", "encrypted-password-test.pdf",
                 "scanned-jbig2-no-text-rot270.pdf"]


def _formats():
    from chunkctl.loaders import LOADERS

    return [f for f in ("txt", "md", "html", "pdf") if f in LOADERS]


@pytest.mark.parametrize("fmt", _formats())
@pytest.mark.parametrize("strategy", ["recursive", "fixed", "sentence", "section"])
@pytest.mark.parametrize("size,overlap", SETTINGS)
def test_corpus_passes_the_contract_checker(tmp_path, fmt, strategy, size, overlap):
    if strategy in ("sentence", "section") and (size, overlap) != ("256", "32"):
        pytest.skip("one setting is enough for these strategies; recursive and fixed get all three")
    out = tmp_path / "out.jsonl"
    p = run_cli("chunk", str(CORPUS / fmt), "--strategy", strategy, "--chunk-size", size, "--overlap", overlap,
                "-o", str(out), "--quiet", timeout=600)
    assert p.returncode in (0, 1), p.stderr.decode()
    rc, report = run_checker(out, CORPUS / fmt, "--expect-all", "--phrases", str(CORPUS / "encodings.json"),
                             "--allow-missing", *ALLOW_MISSING)
    assert rc == 0, report
    assert report.splitlines()[-1].startswith("OK")
