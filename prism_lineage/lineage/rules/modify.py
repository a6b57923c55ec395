"""Modify (UPDATE, DELETE, MERGE): each written column has value lineage from the expressions
its clauses write into it, and control lineage from the conditions that decide whether a
clause applies: its own ``AND`` condition and those of the earlier clauses of the same kind
(clauses are tried in order, so a later one is only reached when the earlier ones fail).

The matched rows flow in from the input (the target joined with the sources: ON and
UPDATE … FROM join conditions give join lineage; WHERE gives control lineage).  A DELETE
clause's conditions decide which target rows remain: control lineage to the whole relation.

Which rows the statement changes, removes or adds (the answer's ``rows``, ``Modify.rows_id``)
depends on the matched rows and on every clause's condition: ``WHEN MATCHED AND c`` decides
which target rows change as an UPDATE's WHERE does, ``WHEN NOT MATCHED AND c`` which rows are
added.  Those conditions reach the written columns only through the clauses they guard.
"""

from __future__ import annotations

from ...ir import Expr, Matched, Modify, WriteAction
from ..kinds import Relationship, Transformation
from . import rule_for
from .context import RuleContext

RULE = "modify"


@rule_for.register
def modify_rule(node: Modify, ctx: RuleContext) -> None:
    ctx.flow_inputs(node)
    ctx.flow(node, node.rows_id)
    earlier: dict[Matched, list[Expr]] = {}
    for clause in node.clauses:
        if clause.condition is not None:
            ctx.reads(clause.condition, node.rows_id, Relationship.CONTROL, Transformation.FILTER, RULE, node)
        conditions = list(earlier.get(clause.matched, ()))
        if clause.condition is not None:
            conditions.append(clause.condition)
        if clause.action is WriteAction.DELETE:
            for condition in conditions:
                ctx.reads(condition, node.id, Relationship.CONTROL, Transformation.FILTER, RULE, node)
        for position, expr in clause.assignments:
            target = node.columns[position].id
            ctx.values(expr, target, RULE, node)
            for condition in conditions:
                ctx.reads(condition, target, Relationship.CONTROL, Transformation.FILTER, RULE, node)
        if clause.condition is not None:
            earlier.setdefault(clause.matched, []).append(clause.condition)
