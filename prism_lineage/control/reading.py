"""Answering from the current store: ``lineage`` and ``lineage impact`` as a few indexed queries.

An answer resolves the name among the assets the credential may see, walks up or down level by
level over the adjacency (``(src, dst)`` and ``(dst, src)`` covering indexes), one query per
level, never stepping onto an asset the credential may not see, keeps each asset's minimum
distance, orders and cuts at 100, then reads the edges among the assets it holds.  The rules are
those of ``governance/explorer.py``, ``impact.py``, ``walks.py`` and ``asset_names.py``, and the
answers are byte-identical to theirs (tests/control/ runs every visibility property test
against both); this module imports neither them nor pydantic, sqlglot or DuckDB, so a whole
``prism-lineage lineage`` process costs a few tens of milliseconds.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from ..governance.errors import AmbiguousAssetError, AssetNotFoundError, DepthOutOfRangeError
from ..governance.statuses import (
    CUT_NOTE,
    FILE_SQL_NOTE,
    LINE_STYLE,
    NO_COLUMN_ANSWER_NOTE,
    NO_COLUMN_NOTE,
    NO_EDGE_NOTE,
    NOT_VISIBLE,
    PARSER_NOTE,
    TOLD_TO_EVERYONE,
    EnvironmentStatus,
    Mark,
    MarkStatus,
    ParserState,
    impact_unread_notes,
    not_computed_notes,
    sql_not_read_note,
)
from .answers import AssetNode, ColumnEdge, EdgeRow, ExplorerAnswer, ImpactAnswer, ImpactAsset, LegendEntry
from .store import STORE_FILE, StoreError, connect_read
from ..openlineage.store_view import attach_observed, seen_at_text
from .viewers import OWNER_KEY, StoredViewer

LINEAGE_READ = "lineage.read"
# The explorer's rules (governance/explorer.py holds the same; a test checks they agree).
DEFAULT_DEPTH = 2
MIN_DEPTH = 1
MAX_DEPTH = 10
CUT_AT = 100
KIND_ORDER = {"table": 0, "view": 1}
AT_LEAST_NOTE = "Part of what depends on this asset is not visible to you: there are at least this many."
DIRECTIONS = ("upstream", "downstream", "both")

_ASSET_COLUMNS = "id, asset_id, full_name, kind, owner, steward, certified, sql_status, sql_read_from, notes, read_notes"


class StoreReader:
    """The store of one environment (``root``: its directory in the index)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.path = self.root / STORE_FILE
        self.connection: sqlite3.Connection = connect_read(self.path)
        try:
            self.meta: dict[str, str | None] = dict(self.connection.execute("SELECT key, value FROM meta"))
            # Observed edges (prism-lineage observe) are rows of their own beside the store's.
            self.observed = attach_observed(self.connection, self.root)
        except sqlite3.DatabaseError as error:
            self.connection.close()
            raise StoreError(f"{self.path} is not a readable store: {error}") from None

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> "StoreReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- what the store is ------------------------------------------------------------------

    @property
    def project(self) -> str:
        return self.meta["project"] or ""

    @property
    def environment(self) -> str:
        return self.meta["environment"] or ""

    @property
    def computed(self) -> bool:
        return self.meta.get("status") == EnvironmentStatus.COMPUTED.value

    @property
    def held_for_review(self) -> bool:
        return self.meta.get("held_for_review") == "1"

    @property
    def parser(self) -> ParserState:
        return ParserState(self.meta.get("parser") or ParserState.RAN.value)

    def missing_notes(self) -> list[str]:
        """What ``prism-lineage index repair`` quarantined and no sync has written again: said in
        every answer, never silently (the in-memory answers have no such state)."""
        missing = json.loads(self.meta.get("missing") or "[]")
        if not missing:
            return []
        return [f"The index is missing {', '.join(missing)} (quarantined by prism-lineage index repair): until the "
                "next sync, this answer may lack what that epoch recorded or show what it replaced."]

    def as_of(self) -> dict:
        """Which sync the answers are as of: its epoch, revision (git commit) and time."""
        epoch = self.meta.get("epoch")
        found = {"epoch": int(epoch) if epoch else None, "revision": self.meta.get("revision"),
                 "synced_at": self.meta.get("synced_at")}
        if self.meta.get("interim") == "1":
            # A sync of this revision has not read what is new in it yet (or stopped before its
            # end): no epoch holds this state; what waits says "Not read yet" itself.
            found["reading"] = True
        return found

    def viewer(self, credential: str | None) -> StoredViewer:
        """The credential as the sync compiled it (None: the project owner)."""
        row = self.connection.execute("SELECT viewer FROM credentials WHERE name = ?",
                                      (OWNER_KEY if credential is None else credential,)).fetchone()
        if row is None or (credential is not None and credential == OWNER_KEY):
            from ..governance.errors import UnknownCredentialError

            raise UnknownCredentialError(credential or "")
        return StoredViewer.from_json(row[0])

    # --- the answers ------------------------------------------------------------------------

    def explore(self, viewer: StoredViewer, asset: str, direction: str = "both", depth: int = DEFAULT_DEPTH, *,
                cut_at: int = CUT_AT) -> ExplorerAnswer:
        viewer.require(LINEAGE_READ)
        if direction not in DIRECTIONS:
            raise ValueError(f"{direction!r} is not a valid Direction")
        if not MIN_DEPTH <= depth <= MAX_DEPTH:
            raise DepthOutOfRangeError(depth, MIN_DEPTH, MAX_DEPTH)
        scope = self.scope_of(viewer)
        focus_id, focus_name = self.resolve(viewer, asset)
        marks = self.marks(viewer, scope)
        legend = [LegendEntry(mark=m.value, line=LINE_STYLE[m], status=marks[m.value]) for m in Mark]
        if not self.computed:
            return ExplorerAnswer(project=self.project, environment=self.environment,
                                  environment_status=self.meta.get("status"), asset=focus_name, direction=direction,
                                  depth=depth, marks=marks, legend=legend, cut=False, holds=0, assets=[], edges=[],
                                  sql_not_read=0, notes=not_computed_notes(self.held_for_review))
        sides = {"upstream": ("up",), "downstream": ("down",), "both": ("up", "down")}[direction]
        distances, next_to_cut, names = self._walk(viewer, scope, focus_id, focus_name, sides, depth)
        ordered = sorted(distances, key=lambda a: (distances[a], names[a]))
        cut = len(ordered) > cut_at
        held = ordered[:cut_at]
        details = self._details(held, scope)
        nodes = []
        for node in held:
            _, asset_id, full_name, kind, owner, steward, certified, status, read_from, notes, read_notes = details[node]
            nodes.append(AssetNode(id=asset_id, name=full_name, kind=kind, owner=owner, steward=steward,
                                   certified=bool(certified), sql_status=status, sql_read_from=read_from,
                                   reads_at_least=status is not None,
                                   note=NOT_VISIBLE if node in next_to_cut else None,
                                   notes=_visible_notes(notes, read_notes, viewer), distance=distances[node]))
        edges = self._edges_among(held, details, scope)
        sql_not_read = sum(1 for n in nodes if n.sql_status is not None)
        return ExplorerAnswer(project=self.project, environment=self.environment,
                              environment_status=self.meta.get("status"), asset=focus_name, direction=direction,
                              depth=depth, marks=marks, legend=legend, cut=cut, holds=len(nodes), assets=nodes,
                              edges=edges, sql_not_read=sql_not_read,
                              notes=_notes(edges, sql_not_read, marks, cut, cut_at,
                                           any(status == FILE_STATUS for _, status in self._unread(viewer, scope)))
                              + self.missing_notes())

    def impact(self, viewer: StoredViewer, asset: str) -> ImpactAnswer:
        viewer.require(LINEAGE_READ)
        scope = self.scope_of(viewer)
        focus_id, focus_name = self.resolve(viewer, asset)
        marks = self.marks(viewer, scope)
        if not self.computed:
            return ImpactAnswer(project=self.project, environment=self.environment,
                                environment_status=self.meta.get("status"), asset=focus_name, marks=marks,
                                at_least=False, count=0, by_kind={}, assets=[], sql_not_read=0,
                                notes=not_computed_notes(self.held_for_review))
        distances, next_to_cut, _ = self._walk(viewer, scope, focus_id, focus_name, ("down",), None)
        found = [a for a in distances if a != focus_id]
        details = self._details(found, scope)
        rows = sorted((details[a] for a in found), key=lambda r: (KIND_ORDER.get(r[3], 2), r[2]))
        assets = [ImpactAsset(id=asset_id, name=full_name, kind=kind, owner=owner, steward=steward,
                              certified=bool(certified), sql_status=status)
                  for _, asset_id, full_name, kind, owner, steward, certified, status, *_ in rows]
        by_kind: dict[str, int] = {}
        for a in assets:
            by_kind[a.kind] = by_kind.get(a.kind, 0) + 1
        # As governance/impact.py: a visible asset whose SQL was not read may read this one too.
        unread = self._unread(viewer, scope)
        elsewhere = [status for identifier, status in unread if identifier not in distances]
        at_least = bool(next_to_cut) or bool(elsewhere)
        sql_not_read = sum(1 for a in assets if a.sql_status is not None)
        notes = []
        if next_to_cut:
            notes.append(AT_LEAST_NOTE)
        if marks[Mark.PARSED.value] == MarkStatus.COULD_NOT_RUN.value:
            notes.append(PARSER_NOTE)
        if sql_not_read:
            notes.append(f"{sql_not_read} of the assets listed have SQL that was not read.")
        notes.extend(impact_unread_notes(elsewhere, [status for _, status in unread]))
        notes.extend(self.missing_notes())
        return ImpactAnswer(project=self.project, environment=self.environment,
                            environment_status=self.meta.get("status"), asset=focus_name, marks=marks,
                            at_least=at_least, count=len(assets), by_kind=by_kind, assets=assets,
                            sql_not_read=sql_not_read, notes=notes)

    def choose(self, viewer: StoredViewer, search: str | None) -> list[tuple[str, str]]:
        """The tables and views the credential may see whose name holds ``search``, by name."""
        viewer.require(LINEAGE_READ)
        text = (search or "").lower()
        return sorted((name, kind) for name, kind in self.connection.execute("SELECT full_name, kind FROM assets")
                      if viewer.sees(name) and text in name.lower())

    # --- the parts ----------------------------------------------------------------------------

    def scope_of(self, viewer: StoredViewer) -> int | None:
        """The store's id of the viewer's visibility scope, whose overrides its answers read
        (``EnvironmentLineage.for_viewer``); None: the base.  A scope the last sync did not work
        out is refused, never answered with the owner's reading."""
        if viewer.scope is None or not self.computed:
            return None
        row = self.connection.execute("SELECT id FROM scopes WHERE key = ?", (viewer.scope,)).fetchone()
        if row is not None:
            return row[0]
        if self.meta.get("visibility_independent") == "1":
            return None
        from ..governance.errors import ScopeNotComputedError

        raise ScopeNotComputedError(self.environment)

    def marks(self, viewer: StoredViewer, scope: int | None = None) -> dict[str, str]:
        return {Mark.DECLARED.value: MarkStatus.RECORDED.value,
                Mark.PARSED.value: self._parsed_mark(viewer, scope).value,
                Mark.OBSERVED.value: (MarkStatus.RECORDED if self.observed else MarkStatus.NOT_RECORDED).value}

    def _parsed_mark(self, viewer: StoredViewer, scope: int | None) -> MarkStatus:
        """The parsed mark as ``viewer`` is told it: by its cause (``EnvironmentLineage.parsed_mark``)."""
        parser = self.parser
        if parser is ParserState.NOT_RUN:
            return MarkStatus.NOT_RECORDED_YET
        if parser is ParserState.RAN:
            return MarkStatus.RECORDED
        if scope is None:
            waiting = [name for (name,) in self.connection.execute("SELECT full_name FROM assets WHERE waiting")]
        else:
            waiting = [name for (name,) in self.connection.execute(
                "SELECT full_name FROM assets WHERE waiting AND id NOT IN "
                "(SELECT asset FROM scope_assets WHERE scope = ?1) UNION "
                "SELECT a.full_name FROM scope_assets s JOIN assets a ON a.id = s.asset WHERE s.scope = ?1 "
                "AND s.waiting", (scope,))]
        if not waiting:
            return MarkStatus.RECORDED
        if parser in TOLD_TO_EVERYONE:
            return MarkStatus.COULD_NOT_RUN
        if any(viewer.sees(name) for name in waiting):
            return MarkStatus.COULD_NOT_RUN
        return MarkStatus.RECORDED

    def resolve(self, viewer: StoredViewer, name: str) -> tuple[int, str]:
        """(id, full name) of the asset ``name`` names among those ``viewer`` may see
        (``governance/asset_names.py``): hidden, nonexistent and other-environment alike."""
        row = self.connection.execute("SELECT id, full_name FROM assets WHERE full_name = ?", (name,)).fetchone()
        if row is not None and viewer.sees(row[1]):
            return row
        # Each visible asset with its strongest rank for the name (asset_names.name_rank): an
        # asset's own name holds at the weakest rank of its aliases (0 without any).
        ranked: dict[tuple[str, int], int] = {}
        for identifier, full_name, rank in self.connection.execute(
                "SELECT a.id, a.full_name, l.rank FROM aliases l JOIN assets a ON a.id = l.asset WHERE l.alias = ?1 "
                "UNION ALL SELECT a.id, a.full_name, (SELECT coalesce(max(rank), 0) FROM aliases WHERE asset = a.id) "
                "FROM assets a WHERE a.name = ?1 AND NOT EXISTS "
                "(SELECT 1 FROM aliases WHERE asset = a.id AND alias = ?1)", (name,)):
            if viewer.sees(full_name):
                key = (full_name, identifier)
                ranked[key] = min(rank, ranked.get(key, rank))
        best = min(ranked.values(), default=None)
        matches = sorted(key for key, rank in ranked.items() if rank == best)
        if len(matches) == 1:
            return matches[0][1], matches[0][0]
        if matches:
            raise AmbiguousAssetError(name, [full_name for full_name, _ in matches])
        raise AssetNotFoundError(name, self.environment)

    def _walk(self, viewer: StoredViewer, scope: int | None, start: int, start_name: str, sides: tuple[str, ...],
              depth: int | None) -> tuple[dict[int, int], set[int], dict[int, str]]:
        """Breadth-first, level by level, over visible assets (``governance/walks.py``): each
        asset's minimum distance, those next to a cut, and the full names met."""
        distances = {start: 0}
        next_to_cut: set[int] = set()
        names = {start: start_name}
        for side in sides:
            query = (_DOWN if side == "down" else _UP).replace("{scoped}", _scoped("e", scope))
            reached = {start}
            frontier = [start]
            level = 0
            while frontier and (depth is None or level < depth):
                found = []
                for node, neighbour, name in self.connection.execute(query.format(ids=_ids(frontier))):
                    if not viewer.sees(name):
                        next_to_cut.add(node)
                        continue
                    if neighbour in reached:
                        continue
                    reached.add(neighbour)
                    names[neighbour] = name
                    found.append(neighbour)
                    if distances.get(neighbour, level + 2) > level + 1:
                        distances[neighbour] = level + 1
                frontier = found
                level += 1
        return distances, next_to_cut, names

    def _unread(self, viewer: StoredViewer, scope: int | None) -> list[tuple[int, str]]:
        """(store id, SQL status) of every asset the viewer sees whose SQL was not read, in the
        viewer's scope's reading."""
        if scope is None:
            rows = self.connection.execute("SELECT id, full_name, sql_status FROM assets WHERE sql_status IS NOT NULL")
        else:
            # The base's unread assets (the partial index ``assets_unread``) with the scope's own
            # status, and the scope's overrides of assets the base read: two indexed lookups,
            # not a scan of every asset.
            rows = self.connection.execute(
                "SELECT a.id, a.full_name, CASE WHEN s.asset IS NULL THEN a.sql_status ELSE s.sql_status END AS st "
                "FROM assets a LEFT JOIN scope_assets s ON s.scope = ? AND s.asset = a.id "
                "WHERE a.sql_status IS NOT NULL "
                "UNION ALL SELECT a.id, a.full_name, s.sql_status FROM scope_assets s JOIN assets a ON a.id = s.asset "
                "WHERE s.scope = ? AND a.sql_status IS NULL", (int(scope), int(scope)))
        return [(identifier, status) for identifier, name, status in rows if status is not None and viewer.sees(name)]

    def _details(self, ids: Iterable[int], scope: int | None) -> dict[int, tuple]:
        found: dict[int, tuple] = {}
        ids = list(ids)
        if scope is None:
            query = f"SELECT {_ASSET_COLUMNS} FROM assets WHERE id IN ({{ids}})"
        else:  # the scope's own statuses where it has them
            query = ("SELECT a.id, a.asset_id, a.full_name, a.kind, a.owner, a.steward, a.certified, "
                     "CASE WHEN s.asset IS NULL THEN a.sql_status ELSE s.sql_status END, "
                     "CASE WHEN s.asset IS NULL THEN a.sql_read_from ELSE s.sql_read_from END, a.notes, "
                     "CASE WHEN s.asset IS NULL THEN a.read_notes ELSE s.read_notes END "
                     f"FROM assets a LEFT JOIN scope_assets s ON s.scope = {int(scope)} AND s.asset = a.id "
                     "WHERE a.id IN ({ids})")
        for start in range(0, len(ids), 10_000):
            for row in self.connection.execute(query.format(ids=_ids(ids[start:start + 10_000]))):
                found[row[0]] = row
        return found

    def _edges_among(self, held: list[int], details: dict[int, tuple], scope: int | None) -> list[EdgeRow]:
        marks = _ids(held)
        rows = self.connection.execute(
            "SELECT e.src, e.dst, e.mark, e.via, e.file, coalesce(l.links, e.links_json), e.note, e.revision, "
            "e.run_id, e.seen_at FROM lineage_edges e "
            f"LEFT JOIN links l ON l.id = e.links WHERE e.src IN ({marks}) AND e.dst IN ({marks}) "
            f"AND {_scoped('e', scope)}").fetchall()
        rows.sort(key=lambda r: (details[r[0]][2], details[r[1]][2], r[2], r[3], r[4]))
        edges = []
        for src, dst, mark, via, file, links, note, revision, run_id, seen_at in rows:
            columns = None
            if links is not None:
                columns = [ColumnEdge(source=a, target=b, relationship=c, transformation=d, confidence=e)
                           for a, b, c, d, e in json.loads(links)]
                if not columns:
                    note = NO_COLUMN_NOTE
            edges.append(EdgeRow(source=details[src][1], target=details[dst][1], source_name=details[src][2],
                                 target_name=details[dst][2], mark=mark, line=LINE_STYLE[Mark(mark)], via=via,
                                 file=file, columns=columns, note=note, revision=revision, run_id=run_id,
                                 seen_at=seen_at_text(seen_at)))
        return edges


