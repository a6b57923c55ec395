"""The epoch-versioned Parquet index of an environment's rollup, read with DuckDB.

Each sync writes one epoch (``writer.py``); the current state is the newest row or group per
key over committed epochs, pruned to the nodes alive at the newest one (``reader.py``).  See
specs/index.md.

Names are resolved on first use (PEP 562): a sync that finds nothing changed writes its epoch
through ``unchanged.py`` without importing the rollup, DuckDB or the SQL reader.
"""

from __future__ import annotations

__all__ = ["EpochIndex", "SCHEMA_VERSION"]


def __getattr__(name: str):
    if name == "EpochIndex":
        from .epoch_index import EpochIndex

        return EpochIndex
    if name == "SCHEMA_VERSION":
        from .epochs import SCHEMA_VERSION

        return SCHEMA_VERSION
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
