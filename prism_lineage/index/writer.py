"""Writing one epoch per sync of an environment: the delta against what the index holds.

Every table gets the rows that changed (an edge group or an asset's statement reads whole, or a
tombstone when it emptied);
the merged nodes file is written every sync, an empty delta included, so that compiled fields
read since are carried forward; the ``alive`` file is written last and commits the epoch.
Every row of one run carries the same ``ingested_at``.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from ..governance.rollup import Asset, EnvironmentLineage, LineageEdge
from .epochs import epochs, release, reserve, reserved, write_atomically
from .ledger import statement_groups, statement_rows, tombstone
from .reader import IndexReader
from .state import IndexState, edge_groups, read_state
from .tables import ALIVE, COMPILED_COLUMNS, EDGES, MERGED_NODES, NODES, PASSES, READS, STATEMENTS, TABLES, IndexTable


@dataclass(frozen=True, slots=True)
class EpochDelta:
    """What one epoch changed: the assets whose declaration or read changed (or are new), the
    ids no longer alive, and each target whose incoming edges changed (empty: none now)."""

    epoch: int
    assets: list[Asset]
    removed: list[str]
    edge_groups: dict[str, tuple[LineageEdge, ...]]


class EpochWriter:
    def __init__(self, root: Path, reader: IndexReader | None = None):
        self.root = root
        self.reader = reader if reader is not None else IndexReader(root)
        self.delta: EpochDelta | None = None
        self.revision: str | None = None  # the revision the sync read (the control plane sets it)

    def next_epoch(self) -> int:
        """One more than any number used in this index: a table's file (committed or left by a
        sync that stopped) or a reservation."""
        written = [e for table in TABLES for e in epochs(self.root / table.directory)]
        return max([*written, *reserved(self.root)], default=0) + 1

    def allocate(self) -> int:
        """The next epoch number, reserved atomically (``O_EXCL``): two writers never take the
        same number, even without the environment's lock (``control/locking.py``)."""
        return reserve(self.root, self.next_epoch())

    def write(self, lineage: EnvironmentLineage, *, current: IndexState | None = None) -> int:
        """``current``: what the index holds, when the caller has just read it (``EpochIndex``
        passes it when no epoch was written since), so it is not read twice.  ``self.delta``
        then says what the epoch changed (the current store is updated from it)."""
        epoch = self.allocate()
        try:
            self._write_epoch(lineage, epoch, current)
        finally:
            release(self.root, epoch)  # committed or not, the number's files now keep it taken
        return epoch

    def write_unchanged(self, environment: str, parser: str, alive: list[str]) -> int:
        """An epoch for a sync that found nothing changed (``unchanged.py``)."""
        from .unchanged import write_unchanged

        return write_unchanged(self.root, environment, parser, alive, self.revision)

    def write_known_delta(self, environment: str, parser: str, alive: list[str], *, compiled: list[Asset],
                          edge_groups: dict[str, tuple[LineageEdge, ...]],
                          statements: dict[str, tuple]) -> int:
        """An epoch whose delta the caller knows (the control plane's SQL-only sync): the assets
        whose compiled fields changed, each target's new incoming edges, each asset's new
        statement reads — the rows ``write`` would write for the same change."""
        epoch = self.allocate()
        try:
            now = datetime.datetime.now(datetime.timezone.utc)
            self._write(READS, [_read_row(a) for a in compiled], epoch, now)
            self._write(EDGES, [row for target, group in sorted(edge_groups.items())
                                for row in ([_edge_row(e) for e in group] or [_tombstone(target)])], epoch, now)
            self._write(STATEMENTS, [row for asset, reads in sorted(statements.items())
                                     for row in (statement_rows(asset, reads) or [tombstone(asset)])], epoch, now)
            nodes = {a.id: _node_row(a) for a in compiled}
            reads = {a.id: _read_row(a) for a in compiled}
            self._write(MERGED_NODES, self._merged(set(nodes), nodes, reads), epoch, now, always=True)
            self._write(PASSES, [{"environment": environment, "parser": parser, "revision": self.revision}], epoch,
                        now, always=True)
            self._write(ALIVE, [{"asset_id": a} for a in sorted(alive)], epoch, now, always=True)
        finally:
            release(self.root, epoch)
        return epoch

    def _write_epoch(self, lineage: EnvironmentLineage, epoch: int, current: IndexState | None) -> None:
        now = datetime.datetime.now(datetime.timezone.utc)  # one ingested_at for the whole run
        if current is None or current.statements is None:
            current = read_state(self.reader)
        # What differs is found by comparing the rollup's own objects; rows are built for the
        # delta only.
        node_delta, read_delta = [], []
        for key, asset in sorted(lineage.assets.items()):
            before = current.assets.get(key)
            if before is None or _declared(before) != _declared(asset):
                node_delta.append(_node_row(asset))
            if before is None or _compiled(before) != _compiled(asset):
                read_delta.append(_read_row(asset))
        edge_delta = []
        groups = edge_groups(lineage.edges)
        for target in sorted(set(groups) | set(current.edges)):
            new = groups.get(target, ())
            if new != current.edges.get(target, ()):
                edge_delta.extend([_edge_row(e) for e in new] or [_tombstone(target)])
        statement_delta = []
        statements = statement_groups(lineage)
        for asset in sorted(set(statements) | set(current.statements or {})):
            new_reads = statements.get(asset, ())
            if new_reads != (current.statements or {}).get(asset, ()):
                statement_delta.extend(statement_rows(asset, new_reads) or [tombstone(asset)])

        self._write(NODES, node_delta, epoch, now)
        self._write(READS, read_delta, epoch, now)
        self._write(EDGES, edge_delta, epoch, now)
        self._write(STATEMENTS, statement_delta, epoch, now)
        nodes = {a.id: _node_row(a) for a in lineage.assets.values()}
        reads = {a.id: _read_row(a) for a in lineage.assets.values()}
        changed = {r["asset_id"] for r in node_delta} | {r["asset_id"] for r in read_delta}
        merged = self._merged(changed, nodes, reads)
        self._write(MERGED_NODES, merged, epoch, now, always=True)
        self._write(PASSES, [{"environment": lineage.environment, "parser": lineage.parser.value,
                              "revision": self.revision}], epoch, now, always=True)
        self._write(ALIVE, [{"asset_id": a} for a in sorted(nodes)], epoch, now, always=True)
        self.delta = EpochDelta(epoch, [lineage.assets[a] for a in sorted(changed) if a in lineage.assets],
                                sorted(set(current.assets) - set(lineage.assets)),
                                {target: groups.get(target, ()) for target in sorted(set(groups) | set(current.edges))
                                 if groups.get(target, ()) != current.edges.get(target, ())})

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


