"""Epoch files: ``{SCHEMA_VERSION}_{N}.parquet`` in one directory per table.

The epoch number ``N`` is parsed from the file name and compared as an integer, so ``v1_10``
comes after ``v1_9`` (as text it would not).  A file is written to a temporary name in the same
directory and renamed into place, so a crash never leaves half an epoch: the reader ignores
anything that is not ``{SCHEMA_VERSION}_{N}.parquet``.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA_VERSION = "v1"
EPOCH_FILE = re.compile(rf"^{SCHEMA_VERSION}_([0-9]+)\.parquet$")
# The same rule as a SQL expression over DuckDB's ``filename`` column.
EPOCH_SQL = r"CAST(regexp_extract(filename, '_([0-9]+)\.parquet$', 1) AS BIGINT)"


def epoch_of(path: Path) -> int | None:
    match = EPOCH_FILE.match(path.name)
    return int(match.group(1)) if match else None


def epochs(directory: Path) -> list[int]:
    """The epochs written in ``directory``, oldest first (as integers)."""
    if not directory.is_dir():
        return []
    found = (epoch_of(p) for p in directory.iterdir())
    return sorted(e for e in found if e is not None)


def epoch_file(directory: Path, epoch: int) -> Path:
    return directory / f"{SCHEMA_VERSION}_{epoch}.parquet"


def write_atomically(table: pa.Table, directory: Path, epoch: int) -> Path:
    """Write ``table`` as ``directory``'s file of ``epoch``: temp file, fsync, rename."""
    directory.mkdir(parents=True, exist_ok=True)
    target = epoch_file(directory, epoch)
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".parquet", dir=directory)
    os.close(handle)
    try:
        pq.write_table(table, temporary)
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
