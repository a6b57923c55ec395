"""Functions of the dataframe API (``import prism_lineage.frame.functions as F``).

Arguments follow the common dataframe convention: a function's *column* parameters take a
Column or a column name (``F.sum("amount")`` = ``F.sum(col("amount"))``), its *value*
parameters (a separator, an offset, a default …) take a Column or a Python value.  Function
names are the SQL frontend's, so ``F.sha2(x)`` is a mask and ``F.upper(x)`` an expression in
both.  ``F.call`` reaches any other function (opaque unless the registry describes it) and
``F.udf`` declares a user function with its lineage facts, which travel with the plan to
``explain``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..functions import FunctionInfo
from ..ir import Origin
from ..lineage.kinds import Confidence, Transformation
from .callsite import call_site
from .errors import FrameUsageError
from .expressions import (
    Agg,
    Column,
    ColumnName,
    ExprNode,
    FrameBoundSpec,
    Func,
    WindowFrameSpec,
    as_sort_key,
    col,
    flatten_arg,
    lit,
    to_node,
)

# ``col`` and ``lit`` are re-exported so ``F.col`` and ``F.lit`` work as in other dataframe
# libraries.

__all__ = [
    "abs", "any_value", "array_agg", "avg", "call", "ceil", "coalesce", "col", "concat", "count",
    "count_distinct", "cume_dist", "current_row", "dense_rank", "first_value", "floor", "following",
    "greatest", "groups_between", "if_", "lag", "last_value", "lead", "least", "length", "lit", "lower",
    "max", "md5", "mean", "median", "min", "nth_value", "ntile", "nullif", "percent_rank", "preceding",
    "range_between", "rank", "round", "row_number", "rows_between", "sha2", "stddev", "string_agg",
    "substring", "sum", "trim", "udf", "unbounded_following", "unbounded_preceding", "upper", "variance",
    "when",
]


def _column(value, origin: Origin | None) -> ExprNode:
    """A column parameter: a Column, a column name, or a Python value (a constant)."""
    if isinstance(value, str):
        if not value:
            raise FrameUsageError("a column name cannot be empty", origin=origin)
        return ColumnName(origin, value)
    return to_node(value, origin)


def _scalar(name: str, columns: Iterable, values: Iterable = ()) -> Column:
    origin = call_site()
    args = tuple(_column(c, origin) for c in columns) + tuple(to_node(v, origin) for v in values)
    return Column(Func(origin, name, args))


# --- aggregates -----------------------------------------------------------------------------


def _aggregate(name: str, column, *, distinct: bool = False, values: Iterable = (), order_by=None) -> Column:
    origin = call_site()
    args = (_column(column, origin),) + tuple(to_node(v, origin) for v in values)
    order = tuple(as_sort_key(k, origin) for k in flatten_arg(order_by))
    return Column(Agg(origin, name, args, distinct, None, order))


def sum(column, *, distinct: bool = False) -> Column:  # noqa: A001 - the function's name
    return _aggregate("sum", column, distinct=distinct)


def avg(column, *, distinct: bool = False) -> Column:
    return _aggregate("avg", column, distinct=distinct)


mean = avg


def min(column) -> Column:  # noqa: A001
    return _aggregate("min", column)


def max(column) -> Column:  # noqa: A001
    return _aggregate("max", column)


def count(column=None, *, distinct: bool = False) -> Column:
    """``F.count()`` counts rows (reads no column); ``F.count(x)`` counts non-null ``x``."""
    if column is None:
        if distinct:
            raise FrameUsageError("count(distinct=True) needs a column", origin=call_site())
        return Column(Agg(call_site(), "count", (), star=True))
    return _aggregate("count", column, distinct=distinct)


def count_distinct(column) -> Column:
    return _aggregate("count", column, distinct=True)


def any_value(column) -> Column:
    return _aggregate("any_value", column)


def median(column) -> Column:
    return _aggregate("median", column)


def stddev(column) -> Column:
    return _aggregate("stddev", column)


def variance(column) -> Column:
    return _aggregate("variance", column)


def array_agg(column, *, order_by=None, distinct: bool = False) -> Column:
    return _aggregate("array_agg", column, distinct=distinct, order_by=order_by)


def string_agg(column, separator: str = ",", *, order_by=None) -> Column:
    """SQL's ``STRING_AGG`` (sqlglot's ``group_concat``): the separator is a value."""
    return _aggregate("group_concat", column, values=(separator,), order_by=order_by)


# --- window functions ------------------------------------------------------------------------


def _window(name: str, columns: Iterable = (), values: Iterable = ()) -> Column:
    origin = call_site()
    args = tuple(_column(c, origin) for c in columns) + tuple(to_node(v, origin) for v in values)
    return Column(Func(origin, name, args, window_only=True))


def row_number() -> Column:
    return _window("row_number")


def rank() -> Column:
    return _window("rank")


def dense_rank() -> Column:
    return _window("dense_rank")


def percent_rank() -> Column:
    return _window("percent_rank")


def cume_dist() -> Column:
    return _window("cume_dist")


def ntile(buckets: int) -> Column:
    return _window("ntile", values=(buckets,))


def lag(column, offset: int | None = None, default=None) -> Column:
    """The value ``offset`` rows before (default 1), or ``default``."""
    return _window("lag", (column,), _offset_and_default(offset, default))


def lead(column, offset: int | None = None, default=None) -> Column:
    """The value ``offset`` rows after (default 1), or ``default``."""
    return _window("lead", (column,), _offset_and_default(offset, default))


def _offset_and_default(offset: int | None, default) -> tuple:
    """The arguments as SQL writes them: ``LAG(x)``, ``LAG(x, 2)``, ``LAG(x, 1, 0)``."""
    if offset is None and default is None:
        return ()
    values: tuple = (1 if offset is None else offset,)
    return values + ((default,) if default is not None else ())


def first_value(column) -> Column:
    return _window("first_value", (column,))


def last_value(column) -> Column:
    return _window("last_value", (column,))


def nth_value(column, n: int) -> Column:
    return _window("nth_value", (column,), (n,))


# --- window frames ---------------------------------------------------------------------------


def unbounded_preceding() -> FrameBoundSpec:
    return FrameBoundSpec("unbounded_preceding")


def unbounded_following() -> FrameBoundSpec:
    return FrameBoundSpec("unbounded_following")


def current_row() -> FrameBoundSpec:
    return FrameBoundSpec("current")


def preceding(offset: int) -> FrameBoundSpec:
    _check_offset(offset)
    return FrameBoundSpec("preceding", offset)


def following(offset: int) -> FrameBoundSpec:
    _check_offset(offset)
    return FrameBoundSpec("following", offset)


def rows_between(start=None, end=None) -> WindowFrameSpec:
    """``ROWS BETWEEN start AND end``.  Bounds are ``F.preceding(n)``, ``F.current_row()`` …
    or ints (``-2`` = 2 preceding, ``0`` = current row, ``3`` = 3 following); ``None`` is
    unbounded."""
    return _frame("rows", start, end)


def range_between(start=None, end=None) -> WindowFrameSpec:
    return _frame("range", start, end)


def groups_between(start=None, end=None) -> WindowFrameSpec:
    return _frame("groups", start, end)


def _frame(unit: str, start, end) -> WindowFrameSpec:
    return WindowFrameSpec(unit, _bound(start, "preceding"), _bound(end, "following"))


def _bound(value, side: str) -> FrameBoundSpec:
    if value is None:
        return FrameBoundSpec(f"unbounded_{side}")
    if isinstance(value, FrameBoundSpec):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise FrameUsageError(f"a frame bound is F.preceding(n), F.current_row() …, an int or None, not {value!r}",
                              origin=call_site())
    if value < 0:
        return FrameBoundSpec("preceding", -value)
    if value == 0:
        return FrameBoundSpec("current")
    return FrameBoundSpec("following", value)


def _check_offset(offset) -> None:
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise FrameUsageError(f"a frame offset is an int ≥ 0, not {offset!r}", origin=call_site())


# --- scalar functions ------------------------------------------------------------------------


def upper(column) -> Column:
    return _scalar("upper", (column,))


def lower(column) -> Column:
    return _scalar("lower", (column,))


def length(column) -> Column:
    return _scalar("length", (column,))


def trim(column) -> Column:
    return _scalar("trim", (column,))


def abs(column) -> Column:  # noqa: A001
    return _scalar("abs", (column,))


def round(column, decimals: int | None = None) -> Column:  # noqa: A001
    return _scalar("round", (column,), () if decimals is None else (decimals,))


def floor(column) -> Column:
    return _scalar("floor", (column,))


def ceil(column) -> Column:
    return _scalar("ceil", (column,))


def substring(column, start: int, length: int | None = None) -> Column:
    return _scalar("substring", (column,), (start,) if length is None else (start, length))


def coalesce(*columns) -> Column:
    return _scalar("coalesce", _at_least_one(columns, "coalesce"))


def concat(*columns) -> Column:
    return _scalar("concat", _at_least_one(columns, "concat"))


def greatest(*columns) -> Column:
    return _scalar("greatest", _at_least_one(columns, "greatest"))


def least(*columns) -> Column:
    return _scalar("least", _at_least_one(columns, "least"))


def nullif(column, value) -> Column:
    return _scalar("nullif", (column,), (value,))


def sha2(column, bits: int = 256) -> Column:
    """A hash of ``column``: lineage ``mask`` (the value derives from the input, hidden)."""
    return _scalar("sha2", (column,), (bits,))


def md5(column) -> Column:
    return _scalar("md5", (column,))


def if_(condition: Column, then, otherwise=None) -> Column:
    """``IF(condition, then, otherwise)``."""
    origin = call_site()
    if not isinstance(condition, Column):
        raise FrameUsageError("if_() takes a Column condition", origin=origin)
    args = (condition.node, to_node(then, origin)) + (() if otherwise is None else (to_node(otherwise, origin),))
    return Column(Func(origin, "if", args))


class When(Column):
    """``F.when(cond, value).when(…).otherwise(value)``: SQL's ``CASE WHEN … END``."""

    __slots__ = ()

    def when(self, condition: Column, value) -> "When":
        origin = call_site()
        node = self.node
        assert isinstance(node, Func)
        return When(Func(origin, "case", node.args + (_branch(condition, value, origin),)))

    def otherwise(self, value) -> Column:
        origin = call_site()
        node = self.node
        assert isinstance(node, Func)
        return Column(Func(origin, "case", node.args + (to_node(value, origin),)))


