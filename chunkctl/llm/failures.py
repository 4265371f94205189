"""LLMFailure: model calls that failed without failing the document, grouped into one line per reason; no network."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

_LIST_AT_MOST = 12


@dataclass(frozen=True)
class LLMFailure:
    """Model calls of one document that failed for one reason; `str()` is the line for `--errors`.

    Attributes:
        source: the document's `source`.
        task: "context", "summary" or "sections".
        where: which chunks (output `chunk_index` values) or character spans were affected.
        reason: why, in one line (HTTP status, timeout, unusable answer); never holds the API key.
        outcome: what the records hold instead.
    """

    source: str
    task: str
    where: str
    reason: str
    outcome: str = ""

    def __str__(self) -> str:
        tail = f"; {self.outcome}" if self.outcome else ""
        return f"{self.source}: {self.task} failed for {self.where}: {self.reason}{tail}"


def _listing(what: tuple[str, str], items: list) -> str:
    shown = ", ".join(str(x) for x in items[:_LIST_AT_MOST])
    more = f", … ({len(items)} in all)" if len(items) > _LIST_AT_MOST else ""
    return f"{what[len(items) > 1]} {shown}{more}"


def grouped(source: str, task: str, what: tuple[str, str], failed: Sequence[tuple[object, str]], outcome: str
             ) -> list[LLMFailure]:
    """One LLMFailure per distinct reason, listing the affected items in order (`what`: singular, plural)."""
    by_reason: dict[str, list] = {}
    for item, reason in failed:
        by_reason.setdefault(reason, []).append(item)
    return [LLMFailure(source, task, _listing(what, items), reason, outcome) for reason, items in by_reason.items()]


def section_failures(source: str, failed: list[tuple[tuple[int, int], str]]) -> list[LLMFailure]:
    """LLMFailures for windows the `llm` strategy got no section starts for (it cut them at headings only)."""
    spans = [(f"{a}-{b}", reason) for (a, b), reason in failed]
    return grouped(source, "sections", ("characters", "characters"), spans, "cut at headings only there")


