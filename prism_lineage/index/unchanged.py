"""The epoch of a sync that found nothing changed (specs/control-plane.md §1c): what
``EpochWriter.write`` writes when no row differs — an empty merged-nodes file (an empty delta
still writes it, seed 004), the pass, the alive ids — with pyarrow only: no rollup, no DuckDB, no pandas (``arrow_rows``)."""

from __future__ import annotations

import datetime
from pathlib import Path

from .epochs import epochs, release, reserve, reserved, write_keys, write_rows
from .tables import ALIVE, MERGED_NODES, PASSES, TABLES


def next_epoch(root: Path) -> int:
    """One more than any number used in this index: a table's file (committed or left by a sync
    that stopped) or a reservation."""
    written = [e for table in TABLES for e in epochs(root / table.directory)]
    return max([*written, *reserved(root)], default=0) + 1


def write_table(root: Path, table, rows, epoch: int, now, *, always: bool = False) -> None:
    write_rows(table, rows, root / table.directory, epoch, now, always=always)


def write_unchanged(root: Path, environment: str, parser: str, alive: list[str], revision: str | None) -> int:
    root = Path(root)
    epoch = reserve(root, next_epoch(root))
    try:
        now = datetime.datetime.now(datetime.timezone.utc)
        write_table(root, MERGED_NODES, [], epoch, now, always=True)
        write_table(root, PASSES, [{"environment": environment, "parser": parser, "revision": revision}], epoch, now,
                    always=True)
        write_keys(ALIVE, sorted(alive), root / ALIVE.directory, epoch, now)
    finally:
        release(root, epoch)
    return epoch