def when(condition: Column, value) -> When:
    """The first branch of a CASE expression (the engine lowers it as its SQL twin:
    ``case(if(cond, value), …, default)``)."""
    origin = call_site()
    return When(Func(origin, "case", (_branch(condition, value, origin),)))


def _branch(condition: Column, value, origin: Origin | None) -> Func:
    if not isinstance(condition, Column):
        raise FrameUsageError("when() takes a Column condition", origin=origin)
    return Func(origin, "if", (condition.node, to_node(value, origin)))


def _at_least_one(columns: tuple, name: str) -> tuple:
    items = columns[0] if len(columns) == 1 and isinstance(columns[0], (list, tuple)) else columns
    if not items:
        raise FrameUsageError(f"{name}() needs at least one argument", origin=call_site())
    return tuple(items)


# --- other functions -------------------------------------------------------------------------


def call(name: str, *args) -> Column:
    """Any other function by name.  The engine does not know what it does: its lineage is
    opaque (conservative, every argument assumed to flow into the result) unless the
    function registry describes it — declare it with ``F.udf`` to say what it does."""
    origin = call_site()
    if not isinstance(name, str) or not name:
        raise FrameUsageError(f"call() takes a function name, got {name!r}", origin=origin)
    return Column(Func(origin, name.lower(), tuple(_column(a, origin) for a in args), known=False))


