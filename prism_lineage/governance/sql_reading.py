"""Reading one asset's SQL with the column-level engine.

The statement is lowered into the Prism IR against a catalog of the environment's declared
tables and views; its scans say which declared assets it reads (the parsed edges), and
``explain`` says which of their columns feed which output columns (the column lineage behind
each parsed edge).  A name the environment does not declare is read schema-less and gives no
edge.  A view, or a table written by one statement, whose columns are not declared gets them
from its own SQL's output, read first.

What a read depended on is recorded (each address it looked up, what that resolved to, and
the columns it saw), so a later sync re-reads only a statement whose SQL changed or one of
whose addresses now resolves differently.

The same record says whether a read depended on an asset some credential may not see: a
*visibility scope* reads such a statement again against the catalog as the scope sees it
(``ScopedBook``): a name resolves among the assets the scope sees first, so a hidden asset
never makes it ambiguous or resolves it instead of a visible one; a name only hidden assets
answer to still gives them an edge (what a reader sees of it is "Some lineage is not visible
to you."), but their columns, their SQL and how many of them there are are never used.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import repeat
from typing import TypeVar

from ..catalog import Catalog
from ..catalog import Column as CatalogColumn
from ..catalog import Table as CatalogTable
from ..errors import AmbiguousTableError, PrismError, UnknownColumnError
from ..frontends.sql import lower_sql
from ..functions import FunctionRegistry
from ..guarded import run_guarded
from ..ir import Statement
from ..ir.expressions import subqueries_made
from ..ir.quick import quick_init
from .statuses import SqlStatus
from .sync_read import scanned_in_walk_order, statement_fields

# Statements larger than this are refused, like the control plane's parser refuses them.
MAX_SQL_CHARACTERS = 1_000_000

Address = tuple[str, ...]
R = TypeVar("R")
Columns = tuple[tuple[str, str | None], ...]  # (name, type) in declared order


@quick_init  # a statement makes dozens (a faster __init__, the same dataclass: ir/quick.py)
@dataclass(frozen=True, slots=True)
class ColumnLink:
    """A column of the read asset feeding a column of the written one."""

    source: str
    target: str
    relationship: str
    transformation: str
    confidence: str


@quick_init
@dataclass(frozen=True, slots=True)
class Dependency:
    """One address a read looked up, what it resolved to, and the columns it saw there."""

    address: Address
    resolved: str | None
    columns: Columns | None


@quick_init
@dataclass(frozen=True, slots=True)
class StatementRead:
    """What reading one statement gave.  ``status`` is ``None`` when it was read."""

    key: str
    status: SqlStatus | None
    reads: tuple[str, ...] = ()
    columns: tuple[tuple[str, tuple[ColumnLink, ...]], ...] = ()  # by the full name of the asset read
    outputs: tuple[str, ...] | None = None
    dependencies: tuple[Dependency, ...] = ()

    def columns_from(self, full_name: str) -> tuple[ColumnLink, ...]:
        return next((links for name, links in self.columns if name == full_name), ())

    def reads_with_links(self) -> tuple[tuple[str, tuple[ColumnLink, ...]], ...]:
        """``(name, self.columns_from(name))`` for each name of ``reads``, in order, without a
        search per name: ``columns`` names the reads in their order when ``SqlReader.read`` made
        it (the rollup asks this of every read, twice)."""
        columns, reads = self.columns, self.reads
        if len(columns) == len(reads):
            for (name, _), read in zip(columns, reads):
                if name != read:
                    break
            else:
                return columns
        return tuple((name, self.columns_from(name)) for name in reads)


def reads_itself(read: StatementRead, writes: str) -> bool:
    """Whether the statement that writes ``writes`` looked that asset up (or scanned it): its
    outputs are then not the asset's shape for any reader (``rollup._Builder._columns_of``)."""
    return writes in read.reads or any(d.resolved == writes for d in read.dependencies)


def statement_key(sql: str, dialect: str | None) -> str:
    """What a read is remembered by: the SQL text and the dialect it is read in."""
    return hashlib.blake2b(f"{dialect or ''}\x00{sql}".encode(), digest_size=16).hexdigest()


