"""Configuration files: find `chunkctl.toml` or `[tool.chunkctl]` upward, check them, merge them under command-line values; no option parsing."""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from chunkctl.errors import ConfigError

CONFIG_NAME = "chunkctl.toml"

# Keys a configuration file may set, with the types each accepts. Dashes and
# underscores are the same (`chunk-size` = `chunk_size`), as on the command line.
_INT, _NUM, _STR, _BOOL = (int,), (int, float), (str,), (bool,)
KEYS: dict[str, tuple[type, ...]] = {
    # chunking (ChunkConfig)
    "strategy": _STR, "chunk_size": _INT, "overlap": (int, str), "tokenizer": _STR, "tokenizer_pattern": _STR,
    "count_special_tokens": _BOOL,
    "context": _STR, "encoding": _STR, "min_chunk_tokens": _INT, "parent_chunk_size": _INT, "levels": (list, str),
    "sentence_splitter": _STR, "breakpoint_percentile": _NUM, "content_type": _STR, "main_content": _BOOL,
    "keep_boilerplate": _BOOL, "ocr": _STR,
    # the run
    "jobs": _INT, "include": (list, str), "exclude": (list, str), "hidden": _BOOL, "follow_links": _BOOL,
    "max_file_size": (int, str), "file_timeout": _NUM, "flavour": _STR, "cache": _STR, "engine": _STR,
    "scheduler": _STR, "source_root": _STR,
    # model-assisted chunking (never the API key itself: it stays in the environment)
    "llm_base_url": _STR, "llm_model": _STR, "llm_api_key_env": _STR, "llm_concurrency": _INT, "llm_timeout": _NUM,
    "contextualize": _BOOL, "summaries": _BOOL, "summary_min_tokens": _INT, "llm_required": _BOOL,
}
"""Every key a configuration file may hold, and the TOML types it accepts.

The other options (`quiet`, `dry-run`, `summary-json`, `llm-dry-run`, the outputs) say
what one invocation does, not how a project chunks: they are command-line only, and
`chunkctl config` prints them as comments.
"""

ALIASES = {"format": "flavour"}
"""Old key names still accepted, and the key each now means."""

PATH_KEYS = ("cache", "source_root")
"""Keys that hold paths: relative to the file's folder in a file, to the current folder on the command line."""

_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\s*\Z")
SIZE_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
              "t": 10**12, "tb": 10**12, "ki": 2**10, "kib": 2**10, "mi": 2**20, "mib": 2**20, "gi": 2**30,
              "gib": 2**30, "ti": 2**40, "tib": 2**40}
"""Units of `parse_size` (lower case): decimal kB/MB/GB/TB (powers of 1000), binary KiB/MiB/GiB/TiB (of 1024)."""


def parse_size(value: int | str | None, option: str = "--max-file-size") -> int | None:
    """A size in bytes from a number of bytes or a human size; None stays None.

    `"10MB"` is 10,000,000 bytes (decimal units: B, kB, MB, GB, TB; K, M, G, T alone
    mean the same), `"1.5GiB"` is 1.5 x 2**30 bytes (binary units: KiB, MiB, GiB,
    TiB), `"512"` or 512 is 512 bytes. Units are not case-sensitive; a fraction of a
    byte is dropped.

    Raises:
        ConfigError: not a size, or negative, in one line naming `option`.
    """
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ConfigError(f"{option} must not be negative, got {value}")
        return value
    m = _SIZE.match(value) if isinstance(value, str) else None
    unit = SIZE_UNITS.get(m[2].lower()) if m else None
    if m is None or unit is None:
        raise ConfigError(f"{option} {value!r}: not a size; give bytes (1000000) or a number with a unit "
                          "(10MB, 1.5GiB; units B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)")
    try:
        return int(Decimal(m[1]) * unit)
    except InvalidOperation:  # pragma: no cover (the pattern admits only plain decimals)
        raise ConfigError(f"{option} {value!r}: not a size") from None


@dataclass
class ConfigFile:
    """The values of one configuration file (or none).

    Attributes:
        path: the file, or None when no file was found or one was refused.
        label: how to name where a value came from, e.g. "/repo/chunkctl.toml" or
            "/repo/pyproject.toml [tool.chunkctl]".
        values: checked values under their underscore names; paths (`cache`) made
            absolute against the file's folder.
    """

    path: Path | None = None
    label: str = ""
    values: dict[str, Any] = field(default_factory=dict)


def find_config(start: str | os.PathLike | None = None) -> Path | None:
    """The configuration file in force for a folder.

    Looks in `start` (default: the current folder) and then each parent folder, and
    in each takes `chunkctl.toml` first, else a `pyproject.toml` that has a
    `[tool.chunkctl]` table (a pyproject without one does not stop the search).

    Returns:
        the file's path, or None when there is none up to the file-system root.
    """
    folder = Path(start or os.getcwd()).resolve()
    for d in (folder, *folder.parents):
        own = d / CONFIG_NAME
        if own.is_file():
            return own
        py = d / "pyproject.toml"
        if py.is_file():
            try:
                with open(py, "rb") as fh:
                    if "chunkctl" in tomllib.load(fh).get("tool", {}):
                        return py
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
    return None


