"""Filter: control lineage from every field the predicate reads to the filtered relation —
never value lineage to its fields.  Declared row-access policies and quality checks are
filters too, with their own relationship kinds."""

from __future__ import annotations

from ...ir import Filter
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "filter"
_KIND = {"policy": Relationship.POLICY, "quality": Relationship.QUALITY}


def clause_relationship(clause: str) -> Relationship:
    """The relationship a row-filtering clause gives (WHERE, HAVING, QUALIFY: control)."""
    return _KIND.get(clause, Relationship.CONTROL)


@rule_for.register
def filter_rule(node: Filter, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    ctx.reads(node.predicate, node.id, clause_relationship(node.clause), Transformation.FILTER, RULE, node)
