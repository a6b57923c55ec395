"""Decorrelate ``EXISTS``/``IN`` subqueries: a WHERE conjunct ``EXISTS (…)``, ``x IN (…)``
or ``x <op> ANY (…)`` becomes a semi join of the filtered rows with the subquery's rows, and
``NOT EXISTS (…)`` an anti join.

* Uncorrelated: the subquery relation is the join's right side as it is; the condition
  compares the needle with its fields (none for ``EXISTS``).
* Correlated: only the shape ``SELECT … FROM r WHERE p`` whose correlated conjuncts (those
  reading the outer query's fields) sit in that WHERE and nowhere else.  They become the join
  condition (their outer references now plain references to the left side); the other
  conjuncts stay a filter on ``r``; ``IN``/``ANY`` compares the needle with the select-list
  expressions, which must then be transparent (rewrite/movable.py).

Not decorrelated: ``NOT IN`` and ``ALL`` (an anti join differs when the subquery yields
NULL), scalar subqueries, subqueries under ``OR`` or in a join condition or select list, and
correlated conjuncts that hold subqueries themselves.

Lineage: the authored predicate was a filter, so the semi join's condition keeps the filter's
meaning: the join gets ``condition_clause`` = the filter's clause and its condition gives
**control** lineage (filter), not join lineage (lineage/rules/join.py).  The fields it reads
are the ones the filter read (needle and subquery fields) and the ones the subquery's own
WHERE read; the subquery's rows flow into the join as they flowed into the filter.  So every
answer is unchanged.

The join gets a new id derived from the subquery expression's and lists in ``authored`` the
filter, the subquery expression, and the subquery operators it absorbed.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import (
    Call,
    Expr,
    FieldRef,
    Filter,
    Join,
    JoinKind,
    Project,
    Relation,
    Subquery,
    SubqueryKind,
    Transformed,
)
from ..ir.types import BOOLEAN
from .context import RewriteContext
from .movable import is_deterministic, is_transparent
from .predicates import conjoin, conjuncts
from .provenance import authored_ids, standing_for
from .references import as_field_refs, deep_reads, has_subquery, plan_reads

_COMPARISONS = frozenset({"eq", "neq", "gt", "gte", "lt", "lte"})


def decorrelate_subqueries(node: Relation, ctx: RewriteContext) -> Transformed[Relation]:
    if not isinstance(node, Filter):
        return Transformed.no(node)
    rows = node.input
    stay: list[Expr] = []
    for conjunct in conjuncts(node.predicate):
        joined = _semi_join(conjunct, rows, node, ctx)
        if joined is None:
            stay.append(conjunct)
        else:
            rows = joined
    if rows is node.input:
        return Transformed.no(node)
    if not stay:
        return Transformed.yes(rows)
    return Transformed.yes(replace(node, input=rows, predicate=conjoin(stay, node.predicate, ctx)))


def _semi_join(conjunct: Expr, rows: Relation, node: Filter, ctx: RewriteContext) -> Join | None:
    kind, sub = JoinKind.SEMI, conjunct
    if isinstance(conjunct, Call) and conjunct.function == "not" and len(conjunct.args) == 1:
        kind, sub = JoinKind.ANTI, conjunct.args[0]
    if not isinstance(sub, Subquery):
        return None
    if sub.negated:
        kind = JoinKind.ANTI if kind is JoinKind.SEMI else JoinKind.SEMI
    operator = _operator(sub, kind)
    if operator is None:
        return None
    needle = sub.needle
    if needle is not None and (has_subquery(needle) or not is_deterministic(needle, ctx.functions)):
        return None
    outer = {f.id for f in rows.fields}
    relation = sub.relation
    absorbed: list = [node, conjunct, sub] if conjunct is not sub else [node, sub]
    if not plan_reads(relation) & outer:
        right = relation
        parts = []
        if operator != "exists":
            compared = [_reference(f, sub, i, ctx) for i, f in enumerate(relation.fields)]
            parts = _comparisons(operator, needle, compared, sub, ctx)
            if parts is None:
                return None
    else:
        found = _correlated(relation, outer, operator, ctx)
        if found is None:
            return None
        right, correlated, selected, where = found
        absorbed += [relation, where]
        parts = [] if operator == "exists" else _comparisons(operator, needle, selected, sub, ctx)
        if parts is None:
            return None
        parts += correlated
    authored = standing_for(absorbed)
    condition = None
    if parts:
        condition = as_field_refs(_conjunction(parts, sub, authored, ctx), outer)
    return Join(ctx.derived_id(authored_ids(sub)[0], kind.value), sub.origin, kind, rows, right, condition,
                node.clause, authored=authored)


def _operator(sub: Subquery, kind: JoinKind) -> str | None:
    """``exists`` or the comparison the needle makes; ``None`` when this rewrite does not
    apply."""
    if sub.kind is SubqueryKind.EXISTS:
        return "exists"
    if kind is JoinKind.ANTI or sub.needle is None:
        return None  # NOT IN / NOT … ANY: a NULL in the subquery makes them differ from an anti join
    if sub.kind is SubqueryKind.IN:
        return "eq"
    if sub.kind is SubqueryKind.ANY and sub.operator in _COMPARISONS:
        return sub.operator
    return None


def _correlated(relation: Relation, outer: set[str], operator: str, ctx: RewriteContext):
    """For ``SELECT exprs FROM r WHERE p``: (the right side, the correlated conjuncts, the
    select-list expressions, the WHERE filter), or ``None`` for any other shape."""
    if not (isinstance(relation, Project) and isinstance(relation.input, Filter)):
        return None
    where = relation.input
    if where.clause != "where" or plan_reads(where.input) & outer:
        return None
    correlated: list[Expr] = []
    uncorrelated: list[Expr] = []
    for conjunct in conjuncts(where.predicate):
        if deep_reads([conjunct]) & outer:
            if has_subquery(conjunct) or not is_deterministic(conjunct, ctx.functions):
                return None
            correlated.append(conjunct)
        else:
            uncorrelated.append(conjunct)
    selected = list(relation.exprs)
    if operator != "exists" and not all(
        is_transparent(e, ctx.functions) and is_deterministic(e, ctx.functions) for e in selected
    ):
        return None
    right = where.input if not uncorrelated else replace(where, predicate=conjoin(uncorrelated, where.predicate, ctx))
    return right, correlated, selected, where


def _reference(field, sub: Subquery, position: int, ctx: RewriteContext) -> FieldRef:
    return FieldRef(ctx.derived_id(authored_ids(sub)[0], f"field{position}"), sub.origin, field.type, field.id,
                    authored=standing_for([sub]))


def _comparisons(operator: str, needle: Expr | None, compared: list[Expr], sub: Subquery,
                 ctx: RewriteContext) -> list[Expr] | None:
    """``needle <op> compared`` — element by element for a row ``(a, b) IN (SELECT x, y …)``."""
    assert needle is not None
    if isinstance(needle, Call) and needle.function == "tuple" and len(compared) > 1:
        if operator != "eq" or len(needle.args) != len(compared):
            return None
        pairs = list(zip(needle.args, compared))
    elif len(compared) == 1:
        pairs = [(needle, compared[0])]
    else:
        return None
    authored = standing_for([sub])
    return [
        Call(ctx.derived_id(authored_ids(sub)[0], operator), sub.origin, BOOLEAN, operator, (left, right),
             authored=authored)
        for left, right in pairs
    ]


def _conjunction(parts: list[Expr], sub: Subquery, authored: tuple[str, ...], ctx: RewriteContext) -> Expr:
    result = parts[0]
    for part in parts[1:]:
        result = Call(ctx.derived_id(authored_ids(sub)[0], "and"), sub.origin, BOOLEAN, "and", (result, part),
                      authored=authored)
    return result
