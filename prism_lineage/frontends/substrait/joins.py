"""Lowering joins — ``JoinRel``, ``CrossRel``, ``LateralJoinRel`` and the physical
``HashJoinRel``, ``MergeJoinRel`` and ``NestedLoopJoinRel`` — and the comma-join rule for a
filter over a cross.

Join types: inner, outer (full), left, right, single (as left/right: at most one match, the
same dependencies), semi and anti (the IR keeps the left side; a right semi or anti join is
lowered with its sides swapped), mark.  A mark join keeps one side's rows and appends a
boolean saying whether a row of the other side matches: that is ``EXISTS`` of the other side
filtered by the join condition, the matching side's fields read as outer references — which
is how the engine explains the mark's SQL twin.  ``post_join_filter`` is a filter over the
join's output.

A physical join is the logical join it implements: a hash or merge join's condition is its
key comparisons (each key a field of its own side: ``left`` of the left input, ``right`` of the
right input) and its ``residual_expression`` (over both sides), ANDed; a nested loop join's is
its expression.  How it is executed (which side is built, the inputs' order) is not lineage.
The physical relations number their join types differently from ``JoinRel``: types are read
by name.

A lateral join's right input is evaluated per row of the left one and reads that row through
outer references (to the lateral join's ``rel_anchor``): the right input is lowered with the
left input's record as its innermost enclosing record, as SQL's ``LATERAL`` subquery is.

A ``FilterRel`` directly over a cross product (a ``CrossRel``, or a ``JoinRel`` without
expression) is what SQL's ``FROM a, b WHERE a.k = b.k`` becomes: as for that SQL (specs/
join.md), a conjunct relating two or more of the crossed inputs becomes the predicate of the
join that brings in the last of them; the other conjuncts stay a filter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from ...ir import Call, Expr, FieldRef, Filter, Join, JoinKind, Relation, Subquery, SubqueryKind
from ...ir import types as T
from ...ir.expressions import iter_tree
from .context import Record
from .errors import InvalidPlanError

if TYPE_CHECKING:
    from .expressions import ExpressionLowerer
    from .relations import RelationLowerer

# Join type (its enum value's name) → (IR kind, sides swapped)
_KINDS = {
    "JOIN_TYPE_INNER": (JoinKind.INNER, False),
    "JOIN_TYPE_OUTER": (JoinKind.FULL, False),
    "JOIN_TYPE_LEFT": (JoinKind.LEFT, False),
    "JOIN_TYPE_RIGHT": (JoinKind.RIGHT, False),
    "JOIN_TYPE_LEFT_SEMI": (JoinKind.SEMI, False),
    "JOIN_TYPE_LEFT_ANTI": (JoinKind.ANTI, False),
    "JOIN_TYPE_LEFT_SINGLE": (JoinKind.LEFT, False),
    "JOIN_TYPE_RIGHT_SEMI": (JoinKind.SEMI, True),
    "JOIN_TYPE_RIGHT_ANTI": (JoinKind.ANTI, True),
    "JOIN_TYPE_RIGHT_SINGLE": (JoinKind.RIGHT, False),
}
# Mark join type → whether the left side is the one kept
_MARKS = {"JOIN_TYPE_LEFT_MARK": True, "JOIN_TYPE_RIGHT_MARK": False}
# A lateral join's right input exists only per left row: no right-oriented or outer type.
_LATERAL = frozenset({"JOIN_TYPE_INNER", "JOIN_TYPE_LEFT", "JOIN_TYPE_LEFT_SEMI", "JOIN_TYPE_LEFT_ANTI",
                      "JOIN_TYPE_LEFT_SINGLE", "JOIN_TYPE_LEFT_MARK"})
# ComparisonJoinKey.SimpleComparisonType → the comparison's name (as the SQL frontend and the
# standard extensions name it; ``might_equal`` is ``a = b OR (a = b) IS NULL``)
_COMPARISONS = {0: "eq", 1: "eq", 2: "is_not_distinct_from", 3: "might_equal"}


@dataclass(frozen=True, slots=True)
class _Sides:
    """A join being lowered: its message, where it is, its two inputs, and which side (if
    any) a mark join keeps — that side's fields are read as outer references."""

    lowerer: "RelationLowerer"
    node: Message
    path: str  # the ``Rel``'s path (ids and ingress origins)
    where: str  # the join message's path (errors)
    outer: tuple[Record, ...]
    left: Relation
    right: Relation
    kept: str | None = None  # "left" or "right" in a mark join

    def over(self, side: str) -> "ExpressionLowerer":
        """A lowerer of expressions over ``side``'s record: ``left``, ``right`` or ``both``
        (left then right, as a join's expressions see them)."""
        left, right = self.left.fields, self.right.fields
        record = {"left": left, "right": right, "both": left + right}[side]
        expressions = self.lowerer.expressions(self.path, record, self.node.common.rel_anchor, self.outer)
        if self.kept is not None and side in (self.kept, "both"):
            start = len(left) if side == "both" and self.kept == "right" else 0
            width = len(left) if self.kept == "left" else len(right)
            expressions.outer_positions = frozenset(range(start, start + width))
        return expressions


