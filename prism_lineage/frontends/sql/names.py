"""Table names as the engine resolves them: identifiers normalised by the dialect, T-SQL temp
tables keeping their ``#``, BigQuery partition decorators (``t$20240101``) naming the table."""

from __future__ import annotations

from sqlglot import exp


def table_parts(node: exp.Table, ctx, nodes: list | None = None) -> tuple[str, ...]:
    """``nodes``: ``node.parts`` if the caller has it (sqlglot builds a new list each time)."""
    if nodes is None:
        nodes = node.parts
    bigquery = type(ctx.dialect).__name__ == "BigQuery"
    if bigquery and node.args.get("db") is not None:
        # BigQuery's table names are case-sensitive (a qualified name is a table, as sqlglot's
        # BigQuery normaliser reads it); columns and CTE names are not.
        parts = [p.name if isinstance(p, exp.Identifier) else _part(p, ctx) for p in nodes]
    else:
        parts = [_part(p, ctx) for p in nodes]
    if parts and bigquery and "$" in parts[-1]:
        parts[-1] = parts[-1].partition("$")[0]  # a partition of the table is the table
    return tuple(parts)


def _part(node: exp.Expression, ctx) -> str:
    name = ctx.normalizer.part(node)
    # T-SQL temp tables: ``#t`` (sqlglot keeps the ``#`` as a flag of the identifier).
    if isinstance(node, exp.Identifier) and node.args.get("temporary") and not name.startswith("#"):
        name = "#" + name
    return name
