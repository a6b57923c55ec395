"""Aggregate: grouping lineage from group keys to the result relation; key fields keep value
lineage from their expressions; measures have value lineage (aggregate) from their inputs,
control lineage from their FILTER clause and sort lineage from their ORDER BY."""

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
            ctx.reads(key.expr, field.id, Relationship.SORT, Transformation.IDENTITY, RULE, node)