# What a dependency records for a name several assets answer to: no full name starts with NUL
# (names with control characters are refused when a project is loaded).
AMBIGUOUS = "\x00ambiguous"
HIDDEN = "\x00hidden"


def _several(kind: str, names: tuple[str, ...]) -> str:
    return "\x00".join((kind, *names))


@dataclass(frozen=True, slots=True)
class Resolution:
    """What an address resolves to.

    ``recorded``: what a ``Dependency`` records (the asset, None, or a marker for several);
    ``asset``: the one asset whose columns the catalog gives (None: read schema-less);
    ``owners``: the assets a scan of it draws edges from; ``ambiguous``: the visible
    candidates when the name is ambiguous (the read is refused)."""

    recorded: str | None
    asset: str | None
    owners: tuple[str, ...]
    ambiguous: tuple[str, ...] = ()


NOT_DECLARED = Resolution(None, None, ())


def _resolution(candidates: tuple[str, ...]) -> Resolution:
    if not candidates:
        return NOT_DECLARED
    if len(candidates) == 1:
        return Resolution(candidates[0], candidates[0], candidates)
    return Resolution(_several(AMBIGUOUS, candidates), None, (), candidates)


_FOUND_LIMIT = 20_000
_SHAPE_LIMIT = 4_096  # shapes of columns a ProjectCatalog keeps (a bound, not a need)


class _Named:
    """A declared name as ``Catalog.lookup`` reads a table (its ``name`` and ``parts``, nothing
    else): the address book needs no columns, and building a ``catalog.Table`` (two indexes of
    its columns each) per asset was most of building the book of 100,000 assets."""

    __slots__ = ("name", "parts")

    def __init__(self, name: str):
        self.name = name
        self.parts = tuple(name.split("."))


class AddressBook:
    """The environment's declared tables and views by full name, found the way SQL names them:
    a name that is a suffix of a full name (``orders`` for ``analytics.orders``), or a full
    name under database qualifiers (``"jaffle"."main"."orders"`` for ``main.orders``)."""

    def __init__(self, full_names: Iterable[str], *, names=None):
        # ``names``: anything with ``Catalog.lookup`` that answers as the catalog of these names
        # would (the control plane's SQL-only sync builds it from the names each address asks).
        self._names = names if names is not None else Catalog([_Named(n) for n in full_names])  # type: ignore[misc]
        # What each address resolved to: the names do not change, and a sync's statements name
        # the same tables again (and a read asks each scanned table twice: while lowering, and
        # for the scan's owners).  Bounded, so a sync of 100,000 assets does not keep them all.
        self._found: dict[Address, Resolution] = {}

    def candidates(self, parts: Address) -> tuple[str, ...]:
        """The one asset ``parts`` names, or the several it could name (none: not declared)."""
        try:
            found = self._names.lookup(parts)
            if found is not None:
                return (found.name,)
            for start in range(1, len(parts) - 1):
                found = self._names.lookup(parts[start:])
                if found is not None and len(found.parts) == len(parts) - start:
                    return (found.name,)
        except AmbiguousTableError as error:
            return tuple(error.candidates)
        return ()

    def find(self, parts: Address) -> Resolution:
        found = self._found.get(parts)
        if found is None:
            if len(self._found) >= _FOUND_LIMIT:
                self._found.clear()
            found = self._found[parts] = _resolution(self.candidates(parts))
        return found

    def resolve(self, parts: Address) -> str | None:
        """The one asset ``parts`` names (None: not declared, or ambiguous)."""
        return self.find(parts).asset


