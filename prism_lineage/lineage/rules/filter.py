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


@rule_for.register
def filter_rule(node: Filter, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    relationship = _KIND.get(node.clause, Relationship.CONTROL)
    ctx.reads(node.predicate, node.id, relationship, Transformation.FILTER, RULE, node)
