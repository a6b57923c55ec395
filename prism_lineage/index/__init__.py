"""The epoch-versioned Parquet index of an environment's rollup, read with DuckDB.

Each sync writes one epoch (``writer.py``); the current state is the newest row or group per
key over committed epochs, pruned to the nodes alive at the newest one (``reader.py``).  See
specs/index.md.
"""

from __future__ import annotations

from pathlib import Path

from ..governance.rollup import Asset, EnvironmentLineage, LineageEdge
from ..governance.sql_reading import ColumnLink
from ..governance.statuses import EnvironmentStatus, Mark, ParserState, SqlStatus, Via
from .epochs import SCHEMA_VERSION
from .reader import IndexReader
from .tables import EDGES, MERGED_NODES
from .writer import EpochWriter

__all__ = ["EpochIndex", "SCHEMA_VERSION"]


class EpochIndex:
    """The index of one environment, in ``root`` (one directory per table)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def write(self, lineage: EnvironmentLineage) -> int:
        """Write ``lineage`` as the next epoch; returns its number."""
        return EpochWriter(self.root).write(lineage)

    def epochs(self) -> list[int]:
        return IndexReader(self.root).committed()

    def nodes(self) -> list[dict]:
        """The merged nodes (declarations with their compiled fields), alive ones only."""
        return IndexReader(self.root).latest(MERGED_NODES, prune=("asset_id",))

    def edges(self) -> list[dict]:
        """The current edges, both ends alive (a group's tombstone is not an edge)."""
        rows = IndexReader(self.root).latest(EDGES, prune=("target_id", "source_id"))
        return [r for r in rows if r["source_id"] is not None]

    def lineage(self, project: str, environment: str) -> EnvironmentLineage:
        """The rollup as the index holds it, for the explorer and impact to read."""
        assets = {}
        for row in self.nodes():
            status = SqlStatus(row["sql_status"]) if row["sql_status"] else None
            assets[row["asset_id"]] = Asset(
                row["asset_id"], row["full_name"], row["namespace"], row["name"], row["kind"], row["owner"],
                row["steward"], bool(row["certified"]), row["file"], tuple(row["aliases"]), status,
                row["sql_read_from"])
        edges = []
        for row in self.edges():
            if row["source_id"] not in assets or row["target_id"] not in assets:
                continue
            mark = Mark(row["mark"])
            columns = None if mark is Mark.DECLARED else tuple(
                ColumnLink(c["from"], c["to"], c["relationship"], c["transformation"], c["confidence"])
                for c in row["columns"])
            edges.append(LineageEdge(row["source_id"], row["target_id"], mark, Via(row["via"]), row["file"], columns,
                                     row["note"]))
        edges.sort(key=lambda e: (assets[e.source].full_name, assets[e.target].full_name, e.mark, e.via, e.file))
        waiting = frozenset(a.id for a in assets.values() if a.sql_status is SqlStatus.NOT_READ_YET)
        status = EnvironmentStatus.COMPUTED if self.epochs() else EnvironmentStatus.NOT_COMPUTED
        return EnvironmentLineage(project, environment, status, assets, tuple(edges), ParserState.RAN, waiting)


