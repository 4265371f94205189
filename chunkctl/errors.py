"""Exceptions of chunkctl: one base class and a few subclasses; the CLI maps each to one line and an exit code."""

from __future__ import annotations


class ChunkctlError(Exception):
    """Base class of every error chunkctl raises on purpose (never a bug)."""


class ConfigError(ChunkctlError):
    """A bad option or combination of options (the CLI exits with status 2)."""


class TokenizerError(ChunkctlError):
    """A tokenizer that cannot be loaded (unknown name, missing offline data, bad file)."""


class OutputError(ChunkctlError):
    """An output that cannot be opened or written (a folder, a full disk, no permission)."""


class LoaderError(ChunkctlError):
    """A file that cannot be turned into a document.

    Args:
        path: the file's path as the user gave it (or relative to the input root).
        reason: one line saying what is wrong, e.g. "binary file".
    """

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def _quoted(packages: str) -> str:
    """Package specs as a shell takes them: one with brackets quoted ("'dask[bag]' distributed")."""
    return " ".join(f"'{p}'" if "[" in p else p for p in packages.split())


class MissingExtraError(ChunkctlError):
    """An optional feature whose extra is not installed; the message names the pip command."""

    def __init__(self, feature: str, extra: str, package: str):
        super().__init__(
            f"{feature} needs the optional package {package}: "
            f"pip install 'chunkctl[{extra}]' (or: pip install {_quoted(package)})"
        )
        self.feature = feature
        self.extra = extra


class DocumentWarning(UserWarning):
    """A per-file warning raised through Python's `warnings` by the library API.

    The same lines `chunkctl chunk` prints as "warning:" (an encoding guessed rather
    than declared, front matter ignored, messages of the libraries that read the file),
    each "<source>: <message>". Silence them as any warning, e.g.
    `warnings.filterwarnings("ignore", category=chunkctl.DocumentWarning)`, as `--quiet`
    does on the command line.
    """
