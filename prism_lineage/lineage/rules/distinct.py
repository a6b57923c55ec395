"""Distinct: duplicates collapse, values are unchanged.

Which rows remain depends on every column compared for duplicates, exactly as with GROUP BY
over those columns: ``SELECT DISTINCT a, b`` gives grouping lineage from ``a`` and ``b`` to
the relation, like ``GROUP BY a, b``.  ``DISTINCT ON (keys)`` keeps one row per key: grouping
lineage from the keys; the row kept is the first in the order of its input, so the keys of
that order (other than the DISTINCT ON keys themselves) decide which rows exist: control
lineage (transformation filter) from them."""

from __future__ import annotations

from ...ir import Distinct, ordered_by
from ..expression_inputs import read_fields
from ..kinds import Confidence, Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "distinct"


@rule_for.register
def distinct_rule(node: Distinct, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    if node.on:
        for expr in node.on:
            ctx.reads(expr, node.id, Relationship.GROUPING, Transformation.AGGREGATE, RULE, node)
        order = ordered_by(node.input)
        if order is None:
            return
        keys = {i.field for expr in node.on for i in read_fields(expr, ctx.functions)}
        for key in order.keys:
            if {i.field for i in read_fields(key.expr, ctx.functions)} <= keys:
                continue  # constant within a group: it picks no row
            ctx.reads(key.expr, node.id, Relationship.CONTROL, Transformation.FILTER, RULE, node)
        return
    for field in node.input.fields:
        ctx.edge(field.id, node.id, Relationship.GROUPING, Transformation.AGGREGATE, Confidence.EXACT,
                 None, RULE, node)
