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
  OVERWRITE and TRUNCATE start again.  A declared table the script writes starts from its base
  rows;
* a view is its query, analysed where it is read (a view shows the current rows of what it reads).

DDL that changes tables (ddl.py) changes the catalog for the statements after it, with or
without ``through_script``: ``ALTER TABLE … RENAME TO`` moves a table (its rows too) to its new
name, ``RENAME/ADD/DROP COLUMN`` and new types change its columns (an added column has no value
until a statement writes it), ``DROP TABLE/VIEW`` ends it.  A name that no longer names a table
(dropped, renamed away) is read as a table not in the schema, and the answer says so.  The
schema describes the tables as they are *before* the script: a declared table an ALTER changes
becomes the script's own, its rows starting from the base table's.

A read through the script is a ``CteRef`` to those rows: one statement that reads a temp table
is explained exactly like the same logic written with a CTE.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from sqlglot import exp

from ...catalog import Catalog, Column, Table
from ...errors import InvalidStatementError, UnknownColumnError
from ...ir import (
    CteRef,
    Expr,
    Field,
    FieldRef,
    Literal,
    Modify,
    Origin,
    Project,
    Relation,
    Scan,
    SetKind,
    SetOperation,
    Statement,
    Uncertainty,
    Values,
    field_id,
)
from ...ir.expressions import Subquery, SubqueryKind
from ...ir.modify import Matched, WriteAction
from . import ddl, routines
from .context import LoweringContext

_CREATES = ("create_table", "create_view", "create_materialized_view")
_ADDS_ROWS = ("insert", "update", "merge", "delete")


@dataclass(slots=True, eq=False)
class ScriptTable:
    """A table or view the script created (or a declared table it wrote or changed)."""

    table: Table
    # The script's own table: lookups answer from it, not from the schema.  False: a declared
    # table the script only wrote (still read as the schema declares it).
    created: bool = True
    view: exp.Expression | None = None  # a view's query, analysed where it is read
    view_columns: list[str] = field(default_factory=list)
    # A table's rows so far (through the script), their fields in the order of ``table.columns``.
    rows: Relation | None = None
    open: bool = False  # some columns are not known (``SELECT *`` over a table without a schema)
    gone: str | None = None  # the name no longer names a table: why ("t was dropped at line 4")
    # Through the script, reads of it stop at the table itself: why (rows written by position
    # into columns nobody knows cannot be told apart).
    stops: str | None = None
    # Through the script, what reads of it must say (a change to columns nobody knows).
    caveats: list[str] = field(default_factory=list)
    # Through the script, the tables its rows were read from that the schema does not declare,
    # as the writing statements said it: every read of the rows says it too.
    missing: list[str] = field(default_factory=list)
    # A view's query as lowered where it was last read, while the script has changed nothing it
    # may read since (``_view_rows``): (the catalog's version then, the rows, their column
    # names, the notes and missing tables that lowering said).
    lowered: tuple | None = None


class _Entries:
    """The script's tables in the order they were last added (a list, with ``append`` and
    ``remove``), found by their last name part: a script of thousands of tables looks each
    name up among the few entries with that last part, not among all of them."""

    __slots__ = ("_order", "_named", "_where", "_next")

    def __init__(self):
        self._order: dict[int, ScriptTable] = {}  # insertion ordered
        self._named: dict[str, list[ScriptTable]] = {}  # by last part, lower-case, in order
        self._where: dict[int, tuple[int, str]] = {}  # id(entry) -> (its key in _order, its name key)
        self._next = 0

    def append(self, entry: ScriptTable) -> None:
        key = entry.table.parts[-1].lower()
        self._order[self._next] = entry
        self._where[id(entry)] = (self._next, key)
        self._named.setdefault(key, []).append(entry)
        self._next += 1

    def remove(self, entry: ScriptTable) -> None:
        # The entry's name may have changed since it was added (a swap): its keys were kept.
        at, key = self._where.pop(id(entry))
        del self._order[at]
        self._named[key].remove(entry)

    def __iter__(self):
        return iter(self._order.values())

    def named(self, last: str) -> list[ScriptTable]:
        """The entries whose last name part is ``last`` (lower-case), oldest first."""
        return self._named.get(last, [])


