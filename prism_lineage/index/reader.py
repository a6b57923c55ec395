"""Reading the index with DuckDB: the newest row (LatestBy) or group (LatestGroup) per key,
over committed epochs only, pruned to the nodes alive at the newest one.

An epoch is committed once its ``alive`` file is written (the writer writes it last): files
of an epoch without one — a sync that crashed half-way — are never read.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from .epochs import EPOCH_SQL, SCHEMA_VERSION, epochs
from .tables import ALIVE, IndexTable, Supersede


class IndexReader:
    def __init__(self, root: Path):
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

    def latest_table(self, table: IndexTable, *, prune: tuple[str, ...] = ()) -> pa.Table:
        """The same rows as an Arrow table, ordered by the key: callers that convert nested
        columns themselves, column by column, avoid building a Python object per row."""
        committed = self.committed()
        directory = self.root / table.directory
        if not committed or not epochs(directory):
            return table.schema.empty_table()
        source = _source(directory)
        epoch_list = ", ".join(str(e) for e in committed)
        columns = ", ".join(f'"{f.name}"' for f in table.schema)
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
        return self.connection.sql(query).to_arrow_table()

    def _alive_sql(self, epoch: int) -> str:
        return f"SELECT asset_id FROM {_source(self.root / ALIVE.directory)} WHERE epoch = {epoch}"


def _source(directory: Path) -> str:
    """The epoch files of ``directory`` with their epoch number parsed from the file name."""
    pattern = str(directory / f"{SCHEMA_VERSION}_*.parquet").replace("'", "''")
    return (f"(SELECT *, TRY_{EPOCH_SQL} AS epoch FROM read_parquet('{pattern}', filename = true, "
            "union_by_name = true))")
