"""DDL that changes tables, read from sqlglot's AST into the changes a script catalog follows.

``ALTER TABLE … RENAME TO``, ``RENAME COLUMN``, ``ADD [COLUMN]`` / Spark's ``ADD COLUMNS (…)``,
``DROP [COLUMN]`` / ``DROP COLUMNS (…)``, a column's new type (``ALTER COLUMN … [SET DATA] TYPE``,
Spark's ``CHANGE COLUMN``, MySQL's ``CHANGE`` / ``MODIFY``), Spark's ``REPLACE COLUMNS``,
Snowflake's ``SWAP WITH``, T-SQL's ``EXEC sp_rename`` and ``DROP TABLE/VIEW`` — in each
dialect's spelling as sqlglot parses it — become a list of small changes, in the order
written; the script catalog applies them (scripts.py, specs/scripts.md).  Actions that change
no column (constraints, defaults, properties …) are no change.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from ...ir import Origin
from .context import LoweringContext
from .names import table_parts

_TABLE_KINDS = ("TABLE", "VIEW", "MATERIALIZED VIEW")


@dataclass(frozen=True, slots=True)
class NewColumn:
    name: str
    type: str | None


@dataclass(frozen=True, slots=True)
class RenameTable:
    table: tuple[str, ...]
    new: tuple[str, ...]  # as written: an unqualified name keeps the table's schema


@dataclass(frozen=True, slots=True)
class SwapTables:
    """Snowflake's ``ALTER TABLE a SWAP WITH b``: each takes the other's name."""

    table: tuple[str, ...]
    other: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DropTable:
    table: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RenameColumn:
    table: tuple[str, ...]
    old: str
    new: str
    if_exists: bool = False
    at: Origin | None = None  # where the column is named (errors point there)


@dataclass(frozen=True, slots=True)
class AddColumn:
    table: tuple[str, ...]
    column: NewColumn
    if_not_exists: bool = False
    at: Origin | None = None


@dataclass(frozen=True, slots=True)
class DropColumn:
    table: tuple[str, ...]
    name: str
    if_exists: bool = False
    at: Origin | None = None


@dataclass(frozen=True, slots=True)
class RetypeColumn:
    table: tuple[str, ...]
    name: str
    type: str | None
    at: Origin | None = None


@dataclass(frozen=True, slots=True)
class ReplaceColumns:
    """Spark/Hive's ``REPLACE COLUMNS (…)``: the table's columns are these (kept by name)."""

    table: tuple[str, ...]
    columns: tuple[NewColumn, ...]
    at: Origin | None = None


Change = RenameTable | SwapTables | DropTable | RenameColumn | AddColumn | DropColumn | RetypeColumn | ReplaceColumns


@dataclass(frozen=True, slots=True)
class TableChanges:
    """What one statement does to tables: its changes, in order, and where it is."""

    changes: tuple[Change, ...]
    origin: Origin | None
    what: str  # the statement in a few words, for messages ("ALTER TABLE orders")


def table_changes(node: exp.Expression, ctx: LoweringContext, origin: Origin | None) -> TableChanges | None:
    """The changes ``node`` makes to tables (``None``: it changes none)."""
    if isinstance(node, exp.Drop) and _kind(node) in _TABLE_KINDS:
        tables = [t for t in node.args.get("tables") or [node.this] if _named(t)]
        return _changes([DropTable(table_parts(t, ctx)) for t in tables], origin, f"DROP {_kind(node)}")
    if isinstance(node, exp.Alter) and _kind(node) in _TABLE_KINDS and _named(node.this):
        table = table_parts(node.this, ctx)
        changes: list[Change] = []
        for action in node.args.get("actions") or []:
            changes.extend(_action(action, node, table, ctx))
        return _changes(changes, origin, f"ALTER {_kind(node)} {'.'.join(table)}")
    if is_sp_rename(node):
        return _changes(_sp_rename(node, ctx), origin, "sp_rename")
    return None


def _changes(changes: list[Change], origin: Origin | None, what: str) -> TableChanges | None:
    return TableChanges(tuple(changes), origin, what) if changes else None


def _kind(node: exp.Expression) -> str:
    return str(node.args.get("kind") or "").upper()


def _named(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier)


def _action(action: exp.Expression, alter: exp.Alter, table: tuple[str, ...], ctx: LoweringContext) -> list[Change]:
    part = ctx.normalizer.part
    if isinstance(action, exp.AlterRename) and _named(action.this):
        # sqlglot reads Postgres/DuckDB's ``RENAME a TO b`` (COLUMN left out) as a rename of the
        # table to ``a`` with a ``TO b`` option: it is the column ``a`` renamed to ``b``.
        to = next((o for o in alter.args.get("options") or [] if isinstance(o, exp.ToTableProperty)), None)
        if to is not None and _named(to.this):
            return [RenameColumn(table, part(action.this.this), part(to.this.this), at=ctx.origin(action.this.this))]
        return [RenameTable(table, table_parts(action.this, ctx))]
    if isinstance(action, exp.RenameColumn):
        old = action.this.this if isinstance(action.this, exp.Column) else action.this
        new = action.args["to"].this if isinstance(action.args["to"], exp.Column) else action.args["to"]
        return [RenameColumn(table, part(old), part(new), bool(action.args.get("exists")), ctx.origin(old))]
    if isinstance(action, exp.ColumnDef):
        return [AddColumn(table, _new_column(action, ctx), bool(action.args.get("exists")), ctx.origin(action.this))]
    if isinstance(action, exp.Schema):  # Spark: ADD COLUMNS (c INT, d STRING)
        return [AddColumn(table, _new_column(c, ctx), at=ctx.origin(c.this))
                for c in action.expressions if isinstance(c, exp.ColumnDef)]
    if isinstance(action, exp.Drop) and _kind(action) in ("COLUMN", "COLUMNS"):
        return [DropColumn(table, name, bool(action.args.get("exists")), at)
                for name, at in _dropped_names(action, ctx)]
    if isinstance(action, exp.AlterColumn):
        return _altered_column(action, table, ctx)
    if isinstance(action, exp.ModifyColumn) and isinstance(action.this, exp.ColumnDef):
        # MySQL: CHANGE a b INT (rename and retype), MODIFY c BIGINT (retype).
        new = _new_column(action.this, ctx)
        old = action.args.get("rename_from")
        changes: list[Change] = []
        if old is not None and part(old).lower() != new.name.lower():
            changes.append(RenameColumn(table, part(old), new.name, at=ctx.origin(old)))
        changes.append(RetypeColumn(table, new.name, new.type, ctx.origin(action.this.this)))
        return changes
    if isinstance(action, exp.ReplaceColumns):
        return [ReplaceColumns(table, tuple(_new_column(c, ctx) for c in action.expressions
                                            if isinstance(c, exp.ColumnDef)))]
    if isinstance(action, exp.SwapTable) and _named(action.this):
        return [SwapTables(table, table_parts(action.this, ctx))]
    return []


def _altered_column(action: exp.AlterColumn, table: tuple[str, ...], ctx: LoweringContext) -> list[Change]:
    name = ctx.normalizer.part(action.this)
    at = ctx.origin(action.this)
    changes: list[Change] = []
    renamed = action.args.get("rename_to")  # Spark: CHANGE COLUMN a b INT
    if renamed is not None and ctx.normalizer.part(renamed).lower() != name.lower():
        changes.append(RenameColumn(table, name, ctx.normalizer.part(renamed), at=at))
        name = ctx.normalizer.part(renamed)
    dtype = action.args.get("dtype")
    if isinstance(dtype, exp.DataType):
        changes.append(RetypeColumn(table, name, dtype.sql(dialect=ctx.dialect), at))
    return changes


def _new_column(definition: exp.ColumnDef, ctx: LoweringContext) -> NewColumn:
    type_node = definition.args.get("kind")
    return NewColumn(ctx.normalizer.part(definition.this),
                     type_node.sql(dialect=ctx.dialect) if type_node is not None else None)


def _dropped_names(action: exp.Drop, ctx: LoweringContext) -> list[tuple[str, Origin | None]]:
    names = []
    for item in action.args.get("tables") or []:
        for column in item.expressions if isinstance(item, exp.Schema) else [item]:
            identifier = column.this if isinstance(column, exp.Column) else column
            if isinstance(identifier, exp.Identifier):
                names.append((ctx.normalizer.part(identifier), ctx.origin(identifier)))
    return names


# --- T-SQL: EXEC sp_rename 'schema.old', 'new' [, 'COLUMN'] -------------------------------------


def is_sp_rename(node: exp.Expression) -> bool:
    return isinstance(node, exp.Execute) and _named(node.this) and node.this.name.lower() == "sp_rename"


def _sp_rename(node: exp.Execute, ctx: LoweringContext) -> list[Change]:
    """``sp_rename`` renames a table (``'dbo.t', 'u'``) or, with ``'COLUMN'``, a column
    (``'dbo.t.a', 'b'``); its arguments may be named (``@objname = …``).  The names are
    strings: sqlglot reads them as T-SQL names (``[my t]``).  Other object types (an index, a
    constraint …) change no column."""
    arguments = _sp_arguments(node)
    objname, newname = arguments.get("objname"), arguments.get("newname")
    objtype = (arguments.get("objtype") or "").upper()
    if objname is None or newname is None or objtype not in ("", "OBJECT", "COLUMN"):
        return []
    try:
        if objtype == "COLUMN":
            column = exp.to_column(objname, dialect=ctx.dialect)
            table = exp.to_table(".".join(p.sql(dialect=ctx.dialect) for p in column.parts[:-1]), dialect=ctx.dialect)
            if not _named(table):
                return []
            return [RenameColumn(table_parts(table, ctx), ctx.normalizer.part(column.this),
                                 ctx.normalizer.part(exp.to_identifier(newname)), at=ctx.origin(node.this))]
        table = exp.to_table(objname, dialect=ctx.dialect)
    except Exception:  # noqa: BLE001 - a name sqlglot cannot read: the rename is not followed
        return []
    if not _named(table):
        return []
    return [RenameTable(table_parts(table, ctx), (ctx.normalizer.part(exp.to_identifier(newname)),))]


_SP_RENAME_PARAMETERS = ("objname", "newname", "objtype")


def _sp_arguments(node: exp.Execute) -> dict[str, str]:
    """The constant arguments of ``sp_rename``, by parameter name (positional or ``@name = …``)."""
    found: dict[str, str] = {}
    for position, argument in enumerate(node.expressions):
        name = _SP_RENAME_PARAMETERS[position] if position < len(_SP_RENAME_PARAMETERS) else None
        if isinstance(argument, exp.EQ) and isinstance(argument.this, exp.Parameter):
            name, argument = argument.this.name.lower(), argument.expression
        if name is not None and (isinstance(argument, exp.National) or
                                 isinstance(argument, exp.Literal) and argument.is_string):
            found[name] = argument.this
    return found
