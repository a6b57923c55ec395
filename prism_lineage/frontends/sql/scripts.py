"""Scripts: several statements analysed in order, with a script-level catalog.

A table or view a statement creates (``CREATE [TEMP] TABLE … AS``, ``CREATE TABLE t (…)``,
``SELECT … INTO``, ``CREATE VIEW``) is a table of its own for the statements after it: they
read its columns as ``tmp.col`` (the *per-statement* answer).  Through the script
(``explain(…, through_script=True)``, ``prism-lineage explain --through-script``), a read of
such a table is the rows the earlier statements wrote into it, so lineage continues to the
base tables (specs/scripts.md):

* a table's rows are a snapshot of what was written into it so far: the CREATE's query, then
  ``UNION ALL`` the rows of every INSERT, UPDATE, MERGE and DELETE on it, each padded to the
  table's columns (a column a statement does not write has no value from it).  INSERT
  OVERWRITE and TRUNCATE start again; DROP forgets the table.  A declared table the script
  writes starts from its base rows;
* a view is its query, analysed where it is read (a view shows the current rows of what it reads).

A read through the script is a ``CteRef`` to those rows: one statement that reads a temp table
is explained exactly like the same logic written with a CTE.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from ...catalog import Catalog, Column, Table
from ...ir import (
    Expr,
    Field,
    FieldRef,
    Literal,
    Origin,
    Project,
    Relation,
    Scan,
    SetKind,
    SetOperation,
    Statement,
    Values,
    field_id,
)
from .context import LoweringContext

_CREATES = ("create_table", "create_view", "create_materialized_view")
_ADDS_ROWS = ("insert", "update", "merge", "delete")


@dataclass(slots=True, eq=False)
class ScriptTable:
    """A table or view the script created (or a declared table it wrote)."""

    table: Table
    created: bool = True
    view: exp.Expression | None = None  # a view's query, analysed where it is read
    view_columns: list[str] = field(default_factory=list)
    rows: Relation | None = None  # a table's rows so far (through the script)
    open: bool = False  # some columns are not known (``SELECT *`` over a table without a schema)


class ScriptCatalog:
    """The user's catalog, plus the tables and views the script's statements create."""

    __slots__ = ("base", "document", "_tables")

    def __init__(self, base: Catalog):
        self.base = base
        self.document = base.document
        self._tables: list[ScriptTable] = []

    @property
    def tables(self) -> list[Table]:
        return list(self.base.tables) + [t.table for t in self._tables if t.created and not t.open]

    def lookup(self, parts: tuple[str, ...], origin: Origin | None = None) -> Table | None:
        found = self.script_table(parts)
        if found is not None and found.created:
            return None if found.open else found.table
        return self.base.lookup(parts, origin)

    def script_table(self, parts: tuple[str, ...]) -> ScriptTable | None:
        """The table of the script that ``parts`` names, latest first."""
        wanted = tuple(p.lower() for p in parts)
        for entry in reversed(self._tables):
            have = tuple(p.lower() for p in entry.table.parts)
            shorter = min(len(have), len(wanted))
            if have[-shorter:] == wanted[-shorter:] and have[-1] == wanted[-1]:
                return entry
        return None

    # --- what a statement does to the script's tables ----------------------------------------

    def record(self, statement: Statement, node: exp.Expression, ctx: LoweringContext) -> None:
        """What ``statement`` (lowered from ``node``) does to the script's tables."""
        target = statement.target
        if target is None:
            return
        parts = tuple(target.split("."))
        kind = statement.kind
        if kind in _CREATES and statement.root is not None:
            self._create(statement, node, parts, ctx)
        elif kind == "drop":
            self._forget(parts)
        elif kind == "truncate":
            entry = self.script_table(parts)
            if entry is not None and entry.view is None:
                entry.rows = self._empty(entry.table, statement.origin, ctx)
        elif statement.root is not None and (kind in _ADDS_ROWS or kind == "insert_overwrite") and ctx.through_script:
            entry = self.script_table(parts) or self._declared(parts)
            if entry is None or entry.view is not None:
                return
            written = _padded(statement, entry.table, ctx)
            if kind == "insert_overwrite" or entry.rows is None and entry.created:
                entry.rows = written
            else:
                previous = entry.rows if entry.rows is not None else _base_rows(entry.table, statement.origin, ctx)
                entry.rows = _union_all(previous, written, ctx)

    def _create(self, statement: Statement, node: exp.Expression, parts: tuple[str, ...],
                ctx: LoweringContext) -> None:
        root = statement.root
        assert root is not None and statement.writes is not None
        by_id = {f.id: f for f in root.fields}
        if statement.writes:
            written = [(w.name, by_id[w.field].type) for w in statement.writes]
        else:  # CREATE TABLE t (a INT, …): its declared columns, no rows
            written = [(f.name, f.type) for f in root.fields]
        is_open = any(name == "*" or name.endswith(".*") for name, _ in written)
        table = Table(".".join(parts), parts, tuple(Column(name, type_) for name, type_ in written))
        self._forget(parts)
        entry = ScriptTable(table, open=is_open)
        query = node.args.get("expression") if isinstance(node, exp.Create) else None
        if statement.kind != "create_table" and isinstance(query, (exp.Query, exp.Subquery)):
            entry.view = query
            entry.view_columns = [] if is_open else [name for name, _ in written]
        elif ctx.through_script:
            entry.rows = _padded(statement, table, ctx) if statement.writes else root
        self._tables.append(entry)

    def _forget(self, parts: tuple[str, ...]) -> None:
        found = self.script_table(parts)
        if found is not None:
            self._tables.remove(found)

    def _declared(self, parts: tuple[str, ...]) -> ScriptTable | None:
        """A declared table the script writes: its rows start from the base table's."""
        table = self.base.lookup(parts)
        if table is None:
            return None
        entry = ScriptTable(table, created=False)
        self._tables.append(entry)
        return entry

    @staticmethod
    def _empty(table: Table, origin: Origin | None, ctx: LoweringContext) -> Values:
        values_id = ctx.ids.new("values", origin)
        columns = tuple(Field(field_id(values_id, i), c.name, c.type, origin) for i, c in enumerate(table.columns))
        return Values(values_id, origin, columns, ())