class ScriptCatalog:
    """The user's catalog, plus the tables and views the script's statements create or change."""

    __slots__ = ("base", "document", "_tables", "_ctx", "_variables", "functions", "version", "_looked_up")

    def __init__(self, base: Catalog):
        self.base = base
        self.document = base.document
        self._tables = _Entries()
        # Changes whenever a statement may have changed what a view's query reads (a write, a
        # change of columns, a drop, a function, a variable, a new table under a name looked up
        # before): a view lowered at this version may be read again as it was (``_view_rows``).
        self.version = 0
        self._looked_up: set[str] = set()  # the last name parts of the tables statements read
        self._ctx: LoweringContext | None = None  # the statement being lowered
        self._variables: dict[str, object] = {}  # script variables by lower-case name (variables.py)
        # The functions the script defined so far, inlined where called (routines.py).
        self.functions = routines.Functions()

    def define_variable(self, variable) -> None:
        """A DECLARE or SET gave ``variable`` its value, for the statements after it."""
        self._variables[variable.name.lower().lstrip("@$")] = variable
        self.version += 1

    @property
    def has_variables(self) -> bool:
        """Whether a statement before declared or set any variable."""
        return bool(self._variables)

    def variable(self, name: str):
        """The script variable ``name``, if a statement before declared or set it."""
        return self._variables.get(name.lower().lstrip("@$"))

    def begin(self, ctx: LoweringContext) -> None:
        """The statement ``ctx`` is lowered next (a read of a dropped table is noted in it)."""
        self._ctx = ctx

    @property
    def tables(self) -> list[Table]:
        return list(self.base.tables) + [t.table for t in self._tables if t.created and not t.open and t.gone is None]

    def lookup(self, parts: tuple[str, ...], origin: Origin | None = None) -> Table | None:
        """The table a query reads under ``parts`` (``None``: read it without a schema)."""
        return self._find(parts, origin, reading=True)

    def target(self, parts: tuple[str, ...], origin: Origin | None = None) -> Table | None:
        """The table a statement writes, creates or changes under ``parts``."""
        return self._find(parts, origin, reading=False)

    def _find(self, parts: tuple[str, ...], origin: Origin | None, reading: bool) -> Table | None:
        if reading and parts:
            self._looked_up.add(parts[-1].lower())
        found = self.script_table(parts)
        if found is not None:
            if found.gone is not None:
                if reading:
                    self.note(f"{found.gone}: it is read as a table not in the schema", origin)
                return None
            if found.created:
                return None if found.open else found.table
        return self.base.lookup(parts, origin)

    def note(self, reason: str, origin: Origin | None) -> None:
        """Say ``reason`` in the answer of the statement being lowered (once)."""
        ctx = self._ctx
        if ctx is not None and all(u.reason != reason for u in ctx.uncertain):
            ctx.uncertain_about(reason, None, origin)

    def script_table(self, parts: tuple[str, ...]) -> ScriptTable | None:
        """The table of the script that ``parts`` names, latest first."""
        if not parts:
            return None
        named = self._tables.named(parts[-1].lower())
        if not named:  # (most names: no table of the script ends so)
            return None
        wanted = tuple(p.lower() for p in parts)
        for entry in reversed(named):
            have = tuple(p.lower() for p in entry.table.parts)
            shorter = min(len(have), len(wanted))
            if have[-shorter:] == wanted[-shorter:] and have[-1] == wanted[-1]:
                return entry
        return None

    # --- what a statement does to the script's tables ----------------------------------------

    def record(self, statement: Statement, node: exp.Expression, ctx: LoweringContext) -> Statement:
        """What ``statement`` (lowered from ``node``) does to the script's tables; the statement,
        with what the catalog could not follow added to its ``uncertain`` entries."""
        unchanged = self._changes_no_read(statement, node)
        try:
            return self._record(statement, node, ctx)
        finally:
            if not unchanged:
                self.version += 1

    def _changes_no_read(self, statement: Statement, node: exp.Expression) -> bool:
        """Whether ``statement`` leaves every read of the script's tables as it was: it writes
        nothing (a query), or it creates a table or view under a name no statement looked up
        among the script's tables and that names none of them yet.  Anything else may change
        what a view's query reads (conservative: an INSERT into a table no view reads too)."""
        if statement.kind == "select" and statement.target is None and isinstance(node, exp.Query):
            return True
        if not isinstance(node, exp.Create) or statement.kind not in _CREATES or statement.target is None:
            return False
        if str(node.args.get("kind") or "").upper() not in ("TABLE", "VIEW"):
            return False
        parts = tuple(statement.target.split("."))
        last = parts[-1].lower()
        return last not in self._looked_up and not self._tables.named(last)

    def _record(self, statement: Statement, node: exp.Expression, ctx: LoweringContext) -> Statement:
        if isinstance(node, (exp.Create, exp.Drop, exp.Command)):
            routines.record(self.functions, node, ctx)
        changes = ddl.table_changes(node, ctx, statement.origin)
        if changes is not None:
            notes = [note for change in changes.changes if (note := self._change(change, changes, ctx))]
            if notes:
                found = tuple(Uncertainty(note, None, changes.origin) for note in notes)
                statement = replace(statement, uncertain=statement.uncertain + found)
            return statement
        target = statement.target
        if target is None:
            return statement
        parts = tuple(target.split("."))
        kind = statement.kind
        if kind in _CREATES and statement.root is not None:
            if not (isinstance(node, exp.Create) and node.args.get("exists") and self._exists(parts)):
                self._create(statement, node, parts, ctx)
        elif kind == "truncate":
            entry = self.script_table(parts)
            if entry is not None and entry.view is None and entry.gone is None:
                entry.rows, entry.stops = self._empty(entry.table, statement.origin, ctx), None
        elif statement.root is not None and (kind in _ADDS_ROWS or kind == "insert_overwrite") and ctx.through_script:
            entry = self.script_table(parts) or self._declared(parts)
            # Rows written into a view, or into a dropped table (the database refuses), are not followed.
            if entry is None or entry.view is not None or entry.gone is not None:
                return statement
            if entry.open:
                entry.rows = None
                entry.stops = (f"the columns of {entry.table.name} are not known and rows were written into it "
                               f"({kind.upper().replace('_', ' ')}{_at(statement.origin)})")
                return statement
            root = statement.root
            if isinstance(root, Modify) and _every_row(root, node):
                # UPDATE / DELETE with no WHERE and no joined source: every row is set (its old
                # value of a set column is gone) or removed (as TRUNCATE).
                _carry(entry, ctx)
                if root.changes_rows_only:
                    previous = entry.rows if entry.rows is not None else _base_rows(entry.table, statement.origin, ctx)
                    entry.rows = _overwritten(root, entry.table, previous, statement.origin, ctx)
                elif all(c.action is WriteAction.DELETE for c in root.clauses):
                    entry.rows, entry.stops = self._empty(entry.table, statement.origin, ctx), None
                return statement
            if isinstance(root, Modify) and root.changes_rows_only:
                written = _updated(root, entry.table, statement.origin, ctx)
            else:
                written = _padded(statement, entry.table, ctx)
            _carry(entry, ctx)
            if kind == "insert_overwrite" or entry.rows is None and entry.created:
                entry.rows = written
            else:
                previous = entry.rows if entry.rows is not None else _base_rows(entry.table, statement.origin, ctx)
                entry.rows = _union_all(previous, written, ctx)
        return statement

    def _exists(self, parts: tuple[str, ...]) -> bool:
        """``CREATE … IF NOT EXISTS``: whether the table is there already (then nothing changes)."""
        entry = self.script_table(parts)
        if entry is not None:
            return entry.gone is None
        return self.base.lookup(parts) is not None

    def _create(self, statement: Statement, node: exp.Expression, parts: tuple[str, ...],
                ctx: LoweringContext) -> None:
        root = statement.root
        assert root is not None and statement.writes is not None
        by_id = {f.id: f for f in root.fields}
        if statement.writes:
            written = [(w.name, by_id[w.field].type) for w in statement.writes]
        else:  # CREATE TABLE t (a INT, …) / LIKE s: its declared columns, no rows
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
            _carry(entry, ctx)
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

    # --- DDL that changes tables (ddl.py) -----------------------------------------------------

    def _change(self, change: ddl.Change, statement: ddl.TableChanges, ctx: LoweringContext) -> str | None:
        """Apply one change; what the catalog could not follow, in words (or ``None``)."""
        origin = statement.origin
        if isinstance(change, ddl.DropTable):
            name = ".".join(change.table)
            self._forget(change.table)
            self._gone(change.table, f"{name} was dropped ({statement.what}{_at(origin)})")
            return None
        if isinstance(change, ddl.SwapTables):
            first, second = self._adopt(change.table, ctx, origin), self._adopt(change.other, ctx, origin)
            if first is not None and second is not None and first is not second:
                first.table, second.table = (_renamed(first.table, second.table.parts),
                                             _renamed(second.table, first.table.parts))
                for entry in (first, second):  # latest first: each now answers for its new name
                    self._tables.remove(entry)
                    self._tables.append(entry)
            return None
        entry = self._adopt(change.table, ctx, origin)
        if entry is None:
            return None
        if isinstance(change, ddl.RenameTable):
            new = entry.table.parts[:-1] + change.new if len(change.new) == 1 else change.new
            old = entry.table
            self._tables.remove(entry)
            entry.table = _renamed(old, new)
            self._gone(old.parts, f"{old.name} was renamed to {entry.table.name} "
                                  f"({statement.what}{_at(origin)})")
            self._tables.append(entry)
            return None
        if entry.open:
            if not ctx.through_script:
                return None  # read without a schema either way: nothing to follow
            caveat = f"the columns of {entry.table.name} are not known, so {statement.what}{_at(origin)} is not followed"
            entry.caveats.append(caveat)
            return caveat
        self._change_columns(entry, change, ctx, change.at or origin)
        return None

    def _adopt(self, parts: tuple[str, ...], ctx: LoweringContext, origin: Origin | None) -> ScriptTable | None:
        """The script's own entry for the table a DDL statement changes (``None``: the name no
        longer names a table).  A declared table becomes the script's own from here on, its rows
        starting from the base table's; a table not in the schema stands for all its unknown
        columns, like ``CREATE TABLE t2 AS SELECT * FROM t``."""
        entry = self.script_table(parts)
        if entry is not None:
            if entry.gone is not None:
                return None
            if not entry.created:
                entry.created = True
                if entry.rows is None and ctx.through_script:
                    entry.rows = _base_rows(entry.table, origin, ctx)
            return entry
        table = self.base.lookup(parts, origin)
        if table is not None:
            entry = ScriptTable(table, rows=_base_rows(table, origin, ctx) if ctx.through_script else None)
        else:
            name = ".".join(parts)
            entry = ScriptTable(Table(name, parts, (Column("*"),)), open=True,
                                rows=_all_columns(name, origin, ctx) if ctx.through_script else None)
        self._tables.append(entry)
        return entry

    def _gone(self, parts: tuple[str, ...], why: str) -> None:
        self._tables.append(ScriptTable(Table(".".join(parts), parts, ()), gone=why))

    def _change_columns(self, entry: ScriptTable, change: ddl.Change, ctx: LoweringContext,
                        origin: Origin | None) -> None:
        """RENAME/ADD/DROP COLUMN, a new type, REPLACE COLUMNS: the table's new columns, each
        from the column it was (its position in the rows so far) or new (no value yet)."""
        table = entry.table
        columns: list[tuple[Column, int | None]] = [(c, i) for i, c in enumerate(table.columns)]

        def position(name: str, if_exists: bool = False) -> int | None:
            found = next((i for i, (c, _) in enumerate(columns) if c.name.lower() == name.lower()), None)
            if found is None and not if_exists:
                raise UnknownColumnError(name, table=table.name, available=[c.name for c, _ in columns],
                                         origin=origin)
            return found

        def absent(name: str) -> None:
            if position(name, if_exists=True) is not None:
                raise InvalidStatementError(f"column '{name}' of {table.name} already exists", origin=origin)

        if isinstance(change, ddl.RenameColumn):
            at = position(change.old, change.if_exists)
            if at is None:
                return
            if change.new.lower() != change.old.lower():
                absent(change.new)
            columns[at] = (replace(columns[at][0], name=change.new), columns[at][1])
        elif entry.view is not None:
            return  # a view's columns are its query's: only their names change
        elif isinstance(change, ddl.AddColumn):
            if change.if_not_exists and position(change.column.name, if_exists=True) is not None:
                return
            absent(change.column.name)
            columns.append((Column(change.column.name, change.column.type), None))
        elif isinstance(change, ddl.DropColumn):
            at = position(change.name, change.if_exists)
            if at is None:
                return
            del columns[at]
        elif isinstance(change, ddl.RetypeColumn):
            at = position(change.name)
            assert at is not None
            columns[at] = (replace(columns[at][0], type=change.type), columns[at][1])
        elif isinstance(change, ddl.ReplaceColumns):
            old = {c.name.lower(): i for i, (c, _) in enumerate(columns)}
            columns = [(Column(c.name, c.type), old.get(c.name.lower())) for c in change.columns]
        entry.table = Table(table.name, table.parts, tuple(c for c, _ in columns), table.spec)
        if entry.view is not None:
            entry.view_columns = [c.name for c, _ in columns]
        elif entry.rows is not None:
            entry.rows = _reshaped(entry.rows, columns, origin, ctx)


