"""Scan: each field of a table read is its base column, as is (value, identity).

A table read without a schema still names the columns the query reads (exact); ``SELECT *``
over it stands for columns nobody declared (unknown).  A FROM item the engine does not
analyse gives unknown lineage, with the reason.  A column under a declared masking policy is
read through it: transformation ``mask``, and ``policy`` lineage from the other columns the
mask reads (a role column, a mapping table).
"""

from __future__ import annotations

from ...ir import Scan, column_id
from ..kinds import Confidence, Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "scan"


@rule_for.register
def scan_rule(node: Scan, ctx: RuleContext) -> None:
    masks = {m.column.lower(): m for m in node.masks}
    for field in node.columns:
        source = column_id(node.table, field.name)
        mask = masks.get(field.name.lower()) if masks else None
        if mask is not None:
            ctx.edge(source, field.id, Relationship.VALUE, Transformation.MASK, Confidence.EXACT, None, RULE, node)
            for table, column in mask.reads:
                ctx.edge(column_id(table, column), field.id, Relationship.POLICY, Transformation.MASK,
                         Confidence.EXACT, None, RULE, node)
        elif node.opaque_reason is not None:
            ctx.edge(source, field.id, Relationship.VALUE, Transformation.UNKNOWN, Confidence.UNKNOWN,
                     None, RULE, node, node.opaque_reason)
        elif field.name == "*":
            reason = f"the columns of {node.table} are not in the schema"
            ctx.edge(source, field.id, Relationship.VALUE, Transformation.IDENTITY, Confidence.UNKNOWN,
                     None, RULE, node, reason)
        else:
            ctx.edge(source, field.id, Relationship.VALUE, Transformation.IDENTITY, Confidence.EXACT,
                     None, RULE, node)
