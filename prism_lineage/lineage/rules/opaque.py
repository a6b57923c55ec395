"""Opaque: a relation the engine cannot see into.  Every field of every input may flow into
every output field — value lineage with transformation ``opaque`` and confidence ``unknown``,
carrying the reason — and the inputs' rows flow into it (their relation-level dependencies
apply to it, as for any operator)."""

from __future__ import annotations

from ...ir.opaque import Opaque
from ..kinds import Confidence, Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "opaque"


@rule_for.register
def opaque_rule(node: Opaque, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    for field in node.columns:
        for relation in node.sources:
            for source in relation.fields:
                ctx.edge(source.id, field.id, Relationship.VALUE, Transformation.OPAQUE, Confidence.UNKNOWN,
                         None, RULE, node, node.reason)