def _carry(entry: ScriptTable, ctx: LoweringContext) -> None:
    """Through the script, what the writing statement said about the tables it read without a
    schema is said by every read of the rows it wrote (as the same logic in a CTE would say it)."""
    for reason in ctx.missing:
        if reason not in entry.missing:
            entry.missing.append(reason)


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


def _updated(modify: Modify, table: Table, origin: Origin | None, ctx: LoweringContext) -> Relation:
    """The new values an UPDATE (or a MERGE that only updates) writes, as rows of the table's
    columns to add to its rows so far: it changes the values of the columns it sets, never
    which rows exist.  So these rows are one row, not the matched ones: each set column is a
    scalar subquery over the matched rows (its value, and what decided which rows got it — the
    WHERE, the join with the sources — reach that column only), every other column NULL (it
    keeps the lineage it had)."""
    origin = origin or modify.origin
    values = Values(ctx.ids.new("values", origin), origin, (), ((),))
    by_name = {f.name.lower(): f for f in modify.columns}
    exprs: list[Expr] = []
    for column in table.columns:
        field = by_name.get(column.name.lower())
        if field is None:
            exprs.append(Literal(ctx.ids.new("lit", origin), origin, column.type, None))
            continue
        pick_id = ctx.ids.new("project", origin)
        ref = FieldRef(ctx.ids.new("col", origin), origin, field.type, field.id)
        pick = Project(pick_id, origin, modify, (ref,), (Field(field_id(pick_id, 0), field.name, field.type, origin),))
        exprs.append(Subquery(ctx.ids.new("subquery", origin), origin, field.type, SubqueryKind.SCALAR, pick))
    project_id = ctx.ids.new("project", origin)
    columns = tuple(Field(field_id(project_id, i), c.name, c.type, origin) for i, c in enumerate(table.columns))
    return Project(project_id, origin, values, tuple(exprs), columns)


