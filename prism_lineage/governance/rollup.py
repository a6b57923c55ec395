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

What a credential that may not see every asset is told never depends on the assets it may not
see.  The SQL is read once against every declared asset (the owner's view, the *base*); for
each *visibility scope* (``access.VisibilityScope``) the statements it sees whose read
depended on an asset hidden from it — a name a hidden asset answered to or made ambiguous, a
hidden asset's columns, a column derived from hidden SQL — are read again against the catalog
as the scope sees it (``sql_reading.ScopedBook``).  What differs from the base is kept as the
scope's overrides (``ScopeOverrides``): the edge groups of the assets those statements write,
and those assets' statuses.  ``EnvironmentLineage.for_viewer`` is the lineage a credential's
answers are computed from.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

from ..functions import FunctionRegistry
from ..ir.quick import quick_init, quick_replace
from .access import Viewer, VisibilityScope
from .declarations import DeclaredRead, Environment, Pipeline, PipelineAsset, Project, Table, View
from .errors import ScopeNotComputedError, UnknownEnvironmentError
from .sql_reading import (
    AddressBook,
    ColumnLink,
    Columns,
    ProjectCatalog,
    ScopedBook,
    SqlReader,
    StatementRead,
    reads_itself,
    statement_key,
)
from .statuses import (
    DECLARED_READ_NOTE,
    PIPELINE_ORDER_NOTE,
    declared_only_note,
    parsed_only_note,
    ref_note,
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
class ReadNote:
    """What reading an asset's SQL says of it, in words (a column it reads that its table does
    not declare, a read its declarations and its SQL disagree on).  ``mentions``: the full
    names of the other assets it names: an answer shows it only to a viewer who sees them all."""

    text: str
    mentions: tuple[str, ...] = ()


@quick_init  # 100,000 of them at 100,000 assets, and a copy of each whose SQL was read (ir/quick.py)
@dataclass(frozen=True, slots=True)
class Asset:
    """A table or a view of one environment.  ``notes``: what its declarations say of it (a
    relation with several dbt names, which won); ``read_notes``: what reading its SQL said."""

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
    alias_ranks: tuple[int, ...] = ()  # parallel to aliases: the lower rank wins a short name
    notes: tuple[str, ...] = ()
    read_notes: tuple[ReadNote, ...] = ()

    def visible_notes(self, sees: Callable[[str], bool]) -> list[str]:
        """Its notes as a viewer who sees the full names ``sees`` accepts is told them."""
        return [*self.notes, *(n.text for n in self.read_notes if all(sees(m) for m in n.mentions))]


@quick_init  # a sync of 100,000 assets makes about 435,000 (ir/quick.py)
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
    # An observed edge's evidence: the run that last showed it and when (ISO 8601, UTC).
    run_id: str | None = None
    seen_at: str | None = None


@dataclass(frozen=True)
class ScopeOverrides:
    """How one visibility scope's lineage differs from the base (the owner's).

    ``assets``: the assets whose SQL status or ``sql_read_from`` differ, as the scope reads
    them (asset id → asset).  ``edges``: the whole group of edges into each asset whose group
    differs (target id → edges; an empty tuple: no edge into it).  Only an asset the scope
    sees is ever overridden.  ``ledger``/``ledger_by_asset``: the reads the scope made itself
    (a statement whose base read stands for the scope too is not repeated), for the next
    sync to re-use; ``reads_performed``: statements this sync read for the scope."""

    key: str
    assets: dict[str, Asset] = field(default_factory=dict)
    edges: dict[str, tuple[LineageEdge, ...]] = field(default_factory=dict)
    ledger: dict[str, StatementRead] = field(default_factory=dict)
    ledger_by_asset: dict[str, tuple[str, ...]] = field(default_factory=dict)
    reads_performed: int = 0


@quick_init
@dataclass(frozen=True, slots=True)
class _Statement:
    """One piece of SQL of the environment and the asset it gives edges to."""

    writer: str  # full name of the view, or of the table the pipeline asset writes
    sql: str | None  # None: kept in a file
    dialect: str | None
    via: Via
    file: str
    read_from: str | None
    # What its author declares it reads (a native view's reads list, a dbt model's ref() and
    # source() calls), each with the note its declared edge carries; None: declares nothing
    # (a native pipeline asset), so its SQL is not compared with any declaration.
    declared: tuple[tuple[str, str, str | None], ...] | None = None  # (full name, edge note, call)
    declared_by: str = "reads"  # "reads" (a reads list) or "refs" (ref()/source() calls)
    language: str = "sql"


@dataclass
class EnvironmentLineage:
    """One environment's assets and edges, and what the last pass over its SQL could do.

    ``assets``/``edges`` are the base: what the owner is told.  A credential that may not see
    everything is told ``for_viewer(viewer)``: the base with its scope's overrides."""

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
    # The overrides of the visibility scopes worked out so far, by scope key (an entry with no
    # override: the scope reads as the base); ``scoper`` works out one more (a lineage fresh
    # from ``sync`` has one; one read back from a store has the scopes the store holds).
    scoped: dict[str, ScopeOverrides] = field(default_factory=dict)
    scoper: Callable[[VisibilityScope], ScopeOverrides] | None = field(default=None, repr=False, compare=False)
    # True when no answer can depend on a scope beyond which assets it sees (no SQL was read
    # against the catalog: a lineage built by hand, one not computed).
    visibility_independent: bool = False
    # The environment has received observations (run events, query logs): the observed mark is
    # recorded, and observed edges (``mark`` observed) are among ``edges`` (prism_lineage/openlineage).
    observed: bool = False

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

    def for_viewer(self, viewer: Viewer) -> "EnvironmentLineage":
        """The lineage ``viewer``'s answers are computed from: the base for a viewer who sees
        everything, else the base with the overrides of the viewer's visibility scope."""
        scope = viewer.scope(self.environment)
        if scope is None or self.status is EnvironmentStatus.NOT_COMPUTED:
            return self
        overrides = self.scoped.get(scope.key)
        if overrides is None:
            if self.scoper is not None:
                overrides = self.scoped[scope.key] = self.scoper(scope)
            elif self.visibility_independent:
                return self
            else:
                raise ScopeNotComputedError(self.environment)
        return self._overridden(overrides)

    def _overridden(self, overrides: ScopeOverrides) -> "EnvironmentLineage":
        if not overrides.assets and not overrides.edges:
            return self
        views = self.__dict__.setdefault("_scope_views", {})
        found = views.get(overrides.key)
        if found is not None:
            return found
        assets = {**self.assets, **overrides.assets}
        # An override is a group of declared and parsed edges; observed edges are rows of their own.
        edges = [e for e in self.edges if e.target not in overrides.edges or e.mark is Mark.OBSERVED]
        for group in overrides.edges.values():
            edges.extend(group)
        edges.sort(key=_edge_sort_key(assets))
        waiting = {a for a in self.waiting if a not in overrides.assets}
        waiting |= {a for a, asset in overrides.assets.items() if asset.sql_status is SqlStatus.NOT_READ_YET}
        found = views[overrides.key] = EnvironmentLineage(
            self.project, self.environment, self.status, assets, tuple(edges), self.parser, frozenset(waiting),
            held_for_review=self.held_for_review, visibility_independent=True, observed=self.observed)
        return found

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
                Mark.OBSERVED.value: (MarkStatus.RECORDED if self.observed else MarkStatus.NOT_RECORDED).value}

    def visible(self, viewer: Viewer, asset_id: str) -> bool:
        return viewer.sees(self.environment, self.assets[asset_id].full_name)


def _edge_order(assets: dict[str, Asset], edge: LineageEdge) -> tuple:
    """The order edges are kept in: by source's and target's full names, then mark, via, file."""
    return (assets[edge.source].full_name, assets[edge.target].full_name, edge.mark, edge.via, edge.file)


def _edge_sort_key(assets: dict[str, Asset]) -> Callable[[LineageEdge], tuple]:
    """A sort key giving ``_edge_order``'s order: the two full names as one number (their ranks
    among the assets' full names, sorted once), then mark, via and file.  Equal names give equal
    ranks, so ties (and a stable sort's order among them) are the same as ``_edge_order``'s;
    comparing numbers instead of two strings per comparison is most of a large sort's time."""
    names = sorted({asset.full_name for asset in assets.values()})
    position = {name: i for i, name in enumerate(names)}
    size = len(names)
    rank = {identifier: position[asset.full_name] * size for identifier, asset in assets.items()}
    pair = {identifier: position[asset.full_name] for identifier, asset in assets.items()}
    return lambda e: (rank[e.source] + pair[e.target], e.mark, e.via, e.file)


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
        raise UnknownEnvironmentError(f"project '{project.name}' has several environments and no default: "
                                      "name one with --env")
    found = project.environment(name)
    if found is None:
        raise UnknownEnvironmentError(f"project '{project.name}' has no environment '{name}'")
    return found


def sync(project: Project, environment: str | None = None, *, previous: EnvironmentLineage | None = None,
         parser: ParserState = ParserState.RAN, budget: int | None = None, held_for_review: bool = False,
         functions: FunctionRegistry | None = None, scopes: Iterable[VisibilityScope] = ()) -> EnvironmentLineage:
    """Work out one environment's lineage.

    ``previous``: the last sync of the same environment; a statement whose SQL and whose
    resolved addresses are unchanged is not read again (for each scope too).  ``parser``: what
    the parser can do on this pass (``ran`` by default).  ``budget``: how many statements one
    pass reads at most (the rest are "Not read yet").  ``held_for_review``: the environment's
    change waits for approval, so it is not computed.  ``scopes``: the visibility scopes to
    work out now (``access.policy_scopes``: every credential's), for a store to keep; any other
    is worked out when a viewer of it asks (``EnvironmentLineage.for_viewer``).
    """
    env = environment_of(project, environment)
    with _collector_off_but_for_reads():
        assets = _assets(project.name, env)
        if held_for_review:
            return EnvironmentLineage(project.name, env.name, EnvironmentStatus.NOT_COMPUTED, assets, (), parser,
                                      held_for_review=True, visibility_independent=True)
        ledger_before = previous.ledger if previous is not None and parser is not ParserState.NOT_RUN else {}
        builder = _Builder(project.name, env, assets, parser, budget, functions, ledger_before)
        lineage = builder.build()
    previous_scopes = previous.scoped if previous is not None and parser is not ParserState.NOT_RUN else {}

    def scoper(scope: VisibilityScope) -> ScopeOverrides:
        before = previous_scopes.get(scope.key)
        with _collector_off_but_for_reads():
            return _Builder(project.name, env, assets, parser, None, functions, before.ledger if before else {},
                            scope=scope, base=builder).overrides(scope.key, lineage)

    lineage.scoper = scoper
    for scope in scopes:
        if scope.key not in lineage.scoped:
            lineage.scoped[scope.key] = scoper(scope)
    return lineage


# How many ``_collector_off_but_for_reads`` blocks turned the collector off (and turn it on again).
_COLLECTOR_OFF = [0]


@contextmanager
def _collector_off_but_for_reads() -> Iterator[None]:
    """Python's cyclic garbage collector off while a rollup builds, on again only while it reads
    a statement's SQL in process (``_Builder._read``), and as it was after.

    A build makes hundreds of thousands of objects that stay (edges, assets, statements) and
    no reference cycle; the collector still passed over them again and again as they were made
    (over a quarter of the rollup's CPU at 30,000 assets, in seven full collections).  Reading
    SQL does leave cycles (sqlglot's trees point to their parents): the collector runs during
    those reads as before, and whatever is left is collected once it is on again."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _COLLECTOR_OFF[0] += 1
    try:
        yield
    finally:
        _COLLECTOR_OFF[0] -= 1
        gc.enable()


@contextmanager
def collecting_while_reading() -> Iterator[None]:
    """For a caller that keeps the collector off (a sync: ``control/sync.py``): a rollup run inside
    this block turns it on while it reads a statement's SQL in process, and only then — as it
    does itself when it finds the collector on (``_collector_off_but_for_reads``).  The caller
    should freeze what it holds first (``gc.freeze()``), or the first collection scans all of it."""
    _COLLECTOR_OFF[0] += 1
    try:
        yield
    finally:
        _COLLECTOR_OFF[0] -= 1


def _read_collecting(reader: SqlReader, sql: str, dialect: str | None) -> StatementRead:
    """``reader.read(sql, dialect)``, with the collector on while it reads when a rollup turned
    it off (``_collector_off_but_for_reads``)."""
    if not _COLLECTOR_OFF[0] or gc.isenabled():
        return reader.read(sql, dialect)
    gc.enable()
    try:
        return reader.read(sql, dialect)
    finally:
        gc.disable()


def _assets(project: str, env: Environment) -> dict[str, Asset]:
    found: dict[str, Asset] = {}
    # ``asset_id`` of each, with the project's and environment's part of the hashed text encoded
    # once (UTF-8 of a concatenation is the concatenation of the parts' UTF-8: the same ids).
    prefix = f"{project}\x00{env.name}\x00".encode()
    blake2b = hashlib.blake2b
    for declarations, kind in ((env.tables, "table"), (env.views, "view")):
        for declaration in declarations:
            full_name = declaration.full_name
            identifier = "a" + blake2b(prefix + full_name.encode(), digest_size=8).hexdigest()
            found[identifier] = Asset(identifier, full_name, declaration.namespace, declaration.name, kind,
                                      declaration.owner, declaration.steward, declaration.certified, declaration.file,
                                      declaration.aliases, alias_ranks=declaration.alias_ranks,
                                      notes=declaration.notes)
    return found


class _Builder:
    """Reads an environment's SQL: for the base (``scope`` None) against every declared asset,
    or for one visibility scope against the assets it sees (``base``: the base's builder, whose
    reads it re-uses wherever they stand for the scope too)."""

    def __init__(self, project: str, env: Environment, assets: dict[str, Asset], parser: ParserState,
                 budget: int | None, functions: FunctionRegistry | None, ledger_before: dict[str, StatementRead],
                 *, scope: VisibilityScope | None = None, base: "_Builder | None" = None):
        self.project = project
        self.env = env
        self.assets = assets
        self.ids = {a.full_name: a.id for a in assets.values()}
        self.parser = parser
        self.budget = budget
        self.ledger_before = ledger_before
        self.base = base
        if scope is None:
            self.visible: frozenset[str] | None = None
            self.book: AddressBook | ScopedBook = AddressBook(self.ids)
            self.asset_statements: dict[int, _Statement] = {}  # a pipeline asset's statement, by id(asset)
            self.statements = list(self._statements())
            self.declared_columns: dict[str, Columns | None] = {}
            incomplete = []
            for declarations in (env.tables, env.views):
                for d in declarations:
                    full_name = d.full_name
                    self.declared_columns[full_name] = tuple([(c.name, c.type) for c in d.columns]) or None
                    if not d.columns_complete:
                        incomplete.append(full_name)
            self.incomplete = frozenset(incomplete)
            self.reader_functions = functions if functions is not None else FunctionRegistry.default()
        else:
            assert base is not None
            self.visible = frozenset(n for n in self.ids if scope.sees(n))
            self.book = ScopedBook(self.visible, base.book)  # type: ignore[arg-type]
            # The statements the scope sees: what a hidden asset's own SQL reads is never read
            # again (its edges are the base's, and a reader only meets them as a cut).
            self.statements = [s for s in base.statements if s.writer in self.visible]
            self.asset_statements = base.asset_statements
            self.declared_columns = {n: c for n, c in base.declared_columns.items() if n in self.visible}
            self.incomplete = base.incomplete
            self.reader_functions = base.reader_functions
        self.catalog = ProjectCatalog(self.book, self._columns_of, lambda name: name not in self.incomplete)
        self.reader = SqlReader(self.book, self.catalog, self.reader_functions)  # type: ignore[arg-type]
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
        self._found: dict = {}  # address -> what the book finds there (``_still_valid``)
        self._columns_known: dict[str, Columns | None] = {}  # what ``_columns_of`` answered, but for a cycle

    # --- what there is to read ----------------------------------------------------------------

    def _statements(self) -> Iterable[_Statement]:
        for view in self.env.views:
            if view.refs is not None:
                declared, by = tuple((r.name, ref_note(r, view.file), r.call) for r in view.refs), "refs"
            else:
                declared, by = tuple((name, DECLARED_READ_NOTE, None) for name in view.reads), "reads"
            yield _Statement(view.full_name, view.sql, view.dialect or self.env.dialect, Via.VIEW, view.file,
                             view.sql_read_from, declared, by, view.language)
        for pipeline in self.env.pipelines:
            for asset in pipeline.assets:
                if asset.writes not in self.ids:
                    continue  # writes a table this environment does not declare: no edge to draw
                file = _asset_file(pipeline, asset)
                declared = None if asset.refs is None else tuple((r.name, ref_note(r, file), r.call)
                                                                 for r in asset.refs)
                statement = _Statement(asset.writes, asset.sql, asset.dialect or self.env.dialect, Via.PIPELINE,
                                       file, asset.sql_read_from, declared, "refs", asset.language)
                self.asset_statements[id(asset)] = statement
                yield statement

    # --- the build ------------------------------------------------------------------------------

    def build(self) -> EnvironmentLineage:
        edges: dict[tuple, LineageEdge] = {}
        for edge in self._declared_edges():
            edges.setdefault((edge.source, edge.target, edge.mark, edge.via, edge.file), edge)
        # ``_read_all`` with its parsed edges made in one loop (no generator per statement, no
        # edge made for a key already held: the first one made is the one kept either way).
        for statement in self._reading_order():
            self._result(statement)
        results, index, ids, parsed = self.results, self.index, self.ids, Mark.PARSED
        for statement in self.statements:
            result = results[index[id(statement)]]
            if isinstance(result, StatementRead):
                target = ids[statement.writer]
                via, file = statement.via, statement.file
                for name, links in result.reads_with_links():
                    source = ids[name]
                    if source != target:
                        key = (source, target, parsed, via, file)
                        if key not in edges:
                            edges[key] = LineageEdge(source, target, parsed, via, file, links)
        assets, waiting = self._compiled_assets()
        ordered = tuple(sorted(edges.values(), key=_edge_sort_key(self.assets)))
        by_asset = {asset: tuple(keys) for asset, keys in sorted(self.ledger_by_asset.items())}
        return EnvironmentLineage(self.project, self.env.name, EnvironmentStatus.COMPUTED, assets, ordered,
                                  self.parser, frozenset(waiting), self.ledger, by_asset, self.performed)

    def overrides(self, key: str, base: EnvironmentLineage) -> ScopeOverrides:
        """The scope's reads, as what differs from the base lineage."""
        parsed: dict[str, dict[tuple, LineageEdge]] = {self.ids[w]: {} for w in self.writers}
        for edge in self._read_all():
            parsed[edge.target].setdefault((edge.source, edge.target, edge.mark, edge.via, edge.file), edge)
        before: dict[str, list[LineageEdge]] = {target: [] for target in parsed}
        for edge in base.edges:
            if edge.target in before:
                before[edge.target].append(edge)
        edge_overrides = {}
        for target, old in before.items():
            group = [e for e in old if e.mark is not Mark.PARSED] + list(parsed[target].values())
            group.sort(key=lambda e: _edge_order(self.assets, e))
            if tuple(group) != tuple(old):
                edge_overrides[target] = tuple(group)
        assets, _ = self._compiled_assets()
        asset_overrides = {identifier: asset for identifier, asset in assets.items()
                           if asset != base.assets[identifier]}
        by_asset = {asset: tuple(keys) for asset, keys in sorted(self.ledger_by_asset.items())}
        return ScopeOverrides(key, asset_overrides, edge_overrides, self.ledger, by_asset, self.performed)

    def _read_all(self) -> Iterable[LineageEdge]:
        """Reads every statement (readers after what they declare they read) and yields the
        parsed edges."""
        for statement in self._reading_order():
            self._result(statement)
        for statement in self.statements:
            result = self.results[self.index[id(statement)]]
            if isinstance(result, StatementRead):
                yield from self._parsed_edges(statement, result)

    def _compiled_assets(self) -> tuple[dict[str, Asset], set[str]]:
        """The assets with what reading their SQL said, and those whose SQL waits."""
        statuses: dict[str, list[SqlStatus]] = {}
        read_from: dict[str, str] = {}
        notes: dict[str, dict[ReadNote, None]] = {}
        results, index = self.results, self.index
        for statement in self.statements:
            result = results[index[id(statement)]]
            if isinstance(result, StatementRead):
                status = result.status
                if statement.read_from:
                    read_from.setdefault(statement.writer, statement.read_from)
                for note in self._read_notes(statement, result):
                    notes.setdefault(statement.writer, {})[note] = None
            else:
                status = result
            if status is not None:
                statuses.setdefault(statement.writer, []).append(status)
        assets = dict(self.assets) if self.visible is None else {
            self.ids[w]: self.assets[self.ids[w]] for w in self.writers}
        waiting = set()
        # What changes of each asset, applied in one copy of it (status, where its SQL was read
        # from, what reading it said: three fields of one asset, whatever order they are set in).
        changes: dict[str, dict] = {}
        for writer, found in statuses.items():
            status = next(s for s in SQL_STATUS_ORDER if s in found)
            changes[writer] = {"sql_status": status}
            if status is SqlStatus.NOT_READ_YET:
                waiting.add(self.ids[writer])
        for writer, source in read_from.items():
            changes.setdefault(writer, {})["sql_read_from"] = source
        for writer, found in notes.items():
            changes.setdefault(writer, {})["read_notes"] = tuple(found)
        for writer, changed in changes.items():
            identifier = self.ids[writer]
            assets[identifier] = quick_replace(assets[identifier], **changed)
        return assets, waiting

    def _read_notes(self, statement: _Statement, read: StatementRead) -> Iterable[ReadNote]:
        """Where what its author declares it reads and what its SQL reads disagree (only when
        the SQL was read whole: a statement read in part may read more than it shows)."""
        yield from self._unknown_column_notes(read)
        if statement.declared is None or read.status is not None:
            return
        writer = statement.writer
        declared = {name: call for name, _, call in statement.declared if name in self.ids and name != writer}
        parsed = [name for name in read.reads if name != writer]
        for name in parsed:
            if name not in declared:
                yield ReadNote(parsed_only_note(name, statement.declared_by), (name,))
        for name, call in declared.items():
            if name not in parsed:
                yield ReadNote(declared_only_note(name, call), (name,))

    def _unknown_column_notes(self, read: StatementRead) -> Iterable[ReadNote]:
        """A column the SQL reads that its table does not declare (or, for an asset whose
        columns come from its own SQL, does not output): read by name only, it is said."""
        for name, links in read.reads_with_links():
            missing = dict.fromkeys(link.source for link in links
                                    if link.confidence == "unknown" and not self.reader.has_column(name, link.source))
            if missing:
                verb = "does not declare" if self.declared_columns.get(name) is not None else "does not output"
                yield ReadNote(f"Reads {_and(list(missing))}, which {name} {verb}.", (name,))

    def _declared_edges(self) -> Iterable[LineageEdge]:
        for statement in self.statements:
            target = self.ids[statement.writer]
            for read, note, _ in statement.declared or ():
                source = self.ids.get(read)
                if source is not None and source != target:
                    yield LineageEdge(source, target, Mark.DECLARED, statement.via, statement.file, None, note)
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
        ids = self.ids
        target = ids[statement.writer]
        via, file = statement.via, statement.file
        for name, links in read.reads_with_links():
            source = ids[name]
            if source != target:
                yield LineageEdge(source, target, Mark.PARSED, via, file, links)

    def _reading_order(self) -> list[_Statement]:
        """Readers after what they declare they read, so derived columns are mostly ready
        before they are asked for (and on-demand reads stay shallow).

        Linear in the declarations: a table stands between the statements that write it and
        those that read it (one node, not an edge from every writer to every reader), and a
        pipeline asset's dependency is an edge between the two assets' own statements."""
        # A node is a statement's position, or a table's full name (a str: never a position).
        # The same nodes and edges, added in the same order, as networkx's add_edge would.
        order: dict = {i: {} for i in range(len(self.statements))}  # node -> its successors, in order
        writes: dict[str, None] = {}
        for i, statement in enumerate(self.statements):
            writer = statement.writer
            if writer not in order:
                order[writer] = {}
            order[i][writer] = None
            writes[writer] = None
        for i, statement in enumerate(self.statements):
            for read, _, _ in statement.declared or ():
                if read in writes and read != statement.writer:
                    order[read][i] = None
        for pipeline in self.env.pipelines:
            own = {a.name: self._statement_of_asset.get(id(a)) for a in pipeline.assets}
            for asset in pipeline.assets:
                i = own[asset.name]
                for dependency in asset.depends_on:
                    j = own.get(dependency)
                    if i is not None and j is not None and i != j:
                        order[j][i] = None
        nodes = topological_order(order)
        if nodes is None:  # a cycle
            nodes = list(range(len(self.statements)))
        return [self.statements[i] for i in nodes if isinstance(i, int)]

    @cached_property
    def _statement_of_asset(self) -> dict[int, int]:
        """Each pipeline asset's statement (its position), by the asset object's id."""
        return {asset: self.index[id(statement)] for asset, statement in self.asset_statements.items()
                if id(statement) in self.index}

    # --- reading, re-using and deriving -------------------------------------------------------

    def _result(self, statement: _Statement) -> StatementRead | SqlStatus:
        index = self.index[id(statement)]
        found = self.results.get(index)
        if found is not None:
            return found
        if statement.sql is None:
            result: StatementRead | SqlStatus = SqlStatus.IN_FILE
        elif statement.language != "sql":
            result = SqlStatus.NOT_PARSED  # only SQL is read: what it reads is what it declares
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
        if self.base is not None:
            # A scope reads what the base read: a statement the base did not read (the parser
            # could not run, the budget was spent) waits for the scope too; one whose base read
            # depended on nothing the scope cannot see is the base's read.
            based = self.base._result(statement)
            if isinstance(based, SqlStatus):
                return based
            if self._still_valid(based):
                return based
        before = self.ledger_before.get(key)
        if before is not None and self._still_valid(before):
            return self._remember(statement, before)
        if self.parser is not ParserState.RAN or (self.budget is not None and self.performed >= self.budget):
            return SqlStatus.NOT_READ_YET
        self.performed += 1
        return self._remember(statement, _read_collecting(self.reader, statement.sql, statement.dialect))

    def _remember(self, statement: _Statement, read: StatementRead) -> StatementRead:
        self.ledger[read.key] = read
        self.ledger_by_asset.setdefault(self.ids[statement.writer], {})[read.key] = None
        return read

    def _still_valid(self, read: StatementRead) -> bool:
        """A read stands while every address it looked up resolves as it did, to the same columns."""
        known, columns_known = self._found, self._columns_known
        for dependency in read.dependencies:
            found = known.get(dependency.address)
            if found is None:  # the book does not change during a build: each address found once
                found = known[dependency.address] = self.book.find(dependency.address)
            if found.recorded != dependency.resolved:
                return False
            asset = found.asset
            if asset is not None:
                columns = columns_known.get(asset, _UNKNOWN)
                if columns is _UNKNOWN:
                    columns = self._columns_of(asset)
                if columns != dependency.columns:
                    return False
        return True

    def _columns_of(self, full_name: str) -> Columns | None:
        """The columns a statement reading ``full_name`` is read against: the same for every
        statement, whoever reads it, so that one SQL text has one read (the ledger is keyed by
        the text).  Declared (complete) columns; else its single SQL writer's outputs — unless
        that writer reads the very table it writes (an incremental step: ``INSERT INTO t SELECT
        … FROM t``).  Such a writer is read with its own target schema-less (its outputs are not
        known while it is read), and its outputs are not the table's shape for anyone else
        either: they would be a fixed point of the statement's own reading, and a reader sharing
        the writer's SQL text would otherwise be read against the writer's earlier outputs —
        history-dependent, and a different read under the same key (specs/control-plane.md)."""
        # Every answer but a cycle's (below) is the same all the build: kept, asked once.
        known = self._columns_known.get(full_name, _UNKNOWN)
        if known is not _UNKNOWN:
            return known
        if self.visible is not None and full_name not in self.visible:
            self._columns_known[full_name] = None
            return None  # a hidden asset's columns, declared or derived, are never used for a scope
        declared = self.declared_columns.get(full_name)
        if declared is not None and full_name not in self.incomplete:
            self._columns_known[full_name] = declared
            return declared
        # Columns known to be partial (a dbt node's YAML without catalog.json documents the
        # columns its author chose) are never taken as the asset's shape: a star over them would
        # drop the others, marked exact.  Its own SQL's output gives the shape; else schema-less.
        if full_name in self.derived:
            columns = self._columns_known[full_name] = self.derived[full_name]
            return columns
        writers = self.writers.get(full_name, [])
        if len(writers) != 1 or writers[0].sql is None or writers[0].language != "sql":
            self._columns_known[full_name] = None
            return None  # several statements, or SQL in a file: read it schema-less
        if full_name in self.in_progress:
            return None  # a cycle: read schema-less while its own statement is being read
        result = self._result(writers[0])
        columns = None
        if isinstance(result, StatementRead) and result.outputs is not None and not reads_itself(result, full_name):
            columns = tuple((name, None) for name in result.outputs)
        self.derived[full_name] = self._columns_known[full_name] = columns
        return columns


_UNKNOWN = object()


def topological_order(successors: dict) -> list | None:
    """The nodes of the graph ``successors`` (node -> its successors, both in the order they were
    added) in networkx's ``topological_sort`` order — generation by generation, each in the order
    its nodes were freed — or None when it has a cycle.  The rollup's reading order only needs
    this, and building a networkx graph of every statement and table cost more than the sort."""
    indegree: dict = {}
    for children in successors.values():
        for child in children:
            indegree[child] = indegree.get(child, 0) + 1
    ready = [node for node in successors if node not in indegree]
    found = []
    while ready:
        generation, ready = ready, []
        for node in generation:
            for child in successors[node]:
                left = indegree[child] - 1
                if left:
                    indegree[child] = left
                else:
                    del indegree[child]
                    ready.append(child)
        found.extend(generation)
    return None if indegree else found


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _asset_file(pipeline: Pipeline, asset: PipelineAsset) -> str:
    return asset.file or pipeline.file


__all__ = ["Asset", "LineageEdge", "EnvironmentLineage", "ScopeOverrides", "sync", "environment_of", "asset_id", "Table", "View"]
