"""The command line: typer and rich live here only; each command wires library calls and maps errors to exit codes."""

from __future__ import annotations

from chunkctl.cli.app import app, entry_point, run

__all__ = ["app", "entry_point", "run"]