def _every_row(modify: Modify, node: exp.Expression) -> bool:
    """Whether an UPDATE or DELETE applies to every row of its target: it reads the target's
    rows as they are (no WHERE, no joined source that could leave a row unmatched), no clause has
    a condition, and nothing picks some rows (MySQL's ``ORDER BY … LIMIT``, T-SQL's ``TOP``, which
    sqlglot reads as a table in ``tables``)."""
    if not isinstance(node, (exp.Update, exp.Delete)) or any(
            node.args.get(key) for key in ("where", "limit", "order", "from", "from_", "using", "tables", "joins")):
        return False
    rows = modify.input
    if not (isinstance(rows, Scan) or isinstance(rows, CteRef) and rows.script):
        return False
    return all(c.matched is Matched.ALWAYS and c.condition is None for c in modify.clauses)


def _overwritten(modify: Modify, table: Table, previous: Relation, origin: Origin | None,
                 ctx: LoweringContext) -> Relation:
    """The rows after an UPDATE of every row: the rows so far, each set column holding the new
    value (a scalar subquery over the update, as in ``_updated``), every other column as it was."""
    origin = origin or modify.origin
    new = _updated(modify, table, origin, ctx)
    assert isinstance(new, Project)
    set_columns = {f.name.lower() for f in modify.columns}
    exprs: list[Expr] = []
    for column, old, value in zip(table.columns, previous.fields, new.exprs):
        if column.name.lower() in set_columns:
            exprs.append(value)
        else:
            exprs.append(FieldRef(ctx.ids.new("col", origin), origin, old.type, old.id))
    project_id = ctx.ids.new("project", origin)
    columns = tuple(Field(field_id(project_id, i), c.name, c.type, origin) for i, c in enumerate(table.columns))
    return Project(project_id, origin, previous, tuple(exprs), columns)


