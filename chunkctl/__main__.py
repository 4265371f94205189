"""`python -m chunkctl`: the command line."""

from .cli import run

run()
