"""Loaders: file bytes -> Document (canonical text + typed blocks with character spans); never counts tokens.

A new format is one module in this package whose load function is decorated by
`@register("fmt", ".ext", ...)` (see `registry`), plus its `declare` line below (a
plugin outside the package registers when its module is imported).
"""

from __future__ import annotations

from chunkctl.loaders.registry import (
    EXTENSIONS,
    LOADERS,
    Loader,
    declare,
    format_for,
    format_list,
    formats,
    load_bytes,
    register,
)

# One line per built-in format: its name, the module whose `@register` defines its loader,
# and the extensions it registers. A module is imported when its format is first needed
# (see `registry.LOADERS`): `chunkctl --help` or a Markdown run never loads the PDF stack.
declare("txt", "chunkctl.loaders.text", ".txt", ".text")
declare("md", "chunkctl.loaders.markdown", ".md", ".markdown", ".mdown", ".mkd")
declare("html", "chunkctl.loaders.html.loader", ".html", ".htm")
declare("pdf", "chunkctl.loaders.pdf.loader", ".pdf")

__all__ = ["EXTENSIONS", "LOADERS", "Loader", "declare", "format_for", "format_list", "formats", "load_bytes", "register"]