def _reshaped(rows: Relation, columns: list[tuple[Column, int | None]], origin: Origin | None,
              ctx: LoweringContext) -> Relation:
    """The rows under the table's new columns: each from the field at its old position, or
    NULL (a column added by ALTER has no value until a statement writes it)."""
    project_id = ctx.ids.new("project", origin)
    exprs: list[Expr] = []
    for column, at in columns:
        if at is None:
            exprs.append(Literal(ctx.ids.new("lit", origin), origin, column.type, None))
        else:
            source = rows.fields[at]
            exprs.append(FieldRef(ctx.ids.new("col", origin), origin, source.type, source.id))
    fields = tuple(Field(field_id(project_id, i), c.name, c.type, origin) for i, (c, _) in enumerate(columns))
    return Project(project_id, origin, rows, tuple(exprs), fields)


def _renamed(table: Table, parts: tuple[str, ...]) -> Table:
    return Table(".".join(parts), parts, table.columns, table.spec)


def _at(origin: Origin | None) -> str:
    return f" at line {origin.line}" if origin is not None else ""


def _all_columns(name: str, origin: Origin | None, ctx: LoweringContext) -> Relation:
    """The rows of a table not in the schema: one field standing for all its unknown columns."""
    scan_id = ctx.ids.new("scan", origin)
    return Scan(scan_id, origin, name, (Field(field_id(scan_id, "*"), "*", None, origin),), False)


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
    if parts:
        catalog._looked_up.add(parts[-1].lower())
    entry = catalog.script_table(parts)
    if entry is None or entry.gone is not None:
        return None
    name = entry.table.name
    for caveat in entry.caveats:
        catalog.note(caveat, origin)
    for reason in entry.missing:
        catalog.note(reason, origin)
        if reason not in ctx.missing:
            ctx.missing.append(reason)
    if entry.view is not None and not KEEP_VIEWS:  # lowered at every read (tests compare the two)
        definition = CteDef(name, exp.CTE(this=entry.view), CteEnv(), list(entry.view_columns), False)
    elif entry.view is not None:
        definition = _view_rows(queries, catalog, entry)
    elif entry.rows is not None:
        # The rows' fields are the table's columns in order: read them under the columns'
        # current names (a column renamed by ALTER).
        columns = [c.name for c in entry.table.columns]
        if entry.open or len(columns) != len(entry.rows.fields):
            columns = []
        definition = CteDef(name, None, CteEnv(), columns, False, relation=entry.rows, script=True)
    else:
        if entry.stops is not None:
            catalog.note(f"{entry.stops}: lineage through the script stops at {name}", origin)
        return None
    return queries._cte_source(definition, alias or parts[-1], column_aliases, origin)