def open_store(index: str | Path, project: str, environment: str) -> StoreReader:
    """The current store of ``project``/``environment`` in the index ``index``."""
    from .paths import environment_root

    return StoreReader(environment_root(index, project, environment))


_DOWN = ("SELECT e.src, e.dst, a.full_name FROM lineage_edges e JOIN assets a ON a.id = e.dst "
         "WHERE e.src IN ({ids}) AND {scoped}")
_UP = ("SELECT e.dst, e.src, a.full_name FROM lineage_edges e JOIN assets a ON a.id = e.src "
       "WHERE e.dst IN ({ids}) AND {scoped}")


def _scoped(alias: str, scope: int | None) -> str:
    """The edges a scope reads: the base rows, except the groups (by target) the scope
    overrides, and the scope's own rows."""
    if scope is None:
        return f"{alias}.scope IS NULL"
    scope = int(scope)
    # A scope overrides groups of declared and parsed edges; observed edges are rows of their own.
    return (f"({alias}.mark = 'observed' OR {alias}.scope IS NULL AND {alias}.dst NOT IN (SELECT target FROM scope_targets WHERE scope = {scope}) "
            f"OR {alias}.scope = {scope})")


def _visible_notes(notes: str | None, read_notes: str | None, viewer: StoredViewer) -> list[str]:
    """An asset's notes as the viewer is told them (``rollup.Asset.visible_notes``): a read note
    only when the viewer sees every asset it names."""
    found = json.loads(notes) if notes else []
    for text, mentions in json.loads(read_notes) if read_notes else ():
        if all(viewer.sees(name) for name in mentions):
            found.append(text)
    return found


def _ids(ids: Iterable[int]) -> str:
    """Integer ids as a SQL list (they come from the store itself: never user text)."""
    return ",".join(str(int(i)) for i in ids)


FILE_STATUS = "Kept in a file, not read"  # statuses.SqlStatus.IN_FILE's words


def _notes(edges: list[EdgeRow], sql_not_read: int, marks: dict[str, str], cut: bool, cut_at: int,
           file_sql: bool = True) -> list[str]:
    notes = []
    if cut:
        notes.append(CUT_NOTE.format(limit=cut_at))
    if marks[Mark.PARSED.value] == MarkStatus.COULD_NOT_RUN.value:
        notes.append(PARSER_NOTE)
    if sql_not_read:
        notes.append(sql_not_read_note(sql_not_read))
    no_column = any(e.columns is not None and not e.columns for e in edges)
    if no_column:
        notes.append(NO_COLUMN_ANSWER_NOTE)
    if not edges:
        notes.append(NO_EDGE_NOTE)
    if (no_column or not edges) and file_sql:
        notes.append(FILE_SQL_NOTE)
    return notes