def _check(label: str, key: str, value: Any) -> Any:
    """Check one value's type; lists of strings or integers where a list is allowed."""
    types = KEYS[key]
    if isinstance(value, bool) and bool not in types:
        ok = False
    else:
        ok = isinstance(value, types)
    if ok and isinstance(value, list):
        item = int if key == "levels" else str
        ok = all(isinstance(v, item) and not isinstance(v, bool) for v in value)
    if not ok:
        want = " or ".join(sorted({"list" if t is list else t.__name__ for t in types}))
        raise ConfigError(f"{label}: {key.replace('_', '-')} must be {want}, got {value!r}")
    # A NUL character (TOML's "\u0000") cannot be typed on a command line; no path, name or pattern holds one.
    if any("\0" in v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)):
        raise ConfigError(f"{label}: {key.replace('_', '-')} holds a NUL character (\\u0000)")
    return value


def load_config_file(path: str | os.PathLike | None = None, start: str | os.PathLike | None = None) -> ConfigFile:
    """Read and check a configuration file.

    Args:
        path: the file to read (`chunkctl.toml`, or a `pyproject.toml` whose
            `[tool.chunkctl]` table is read). Defaults to `None`, in which case
            `find_config(start)` finds it; no file found gives an empty ConfigFile.
        start: where the search starts. Defaults to the current folder.

    Raises:
        ConfigError: the file cannot be read or parsed, a key is unknown (the message
            suggests the closest one) or a value has the wrong type.
    """
    file = Path(path) if path is not None else find_config(start)
    if file is None:
        return ConfigFile()
    file = Path(os.path.abspath(file))  # messages and `chunkctl config` name it so wherever they are read
    if path is not None and file.exists() and not file.is_file():
        raise ConfigError(f"{file}: not a regular file")
    try:
        with open(file, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read the configuration file ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{file}: not valid TOML (the file is not UTF-8 text)") from None
    label = str(file)
    if file.name == "pyproject.toml":
        data = data.get("tool", {}).get("chunkctl", {})
        label += " [tool.chunkctl]"
        if not isinstance(data, dict):
            raise ConfigError(f"{label}: must be a table")
    values: dict[str, Any] = {}
    for raw, value in data.items():
        key = raw.replace("-", "_")
        key = ALIASES.get(key, key)
        if key in values:
            raise ConfigError(f"{label}: {key.replace('_', '-')!r} is given twice (as {raw!r} and another spelling)")
        if key not in KEYS:
            near = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean {near[0].replace('_', '-')!r}?" if near else ""
            raise ConfigError(f"{label}: unknown key {raw!r}{hint} (known: {', '.join(k.replace('_', '-') for k in KEYS)})")
        value = _check(label, key, value)
        if key in PATH_KEYS:
            value = str((file.parent / os.path.expanduser(value)).resolve())
        elif key == "tokenizer" and isinstance(value, str):
            value = tokenizer_path(file.parent, value)
        if key in ("include", "exclude") and isinstance(value, str):
            value = [value]
        values[key] = value
    return ConfigFile(file, label, values)


def resolve(defaults: dict[str, Any], given: dict[str, Any], config_file: ConfigFile
            ) -> tuple[dict[str, Any], dict[str, str]]:
    """Merge option values: the command line over the configuration file over the defaults.

    Args:
        defaults: every option with its default value.
        given: the options given explicitly on the command line, with their values.
        config_file: the configuration file's values.

    Returns:
        (values, origins): the effective value of every option in `defaults`, and
        where each came from: "command line", the file's label, or "default".
    """
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key, default in defaults.items():
        if key in given:
            values[key], origins[key] = given[key], "command line"
        elif key in config_file.values:
            values[key], origins[key] = config_file.values[key], config_file.label
        else:
            values[key], origins[key] = default, "default"
    return values, origins


def tokenizer_path(folder: Path, value: str) -> str:
    """A `tokenizer` value read against `folder`: the absolute path of a `.tiktoken` or
    `tokenizer.json` file relative to it, when one is there ("+special" kept); a name
    (`cl100k_base`, `gpt-4`) or an absolute path as written. A file's tokenizer is read against
    the file's folder, as the other paths of a file are (helper-99: `tokenizer =
    "models/tokenizer.json"` was looked for in the current folder, and a run from another folder
    failed); `chunkctl config` writes one given on the command line against the current folder
    (helper-101: it wrote "../models/tokenizer.json" as given, which failed from elsewhere)."""
    from chunkctl.tokenizers import without_special

    base, _ = without_special(value)
    path = folder / os.path.expanduser(base)
    if os.path.isabs(os.path.expanduser(base)) or not path.is_file():
        return value
    return str(path.resolve()) + value[len(base):]
