"""The table-level rollup of one environment: its assets and its declared and parsed edges.

``sync`` works an environment out the way the control plane does when a change is applied:

* **declared** edges come from the declarations alone: a view's listed reads (each one the
  environment declares), and a pipeline's order (an asset depending on another asset of the
  same pipeline draws an edge between the tables the two write — that the pipeline runs one
  after the other, never that either reads the other);
* **parsed** edges come from reading SQL with the column-level engine (``sql_reading``): a
  view's SQL, and the SQL a pipeline's asset holds inline.  SQL named in a file is not read.

A pair of assets can hold a declared and a parsed edge: they are two edges.  An edge never
joins an asset to itself.  An environment held for review is *not computed*: it has no edges,
and says so, instead of an empty graph.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from ..functions import FunctionRegistry
from .access import Viewer
from .declarations import Environment, Pipeline, PipelineAsset, Project, Table, View
from .errors import UnknownEnvironmentError
from .sql_reading import AddressBook, ColumnLink, Columns, ProjectCatalog, SqlReader, StatementRead, statement_key
from .statuses import (
    DECLARED_READ_NOTE,
    PIPELINE_ORDER_NOTE,
    SQL_STATUS_ORDER,
    TOLD_TO_EVERYONE,
    TOLD_TO_SQL_VIEWERS,
    EnvironmentStatus,
    Mark,
    MarkStatus,
    ParserState,
    SqlStatus,
    Via,
)

if TYPE_CHECKING:
    import networkx


@dataclass(frozen=True, slots=True)
class Asset:
    """A table or a view of one environment."""

    id: str
    full_name: str
    namespace: str
    name: str
    kind: str  # "table" or "view"
    owner: str | None
    steward: str | None
    certified: bool
    file: str
    aliases: tuple[str, ...] = ()
    sql_status: SqlStatus | None = None
    sql_read_from: str | None = None


@dataclass(frozen=True, slots=True)
class LineageEdge:
    """``source`` feeds ``target`` (asset ids), known by ``mark`` through a view or a pipeline,
    given by ``file``.  ``columns`` is the column lineage behind a parsed edge (None for a
    declared one, which is not traced)."""

    source: str
    target: str
    mark: Mark
    via: Via
    file: str
    columns: tuple[ColumnLink, ...] | None = None
    note: str | None = None
    # The git commit a parsed edge's statement was read at, when the control plane's sync knew
    # it (prism_lineage/control); None for a declared edge and outside a sync.
    revision: str | None = None


@dataclass(frozen=True, slots=True)
class _Statement:
    """One piece of SQL of the environment and the asset it gives edges to."""

    writer: str  # full name of the view, or of the table the pipeline asset writes
    sql: str | None  # None: kept in a file
    dialect: str | None
    via: Via
    file: str
    read_from: str | None


@dataclass
class EnvironmentLineage:
    """One environment's assets and edges, and what the last pass over its SQL could do."""

    project: str
    environment: str
    status: EnvironmentStatus
    assets: dict[str, Asset]
    edges: tuple[LineageEdge, ...]
    parser: ParserState
    waiting: frozenset[str] = frozenset()  # assets whose SQL is new or changed and was not read
    # What the statements read (by statement key), and which of them each asset is written by:
    # what the next sync needs to re-read only what changed (the index stores both).
    ledger: dict[str, StatementRead] = field(default_factory=dict)
    ledger_by_asset: dict[str, tuple[str, ...]] = field(default_factory=dict)
    reads_performed: int = 0  # statements read by this sync (the others were re-used)
    held_for_review: bool = False  # not computed because the environment's change waits for approval

    @cached_property
    def by_name(self) -> dict[str, str]:
        return {asset.full_name: asset.id for asset in self.assets.values()}

    @cached_property
    def graph(self) -> "networkx.MultiDiGraph":
        """Assets as nodes, one edge per edge and mark (parallel edges kept)."""
        import networkx as nx

        graph = nx.MultiDiGraph()
        graph.add_nodes_from(self.assets)
        for index, edge in enumerate(self.edges):
            graph.add_edge(edge.source, edge.target, key=index)
        return graph

    def parsed_mark(self, viewer: Viewer) -> MarkStatus:
        """The parsed mark as ``viewer`` is told it: by its cause, so that it never tells a
        viewer that SQL they may not see was edited."""
        if self.parser is ParserState.NOT_RUN:
            return MarkStatus.NOT_RECORDED_YET
        if self.parser is ParserState.RAN or not self.waiting:
            return MarkStatus.RECORDED
        if self.parser in TOLD_TO_EVERYONE:
            return MarkStatus.COULD_NOT_RUN
        assert self.parser in TOLD_TO_SQL_VIEWERS
        if any(viewer.sees(self.environment, self.assets[a].full_name) for a in self.waiting):
            return MarkStatus.COULD_NOT_RUN
        return MarkStatus.RECORDED

    def marks(self, viewer: Viewer) -> dict[str, str]:
        return {Mark.DECLARED.value: MarkStatus.RECORDED.value, Mark.PARSED.value: self.parsed_mark(viewer).value,
                Mark.OBSERVED.value: MarkStatus.NOT_RECORDED.value}

    def visible(self, viewer: Viewer, asset_id: str) -> bool:
        return viewer.sees(self.environment, self.assets[asset_id].full_name)


