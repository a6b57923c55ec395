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

from typing import TYPE_CHECKING

from .epochs import (BULK_ROWS, CHUNK_ROWS, epochs, release, reserve, reserved, temporary_file, write_keys,
                     write_rows, write_tables)
from .tables import ALIVE, COMPILED_COLUMNS, EDGES, MERGED_NODES, NODES, PASSES, READS, STATEMENTS, TABLES, IndexTable


if TYPE_CHECKING:
    from ..governance.rollup import Asset, EnvironmentLineage, LineageEdge
    from .reader import IndexReader
    from .state import IndexState

STATEMENT_GROUP_ROWS = 1_000

# An epoch's edges file is written by a forked child (``EpochWriter.fork``) from this many rows:
# a full sync's (35,000 at 10,000 assets); below it the fork is not worth its cost.
FORK_EDGE_ROWS = 20_000

# The rollup, the ledger's rows and the index's reader (DuckDB) are imported where they are used:
# an SQL-only sync writes a known delta without reading the index.


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
        self._reader = reader
        self.delta: EpochDelta | None = None
        self.revision: str | None = None  # the revision the sync read (the control plane sets it)
        # Whether a large epoch's edges file may be written by a forked child (``_ForkedFile``):
        # only a caller that knows no other thread runs in its process may say so (the sync).
        self.fork = False

    @property
    def reader(self) -> IndexReader:
        if self._reader is None:
            from .reader import IndexReader

            self._reader = IndexReader(self.root)
        return self._reader

    def next_epoch(self) -> int:
        """One more than any number used in this index: a table's file (committed or left by a
        sync that stopped) or a reservation."""
        written = [e for table in TABLES for e in epochs(self.root / table.directory)]
        return max([*written, *reserved(self.root)], default=0) + 1

    def allocate(self) -> int:
        """The next epoch number, reserved atomically (``O_EXCL``): two writers never take the
        same number, even without the environment's lock (``control/locking.py``)."""
        return reserve(self.root, self.next_epoch())

    def write(self, lineage: EnvironmentLineage, *, current: IndexState | None = None,
              epoch: int | None = None) -> int:
        """``current``: what the index holds, when the caller has just read it (``EpochIndex``
        passes it when no epoch was written since), so it is not read twice.  ``self.delta``
        then says what the epoch changed (the current store is updated from it).  ``epoch``: a
        number the caller reserved (``allocate``); released here, written or not."""
        if epoch is None:
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
        from .ledger import statement_rows, tombstone

        epoch = self.allocate()
        try:
            now = datetime.datetime.now(datetime.timezone.utc)
            self._write(READS, [_read_row(a) for a in compiled], epoch, now)
            self._write(EDGES, [row for target, group in sorted(edge_groups.items())
                                for row in ([_edge_row(e) for e in group] or [_tombstone(target)])], epoch, now)
            self._write(STATEMENTS, [row for asset, reads in sorted(statements.items())
                                     for row in (statement_rows(asset, reads) or [tombstone(asset)])], epoch, now)
            by_id = {a.id: a for a in compiled}
            self._write(MERGED_NODES, self._merged_rows(sorted(by_id), by_id), epoch, now, always=True)
            self._write(PASSES, [{"environment": environment, "parser": parser, "revision": self.revision}], epoch,
                        now, always=True)
            write_keys(ALIVE, sorted(alive), self.root / ALIVE.directory, epoch, now)
        finally:
            release(self.root, epoch)
        return epoch

    def _write_epoch(self, lineage: EnvironmentLineage, epoch: int, current: IndexState | None) -> None:
        from .ledger import statement_groups
        from .state import IndexState, edge_groups, read_state

        now = datetime.datetime.now(datetime.timezone.utc)  # one ingested_at for the whole run
        if current is None or current.statements is None:
            if epochs(self.root / ALIVE.directory):
                current = read_state(self.reader)
            else:  # nothing committed: the index holds nothing (no need to open DuckDB to see it)
                current = IndexState((), {}, {}, {})
        # What differs is found by comparing the rollup's own objects; rows are built for the
        # delta only.
        # Which rows differ is found by comparing the rollup's own objects; the Arrow arrays are
        # made as the file is written, a row group at a time (``columnar.py``), so a first sync
        # never holds every row of the epoch as Arrow or dict values at once (only the lists of
        # the objects' own values and the numbers of their shared parts).
        node_changed, read_changed = [], []
        for key, asset in sorted(lineage.assets.items()):
            before = current.assets.get(key)
            if before is None or _declared(before) != _declared(asset):
                node_changed.append(key)
            if before is None or _compiled(before) != _compiled(asset):
                read_changed.append(key)
        groups = edge_groups(lineage.edges)
        edge_targets = [target for target in sorted(set(groups) | set(current.edges))
                        if groups.get(target, ()) != current.edges.get(target, ())]
        statements = statement_groups(lineage)
        before_statements = current.statements or {}
        statement_assets = [asset for asset in sorted(set(statements) | set(before_statements))
                            if statements.get(asset, ()) != before_statements.get(asset, ())]
        assets = lineage.assets

        # Every table is built column by column from the rollup's objects (``columnar.py``); for
        # edges and statements an item is (group key, its edge or statement read), or (key, None)
        # for an emptied group.
        from .columnar import assets_tables, edges_tables, statements_tables

        edge_items = [(target, edge) for target in edge_targets for edge in (groups.get(target) or (None,))]

        def write_edges(temporary: str | None = None) -> None:
            write_tables(edges_tables(EDGES.schema, edge_items, stamp=now, group_rows=CHUNK_ROWS), EDGES.schema,
                         self.root / EDGES.directory, epoch, temporary)

        # A large epoch's edges file is written by a forked child while this process writes the
        # others (at 100,000 assets this process was the one still running, the store's child
        # done, for two seconds of the epoch).  The file is renamed into place before the epoch is
        # committed, as this process would; a child that failed is replaced by writing it here.
        aside = None
        # Not beside an open DuckDB connection of this index (its threads: a sync that read the
        # index first); a first sync never opens one.
        if self.fork and len(edge_items) >= FORK_EDGE_ROWS and self._reader is None:
            if len(node_changed) >= BULK_ROWS:
                prepare_bulk()  # both would import pandas (``arrow_rows``): imported once, before the fork
            aside = _ForkedFile.start(self.root / EDGES.directory, write_edges)
        try:
            for table, keys in ((NODES, node_changed), (READS, read_changed)):
                write_tables(assets_tables(table.schema, [assets[key] for key in keys], stamp=now,
                                           group_rows=CHUNK_ROWS), table.schema, self.root / table.directory, epoch)
            if aside is None:
                write_edges()
            write_tables(statements_tables(STATEMENTS.schema, [(asset, read) for asset in statement_assets
                                                               for read in (statements.get(asset) or (None,))],
                                           stamp=now, group_rows=STATEMENT_GROUP_ROWS),
                         STATEMENTS.schema, self.root / STATEMENTS.directory, epoch)
            changed = set(node_changed) | set(read_changed)
            # Nodes LEFT JOIN their reads (``_merged``): every changed asset has both.
            write_tables(assets_tables(MERGED_NODES.schema, [assets[key] for key in sorted(changed) if key in assets],
                                       stamp=now, group_rows=CHUNK_ROWS, empty=True),
                         MERGED_NODES.schema, self.root / MERGED_NODES.directory, epoch)
            self._write(PASSES, [{"environment": lineage.environment, "parser": lineage.parser.value,
                                  "revision": self.revision}], epoch, now, always=True)
            if aside is not None and not aside.finish():
                write_edges()  # the child did not write it (its temporary file is removed)
        except BaseException:
            if aside is not None:
                aside.stop()
            raise
        write_keys(ALIVE, sorted(assets), self.root / ALIVE.directory, epoch, now)
        self.delta = EpochDelta(epoch, [lineage.assets[a] for a in sorted(changed) if a in lineage.assets],
                                sorted(set(current.assets) - set(lineage.assets)),
                                {target: groups.get(target, ()) for target in edge_targets})

    def _merged_rows(self, changed: list[str], assets: dict[str, Asset]):
        """``_merged`` over ``changed`` (sorted), a row group's worth of assets at a time."""
        for start in range(0, len(changed), CHUNK_ROWS):
            part = changed[start:start + CHUNK_ROWS]
            yield from self._merged(set(part), {k: _node_row(assets[k]) for k in part if k in assets},
                                    {k: _read_row(assets[k]) for k in part if k in assets})

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

    def _write(self, table: IndexTable, rows, epoch: int, now, *, always: bool = False) -> None:
        # A full sync's epoch: its large row groups are worth pyarrow's own converter.  A
        # statement's row holds its links and every column of each table it looked up (about
        # 27 KB as Python objects at warehouse scale), so its row groups are smaller: 4,000 of
        # them were the largest thing a 10,000-asset sync held at once (+110 MB).
        write_rows(table, rows, self.root / table.directory, epoch, now, always=always, bulk=True,
                   group_rows=STATEMENT_GROUP_ROWS if table is STATEMENTS else None)


