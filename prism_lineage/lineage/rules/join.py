"""Join: join lineage from every key and predicate field to the joined relation; output
fields keep their value lineage from the side that produced them (they are forwarded).

The rows of both sides flow into the join.  The side an outer join pads with NULLs (the right
of a LEFT join, the left of a RIGHT join) flows in as ``matched``: what decided which of its
rows exist only decides which rows match, so ``a LEFT JOIN (SELECT … FROM b WHERE p) ON k``
explains like ``a LEFT JOIN b ON k AND p`` (join lineage from ``p``).  A FULL join keeps every
row of both sides, so a side's filter removes rows from it: control, as written.

A condition a rewrite moved into the join from a WHERE (or HAVING …) clause — the semi join
of a decorrelated ``EXISTS`` — keeps the meaning of that clause: control lineage, as the
filter it was authored as would give (specs/rewrites.md)."""

from __future__ import annotations

from ...ir import Join, JoinKind
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext
from .filter import clause_relationship

RULE = "join"
# Read once (an enum class attribute goes through ``EnumType.__getattr__``'s slot).
_LEFT, _RIGHT = JoinKind.LEFT, JoinKind.RIGHT
_JOIN, _JOIN_T = Relationship.JOIN, Transformation.JOIN


@rule_for.register
def join_rule(node: Join, ctx: RuleContext) -> None:
    padded = node.right if node.kind is _LEFT else node.left if node.kind is _RIGHT else None
    for side in (node.left, node.right):
        ctx.flow(side, node.id, "matched" if side is padded else "flow")
    if node.condition is None:
        return
    if node.condition_clause is None:
        ctx.reads(node.condition, node.id, _JOIN, _JOIN_T, RULE, node)
    else:
        ctx.reads(node.condition, node.id, clause_relationship(node.condition_clause), Transformation.FILTER,
                  RULE, node)
