"""Push filters into join inputs: a conjunct of a filter over a join that reads only one
side's fields moves below the join, onto that side — where the side keeps all its rows.

Which sides take a conjunct: both for inner and cross joins; the left for LEFT, semi and
anti joins; the right for RIGHT joins; neither for FULL joins.  A conjunct is never pushed
onto the null-producing side of an outer join: ``a LEFT JOIN b … WHERE b.x = 1`` drops the
rows without a match, ``a LEFT JOIN (b WHERE b.x = 1)`` keeps them.  Conjuncts that relate
both sides, read no field of the join, or are not deterministic stay where they are.

Lineage: the moved conjunct stays a **filter** (control lineage, or the policy/quality kind
of its clause), now on the side's rows; it is never folded into the join condition, which
would turn its control lineage into join lineage.  The rows it filters still flow into the
same output, so every answer is unchanged.

The moved filter keeps the authored filter's id when all of it moves to one side; a part of
it gets a new id and ``authored`` naming the authored filter.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Expr, Filter, Join, JoinKind, Relation, Transformed
from .context import RewriteContext
from .movable import is_deterministic
from .predicates import conjoin, conjuncts
from .provenance import authored_ids, standing_for
from .references import deep_reads

_LEFT, _RIGHT = "left", "right"
# The sides whose rows a join keeps whole (never null-extended), by join kind.
_PRESERVED = {
    JoinKind.INNER: (_LEFT, _RIGHT),
    JoinKind.CROSS: (_LEFT, _RIGHT),
    JoinKind.LEFT: (_LEFT,),
    JoinKind.RIGHT: (_RIGHT,),
    JoinKind.SEMI: (_LEFT,),
    JoinKind.ANTI: (_LEFT,),
}


def push_filters_into_joins(node: Relation, ctx: RewriteContext) -> Transformed[Relation]:
    if not (isinstance(node, Filter) and isinstance(node.input, Join)):
        return Transformed.no(node)
    pushed = _push(node, ctx)
    return Transformed.no(node) if pushed is None else Transformed.yes(pushed)


def _push(node: Filter, ctx: RewriteContext) -> Relation | None:
    join = node.input
    assert isinstance(join, Join)
    preserved = _PRESERVED.get(join.kind, ())
    left_fields = {f.id for f in join.left.fields}
    right_fields = {f.id for f in join.right.fields}
    parts: dict[str, list[Expr]] = {_LEFT: [], _RIGHT: []}
    stay: list[Expr] = []
    for conjunct in conjuncts(node.predicate):
        side = _side(conjunct, left_fields, right_fields, ctx)
        if side in preserved:
            parts[side].append(conjunct)
        else:
            stay.append(conjunct)
    if not parts[_LEFT] and not parts[_RIGHT]:
        return None
    whole = not stay and not (parts[_LEFT] and parts[_RIGHT])
    left = _filtered(join.left, parts[_LEFT], node, whole, ctx)
    right = _filtered(join.right, parts[_RIGHT], node, whole, ctx)
    moved = replace(join, left=left, right=right)
    if not stay:
        return moved
    return replace(node, input=moved, predicate=conjoin(stay, node.predicate, ctx))


def _side(conjunct: Expr, left: set[str], right: set[str], ctx: RewriteContext) -> str | None:
    reads = deep_reads([conjunct]) & (left | right)
    if not reads or not is_deterministic(conjunct, ctx.functions):
        return None
    if reads <= left:
        return _LEFT
    if reads <= right:
        return _RIGHT
    return None


def _filtered(side: Relation, parts: list[Expr], node: Filter, whole: bool, ctx: RewriteContext) -> Relation:
    if not parts:
        return side
    if whole:
        placed = replace(node, input=side)
    else:
        placed = Filter(ctx.derived_id(authored_ids(node)[0], "pushed"), node.origin, side,
                        conjoin(parts, node.predicate, ctx), node.clause, authored=standing_for([node]))
    if isinstance(side, Join):
        deeper = _push(placed, ctx)
        if deeper is not None:
            return deeper
    return placed
