"""Sort: a sort edge from every field the ``ORDER BY`` keys read, to the sort relation — only
for a sort whose order the statement's result shows (``Statement.ordering``).  Order is a
property of the rows, not of one field, so sort lineage attaches to the relation.  Each edge
has the key's own transformation (``ORDER BY SUM(amount)``: aggregate).

The order of rows nobody sees has no lineage: an ORDER BY inside a derived table orders rows
that are read as a set.  Where an order decides *which* rows exist — a ``Limit`` or a
``DISTINCT ON`` over ordered rows — those operators' rules give control lineage from its keys
(specs/sort-limit-distinct.md)."""

from __future__ import annotations

from ...ir import Sort
from . import rule_for
from .context import RuleContext

RULE = "sort"


@rule_for.register
def sort_rule(node: Sort, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    if node.id not in ctx.ordering:
        return
    for key in node.keys:
        ctx.orders(key.expr, node.id, RULE, node)
