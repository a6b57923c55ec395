"""Join: join lineage from every key and predicate field to the joined relation; output
fields keep their value lineage from the side that produced them (they are forwarded).

A condition a rewrite moved into the join from a WHERE (or HAVING …) clause — the semi join
of a decorrelated ``EXISTS`` — keeps the meaning of that clause: control lineage, as the
filter it was authored as would give (specs/rewrites.md)."""

from __future__ import annotations

from ...ir import Join
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext
from .filter import clause_relationship

RULE = "join"


@rule_for.register
def join_rule(node: Join, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    if node.condition is None:
        return
    if node.condition_clause is None:
        ctx.reads(node.condition, node.id, Relationship.JOIN, Transformation.JOIN, RULE, node)
    else:
        ctx.reads(node.condition, node.id, clause_relationship(node.condition_clause), Transformation.FILTER,
                  RULE, node)
