"""`python -m chunkctl`: the command line."""

from chunkctl.cli.app import entry_point

entry_point()
