"""Loaders: file bytes -> Document (canonical text + typed blocks with character spans); never counts tokens.

A new format is one module in this package whose load function is decorated by
`@register("fmt", ".ext", ...)` (see `registry`), plus its import line below.
"""

from __future__ import annotations

from chunkctl.loaders.registry import (
    EXTENSIONS,
    LOADERS,
    Loader,
    format_for,
    format_list,
    formats,
    load_bytes,
    register,
)

# One line per format: importing the module registers its loader (in this order).
# isort: off
from chunkctl.loaders import text  # noqa: E402, F401
from chunkctl.loaders import markdown  # noqa: E402, F401
from chunkctl.loaders.html import loader as _html  # noqa: E402, F401
from chunkctl.loaders.pdf import loader as _pdf  # noqa: E402, F401
# isort: on

__all__ = ["EXTENSIONS", "LOADERS", "Loader", "format_for", "format_list", "formats", "load_bytes", "register"]