def _declared(asset: Asset) -> tuple:
    """What the parse layer holds of an asset: its declaration."""
    return (asset.full_name, asset.namespace, asset.name, asset.kind, asset.owner, asset.steward, asset.certified,
            asset.file, asset.aliases, asset.alias_ranks, asset.notes)


def _compiled(asset: Asset) -> tuple:
    """What the compile layer holds of an asset: what reading its SQL said."""
    return (asset.sql_status, asset.sql_read_from, asset.read_notes)


def _node_row(asset: Asset) -> dict:
    return {"asset_id": asset.id, "full_name": asset.full_name, "namespace": asset.namespace, "name": asset.name,
            "kind": asset.kind, "owner": asset.owner, "steward": asset.steward, "certified": asset.certified,
            "file": asset.file, "aliases": list(asset.aliases), "alias_ranks": list(asset.alias_ranks),
            "notes": list(asset.notes)}


def _read_row(asset: Asset) -> dict:
    return {"asset_id": asset.id, "sql_status": asset.sql_status.value if asset.sql_status else None,
            "sql_read_from": asset.sql_read_from,
            "read_notes": [{"text": n.text, "mentions": list(n.mentions)} for n in asset.read_notes]}


def _edge_row(edge: LineageEdge) -> dict:
    columns = [{"from": c.source, "to": c.target, "relationship": c.relationship,
                "transformation": c.transformation, "confidence": c.confidence} for c in edge.columns or ()]
    return {"target_id": edge.target, "source_id": edge.source, "mark": edge.mark.value, "via": edge.via.value,
            "file": edge.file, "columns": columns, "note": edge.note, "revision": edge.revision}


def _tombstone(target: str) -> dict:
    return {"target_id": target, "source_id": None, "mark": None, "via": None, "file": None, "columns": [],
            "note": None, "revision": None}