class ScopedBook:
    """The address book as a visibility scope reads it: the assets it sees first, so that a
    hidden asset never makes a name ambiguous or takes it from a visible one.  A name that only
    hidden assets answer to resolves to them, schema-less, whether one or several answer (so
    their number is not told); the scope's catalog never gives a hidden asset's columns."""

    def __init__(self, visible: Iterable[str], every: AddressBook):
        self.visible_names = frozenset(visible)
        self._visible = AddressBook(self.visible_names)
        self._every = every

    def find(self, parts: Address) -> Resolution:
        seen = self._visible.candidates(parts)
        if seen:
            return _resolution(seen)
        hidden = tuple(n for n in self._every.candidates(parts) if n not in self.visible_names)
        if not hidden:
            return NOT_DECLARED
        if len(hidden) == 1:
            return Resolution(hidden[0], hidden[0], hidden)
        return Resolution(_several(HIDDEN, hidden), None, hidden)

    def resolve(self, parts: Address) -> str | None:
        return self.find(parts).asset


class ProjectCatalog(Catalog):
    """The catalog a statement is lowered against: declared assets, with their columns when
    they are known (declared, or derived from the asset's own SQL), schema-less otherwise."""

    __slots__ = ("_book", "_columns_of", "_tables", "_shapes", "_recording", "names_only", "schemaless", "complete")

    def __init__(self, book: AddressBook | ScopedBook, columns_of: Callable[[str], Columns | None],
                 complete: Callable[[str], bool] | None = None):
        super().__init__([])
        self._book = book
        self._columns_of = columns_of
        # Whether an asset's known columns are all it has (else a column it does not list is
        # not said to be unknown: a dbt node documented without catalog.json).
        self.complete = complete if complete is not None else (lambda full_name: True)
        self._tables: dict[str, CatalogTable | None] = {}
        self._shapes: dict[Columns, CatalogTable] = {}  # columns → a table of them (``lookup``)
        self._recording: list[list[Dependency]] = []
        self.names_only = False  # read every asset schema-less (after a column was not declared)
        self.schemaless: frozenset[str] = frozenset()  # these assets only, schema-less

    def columns_of(self, full_name: str) -> Columns | None:
        """The columns the catalog knows for an asset (declared, or derived from its SQL)."""
        return self._columns_of(full_name)

    def lookup(self, parts, origin=None):  # type: ignore[override]
        found = self._book.find(tuple(parts))
        resolved = found.asset
        columns = self._columns_of(resolved) if resolved is not None else None
        if self._recording:
            # An ambiguous name is recorded too: the read stands only while it stays ambiguous.
            self._recording[-1].append(Dependency(tuple(parts), found.recorded, columns))
        if found.ambiguous:
            raise AmbiguousTableError(".".join(parts), list(found.ambiguous), origin)
        if resolved is None or columns is None or self.names_only or resolved in self.schemaless:
            return None
        table = self._tables.get(resolved)
        if table is None:
            # A warehouse's tables repeat a few shapes of columns (the same names and types):
            # the columns and their indexes are built once per shape, each table shares them.
            shapes = self._shapes
            try:
                shape = shapes.get(columns)
            except TypeError:  # (columns given as lists: built for this table alone)
                shape = shapes = None
            if shape is None:
                shape = CatalogTable(resolved, (), tuple(CatalogColumn(name, type_) for name, type_ in columns))
                if shapes is not None:
                    if len(shapes) >= _SHAPE_LIMIT:
                        shapes.clear()
                    shapes[columns] = shape
            table = shape.named(resolved, tuple(resolved.split(".")))
            self._tables[resolved] = table
        return table

    def recording(self) -> "_Recording":
        return _Recording(self._recording)


class _Recording:
    def __init__(self, stack: list[list[Dependency]]):
        self._stack = stack
        self.dependencies: list[Dependency] = []

    def __enter__(self) -> "_Recording":
        self._stack.append(self.dependencies)
        return self

    def __exit__(self, *exc) -> None:
        self._stack.pop()


