"""Version of chunkctl (recorded in every record's meta.version)."""

__version__ = "0.1.0"
