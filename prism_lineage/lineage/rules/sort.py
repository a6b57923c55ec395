"""Sort: sort lineage from every field the ORDER BY keys read to the sorted relation.

The keys are read as they are (transformation identity); the relationship kind carries the
meaning.  Sort lineage attaches to the relation (the RFC leaves the choice open): ordering is
a property of the rows, not of any one field."""

from __future__ import annotations

from ...ir import Sort
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "sort"


@rule_for.register
def sort_rule(node: Sort, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    for key in node.keys:
        ctx.reads(key.expr, node.id, Relationship.SORT, Transformation.IDENTITY, RULE, node)