# Whether a view's lowered query is kept for the reads after it (``_view_rows``); tests turn it
# off to compare with lowering it at every read.
KEEP_VIEWS = True


def _view_rows(queries, catalog: ScriptCatalog, entry: ScriptTable):
    """A view of the script, read through: its query lowered where it is read, as the rows of a
    script table (``CteRef.script``), and kept for the reads after it while the script changes
    nothing the query may read (``ScriptCatalog.version``).

    Lowering the query at every read made a chain of views quadratic: each read lowered the
    view, whose query read the view before it, lowered again, and so on down the chain (200
    views: 20,301 lowerings of a SELECT).  Kept, each view is lowered once per change of what it
    reads; the lineage walk stops at its rows (``lineage/through.py``), as at a table's.  What
    its lowering said (notes, tables not in the schema) is said again by every read that
    re-uses it, as lowering it there would have."""
    from .queries import CteDef, CteEnv

    ctx = queries.ctx
    kept = entry.lowered
    if kept is None or kept[0] != catalog.version:
        version = catalog.version
        definition = CteDef(entry.table.name, exp.CTE(this=entry.view), CteEnv(), list(entry.view_columns), False)
        outer_uncertain, outer_missing = ctx.uncertain, ctx.missing
        ctx.uncertain, ctx.missing = [], []
        try:
            body = queries._cte_relation(definition)
            kept = (version, body, list(definition.columns), tuple(ctx.uncertain), tuple(ctx.missing))
        finally:
            ctx.uncertain, ctx.missing = outer_uncertain, outer_missing
        entry.lowered = kept
    _, body, columns, notes, missing = kept
    said = {(u.reason, u.field) for u in ctx.uncertain}
    for note in notes:
        if (note.reason, note.field) not in said:
            ctx.uncertain.append(note)
            said.add((note.reason, note.field))
    for reason in missing:
        if reason not in ctx.missing:
            ctx.missing.append(reason)
    return CteDef(entry.table.name, None, CteEnv(), list(columns), False, relation=body, script=True)