class SqlReader:
    """Reads statements against one environment's catalog."""

    def __init__(self, book: AddressBook | ScopedBook, catalog: ProjectCatalog,
                 functions: FunctionRegistry | None = None,
                 max_characters: int | None = None):
        self.book = book
        self.catalog = catalog
        self.functions = functions if functions is not None else FunctionRegistry.default()
        self.max_characters = max_characters if max_characters is not None else MAX_SQL_CHARACTERS
        self._lowering_functions: FunctionRegistry | None = None

    def read(self, sql: str, dialect: str | None) -> StatementRead:
        return self.read_as(sql, dialect, _as_read)

    def read_as(self, sql: str, dialect: str | None, build: "Callable[..., R]") -> "R":
        """What ``read`` gives, as ``build(key, status, reads, links, outputs, dependencies)``
        makes it: ``links`` maps each asset read to its links as tuples of ``ColumnLink``'s
        fields, in order (a dict, keys only).  A sync's reading worker sends plain tuples back
        (``control/reading_pass``): it builds them from these, with no ``ColumnLink`` made and
        taken apart again."""
        key = statement_key(sql, dialect)
        if len(sql) > self.max_characters:
            return build(key, SqlStatus.NOT_PARSED, (), {}, None, ())
        with self.catalog.recording() as recording:
            try:
                # On the deep-stack worker: SQL nested too deeply for the parser is refused
                # (NestingTooDeepError), never a crash of the whole sync (prism_lineage.guarded).
                statements, fields, re_read, subqueries = run_guarded(self._lowered, sql, dialect)
            except PrismError:
                return build(key, SqlStatus.NOT_PARSED, (), {}, None, tuple(recording.dependencies))
        analysed = [s for s in statements if s.root is not None]
        # A statement the engine could not analyse (a kind it does not read) leaves what the
        # SQL reads unknown: the asset says it could not be parsed, over whatever was read.
        status = None if analysed and len(analysed) == len(statements) else SqlStatus.NOT_PARSED
        owners = self._scan_owners(analysed, subqueries)
        reads = tuple(dict.fromkeys(name for found in owners.values() for name in found))
        # Each link as a tuple of ColumnLink's fields first (hashed in C; a statement's links are
        # mostly distinct), made into ColumnLinks once, in the order first met.
        links: dict[str, dict[tuple, None]] = {name: {} for name in reads}
        outputs: list[str] = []
        # A source (one tuple object per distinct source in a read: sync_read shares them) →
        # where its links go: (the links of one asset, the column as the asset names it,
        # relationship, transformation, confidence) for each asset it is a column of.
        placed: dict[tuple, tuple] = {}
        owner_of: dict[str, tuple[str, tuple[str, ...]] | None] = {}  # a read's sources repeat (join keys)
        for found in fields:
            if found is None:  # a statement with no plan
                continue
            for field_name, sources in found:
                outputs.append(field_name)
                for source in sources:
                    entries = placed.get(source)
                    if entries is None:
                        source_column, relationship, transformation, confidence = source
                        if source_column in owner_of:
                            owner = owner_of[source_column]
                        else:
                            owner = owner_of[source_column] = _owner_of(source_column, owners)
                        entries = ()
                        if owner is not None:
                            table, names = owner
                            column = source_column[len(table) + 1:]
                            # Read again schema-less, a column its table does not have is
                            # traced by name only: never an exact edge from it.
                            if len(names) == 1 and not re_read:  # (the commonest: the list below, of one)
                                entries = ((links[names[0]], column, relationship, transformation, confidence),)
                            else:
                                entries = tuple([
                                    (links[name], column, relationship, transformation,
                                     "unknown" if re_read and not self.has_column(name, column) else confidence)
                                    for name in names])
                        placed[source] = entries
                    for into, column, relationship, transformation, confidence in entries:
                        into[(column, field_name, relationship, transformation, confidence)] = None
        return build(key, status, reads, links, _usable_outputs(outputs) if status is None else None,
                     tuple(recording.dependencies))

    def _lowered(self, sql: str, dialect: str | None):
        """The statements lowered, each one's output fields with their sources
        (``sync_read.statement_fields``: what the explain answer says of them), and whether it
        had to be read again with some assets schema-less because it names a column the
        catalog does not give them; and whether the plans may hold a subquery (one was made
        while they were: ``ir.subqueries_made``; none, and nothing need look for one)."""
        made = subqueries_made()
        try:
            statements = self._lower(sql, dialect)
            re_read = False
        except UnknownColumnError as error:
            # The SQL names a column the declarations do not list (declared columns are often
            # incomplete, a dbt manifest's always are without catalog.json, and a rename leaves
            # readers naming the old column): read it again with the table it names schema-less
            # — or, where the error does not say which table, every asset — so its tables and
            # named columns are still traced (and the missing column is said, ``has_column``).
            statements = self._schemaless_read(sql, dialect, error)
            re_read = True
        subqueries = subqueries_made() != made
        return statements, statement_fields(statements, self.functions, subqueries), re_read, subqueries

    def _lower(self, sql: str, dialect: str | None) -> list[Statement]:
        """``explain.lower(sql, self.catalog, dialect)``: the built-in function facts (not
        ``self.functions``, which the lineage rules use), on the calling thread."""
        if self._lowering_functions is None:
            self._lowering_functions = FunctionRegistry.default()
        return lower_sql(sql, catalog=self.catalog, dialect=dialect, functions=self._lowering_functions)

    def _schemaless_read(self, sql: str, dialect: str | None, error: UnknownColumnError):
        previous = self.catalog.names_only, self.catalog.schemaless
        try:
            for _ in range(16):
                owner = self.book.resolve(tuple(error.table.split("."))) if error.table else None
                if owner is None or owner in self.catalog.schemaless:
                    break
                self.catalog.schemaless = self.catalog.schemaless | {owner}
                try:
                    return self._lower(sql, dialect)
                except UnknownColumnError as again:
                    error = again
            self.catalog.names_only = True
            return self._lower(sql, dialect)
        finally:
            self.catalog.names_only, self.catalog.schemaless = previous

    def has_column(self, full_name: str, column: str) -> bool:
        """Whether ``column`` (a top-level name, or a path in one) is a column the catalog
        gives ``full_name``; True where its columns are not known, or not all of them are
        (nothing to compare with)."""
        known = self.catalog.columns_of(full_name)
        if known is None or column == "*" or column.endswith(".*") or not self.catalog.complete(full_name):
            return True
        names = {name.lower() for name, _ in known}
        return column.lower() in names or top_level(column).lower() in names

    def _scan_owners(self, statements: list[Statement], subqueries: bool = True) -> dict[str, tuple[str, ...]]:
        """Each table name the plans scan → the declared assets it is (none: not declared), in
        the order ``walk_relations`` meets them (a read's ``reads`` keeps that order)."""
        return {table: self.book.find(tuple(table.split("."))).owners
                for table in scanned_in_walk_order(statements, subqueries)}


