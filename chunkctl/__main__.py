"""`python -m chunkctl`: the command line."""

from chunkctl.cli.app import run

run()
