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
from collections.abc import Iterable
from itertools import islice
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

SCHEMA_VERSION = "v1"
EPOCH_FILE = re.compile(rf"^{SCHEMA_VERSION}_([0-9]+)\.parquet$")
# The same rule as a SQL expression over DuckDB's ``filename`` column.
EPOCH_SQL = r"CAST(regexp_extract(filename, '_([0-9]+)\.parquet$', 1) AS BIGINT)"


# The documented range of epoch numbers: 1 to the largest BIGINT, so that the number parsed from
# a file name in SQL (``CAST(… AS BIGINT)``) never overflows.  A name outside it is not an epoch
# file: it is ignored, and ``prism-lineage index check`` reports it.
MAX_EPOCH = 2**63 - 1


def epoch_of(path: Path) -> int | None:
    """The epoch of an epoch file's name; None for any other name, or a number out of range."""
    match = EPOCH_FILE.match(path.name)
    if not match:
        return None
    digits = match.group(1)
    if len(digits) > 19 or digits.startswith("0"):
        return None  # out of range, or not the number's one spelling (v1_07 would be a second 7)
    number = int(digits)
    return number if number <= MAX_EPOCH else None


def epoch_files(directory: Path) -> list[tuple[int, Path]]:
    """(epoch, file) of every epoch file in ``directory``, oldest first."""
    if not directory.is_dir():
        return []
    found = ((epoch_of(p), p) for p in directory.iterdir())
    return sorted((e, p) for e, p in found if e is not None)


def ignored_files(directory: Path) -> list[Path]:
    """Files of ``directory`` that look like epoch files but whose name is outside the
    documented range (not read; reported by ``prism-lineage index check``)."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.name.endswith(".parquet") and not p.name.startswith(".")
                  and epoch_of(p) is None)


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
    return _atomically(directory, epoch, lambda temporary: pq.write_table(table, temporary))


def temporary_file(directory: Path) -> str:
    """A new empty temporary file in ``directory`` (created), named as every writer names them
    (``.tmp-*``: ``prism-lineage index check`` lists one left behind, ``repair`` removes it)."""
    directory.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".parquet", dir=directory)
    os.close(handle)
    return temporary


def _atomically(directory: Path, epoch: int, write, temporary: str | None = None) -> Path:
    """``write(temporary)`` then fsync and rename onto ``epoch``'s file: a reader never sees a
    part-written file, and a failed write leaves no temp file behind.  ``temporary``: one made
    by ``temporary_file`` beforehand (a forked writer's, which its parent removes if it stops)."""
    target = epoch_file(directory, epoch)
    if temporary is None:
        temporary = temporary_file(directory)
    try:
        write(temporary)
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


# Rows converted to Arrow at a time (a statement row holds its links and dependencies: 4,000 of
# them are tens of MB): a large epoch (a first sync of 100,000 assets writes every
# edge and statement) is written row group by row group, so that its rows, their arrays and the
# file never all sit in memory at once.
CHUNK_ROWS = 4_000


# A row group at least this large is converted by pyarrow's own (compiled) converter when the
# caller allows it (``bulk``): about four times faster than ``arrow_rows``, for the price of
# importing pandas once (pyarrow asks whether its input is a pandas object), which a full sync
# writing thousands of rows pays gladly and a sync writing a few rows must not.
BULK_ROWS = 1_000


def write_rows(table, rows: Iterable, directory: Path, epoch: int, now, *, always: bool = False,
               bulk: bool = False, group_rows: int | None = None) -> Path | None:
    """Write ``rows`` (dicts, built as they are consumed) as ``table``'s file of ``epoch``, each
    row ingested at ``now``: temp file, fsync, rename, as ``write_atomically``.  Nothing is
    written for no rows unless ``always`` (an empty delta that must still write its file).
    ``bulk``: large row groups may be converted by pyarrow itself (``BULK_ROWS``).
    ``group_rows``: rows per row group (default ``CHUNK_ROWS``).  (A full sync's epoch is built
    from the rollup's objects instead: ``columnar.py``, ``write_tables``.)"""
    from .arrow_rows import bulk_table
    from .arrow_rows import table as small_table

    def arrow_table(schema, rows, stamp):
        if bulk and len(rows) >= BULK_ROWS:
            return bulk_table(schema, rows, stamp=stamp)
        return small_table(schema, rows, stamp=stamp)

    size = group_rows or CHUNK_ROWS
    iterator = iter(rows)
    chunk = list(islice(iterator, size))
    if not chunk and not always:
        return None

    def write(temporary: str) -> None:
        nonlocal chunk
        with pq.ParquetWriter(temporary, table.schema) as writer:
            while True:
                writer.write_table(arrow_table(table.schema, chunk, stamp=now))
                chunk = list(islice(iterator, size))
                if not chunk:
                    break

    return _atomically(directory, epoch, write)


def write_tables(tables: Iterable[pa.Table], schema: pa.Schema, directory: Path, epoch: int,
                 temporary: str | None = None) -> Path | None:
    """Write ``tables`` (one row group each, made as they are consumed) as ``directory``'s file of
    ``epoch``, as ``write_rows`` writes its row groups; nothing when there is no table.
    ``temporary``: the temporary file to write it in (``_atomically``)."""
    iterator = iter(tables)
    first = next(iterator, None)
    if first is None:
        return None

    def write(temporary: str) -> None:
        with pq.ParquetWriter(temporary, schema) as writer:
            writer.write_table(first)
            for part in iterator:
                writer.write_table(part)

    return _atomically(directory, epoch, write, temporary)


def write_keys(table, keys: list[str], directory: Path, epoch: int, now) -> Path:
    """``table``'s file of ``epoch`` holding one row per key (its key column; every other column
    but ``ingested_at`` NULL), in the order given, row group by row group as ``write_rows``: the
    alive ids, without a dict per row."""
    from .arrow_rows import columns_table

    def write(temporary: str) -> None:
        with pq.ParquetWriter(temporary, table.schema) as writer:
            for start in range(0, max(len(keys), 1), CHUNK_ROWS):
                chunk = keys[start:start + CHUNK_ROWS]
                writer.write_table(columns_table(table.schema, {table.key: chunk}, len(chunk), stamp=now))

    return _atomically(directory, epoch, write)


RESERVATIONS = ".epochs"  # one empty file per epoch number taken, created with O_EXCL


def reserved(root: Path) -> list[int]:
    """The epoch numbers reserved in ``root`` (see ``reserve``)."""
    directory = root / RESERVATIONS
    if not directory.is_dir():
        return []
    return sorted(int(p.name) for p in directory.iterdir() if p.name.isdigit() and int(p.name) <= MAX_EPOCH)


def reserve(root: Path, epoch: int) -> int:
    """Take ``epoch`` or the first free number after it: the file ``.epochs/N`` is created with
    ``O_EXCL``, which the kernel grants to one process only."""
    directory = root / RESERVATIONS
    directory.mkdir(parents=True, exist_ok=True)
    while True:
        if epoch > MAX_EPOCH:
            raise OverflowError(f"no epoch number is left in {root} (the largest is {MAX_EPOCH})")
        try:
            os.close(os.open(directory / str(epoch), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            return epoch
        except FileExistsError:
            epoch += 1


def release(root: Path, epoch: int) -> None:
    """Drop ``epoch``'s reservation once its writer is done: its files, committed or left by a
    failure, keep the number taken from then on (a writer killed before that leaves the
    reservation, which ``prism-lineage index repair`` removes)."""
    (root / RESERVATIONS / str(epoch)).unlink(missing_ok=True)
