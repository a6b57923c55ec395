"""``EpochIndex``: one environment's index, read and written (see the package)."""

from __future__ import annotations

from pathlib import Path

from ..governance.rollup import EnvironmentLineage
from ..governance.statuses import EnvironmentStatus, ParserState, SqlStatus
from .epochs import epochs as _epochs_in
from .ledger import grouped, ledger_of
from .reader import IndexReader
from .state import IndexState, read_state
from .tables import ALIVE, EDGES, MERGED_NODES, PASSES, STATEMENTS
from .writer import EpochWriter


class EpochIndex:
    """The index of one environment, in ``root`` (one directory per table)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        # What the index held when it was last read: a write right after a read (the CLI's
        # incremental sync) compares against it instead of reading it again.
        self._state: IndexState | None = None
        self._reader: IndexReader | None = None
        self.last_delta = None

    @property
    def reader(self) -> IndexReader:
        """One DuckDB connection for every read of this index (opening one costs more than a
        small index's query)."""
        if self._reader is None:
            self._reader = IndexReader(self.root)
        return self._reader

    def reserve(self) -> int:
        """The next epoch's number, reserved (``EpochWriter.allocate``) for a ``write`` to come:
        its caller must write it, or ``release`` it."""
        return EpochWriter(self.root, self._reader).allocate()

    def release(self, epoch: int) -> None:
        """A reserved number not written after all."""
        from .epochs import release

        release(self.root, epoch)

    def write(self, lineage: EnvironmentLineage, *, revision: str | None = None, epoch: int | None = None,
              fork: bool = False) -> int:
        """Write ``lineage`` as the next epoch (read at ``revision``), or as ``epoch`` when the
        caller reserved it (``reserve``); returns its number.  ``fork``: a large epoch's edges
        file may be written by a forked child (``EpochWriter.fork``): only for a caller that
        knows no other thread runs in this process."""
        current = self._state if self._state is not None and list(self._state.epochs) == self.epochs() else None
        self._state = None
        # The reader this index holds, if any: a writer opens one only if it must read what the
        # index holds (not for a first epoch: DuckDB is then neither imported nor connected).
        writer = EpochWriter(self.root, self._reader)
        writer.revision = revision
        writer.fork = fork
        epoch = writer.write(lineage, current=current, epoch=epoch)
        if self._reader is None:
            self._reader = writer._reader  # the one it opened (None when it read nothing)
        self.last_delta = writer.delta  # what the epoch changed: the current store is updated from it
        return epoch

    def epochs(self) -> list[int]:
        """The committed epochs (those whose ``alive`` file was written), oldest first."""
        return _epochs_in(self.root / ALIVE.directory)

    def nodes(self) -> list[dict]:
        """The merged nodes (declarations with their compiled fields), alive ones only."""
        return self.reader.latest(MERGED_NODES, prune=("asset_id",))

    def edges(self) -> list[dict]:
        """The current edges, both ends alive (a group's tombstone is not an edge)."""
        rows = self.reader.latest(EDGES, prune=("target_id", "source_id"))
        return [r for r in rows if r["source_id"] is not None]

    def statements(self) -> dict[str, list[dict]]:
        """The current statement reads as stored, grouped by the asset they write (alive ones)."""
        return grouped(self.reader.latest(STATEMENTS, prune=("asset_id",)))

    def lineage(self, project: str, environment: str, *, with_ledger: bool = True) -> EnvironmentLineage:
        """The rollup as the index holds it, for the explorer and impact to read, with the read
        ledger (unless ``with_ledger`` is false) that lets ``sync(previous=…)`` re-read only
        the statements that changed since."""
        state = self._state = read_state(self.reader, with_statements=with_ledger)
        assets = state.assets
        # An edge is drawn only while both its ends are alive.
        edges = [e for group in state.edges.values() for e in group if e.source in assets and e.target in assets]
        edges.sort(key=lambda e: (assets[e.source].full_name, assets[e.target].full_name, e.mark, e.via, e.file))
        waiting = frozenset(a.id for a in assets.values() if a.sql_status is SqlStatus.NOT_READ_YET)
        status = EnvironmentStatus.COMPUTED if state.epochs else EnvironmentStatus.NOT_COMPUTED
        ledger, by_asset = ledger_of(state.statements or {})
        passes = self.reader.latest(PASSES) if state.epochs else []
        parser = ParserState(passes[0]["parser"]) if passes and passes[0]["parser"] else ParserState.RAN
        return EnvironmentLineage(project, environment, status, assets, tuple(edges), parser, waiting,
                                  ledger, by_asset)
