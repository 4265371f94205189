"""Checks of a run's output paths before any work: nothing overwrites an input or another output; no I/O but stat."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Protocol

from chunkctl.errors import ConfigError
from chunkctl.output.writer import mirror_path


class _Input(Protocol):
    path: str | None
    source: str


def check_output_flags(output: str | None, output_dir: str | None, errors: str | None) -> None:
    """Refuse output options that cannot go together, before any input is read.

    Raises:
        ConfigError: `-o` with `--output-dir`, or `--errors` on standard output.
    """
    if output and output_dir:
        raise ConfigError("give -o FILE or --output-dir DIR, not both")
    if errors == "-":
        raise ConfigError("--errors needs a file name: standard output carries the records")


def check_outputs(output: str | None, output_dir: str | None, errors: str | None, inputs: Iterable[_Input]) -> None:
    """Refuse outputs that would overwrite an input or each other, or collide under `output_dir`.

    Args:
        output: the `-o` file (`-` or None: standard output).
        output_dir: the `--output-dir` folder, or None.
        errors: the `--errors` file, or None.
        inputs: the run's inputs (`path`, `source`).

    Raises:
        ConfigError: the conflict, in one line naming both sides.
    """
    inputs = list(inputs)
    check_output_flags(output, output_dir, errors)
    real = os.path.realpath
    named = [(flag, p) for flag, p in (("-o", output), ("--errors", errors)) if p and p != "-"]
    existing = [(flag, p) for flag, p in named if os.path.exists(p)]  # a new file cannot be an input
    reads = {real(i.path) for i in inputs if i.path} if existing else set()
    for flag, p in existing:
        if real(p) in reads:
            raise ConfigError(f"{flag} {p} is also an input: it would be overwritten")
    for flag, p in named:
        if os.path.isdir(p):
            raise ConfigError(f"{flag} {p}: is a folder, not a file")
    if len(named) == 2 and real(named[0][1]) == real(named[1][1]):
        raise ConfigError(f"-o and --errors name the same file {output}")
    if output_dir:
        seen: dict[str, str] = {}
        for i in inputs:
            key = mirror_path(i.source)
            if key in seen:
                raise ConfigError(f"--output-dir: {seen[key]} and {i.source} would both be written to "
                                  f"{os.path.join(output_dir, key)}")
            seen[key] = i.source
        if errors and errors != "-":
            for key in seen:
                if real(os.path.join(output_dir, key)) == real(errors):
                    raise ConfigError(f"--errors {errors} is also where --output-dir writes {key}")
