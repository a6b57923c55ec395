"""Lowering of whole statements: queries, writes (writes.py), statements that move no data,
dynamic SQL (dynamic.py); anything else is reported as not analysed."""

from __future__ import annotations

from sqlglot import exp

from ...ir import Relation, Statement
from . import writes
from .context import LoweringContext
from .ddl import is_sp_rename, table_changes
from .dynamic import lower_dynamic
from .pivot import pivot_statement
from .queries import CteEnv, QueryLowerer
from .targets import named_target
from .variables import select_assignment, variable_statement

_QUERY_TYPES = (exp.Query, exp.Values)

_WRITES = {
    exp.Insert: writes.lower_insert,
    exp.Create: writes.lower_create,
    exp.Update: writes.lower_update,
    exp.Delete: writes.lower_delete,
    exp.Merge: writes.lower_merge,
    exp.Copy: writes.lower_copy,
}

_TABLE_KINDS = ("TABLE", "VIEW", "MATERIALIZED VIEW")

# Statements that move no data: nothing to explain (no fields, nothing uncertain).
_NO_DATA: dict[type, str] = {
    exp.Drop: "drop", exp.Alter: "alter", exp.TruncateTable: "truncate", exp.Use: "use", exp.Set: "set",
    exp.Comment: "comment", exp.Describe: "describe", exp.Transaction: "begin", exp.Commit: "commit",
    exp.Rollback: "rollback", exp.Grant: "grant", exp.Analyze: "analyze", exp.Attach: "attach",
    exp.Detach: "detach", exp.Pragma: "pragma", exp.Show: "show",
}


def result_query(node: exp.Expression) -> exp.Expression | None:
    """The query whose rows a statement returns or writes (its ORDER BY orders the result)."""
    if isinstance(node, (exp.Query, exp.Subquery, exp.Values)):
        return node
    if isinstance(node, (exp.Insert, exp.Create)):
        query = node.expression
        return query if isinstance(query, (exp.Query, exp.Subquery)) else None
    return None


def lower_statement(node: exp.Expression, ctx: LoweringContext) -> Statement:
    if isinstance(node, exp.Select):
        assigned = select_assignment(node, ctx)  # ``SELECT @v = …``, ``SELECT … INTO @v``
        if assigned is not None:
            return assigned
    if isinstance(node, exp.Select) and node.args.get("into") is not None:
        return writes.lower_select_into(node, ctx)
    if isinstance(node, _QUERY_TYPES) or isinstance(node, exp.Subquery):
        root: Relation = QueryLowerer(ctx).lower_query(node, None, CteEnv())
        return Statement(ctx.statement, "select", root, root.origin, uncertain=tuple(ctx.uncertain))
    if isinstance(node, exp.Pivot):  # DuckDB's PIVOT statement
        root = pivot_statement(node, QueryLowerer(ctx), CteEnv())
        return Statement(ctx.statement, "select", root, root.origin, uncertain=tuple(ctx.uncertain))
    lower = _WRITES.get(type(node))
    if lower is not None:
        return lower(node, ctx)
    if isinstance(node, (exp.Declare, exp.Set)):
        assigned = variable_statement(node, ctx)
        if assigned is not None:
            return assigned
    kind = _NO_DATA.get(type(node))
    if kind is not None:
        return _no_data(node, kind, ctx)
    if is_sp_rename(node):  # T-SQL's ALTER … RENAME: the script catalog follows it (ddl.py)
        return _sp_rename(node, ctx)
    dynamic = lower_dynamic(node, ctx, lower_statement)
    if dynamic is not None:
        return dynamic
    kind = node.key.lower()
    if isinstance(node, exp.Command):
        kind = str(node.this).lower()
    return writes.unanalysed(node, ctx, kind, f"a {kind.upper()} statement is not analysed")


def _no_data(node: exp.Expression, kind: str, ctx: LoweringContext) -> Statement:
    """DROP, ALTER, TRUNCATE …: the table they name is their target; they write no values
    (what they change in the script's tables: scripts.py)."""
    table = None
    if isinstance(node, exp.TruncateTable) and node.expressions:
        table = node.expressions[0]
    elif isinstance(node, (exp.Drop, exp.Alter)) and str(node.args.get("kind") or "").upper() in _TABLE_KINDS:
        tables = node.args.get("tables") or [node.this]
        table = tables[0]
    target = None
    if isinstance(table, exp.Table) and isinstance(table.this, exp.Identifier):
        target = writes.resolve_target(table, ctx).name
    return Statement(ctx.statement, kind, None, writes.statement_origin(node, ctx), target, ())


def _sp_rename(node: exp.Execute, ctx: LoweringContext) -> Statement:
    """T-SQL's ``EXEC sp_rename``: an ALTER … RENAME, whose target is the renamed table."""
    changes = table_changes(node, ctx, None)
    target = named_target(changes.changes[0].table, None, ctx).name if changes is not None else None
    return Statement(ctx.statement, "alter", None, writes.statement_origin(node, ctx), target, ())
