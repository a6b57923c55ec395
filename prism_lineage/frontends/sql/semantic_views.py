"""Snowflake's ``SEMANTIC_VIEW(view FACTS … DIMENSIONS … METRICS …)`` in FROM.

The semantic view is a catalog object whose facts, dimensions and metrics are read by name:
they are its columns (its own definition is not in the SQL), so the item reads the view like a
table.  When an item is written as an expression (``DATE_TRUNC('month', time) AS month``), it
is lowered as ``(SELECT items FROM view)``: the expression is computed from the view's columns.
"""

from __future__ import annotations

from sqlglot import exp


def semantic_view_item(item: exp.Table) -> exp.Expression | None:
    """The view read as a table, or a query computing the items; ``None``: not a semantic view."""
    view = item.this
    if not isinstance(view, exp.SemanticView) or not isinstance(view.this, exp.Table):
        return None
    items = [e for key in ("facts", "dimensions", "metrics") for e in view.args.get(key) or []]
    if all(isinstance(e, exp.Column) for e in items):
        table = view.this.copy()
        if item.args.get("alias") is not None:
            table.set("alias", item.args["alias"].copy())
        return table
    return exp.select(*(e.copy() for e in items)).from_(view.this.copy())
