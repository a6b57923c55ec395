"""Limit: which rows survive a ``LIMIT``/``OFFSET`` (``TOP``, ``FETCH FIRST``, Substrait's
top-N and Fetch) depends on the order of its input: control lineage (transformation filter)
from every field the keys of that order read — the input's ``Sort``, seen through operators
that keep row order (``ir.ordering``).  Over unordered rows, which rows survive is arbitrary:
no column decides it.  A count or offset computed from columns (rare) gives control lineage
too.  ClickHouse's ``LIMIT n BY keys`` keeps the first rows of each group of keys: control from
the keys as well (specs/sort-limit-distinct.md)."""

from __future__ import annotations

from ...ir import Limit, Literal, ordered_by
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "limit"


@rule_for.register
def limit_rule(node: Limit, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    for expr in (node.count, node.offset):
        if expr is not None:
            ctx.reads(expr, node.id, Relationship.CONTROL, Transformation.FILTER, RULE, node)
    if not selects_rows(node):
        return
    # ``LIMIT n BY keys`` (ClickHouse): the first n rows of each group — which group a row is in
    # decides whether it survives, as PARTITION BY does for ``ROW_NUMBER() OVER (…) <= n``.
    for expr in node.by:
        ctx.reads(expr, node.id, Relationship.CONTROL, Transformation.FILTER, RULE, node)
    order = ordered_by(node.input)
    if order is not None:
        for key in order.keys:
            ctx.reads(key.expr, node.id, Relationship.CONTROL, Transformation.FILTER, RULE, node)


def selects_rows(node: Limit) -> bool:
    """Whether the limit can drop rows (``LIMIT ALL`` without an offset keeps every row)."""
    if node.offset is not None:
        return True
    count = node.count
    return count is not None and not (isinstance(count, Literal) and str(count.value).upper() == "ALL")
