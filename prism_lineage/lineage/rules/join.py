"""Join: join lineage from every key and predicate field to the joined relation; output
fields keep their value lineage from the side that produced them (they are forwarded)."""

from __future__ import annotations

from ...ir import Join
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "join"


@rule_for.register
def join_rule(node: Join, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    if node.condition is not None:
        ctx.reads(node.condition, node.id, Relationship.JOIN, Transformation.JOIN, RULE, node)