# Reads a join's condition (``None``: it has none).
ConditionReader = Callable[[_Sides], "Expr | None"]


def cross(lowerer: "RelationLowerer", node: Message, path: str, outer: tuple[Record, ...],
          expected: int | None) -> Relation:
    p = f"{path}.cross"
    left = lowerer.input(node, p, outer, "left")
    right = lowerer.input(node, p, outer, "right")
    return Join(lowerer.ctx.new_id("join", path), lowerer.ctx.origin, JoinKind.CROSS, left, right, None)


def _join(lowerer: "RelationLowerer", node: Message, path: str, oneof: str, outer: tuple[Record, ...],
          condition: ConditionReader, lateral: bool = False) -> Relation:
    ctx = lowerer.ctx
    p = f"{path}.{oneof}"
    type_name = _type_name(node)
    if lateral and type_name not in _LATERAL:
        raise InvalidPlanError(f"{p}.type", f"a lateral join is inner or left-oriented ({', '.join(sorted(_LATERAL))}), "
                                            f"not {type_name or node.type}")
    left = lowerer.input(node, p, outer, "left")
    # A lateral join's right input reads the current left row as an enclosing record.
    right_outer = (*outer, Record(left.fields, node.common.rel_anchor or None)) if lateral else outer
    right = lowerer.input(node, p, right_outer, "right")
    sides = _Sides(lowerer, node, path, p, outer, left, right)
    if type_name in _MARKS:
        relation = _mark_join(sides, _MARKS[type_name], condition)
    else:
        if type_name not in _KINDS:
            raise InvalidPlanError(f"{p}.type", f"unknown join type {node.type}")
        kind, swapped = _KINDS[type_name]
        predicate = condition(sides)
        if predicate is None and kind is JoinKind.INNER:
            # DataFusion writes a comma join as an inner join without expression.
            kind = JoinKind.CROSS
        first, second = (right, left) if swapped else (left, right)
        relation = Join(ctx.new_id("join", path), ctx.origin, kind, first, second, predicate)
    if "post_join_filter" in node.DESCRIPTOR.fields_by_name and node.HasField("post_join_filter"):
        expressions = lowerer.expressions(path, relation.fields, node.common.rel_anchor, outer)
        predicate = expressions.lower(node.post_join_filter, f"{p}.post_join_filter")
        relation = Filter(ctx.new_id("filter", path), ctx.origin, relation, predicate, "where")
    return relation


def _type_name(node: Message) -> str | None:
    """The name of a join's type (``JOIN_TYPE_LEFT_SEMI``), whichever enum numbers it."""
    value = node.DESCRIPTOR.fields_by_name["type"].enum_type.values_by_number.get(node.type)
    return value.name if value is not None else None


# --- conditions ------------------------------------------------------------------------------


def _expression(sides: _Sides) -> Expr | None:
    """A ``JoinRel``'s or ``NestedLoopJoinRel``'s ``expression``, over both sides."""
    if not sides.node.HasField("expression"):
        return None
    return sides.over("both").lower(sides.node.expression, f"{sides.where}.expression")