def asset_id(project: str, environment: str, full_name: str) -> str:
    """A stable id that says nothing of the asset (its kind, its name) by itself."""
    digest = hashlib.blake2b(f"{project}\x00{environment}\x00{full_name}".encode(), digest_size=8).hexdigest()
    return f"a{digest}"


def environment_of(project: Project, name: str | None) -> Environment:
    """The environment called ``name``; without a name, the only one or the default."""
    if name is None:
        if len(project.environments) == 1:
            return project.environments[0]
        if project.default_environment is not None:
            return project.environment(project.default_environment)  # type: ignore[return-value]
        names = ", ".join(e.name for e in project.environments)
        raise UnknownEnvironmentError(f"project '{project.name}' has several environments and no default: "
                                      f"name one with --env ({names})")
    found = project.environment(name)
    if found is None:
        names = ", ".join(e.name for e in project.environments)
        raise UnknownEnvironmentError(f"project '{project.name}' has no environment '{name}' (it has {names})")
    return found


def sync(project: Project, environment: str | None = None, *, previous: EnvironmentLineage | None = None,
         parser: ParserState = ParserState.RAN, budget: int | None = None, held_for_review: bool = False,
         functions: FunctionRegistry | None = None) -> EnvironmentLineage:
    """Work out one environment's lineage.

    ``previous``: the last sync of the same environment; a statement whose SQL and whose
    resolved addresses are unchanged is not read again.  ``parser``: what the parser can do on
    this pass (``ran`` by default).  ``budget``: how many statements one pass reads at most
    (the rest are "Not read yet").  ``held_for_review``: the environment's change waits for
    approval, so it is not computed.
    """
    env = environment_of(project, environment)
    assets = _assets(project.name, env)
    if held_for_review:
        return EnvironmentLineage(project.name, env.name, EnvironmentStatus.NOT_COMPUTED, assets, (), parser,
                                  held_for_review=True)
    builder = _Builder(project.name, env, assets, previous, parser, budget, functions)
    return builder.build()


def _assets(project: str, env: Environment) -> dict[str, Asset]:
    found: dict[str, Asset] = {}
    for declaration, kind in [(t, "table") for t in env.tables] + [(v, "view") for v in env.views]:
        identifier = asset_id(project, env.name, declaration.full_name)
        found[identifier] = Asset(identifier, declaration.full_name, declaration.namespace, declaration.name, kind,
                                  declaration.owner, declaration.steward, declaration.certified, declaration.file,
                                  declaration.aliases)
    return found