def _as_read(key: str, status: SqlStatus | None, reads: tuple[str, ...], links: dict[str, dict[tuple, None]],
             outputs: tuple[str, ...] | None, dependencies: tuple[Dependency, ...]) -> StatementRead:
    """``SqlReader.read``'s ``StatementRead`` from what ``read_as`` gives."""
    return StatementRead(key, status, reads, tuple((name, tuple([ColumnLink(*link) for link in found]))
                                                   for name, found in links.items()), outputs, dependencies)


def top_level(column: str) -> str:
    """The top-level column of a column path (``items[].sku`` → ``items``)."""
    return re.split(r"[.\[]", column, maxsplit=1)[0]


_UNPLACED = object()


def _owner_of(column: str, owners: dict[str, tuple[str, ...]]) -> tuple[str, tuple[str, ...]] | None:
    """(table as the plan spells it, its assets) of a source column ``table.column``: the longest
    table with assets that ``column`` starts with, followed by a dot."""
    # The tables it may start with are the text before each of its dots: asked from the
    # longest (a dictionary lookup each, not a test of every table the statement reads).
    end = column.rfind(".")
    while end >= 0:
        assets = owners.get(column[:end])
        if assets:
            return column[:end], assets
        end = column.rfind(".", 0, end)
    return None


def _usable_outputs(names: list[str]) -> tuple[str, ...] | None:
    """Output names a reader of this asset can resolve against (none if a star is unknown)."""
    # (``any(n == "*" or n.endswith(".*") for n in names)``, with no Python-level step per name.)
    if not names or "*" in names or any(map(str.endswith, names, repeat(".*"))) or len(set(names)) != len(names):
        return None
    return tuple(names)
