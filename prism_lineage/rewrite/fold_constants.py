"""Fold constants: a call over literals only becomes the literal it computes, and a
predicate's conjuncts that fold to TRUE go (a filter left with none goes too).

Only operations every SQL dialect evaluates alike are folded: integer and decimal ``+ - *``
and negation, numeric comparisons, and three-valued ``AND``/``OR``/``NOT``.  Division (integer
or not, by dialect), string comparison (collations), casts and anything non-deterministic
stay as written; so does an integer result outside 64 bits (the database would raise).

Lineage: a literal has no sources, and neither had the call over literals, so value lineage
is unchanged.  Dropping a TRUE conjunct drops nothing read.  A conjunct that reads a field
is never dropped, even beside a FALSE one: ``a > 0 AND 1 = 0`` keeps its control lineage
from ``a`` (folding the whole predicate to FALSE would lose it).

The folded literal keeps the id and origin of the call it stands for.
"""

from __future__ import annotations

import operator
from dataclasses import replace
from decimal import Decimal, InvalidOperation

from ..ir import Call, Expr, Filter, Join, Literal, Relation, Transformed
from ..ir.types import BOOLEAN
from .context import RewriteContext
from .predicates import conjoin, conjuncts

_INT64 = (-(2**63), 2**63 - 1)
_ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}
_COMPARISON = {
    "eq": operator.eq, "neq": operator.ne, "gt": operator.gt, "gte": operator.ge, "lt": operator.lt,
    "lte": operator.le,
}
_NULL = object()  # SQL NULL among folded values


def fold_constants_expr(node: Expr, ctx: RewriteContext) -> Transformed[Expr]:
    if not isinstance(node, Call) or not node.args or not all(isinstance(a, Literal) for a in node.args):
        return Transformed.no(node)
    folded = _fold(node.function, node.args)
    if folded is None:
        return Transformed.no(node)
    type_, value = folded
    return Transformed.yes(Literal(node.id, node.origin, type_ or node.type, value, authored=node.authored))


def fold_constants(node: Relation, ctx: RewriteContext) -> Transformed[Relation]:
    """Drop the TRUE conjuncts of filter predicates and join conditions (after
    ``fold_constants_expr`` has folded them)."""
    if isinstance(node, Filter):
        kept = _without_true(node.predicate)
        if kept is None:
            return Transformed.no(node)
        if not kept:
            return Transformed.yes(node.input)
        return Transformed.yes(replace(node, predicate=conjoin(kept, node.predicate, ctx)))
    if isinstance(node, Join) and node.condition is not None:
        kept = _without_true(node.condition)
        if kept is None:
            return Transformed.no(node)
        condition = conjoin(kept, node.condition, ctx) if kept else None
        clause = node.condition_clause if condition is not None else None
        return Transformed.yes(replace(node, condition=condition, condition_clause=clause))
    return Transformed.no(node)


def _without_true(predicate: Expr) -> list[Expr] | None:
    """The conjuncts that are not the literal TRUE, or ``None`` when there is none to drop."""
    parts = conjuncts(predicate)
    kept = [p for p in parts if not _is_true(p)]
    return None if len(kept) == len(parts) else kept


def _is_true(expr: Expr) -> bool:
    return isinstance(expr, Literal) and expr.type == BOOLEAN and expr.value == "TRUE"


# --- evaluation ----------------------------------------------------------------------------


def _fold(function: str, args: tuple[Literal, ...]) -> tuple[str | None, str | None] | None:
    """(type, SQL text or None for NULL) of the folded call, or ``None`` if not folded."""
    values = [_value(a) for a in args]
    if any(v is None for v in values):
        return None  # a literal of a kind not folded (a string, a date …)
    if function in _ARITHMETIC and len(values) >= 2 and _numeric_or_null(values):
        # A run ``1 + 2 + 3`` is one call: the operator applied left to right.
        if _NULL in values:
            return None, None
        result = values[0]
        for value in values[1:]:
            result = _ARITHMETIC[function](result, value)
        return _number(result, all(isinstance(v, int) for v in values))
    if function == "neg" and len(values) == 1 and _numeric_or_null(values):
        if values[0] is _NULL:
            return None, None
        return _number(-values[0], isinstance(values[0], int))
    if function in _COMPARISON and len(values) == 2 and _numeric_or_null(values):
        if _NULL in values:
            return BOOLEAN, None
        return _boolean(_COMPARISON[function](values[0], values[1]))
    if function in ("and", "or", "not") and all(v is _NULL or isinstance(v, bool) for v in values):
        return _logic(function, values)
    return None


def _value(literal: Literal):
    """A Python value for a literal: bool, int, Decimal or ``_NULL``; ``None`` if not folded."""
    if literal.value is None:
        return _NULL
    if literal.type == BOOLEAN:
        return literal.value.upper() == "TRUE"
    if literal.type == "INT":
        try:
            return int(literal.value)
        except ValueError:
            return None
    if literal.type == "DECIMAL":
        try:
            return Decimal(literal.value)
        except InvalidOperation:
            return None
    return None


def _numeric_or_null(values: list) -> bool:
    return all(v is _NULL or (isinstance(v, (int, Decimal)) and not isinstance(v, bool)) for v in values)


def _number(result: int | Decimal, integral: bool) -> tuple[str, str] | None:
    if integral:
        if not _INT64[0] <= result <= _INT64[1]:
            return None
        return "INT", str(int(result))
    return "DECIMAL", format(Decimal(result), "f")


def _boolean(value: bool | None) -> tuple[str, str | None]:
    return BOOLEAN, None if value is None else ("TRUE" if value else "FALSE")


def _logic(function: str, values: list) -> tuple[str, str | None] | None:
    if function == "not":
        if len(values) != 1:
            return None
        return _boolean(None if values[0] is _NULL else not values[0])
    if len(values) < 2:
        return None
    known = [None if v is _NULL else v for v in values]  # a run ``a AND b AND c`` is one call
    if function == "and":
        if False in known:
            return _boolean(False)
        return _boolean(None if None in known else True)
    if True in known:
        return _boolean(True)
    return _boolean(None if None in known else False)