def prepare_bulk() -> None:
    """What ``pyarrow.array`` imports on its first call (pandas, when installed: about a third of
    a second), imported now."""
    import pyarrow as pa

    pa.array([], type=pa.string())


class _ForkedFile:
    """One epoch file written by a forked child (``write(temporary)``), into a temporary file this
    process made first: a child that is stopped leaves nothing (its temporary file is removed
    here); one that failed exits with status 1, and its file is then written by this process.

    The child inherits what it writes from (no copy, no pickling) and ends with ``os._exit``:
    none of this process's cleanup, buffers or handlers run there.  Ctrl-C is this process's
    (the child ignores it): it stops the child."""

    def __init__(self, pid: int, temporary: str):
        self.pid: int | None = pid
        self.temporary = temporary

    @classmethod
    def start(cls, directory: Path, write) -> _ForkedFile | None:
        """None when no child could be forked (nothing is left then).  Ctrl-C while forking is
        raised, nothing left."""
        import os

        temporary = None
        try:
            temporary = temporary_file(directory)
            pid = os.fork()
        except BaseException as error:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            if not isinstance(error, Exception):
                raise  # Ctrl-C
            return None  # no process left, no file: written here instead
        if pid == 0:
            _in_child(lambda: write(temporary))
        return cls(pid, temporary)

    def finish(self) -> bool:
        """Wait for the child: whether it wrote the file (else its temporary file is removed)."""
        import os

        try:
            _, status = os.waitpid(self.pid, 0)
            written = os.waitstatus_to_exitcode(status) == 0
        except ChildProcessError:
            written = False
        self.pid = None
        if not written:
            Path(self.temporary).unlink(missing_ok=True)
        return written

    def stop(self) -> None:
        """The child killed (if it runs) and reaped, its temporary file removed."""
        import os
        import signal

        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (OSError, ChildProcessError):
                pass
            self.pid = None
        Path(self.temporary).unlink(missing_ok=True)


def _in_child(write) -> None:
    """What a forked child runs: ``write()``, then ``os._exit`` (status 0 when it returned, 1
    when it raised anything)."""
    import os
    import signal

    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops this child
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        write()
        code = 0
    except BaseException:  # noqa: BLE001 - the parent writes it itself
        code = 1
    finally:
        os._exit(code)


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