def _keys(sides: _Sides) -> Expr:
    """A hash or merge join's condition: every key comparison and the residual expression.
    Plans from older producers list the keys as two lists of equal fields (``left_keys``,
    ``right_keys``, deprecated)."""
    node, where = sides.node, sides.where
    left, right = sides.over("left"), sides.over("right")
    parts: list[Expr] = []
    for i, key in enumerate(node.keys):
        kp = f"{where}.keys[{i}]"
        for side in ("left", "right"):
            if not key.HasField(side):
                raise InvalidPlanError(kp, f"the key has no {side} field")
        pair = (left.selection(key.left, f"{kp}.left"), right.selection(key.right, f"{kp}.right"))
        parts.append(_comparison(sides, key.comparison, pair, f"{kp}.comparison"))
    old_left, old_right = getattr(node, "left_keys", ()), getattr(node, "right_keys", ())
    if len(old_left) != len(old_right):
        raise InvalidPlanError(where, f"left_keys lists {len(old_left)} field(s), right_keys {len(old_right)}: "
                                      "they pair up")
    for i, (left_key, right_key) in enumerate(zip(old_left, old_right)):
        pair = (left.selection(left_key, f"{where}.left_keys[{i}]"),
                right.selection(right_key, f"{where}.right_keys[{i}]"))
        parts.append(_call(sides, "eq", pair))
    if not parts:
        raise InvalidPlanError(f"{where}.keys", f"the {node.DESCRIPTOR.name} has no keys: it joins on at least one")
    if node.HasField("residual_expression"):
        parts.append(sides.over("both").lower(node.residual_expression, f"{where}.residual_expression"))
    return _and_all(sides.lowerer, parts, sides.path)


def _comparison(sides: _Sides, comparison: Message, pair: tuple[Expr, Expr], path: str) -> Expr:
    """How a key pair is compared: a simple comparison, or a function the plan declares (a
    collation's equality …).  An unset comparison is read as equality: which comparison it
    is does not change which fields the join reads."""
    if comparison.WhichOneof("inner_type") == "custom_function_reference":
        decl = sides.lowerer.ctx.extensions.function(comparison.custom_function_reference,
                                                     f"{path}.custom_function_reference")
        return _call(sides, decl.ir_name, pair, decl.standard)
    name = _COMPARISONS.get(comparison.simple)
    if name is None:
        raise InvalidPlanError(f"{path}.simple", f"unknown key comparison {comparison.simple}")
    return _call(sides, name, pair)


def _call(sides: _Sides, name: str, args: tuple[Expr, ...], known: bool = True) -> Call:
    ctx = sides.lowerer.ctx
    return Call(ctx.new_id("call", sides.path), ctx.origin, T.BOOLEAN, name, args, known)


def _handler(oneof: str, condition: ConditionReader, lateral: bool = False) -> Callable[..., Relation]:
    """The lowering of the join relation held in ``Rel.<oneof>``."""
    def lower(lowerer: "RelationLowerer", node: Message, path: str, outer: tuple[Record, ...],
              expected: int | None) -> Relation:
        return _join(lowerer, node, path, oneof, outer, condition, lateral)

    lower.__name__ = oneof
    return lower


join = _handler("join", _expression)
lateral_join = _handler("lateral_join", _expression, lateral=True)
hash_join = _handler("hash_join", _keys)
merge_join = _handler("merge_join", _keys)
# No expression: the cartesian product (Substrait's default is ``true``).
nested_loop_join = _handler("nested_loop_join", _expression)


def _mark_join(sides: _Sides, left_mark: bool, condition: ConditionReader) -> Relation:
    """``kept.*, EXISTS (SELECT … FROM probed WHERE condition) AS mark``."""
    lowerer = sides.lowerer
    ctx = lowerer.ctx
    kept, probed = (sides.left, sides.right) if left_mark else (sides.right, sides.left)
    relation: Relation = probed
    predicate = condition(dataclasses.replace(sides, kept="left" if left_mark else "right"))
    if predicate is not None:
        # The subquery's own comma joins keep their predicates, as in the SQL twin.
        relation, remaining = place_join_predicates(lowerer, probed, predicate, sides.path)
        if remaining is not None:
            relation = Filter(ctx.new_id("filter", sides.path), ctx.origin, relation, remaining, "where")
    mark = Subquery(ctx.new_id("subquery", sides.path), ctx.origin, T.BOOLEAN, SubqueryKind.EXISTS, relation)
    refs: list[Expr] = [lowerer.ref(f, sides.path) for f in kept.fields]
    return lowerer.project(kept, refs + [mark], [f.name for f in kept.fields] + ["mark"], sides.path)


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

