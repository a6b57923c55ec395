"""Scan: each field of a table read is its base column, as is (value, identity).

A table read without a schema still names the columns the query reads (exact); ``SELECT *``
over it stands for columns nobody declared (unknown).  A FROM item the engine does not
analyse gives unknown lineage, with the reason.  A column under a declared masking policy is
read through it: transformation ``mask``, and ``policy`` lineage from the other columns the
mask reads (a role column, a mapping table).
"""

from __future__ import annotations

from ...ir import Scan, column_id
from ..edges import EdgeFields
from ..kinds import Confidence, Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "scan"


_VALUE = Relationship.VALUE
_IDENTITY = Transformation.IDENTITY
_EXACT = Confidence.EXACT
_fields = tuple.__new__


@rule_for.register
def scan_rule(node: Scan, ctx: RuleContext) -> None:
    if not node.masks and node.opaque_reason is None:
        # The loop below for a table read with no mask, not opaque (almost every one): each
        # column's edge built directly (``ctx.edge`` with ``column_id``, inlined), the star's
        # through the general call.
        table, node_id, origin = node.table, node.id, node.origin
        append = ctx.records.append
        for field in node.columns:
            if field.name == "*":
                ctx.edge(column_id(table, "*"), field.id, _VALUE, _IDENTITY, Confidence.UNKNOWN, None, RULE, node,
                         f"the columns of {table} are not in the schema")
            else:
                append(_fields(EdgeFields, (f"column:{table}.{field.name}", field.id, _VALUE, _IDENTITY, _EXACT,
                                            None, RULE, node_id, origin, None, None)))
        return
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
