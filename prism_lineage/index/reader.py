"""Reading the index with DuckDB: the newest row (LatestBy) or group (LatestGroup) per key,
over committed epochs only, pruned to the nodes alive at the newest one.

An epoch is committed once its ``alive`` file is written (the writer writes it last): files
of an epoch without one — a sync that crashed half-way — are never read.  Only files whose
names parse into the documented range are read (``epochs.epoch_of``), named one by one: a stray
``v1_99999999999999999999.parquet`` or ``v1_007.parquet`` is ignored, never read as an epoch.

Schema drift: a file written by an older build may lack a column.  Such a column reads as NULL
(strings, booleans) or as an empty list (list columns, which are not nullable) — the rule of
seed 004 — whether some files or none have it.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from .epochs import EPOCH_SQL, epoch_files, epochs
from .tables import ALIVE, IndexTable, Supersede


class IndexReader:
    def __init__(self, root: Path):
        import duckdb  # here: a writer that never reads the index (an SQL-only sync) does not load it

        self.root = root
        self.connection = duckdb.connect()

    def committed(self) -> list[int]:
        return epochs(self.root / ALIVE.directory)

    def latest(self, table: IndexTable, *, prune: tuple[str, ...] = ()) -> list[dict]:
        """The current rows of ``table`` as dicts (without ``filename``/``epoch``), keeping only
        rows whose ``prune`` columns name alive nodes (a NULL passes: a group's tombstone)."""
        result = self.latest_table(table, prune=prune)
        names = result.column_names
        columns = [result.column(i).to_pylist() for i in range(result.num_columns)]
        return [dict(zip(names, values)) for values in zip(*columns)]

    def latest_table(self, table: IndexTable, *, prune: tuple[str, ...] = (), up_to: int | None = None) -> pa.Table:
        """The same rows as an Arrow table, ordered by the key: callers that convert nested
        columns themselves, column by column, avoid building a Python object per row.
        ``up_to``: as of that committed epoch (compaction: no pruning then, tombstones kept)."""
        committed = self.committed()
        if up_to is not None:
            committed = [e for e in committed if e <= up_to]
        files = [path for epoch, path in epoch_files(self.root / table.directory) if epoch <= committed[-1]] \
            if committed else []
        if not files:
            return table.schema.empty_table()
        source = _source(files)
        present = {row[0] for row in self.connection.sql(f"DESCRIBE SELECT * FROM {source}").fetchall()}
        if table.key not in present:
            return table.schema.empty_table()
        wanted = [f.name for f in table.schema if f.name in present]
        epoch_list = ", ".join(str(e) for e in committed)
        columns = ", ".join(f'"{name}"' for name in wanted)
        if table.supersede is Supersede.LATEST_BY:
            ranked = (f"SELECT {columns}, ROW_NUMBER() OVER (PARTITION BY \"{table.key}\" ORDER BY epoch DESC) AS rank "
                      f"FROM {source} WHERE epoch IN ({epoch_list})")
            query = f"SELECT {columns} FROM ({ranked}) WHERE rank = 1"
        else:
            newest = (f"SELECT {columns}, epoch, MAX(epoch) OVER (PARTITION BY \"{table.key}\") AS newest "
                      f"FROM {source} WHERE epoch IN ({epoch_list})")
            query = f"SELECT {columns} FROM ({newest}) WHERE epoch = newest"
        if prune:
            alive = self._alive_sql(committed[-1])
            conditions = " AND ".join(f'("{c}" IS NULL OR "{c}" IN ({alive}))' for c in prune)
            query = f"SELECT * FROM ({query}) WHERE {conditions}"
        query += f' ORDER BY "{table.key}"'
        # Through Arrow: DuckDB's own conversion of nested lists and structs into Python
        # objects, row by row, is several times slower than Arrow's, column by column.
        return conform(self.connection.sql(query).to_arrow_table(), table.schema)

    def _alive_sql(self, epoch: int) -> str:
        [path] = [p for e, p in epoch_files(self.root / ALIVE.directory) if e == epoch]
        return f"SELECT asset_id FROM {_source([path])}"


def conform(result: pa.Table, schema: pa.Schema) -> pa.Table:
    """``result`` with ``schema``'s columns: a column no file had is NULL, or empty lists for a
    list column; a list column NULL where an older file lacked it is an empty list."""
    rows = result.num_rows
    arrays = []
    for field in schema:
        if field.name in result.column_names:
            array = result.column(field.name)
            if pa.types.is_list(field.type) and array.null_count:
                import pyarrow.compute as pc

                array = pc.if_else(pc.is_null(array), pa.scalar([], type=array.type), array)
            arrays.append(array.cast(field.type) if array.type != field.type else array)
        elif pa.types.is_list(field.type):
            arrays.append(pa.array([[]] * rows, type=field.type))
        else:
            arrays.append(pa.nulls(rows, type=field.type))
    return pa.Table.from_arrays(arrays, schema=schema.with_metadata(None))


def _source(files: list[Path]) -> str:
    """The given epoch files with their epoch number parsed from the file name."""
    names = ", ".join("'" + str(path).replace("'", "''") + "'" for path in files)
    return (f"(SELECT *, TRY_{EPOCH_SQL} AS epoch FROM read_parquet([{names}], filename = true, "
            "union_by_name = true))")
