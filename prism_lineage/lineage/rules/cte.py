"""Common table expressions.

A reference to a CTE has value lineage (identity) from the definition's fields by position;
the definition is one relation however often it is read.  A recursive CTE merges its anchor
and recursive term by position, and its self-reference reads the CTE's own fields — a cycle
in the lineage graph, which the end-to-end explanation resolves to a fixed point."""

from __future__ import annotations

from ...ir import CteRef, RecursiveCte, RecursiveRef
from ..kinds import Confidence, Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "cte"


@rule_for.register
def cte_ref_rule(node: CteRef, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    for source, field in zip(node.definition.fields, node.columns):
        ctx.edge(source.id, field.id, Relationship.VALUE, Transformation.IDENTITY, Confidence.EXACT,
                 None, RULE, node)


@rule_for.register
def recursive_cte_rule(node: RecursiveCte, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    for relation in (node.anchor, node.recursive):
        for source, field in zip(relation.fields, node.columns):
            ctx.edge(source.id, field.id, Relationship.VALUE, Transformation.IDENTITY, Confidence.EXACT,
                     None, RULE, node)


@rule_for.register
def recursive_ref_rule(node: RecursiveRef, ctx: RuleContext) -> None:
    ctx.flow(node.cte, node.id)
    for source, field in zip(node.cte_fields, node.columns):
        ctx.edge(source, field.id, Relationship.VALUE, Transformation.IDENTITY, Confidence.EXACT,
                 None, RULE, node)
