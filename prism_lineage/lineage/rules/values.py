"""Values: each column is computed from the expressions written in its position (literals
give no sources)."""

from __future__ import annotations

from ...ir import Values
from . import rule_for
from .context import RuleContext

RULE = "values"


@rule_for.register
def values_rule(node: Values, ctx: RuleContext) -> None:
    for row in node.rows:
        for expr, field in zip(row, node.columns):
            ctx.values(expr, field.id, RULE, node)
