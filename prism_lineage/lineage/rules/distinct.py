"""Distinct: duplicates collapse, values are unchanged.  ``DISTINCT ON (keys)`` keeps one row
per key: grouping lineage from the keys to the relation."""

from __future__ import annotations

from ...ir import Distinct
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "distinct"


@rule_for.register
def distinct_rule(node: Distinct, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    for expr in node.on:
        ctx.reads(expr, node.id, Relationship.GROUPING, Transformation.AGGREGATE, RULE, node)
