"""Lowering ``JoinRel`` and ``CrossRel``, and the comma-join rule for a filter over a cross.

Join types: inner, outer (full), left, right, single (as left/right: at most one match, the
same dependencies), semi and anti (the IR keeps the left side; a right semi or anti join is
lowered with its sides swapped), mark.  A mark join keeps one side's rows and appends a
boolean saying whether a row of the other side matches: that is ``EXISTS`` of the other side
filtered by the join condition, the matching side's fields read as outer references — which
is how the engine explains the mark's SQL twin.  ``post_join_filter`` is a filter over the
join's output.

A ``FilterRel`` directly over a cross product (a ``CrossRel``, or a ``JoinRel`` without
expression) is what SQL's ``FROM a, b WHERE a.k = b.k`` becomes: as for that SQL (specs/
join.md), a conjunct relating two or more of the crossed inputs becomes the predicate of the
join that brings in the last of them; the other conjuncts stay a filter.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from ...ir import Call, Expr, FieldRef, Filter, Join, JoinKind, Relation, Subquery, SubqueryKind
from ...ir import types as T
from ...ir.expressions import iter_tree
from .context import Record
from .errors import InvalidPlanError

if TYPE_CHECKING:
    from .relations import RelationLowerer

# JoinRel.JoinType → (IR kind, sides swapped)
_KINDS = {
    1: (JoinKind.INNER, False),
    2: (JoinKind.FULL, False),
    3: (JoinKind.LEFT, False),
    4: (JoinKind.RIGHT, False),
    5: (JoinKind.SEMI, False),
    6: (JoinKind.ANTI, False),
    7: (JoinKind.LEFT, False),  # LEFT_SINGLE
    8: (JoinKind.SEMI, True),  # RIGHT_SEMI
    9: (JoinKind.ANTI, True),  # RIGHT_ANTI
    10: (JoinKind.RIGHT, False),  # RIGHT_SINGLE
}
_LEFT_MARK, _RIGHT_MARK = 11, 12


def join(lowerer: "RelationLowerer", node: Message, path: str, outer: tuple[Record, ...],
         expected: int | None) -> Relation:
    ctx = lowerer.ctx
    p = f"{path}.join"
    left = lowerer.input(node, p, outer, "left")
    right = lowerer.input(node, p, outer, "right")
    anchor = node.common.rel_anchor
    if node.type in (_LEFT_MARK, _RIGHT_MARK):
        relation = _mark_join(lowerer, node, path, outer, left, right)
    else:
        if node.type not in _KINDS:
            raise InvalidPlanError(f"{p}.type", f"unknown join type {node.type}")
        kind, swapped = _KINDS[node.type]
        condition = None
        if node.HasField("expression"):
            expressions = lowerer.expressions(path, left.fields + right.fields, anchor, outer)
            condition = expressions.lower(node.expression, f"{p}.expression")
        elif kind is JoinKind.INNER:
            # DataFusion writes a comma join as an inner join without expression.
            kind = JoinKind.CROSS
        first, second = (right, left) if swapped else (left, right)
        relation = Join(ctx.new_id("join", path), ctx.origin, kind, first, second, condition)
    if node.HasField("post_join_filter"):
        expressions = lowerer.expressions(path, relation.fields, anchor, outer)
        predicate = expressions.lower(node.post_join_filter, f"{p}.post_join_filter")
        relation = Filter(ctx.new_id("filter", path), ctx.origin, relation, predicate, "where")
    return relation


def cross(lowerer: "RelationLowerer", node: Message, path: str, outer: tuple[Record, ...],
          expected: int | None) -> Relation:
    p = f"{path}.cross"
    left = lowerer.input(node, p, outer, "left")
    right = lowerer.input(node, p, outer, "right")
    return Join(lowerer.ctx.new_id("join", path), lowerer.ctx.origin, JoinKind.CROSS, left, right, None)


def _mark_join(lowerer: "RelationLowerer", node: Message, path: str, outer: tuple[Record, ...],
               left: Relation, right: Relation) -> Relation:
    """``kept.*, EXISTS (SELECT … FROM probed WHERE condition) AS mark``."""
    ctx = lowerer.ctx
    p = f"{path}.join"
    left_mark = node.type == _LEFT_MARK
    kept, probed = (left, right) if left_mark else (right, left)
    record = left.fields + right.fields
    kept_positions = range(len(left.fields)) if left_mark else range(len(left.fields), len(record))
    expressions = lowerer.expressions(path, record, node.common.rel_anchor, outer)
    expressions.outer_positions = frozenset(kept_positions)
    relation: Relation = probed
    if node.HasField("expression"):
        condition = expressions.lower(node.expression, f"{p}.expression")
        # The subquery's own comma joins keep their predicates, as in the SQL twin.
        relation, remaining = place_join_predicates(lowerer, probed, condition, path)
        if remaining is not None:
            relation = Filter(ctx.new_id("filter", path), ctx.origin, relation, remaining, "where")
    mark = Subquery(ctx.new_id("subquery", path), ctx.origin, T.BOOLEAN, SubqueryKind.EXISTS, relation)
    refs: list[Expr] = [lowerer.ref(f, path) for f in kept.fields]
    return lowerer.project(kept, refs + [mark], [f.name for f in kept.fields] + ["mark"], path)


# --- FROM a, b WHERE a.k = b.k -------------------------------------------------------------


def place_join_predicates(lowerer: "RelationLowerer", relation: Relation, condition: Expr,
                          path: str) -> tuple[Relation, Expr | None]:
    """Move the conjuncts of ``condition`` that relate crossed inputs onto their join; return
    the (rebuilt) relation and what remains of the condition (``None``: nothing)."""
    joins: list[Join] = []
    node = relation
    while isinstance(node, Join) and node.kind not in (JoinKind.SEMI, JoinKind.ANTI):
        joins.append(node)
        node = node.left
    if not any(j.kind is JoinKind.CROSS for j in joins):
        return relation, condition
    joins.reverse()  # bottom first: joins[i] brings in item i + 1
    items = [node] + [j.right for j in joins]
    owner = {f.id: position for position, item in enumerate(items) for f in item.fields}
    placed: dict[str, list[Expr]] = {}
    remaining: list[Expr] = []
    for conjunct in _conjuncts(condition):
        positions = _owners(conjunct, owner)
        target = joins[max(positions) - 1] if positions is not None and len(positions) >= 2 else None
        if target is not None and target.kind is JoinKind.CROSS:
            placed.setdefault(target.id, []).append(conjunct)
        else:
            remaining.append(conjunct)
    if not placed:
        return relation, condition
    rebuilt: Relation | None = None
    for j in joins:
        changes: dict[str, object] = {}
        if rebuilt is not None:
            changes["left"] = rebuilt
        if j.id in placed:
            changes["kind"] = JoinKind.INNER
            changes["condition"] = _and_all(lowerer, placed[j.id], path)
        rebuilt = dataclasses.replace(j, **changes) if changes else j
    assert rebuilt is not None
    return rebuilt, (_and_all(lowerer, remaining, path) if remaining else None)


def _conjuncts(expr: Expr) -> list[Expr]:
    if isinstance(expr, Call) and expr.function == "and":
        return [part for arg in expr.args for part in _conjuncts(arg)]
    return [expr]


def _owners(conjunct: Expr, owner: dict[str, int]) -> set[int] | None:
    """The crossed inputs a conjunct reads, or ``None`` when it cannot move (a subquery, or a
    field of none of them)."""
    positions: set[int] = set()
    for node in iter_tree(conjunct):
        if isinstance(node, Subquery):
            return None
        if isinstance(node, FieldRef):
            position = owner.get(node.field)
            if position is None:
                return None
            positions.add(position)
    return positions


def _and_all(lowerer: "RelationLowerer", exprs: list[Expr], path: str) -> Expr:
    result = exprs[0]
    for expr in exprs[1:]:
        result = Call(lowerer.ctx.new_id("call", path), lowerer.ctx.origin, T.BOOLEAN, "and", (result, expr))
    return result

