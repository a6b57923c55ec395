"""Project: each output field has value lineage from every input its expression reads
(identity for a bare column, the expression's kind otherwise)."""

from __future__ import annotations

from ...ir import Project
from . import rule_for
from .context import RuleContext

RULE = "project"


@rule_for.register
def project_rule(node: Project, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    for expr, field in zip(node.exprs, node.columns):
        ctx.values(expr, field.id, RULE, node)