class _Builder:
    def __init__(self, project: str, env: Environment, assets: dict[str, Asset], previous: EnvironmentLineage | None,
                 parser: ParserState, budget: int | None, functions: FunctionRegistry | None):
        self.project = project
        self.env = env
        self.assets = assets
        self.ids = {a.full_name: a.id for a in assets.values()}
        self.parser = parser
        self.budget = budget
        self.ledger_before = previous.ledger if previous is not None and parser is not ParserState.NOT_RUN else {}
        self.declared_columns: dict[str, Columns | None] = {
            d.full_name: tuple((c.name, c.type) for c in d.columns) or None for d in (*env.tables, *env.views)
        }
        self.book = AddressBook(self.ids)
        self.catalog = ProjectCatalog(self.book, self._columns_of)
        self.reader = SqlReader(self.book, self.catalog, functions)
        self.statements = list(self._statements())
        self.writers: dict[str, list[_Statement]] = {}
        for statement in self.statements:
            self.writers.setdefault(statement.writer, []).append(statement)
        self.results: dict[int, StatementRead | SqlStatus] = {}
        self.index = {id(s): i for i, s in enumerate(self.statements)}
        self.in_progress: set[str] = set()
        self.derived: dict[str, Columns | None] = {}
        self.ledger: dict[str, StatementRead] = {}
        self.ledger_by_asset: dict[str, dict[str, None]] = {}
        self.performed = 0

    # --- what there is to read ----------------------------------------------------------------

    def _statements(self) -> Iterable[_Statement]:
        for view in self.env.views:
            yield _Statement(view.full_name, view.sql, view.dialect or self.env.dialect, Via.VIEW, view.file,
                             view.sql_read_from)
        for pipeline in self.env.pipelines:
            for asset in pipeline.assets:
                if asset.writes not in self.ids:
                    continue  # writes a table this environment does not declare: no edge to draw
                yield _Statement(asset.writes, asset.sql, asset.dialect or self.env.dialect, Via.PIPELINE,
                                 _asset_file(pipeline, asset), asset.sql_read_from)

    # --- the build ------------------------------------------------------------------------------

    def build(self) -> EnvironmentLineage:
        edges: dict[tuple, LineageEdge] = {}
        for edge in self._declared_edges():
            edges.setdefault((edge.source, edge.target, edge.mark, edge.via, edge.file), edge)
        for statement in self._reading_order():
            self._result(statement)
        statuses: dict[str, list[SqlStatus]] = {}
        read_from: dict[str, str] = {}
        for statement in self.statements:
            result = self.results[self.index[id(statement)]]
            status = result if isinstance(result, SqlStatus) else result.status
            if status is not None:
                statuses.setdefault(statement.writer, []).append(status)
            if isinstance(result, StatementRead):
                if statement.read_from:
                    read_from.setdefault(statement.writer, statement.read_from)
                for edge in self._parsed_edges(statement, result):
                    edges.setdefault((edge.source, edge.target, edge.mark, edge.via, edge.file), edge)
        assets = dict(self.assets)
        waiting = set()
        for writer, found in statuses.items():
            status = next(s for s in SQL_STATUS_ORDER if s in found)
            identifier = self.ids[writer]
            assets[identifier] = _with(assets[identifier], sql_status=status)
            if status is SqlStatus.NOT_READ_YET:
                waiting.add(identifier)
        for writer, source in read_from.items():
            identifier = self.ids[writer]
            assets[identifier] = _with(assets[identifier], sql_read_from=source)
        ordered = tuple(sorted(edges.values(), key=lambda e: (self.assets[e.source].full_name,
                                                             self.assets[e.target].full_name, e.mark, e.via, e.file)))
        by_asset = {asset: tuple(keys) for asset, keys in sorted(self.ledger_by_asset.items())}
        return EnvironmentLineage(self.project, self.env.name, EnvironmentStatus.COMPUTED, assets, ordered,
                                  self.parser, frozenset(waiting), self.ledger, by_asset, self.performed)

    def _declared_edges(self) -> Iterable[LineageEdge]:
        for view in self.env.views:
            target = self.ids[view.full_name]
            for read in view.reads:
                source = self.ids.get(read)
                if source is not None and source != target:
                    yield LineageEdge(source, target, Mark.DECLARED, Via.VIEW, view.file, None, DECLARED_READ_NOTE)
        for pipeline in self.env.pipelines:
            by_name = {a.name: a for a in pipeline.assets}
            for asset in pipeline.assets:
                target = self.ids.get(asset.writes)
                for dependency in asset.depends_on:
                    source = self.ids.get(by_name[dependency].writes)
                    if source is not None and target is not None and source != target:
                        yield LineageEdge(source, target, Mark.DECLARED, Via.PIPELINE, _asset_file(pipeline, asset),
                                          None, PIPELINE_ORDER_NOTE)

    def _parsed_edges(self, statement: _Statement, read: StatementRead) -> Iterable[LineageEdge]:
        target = self.ids[statement.writer]
        for name in read.reads:
            source = self.ids[name]
            if source != target:
                yield LineageEdge(source, target, Mark.PARSED, statement.via, statement.file, read.columns_from(name))

    def _reading_order(self) -> list[_Statement]:
        """Readers after what they declare they read, so derived columns are mostly ready
        before they are asked for (and on-demand reads stay shallow)."""
        import networkx as nx

        order = nx.DiGraph()
        order.add_nodes_from(range(len(self.statements)))
        writer_index: dict[str, list[int]] = {}
        for i, statement in enumerate(self.statements):
            writer_index.setdefault(statement.writer, []).append(i)
        for view in self.env.views:
            for i in writer_index.get(view.full_name, ()):
                for read in view.reads:
                    for j in writer_index.get(read, ()):
                        order.add_edge(j, i)
        for pipeline in self.env.pipelines:
            by_name = {a.name: a for a in pipeline.assets}
            for asset in pipeline.assets:
                for i in writer_index.get(asset.writes, ()):
                    for dependency in asset.depends_on:
                        for j in writer_index.get(by_name[dependency].writes, ()):
                            if i != j:
                                order.add_edge(j, i)
        try:
            indices = list(nx.topological_sort(order))
        except nx.NetworkXUnfeasible:
            indices = list(range(len(self.statements)))
        return [self.statements[i] for i in indices]

    # --- reading, re-using and deriving -------------------------------------------------------

    def _result(self, statement: _Statement) -> StatementRead | SqlStatus:
        index = self.index[id(statement)]
        found = self.results.get(index)
        if found is not None:
            return found
        if statement.sql is None:
            result: StatementRead | SqlStatus = SqlStatus.IN_FILE
        else:
            self.in_progress.add(statement.writer)
            try:
                result = self._read(statement)
            finally:
                self.in_progress.discard(statement.writer)
        self.results[index] = result
        return result

    def _read(self, statement: _Statement) -> StatementRead | SqlStatus:
        assert statement.sql is not None
        key = statement_key(statement.sql, statement.dialect)
        before = self.ledger_before.get(key)
        if before is not None and self._still_valid(before):
            return self._remember(statement, before)
        if self.parser is not ParserState.RAN or (self.budget is not None and self.performed >= self.budget):
            return SqlStatus.NOT_READ_YET
        self.performed += 1
        return self._remember(statement, self.reader.read(statement.sql, statement.dialect))

    def _remember(self, statement: _Statement, read: StatementRead) -> StatementRead:
        self.ledger[read.key] = read
        self.ledger_by_asset.setdefault(self.ids[statement.writer], {})[read.key] = None
        return read

    def _still_valid(self, read: StatementRead) -> bool:
        """A read stands while every address it looked up resolves as it did, to the same columns."""
        for dependency in read.dependencies:
            resolved = self.book.resolve(dependency.address)
            if resolved != dependency.resolved:
                return False
            if resolved is not None and self._columns_of(resolved) != dependency.columns:
                return False
        return True

    def _columns_of(self, full_name: str) -> Columns | None:
        declared = self.declared_columns.get(full_name)
        if declared is not None:
            return declared
        if full_name in self.derived:
            return self.derived[full_name]
        writers = self.writers.get(full_name, [])
        if len(writers) != 1 or writers[0].sql is None or full_name in self.in_progress:
            return None  # several statements, SQL in a file, or a cycle: read it schema-less
        result = self._result(writers[0])
        columns = None
        if isinstance(result, StatementRead) and result.outputs is not None:
            columns = tuple((name, None) for name in result.outputs)
        self.derived[full_name] = columns
        return columns


def _asset_file(pipeline: Pipeline, asset: PipelineAsset) -> str:
    return asset.file or pipeline.file


def _with(asset: Asset, **changes) -> Asset:
    from dataclasses import replace

    return replace(asset, **changes)


__all__ = ["Asset", "LineageEdge", "EnvironmentLineage", "sync", "environment_of", "asset_id", "Table", "View"]