def _padded(statement: Statement, table: Table, ctx: LoweringContext) -> Relation:
    """The statement's written rows as the table's columns, in order (NULL where not written)."""
    root = statement.root
    assert root is not None
    by_id = {f.id: f for f in root.fields}
    written = {w.name.lower(): by_id[w.field] for w in statement.writes or ()}
    if [c.name.lower() for c in table.columns] == [f.name.lower() for f in root.fields] and \
            len(written) == len(root.fields) and all(written.get(f.name.lower()) is f for f in root.fields):
        return root
    origin = statement.origin or root.origin
    project_id = ctx.ids.new("project", origin)
    exprs: list[Expr] = []
    for column in table.columns:
        source = written.get(column.name.lower())
        if source is None:
            exprs.append(Literal(ctx.ids.new("lit", origin), origin, column.type, None))
        else:
            exprs.append(FieldRef(ctx.ids.new("col", origin), origin, source.type, source.id))
    columns = tuple(Field(field_id(project_id, i), c.name, c.type, origin) for i, c in enumerate(table.columns))
    return Project(project_id, origin, root, tuple(exprs), columns)


def _base_rows(table: Table, origin: Origin | None, ctx: LoweringContext) -> Relation:
    scan_id = ctx.ids.new("scan", origin)
    columns = tuple(Field(field_id(scan_id, c.name), c.name, c.type, origin) for c in table.columns)
    return Scan(scan_id, origin, table.name, columns)


def _union_all(left: Relation, right: Relation, ctx: LoweringContext) -> Relation:
    origin = right.origin or left.origin
    union_id = ctx.ids.new("union", origin)
    columns = tuple(Field(field_id(union_id, i), l.name, l.type if l.type == r.type else None, l.origin)
                    for i, (l, r) in enumerate(zip(left.fields, right.fields)))
    return SetOperation(union_id, origin, SetKind.UNION, True, left, right, columns)


def script_read(queries, parts: tuple[str, ...], alias: str | None, column_aliases: list[str],
                origin: Origin | None):
    """Through the script: a read of a table or view the script wrote, as a CTE reference to
    the rows written into it (``None``: not a table of the script, read it as usual)."""
    from .queries import CteDef, CteEnv

    ctx = queries.ctx
    catalog = ctx.catalog
    if not ctx.through_script or not isinstance(catalog, ScriptCatalog):
        return None
    entry = catalog.script_table(parts)
    if entry is None:
        return None
    name = entry.table.name
    if entry.view is not None:
        definition = CteDef(name, exp.CTE(this=entry.view), CteEnv(), list(entry.view_columns), False)
    elif entry.rows is not None:
        definition = CteDef(name, None, CteEnv(), [], False, relation=entry.rows)
    else:
        return None
    return queries._cte_source(definition, alias or parts[-1], column_aliases, origin)
