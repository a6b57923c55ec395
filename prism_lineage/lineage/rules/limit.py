"""Limit: the rows kept depend on the input's order; a row count computed from columns (rare)
gives control lineage."""

from __future__ import annotations

from ...ir import Limit
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
