"""Set operations merge by position.

UNION and INTERSECT: value lineage (identity) from the field in the same position of every
input (an INTERSECT row's values are in both).  EXCEPT: values come from the left input; the
right input only removes rows — control lineage from its fields to the result.  Without ALL,
duplicates collapse: grouping lineage from every output column to the result, as with SELECT
DISTINCT.

The output is named after the left input.  Where an input has a field standing for columns
nobody declared (``SELECT *`` over a table without a schema), positions are known only up to
it (and from the end after it): between, a left position is paired with one of the right
fields there, which one is not known (``ir.position_matches``).  Those value edges are
conservative (unknown from a star) and carry ``UNKNOWN_PART``: a name read through the output
(``x`` of ``SELECT * FROM a UNION ALL SELECT * FROM b``) names the left input's column —
the output's names are its — never the right input's (``b.*`` stays unknown, said)."""

from __future__ import annotations

from ...ir import SetKind, SetOperation, position_matches, stands_for_columns
from ..paths import UNKNOWN_PART
from ..kinds import Confidence, Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "set_operation"


@rule_for.register
def set_operation_rule(node: SetOperation, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    left, right = node.left.fields, node.right.fields
    matches = position_matches(left, right) if node.kind is not SetKind.EXCEPT else ()
    for position, field in enumerate(node.columns):
        ctx.edge(left[position].id, field.id, Relationship.VALUE, Transformation.IDENTITY, Confidence.EXACT,
                 None, RULE, node)
        if not matches:
            continue
        positions, known = matches[position]
        for other in positions:
            source = right[other]
            if known:
                ctx.edge(source.id, field.id, Relationship.VALUE, Transformation.IDENTITY, Confidence.EXACT,
                         None, RULE, node)
                continue
            confidence = Confidence.UNKNOWN if stands_for_columns(source) else Confidence.CONSERVATIVE
            reason = (f"{node.kind.value.upper()} pairs its inputs' columns by position, and some of them are not "
                      "in the schema: which column of the other input is paired with this one is not known")
            ctx.edge(source.id, field.id, Relationship.VALUE, Transformation.IDENTITY, confidence, None, RULE,
                     node, reason, UNKNOWN_PART)
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
