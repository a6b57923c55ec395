"""Set operations merge by position.

UNION and INTERSECT: value lineage (identity) from the field in the same position of every
input (an INTERSECT row's values are in both).  EXCEPT: values come from the left input; the
right input only removes rows — control lineage from its fields to the result.  Without ALL,
duplicates collapse: grouping lineage from every output column to the result, as with SELECT
DISTINCT."""

from __future__ import annotations

from ...ir import SetKind, SetOperation
from ..kinds import Confidence, Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "set_operation"


@rule_for.register
def set_operation_rule(node: SetOperation, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    value_inputs = (node.left,) if node.kind is SetKind.EXCEPT else (node.left, node.right)
    for position, field in enumerate(node.columns):
        for relation in value_inputs:
            ctx.edge(relation.fields[position].id, field.id, Relationship.VALUE, Transformation.IDENTITY,
                     Confidence.EXACT, None, RULE, node)
    if node.kind is SetKind.EXCEPT:
        for source in node.right.fields:
            ctx.edge(source.id, node.id, Relationship.CONTROL, Transformation.FILTER, Confidence.EXACT,
                     None, RULE, node)
    if not node.all:
        # Without ALL, duplicates collapse: the rows depend on every column compared, as with
        # SELECT DISTINCT (grouping lineage from each output column).
        for field in node.columns:
            ctx.edge(field.id, node.id, Relationship.GROUPING, Transformation.AGGREGATE, Confidence.EXACT,
                     None, RULE, node)
