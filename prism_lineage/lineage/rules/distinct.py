"""Distinct: duplicates collapse, values are unchanged.

Which rows remain depends on every column compared for duplicates, exactly as with GROUP BY
over those columns: ``SELECT DISTINCT a, b`` gives grouping lineage from ``a`` and ``b`` to
the relation, like ``GROUP BY a, b``.  ``DISTINCT ON (keys)`` keeps one row per key: grouping
lineage from the keys only (the ORDER BY that picks the row is sort lineage)."""

from __future__ import annotations

from ...ir import Distinct
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
        return
    for field in node.input.fields:
        ctx.edge(field.id, node.id, Relationship.GROUPING, Transformation.AGGREGATE, Confidence.EXACT,
                 None, RULE, node)
