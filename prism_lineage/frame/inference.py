"""Types of resolved dataframe expressions, as far as the schema tells them.

The same small rules the SQL frontend applies (``ir/types.py``): comparisons are boolean,
arithmetic takes the wider numeric type, a cast its target, ``count`` is BIGINT, ``sum`` and
``min``/``max`` keep their argument's type; anything else is unknown (``None``).
"""

from __future__ import annotations

from ..ir import types as T
from .expressions import Access, Agg, Aliased, ExprNode, Func, InputRef, KeyRef, Lit, Over

_BOOLEAN = frozenset({"eq", "neq", "lt", "lte", "gt", "gte", "and", "or", "not", "is", "in", "between", "like"})
_ARITHMETIC = frozenset({"add", "sub", "mul", "div", "mod"})
_STRINGS = frozenset({"upper", "lower", "trim", "concat", "substring", "initcap", "dpipe"})
_FIRST_ARGUMENT = frozenset({"coalesce", "abs", "round", "floor", "ceil", "greatest", "least", "neg", "nullif"})
_RANKING = frozenset({"row_number", "rank", "dense_rank", "ntile"})
_FRACTIONS = frozenset({"percent_rank", "cume_dist"})
_COUNTS = frozenset({"count", "count_if", "approx_distinct", "approx_count_distinct"})
_AVERAGES = frozenset({"avg", "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop"})
_SAME_AS_INPUT = frozenset({"sum", "min", "max", "any_value", "first", "last", "first_value", "last_value",
                            "lag", "lead", "nth_value"})


def type_of(node: ExprNode) -> T.DataType:
    match node:
        case InputRef(field=field) | KeyRef(field=field):
            return field.type
        case Lit(type=type_):
            return type_
        case Aliased(expr=expr):
            return type_of(expr)
        case Func(name="cast", type=type_):
            return type_
        case Func(name=name, args=args):
            return _function_type(name, args)
        case Agg(name=name, args=args):
            return _aggregate_type(name, args)
        case Over(function=function):
            return type_of(function)
        case Access(type=type_):
            return type_
    return None


def _function_type(name: str, args: tuple[ExprNode, ...]) -> T.DataType:
    if name in _BOOLEAN:
        return T.BOOLEAN
    if name in _ARITHMETIC and len(args) == 2:
        return T.wider_numeric(type_of(args[0]), type_of(args[1]))
    if name in _STRINGS:
        return T.VARCHAR
    if name == "length":
        return "INT"
    if name in _RANKING:
        return T.BIGINT
    if name in _FRACTIONS:
        return T.DOUBLE
    if name in _FIRST_ARGUMENT | _SAME_AS_INPUT and args:
        return type_of(args[0])
    return None


def _aggregate_type(name: str, args: tuple[ExprNode, ...]) -> T.DataType:
    if name in _COUNTS:
        return T.BIGINT
    if name in _AVERAGES:
        return T.DOUBLE
    if name in _SAME_AS_INPUT and args:
        return type_of(args[0])
    return None
