"""Writing one epoch per sync of an environment: the delta against what the index holds.

Every table gets the rows that changed (an edge group whole, or a tombstone when it emptied);
the merged nodes file is written every sync, an empty delta included, so that compiled fields
read since are carried forward; the ``alive`` file is written last and commits the epoch.
Every row of one run carries the same ``ingested_at``.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa

from ..governance.rollup import Asset, EnvironmentLineage, LineageEdge
from .epochs import epochs, write_atomically
from .reader import IndexReader
from .tables import ALIVE, COMPILED_COLUMNS, EDGES, MERGED_NODES, NODES, READS, TABLES, IndexTable


class EpochWriter:
    def __init__(self, root: Path):
        self.root = root
        self.reader = IndexReader(root)

    def next_epoch(self) -> int:
        written = [e for table in TABLES for e in epochs(self.root / table.directory)]
        return max(written, default=0) + 1

    def write(self, lineage: EnvironmentLineage) -> int:
        epoch = self.next_epoch()
        now = datetime.datetime.now(datetime.timezone.utc)  # one ingested_at for the whole run
        alive = self.reader.alive()
        current_nodes = {r["asset_id"]: _strip(r) for r in self.reader.latest(NODES) if r["asset_id"] in alive}
        current_reads = {r["asset_id"]: _strip(r) for r in self.reader.latest(READS) if r["asset_id"] in alive}
        current_groups = _groups(self.reader.latest(EDGES, prune=("target_id",)))

        nodes = {a.id: _node_row(a) for a in lineage.assets.values()}
        reads = {a.id: _read_row(a) for a in lineage.assets.values()}
        node_delta = [row for key, row in sorted(nodes.items()) if current_nodes.get(key) != row]
        read_delta = [row for key, row in sorted(reads.items()) if current_reads.get(key) != row]
        groups = _groups(_edge_row(e) for e in lineage.edges)
        edge_delta = []
        for target in sorted(set(groups) | set(current_groups)):
            new = groups.get(target, [])
            if new == current_groups.get(target, []):
                continue
            edge_delta.extend(new or [_tombstone(target)])

        self._write(NODES, node_delta, epoch, now)
        self._write(READS, read_delta, epoch, now)
        self._write(EDGES, edge_delta, epoch, now)
        changed = {r["asset_id"] for r in node_delta} | {r["asset_id"] for r in read_delta}
        merged = self._merged(changed, nodes, reads)
        self._write(MERGED_NODES, merged, epoch, now, always=True)
        self._write(ALIVE, [{"asset_id": a} for a in sorted(nodes)], epoch, now, always=True)
        return epoch

    def _merged(self, changed: set[str], nodes: dict[str, dict], reads: dict[str, dict]) -> list[dict]:
        """Nodes LEFT JOIN their reads, for every node whose row or read changed: a read
        without a node creates nothing."""
        rows = []
        for key in sorted(changed):
            node = nodes.get(key)
            if node is None:
                continue
            read = reads.get(key) or {}
            rows.append({**node, **{c: read.get(c) for c in COMPILED_COLUMNS}})
        return rows

    def _write(self, table: IndexTable, rows: list[dict], epoch: int, now, *, always: bool = False) -> None:
        if not rows and not always:
            return
        stamped = [{**row, "ingested_at": now} for row in rows]
        columns = {f.name: [row.get(f.name) for row in stamped] for f in table.schema}
        write_atomically(pa.Table.from_pydict(columns, schema=table.schema), self.root / table.directory, epoch)


def _node_row(asset: Asset) -> dict:
    return {"asset_id": asset.id, "full_name": asset.full_name, "namespace": asset.namespace, "name": asset.name,
            "kind": asset.kind, "owner": asset.owner, "steward": asset.steward, "certified": asset.certified,
            "file": asset.file, "aliases": list(asset.aliases)}


def _read_row(asset: Asset) -> dict:
    return {"asset_id": asset.id, "sql_status": asset.sql_status.value if asset.sql_status else None,
            "sql_read_from": asset.sql_read_from}


def _edge_row(edge: LineageEdge) -> dict:
    columns = [{"from": c.source, "to": c.target, "relationship": c.relationship,
                "transformation": c.transformation, "confidence": c.confidence} for c in edge.columns or ()]
    return {"target_id": edge.target, "source_id": edge.source, "mark": edge.mark.value, "via": edge.via.value,
            "file": edge.file, "columns": columns, "note": edge.note}


def _tombstone(target: str) -> dict:
    return {"target_id": target, "source_id": None, "mark": None, "via": None, "file": None, "columns": [],
            "note": None}


def _groups(rows: Iterable[dict]) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for row in rows:
        row = _strip(row)
        if row.get("source_id") is None:
            groups.setdefault(row["target_id"], [])
            continue
        groups.setdefault(row["target_id"], []).append(row)
    for group in groups.values():
        group.sort(key=lambda r: (r["source_id"], r["mark"], r["via"], r["file"]))
    return {k: v for k, v in groups.items() if v}


def _strip(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "ingested_at"}
