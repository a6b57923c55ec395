"""Aggregate: grouping lineage from group keys to the result relation; key fields keep value
lineage from their expressions; measures have value lineage (aggregate) from their inputs,
control lineage from their FILTER clause and sort lineage from their ORDER BY — also when a
LIMIT keeps only the first values in that order (``ARRAY_AGG(x ORDER BY y LIMIT 5)``): the
order is what the field shows (its elements' order) and, with the limit, which elements it
keeps; the field is one value per row, so no row is selected (specs/aggregate.md)."""

from __future__ import annotations

from ...ir import Aggregate
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "aggregate"


@rule_for.register
def aggregate_rule(node: Aggregate, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    fields = node.columns
    for key, field in zip(node.keys, fields):
        ctx.reads(key, node.id, Relationship.GROUPING, Transformation.AGGREGATE, RULE, node)
        ctx.values(key, field.id, RULE, node)
    for measure, field in zip(node.measures, fields[len(node.keys):]):
        ctx.values(measure, field.id, RULE, node)
        if measure.filter is not None:
            ctx.reads(measure.filter, field.id, Relationship.CONTROL, Transformation.FILTER, RULE, node)
        for key in measure.order_by:
            ctx.orders(key.expr, field.id, RULE, node)
        if measure.limit is not None:
            ctx.reads(measure.limit, field.id, Relationship.CONTROL, Transformation.FILTER, RULE, node)