class UserFunction:
    """A user function with declared lineage facts; calling it builds an expression.

    The facts travel with every plan that calls it: ``explain`` adds them to its function
    registry, so ``F.udf("mask_email", transformation="mask")`` makes its output ``mask``.
    """

    __slots__ = ("info",)

    def __init__(self, info: FunctionInfo):
        self.info = info

    def __repr__(self) -> str:
        return f"UserFunction({self.info.name}: {self.info.transformation.value}, {self.info.confidence.value})"

    def __call__(self, *args) -> Column:
        origin = call_site()
        nodes = tuple(_column(a, origin) for a in args)
        if self.info.kind == "aggregate":
            return Column(Agg(origin, self.info.name, nodes, info=self.info))
        return Column(Func(origin, self.info.name, nodes, known=False, info=self.info))


def udf(function: str | FunctionInfo, *, transformation: str | Transformation = Transformation.EXPRESSION,
        confidence: str | Confidence = Confidence.EXACT, value_args: Iterable[int] | None = None,
        kind: str = "scalar", deterministic: bool = True, doc: str | None = None) -> UserFunction:
    """Declare a user function: ``F.udf(FunctionInfo(...))`` or ``F.udf("name", transformation=
    "mask", value_args=[0])``.  ``kind`` is ``scalar`` or ``aggregate``."""
    origin = call_site()
    if isinstance(function, FunctionInfo):
        info = function
    elif isinstance(function, str) and function:
        try:
            info = FunctionInfo(
                function.lower(), Transformation(transformation), Confidence(confidence),
                tuple(value_args) if value_args is not None else None, kind, deterministic, doc,
            )
        except (ValueError, TypeError) as error:
            raise FrameUsageError(f"udf('{function}'): {error}", origin=origin) from None
    else:
        raise FrameUsageError(f"udf() takes a function name or a FunctionInfo, got {function!r}", origin=origin)
    if info.kind not in ("scalar", "aggregate"):
        raise FrameUsageError(f"udf('{info.name}'): kind must be 'scalar' or 'aggregate', not {info.kind!r}",
                              origin=origin)
    if info.name != info.name.lower():
        info = FunctionInfo(info.name.lower(), info.transformation, info.confidence, info.value_args, info.kind,
                            info.deterministic, info.doc)
    return UserFunction(info)
