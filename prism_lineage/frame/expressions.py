"""The expression builder of the dataframe API: ``col``, ``lit`` and the ``Column`` they return.

A ``Column`` wraps an immutable expression node (``ExprNode``) written at the user's call
site.  Nodes are *unresolved* when built (``col("amount")`` names a column of whatever frame
it is used in) and *resolved* by the frame method that receives them: names become
``InputRef`` positions into that frame's input (``frame/resolve.py``), so a bad name fails
at the call that used it.  Lowering turns resolved nodes into IR expressions
(``frame/lowering.py``).

Operators and function names follow the SQL frontend's (``eq``, ``add``, ``coalesce`` …,
sqlglot's names), so a dataframe expression and its SQL twin classify the same way in the
function registry.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Iterable
from dataclasses import dataclass

from ..functions import FunctionInfo
from ..ir import Origin
from ..ir import types as T
from .callsite import call_site
from .errors import FrameUsageError

# --- the columns of a frame ------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class FrameField:
    """A column of a frame, as users name it.

    Identity is the object: operators that pass rows through (filter, join, sort …) forward
    the same ``FrameField``; operators that compute columns (select, agg …) make new ones.
    ``qualifiers`` are the names ``col("q.name")`` may qualify it with (the table's name, a
    frame's ``.alias()``).
    """

    name: str
    type: T.DataType = None
    qualifiers: frozenset[str] = frozenset()
    origin: Origin | None = None

    def label(self) -> str:
        qualifier = min(self.qualifiers, key=lambda q: (len(q), q)) if self.qualifiers else None
        return f"{qualifier}.{self.name}" if qualifier else self.name


# --- expression nodes -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class ExprNode:
    origin: Origin | None


@dataclass(frozen=True, slots=True, eq=False)
class ColumnName(ExprNode):
    """``col("name")`` or ``col("qualifier.name")``: resolved against the frame it is used in."""

    name: str


@dataclass(frozen=True, slots=True, eq=False)
class BoundColumn(ExprNode):
    """``df["name"]``: that column of that frame, wherever its rows flow."""

    field: FrameField
    owner: str


@dataclass(frozen=True, slots=True, eq=False)
class InputRef(ExprNode):
    """A resolved column: position ``position`` of the operator's input."""

    position: int
    field: FrameField


@dataclass(frozen=True, slots=True, eq=False)
class KeyRef(ExprNode):
    """A group key read again in an ``agg`` expression: the key's output field."""

    index: int
    field: FrameField


@dataclass(frozen=True, slots=True, eq=False)
class Lit(ExprNode):
    """A constant; ``value`` is its SQL text (``None`` for NULL), as the SQL frontend keeps it."""

    value: str | None
    type: T.DataType


@dataclass(frozen=True, slots=True, eq=False)
class Func(ExprNode):
    """A scalar function or operator.  ``known``: a built-in (exact expression); an unknown
    one is opaque unless ``info`` (a user function's lineage facts) or the registry says
    otherwise.  ``window_only``: a ranking or offset function, valid only with ``.over()``."""

    name: str
    args: tuple[ExprNode, ...]
    known: bool = True
    info: FunctionInfo | None = None
    type: T.DataType = None  # the target type of a cast
    window_only: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class SortSpec(ExprNode):
    """A sort key: ``col("a").desc()``."""

    expr: ExprNode
    descending: bool = False
    nulls_first: bool | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Agg(ExprNode):
    """An aggregate function (valid in ``agg`` and as a window function)."""

    name: str
    args: tuple[ExprNode, ...]
    distinct: bool = False
    filter: ExprNode | None = None
    order_by: tuple[SortSpec, ...] = ()
    star: bool = False  # count(): counts rows, reads no column
    info: FunctionInfo | None = None


@dataclass(frozen=True, slots=True)
class FrameBoundSpec:
    """One end of a window frame; ``kind`` as the IR spells it (``unbounded_preceding``,
    ``current``, ``preceding``, ``following``, ``unbounded_following``)."""

    kind: str
    offset: int | None = None


@dataclass(frozen=True, slots=True)
class WindowFrameSpec:
    unit: str  # rows, range, groups
    start: FrameBoundSpec
    end: FrameBoundSpec | None


@dataclass(frozen=True, slots=True, eq=False)
class Over(ExprNode):
    """``function.over(partition_by=…, order_by=…, frame=…)``."""

    function: ExprNode  # Func (ranking/offset/any scalar) or Agg
    partition_by: tuple[ExprNode, ...] = ()
    order_by: tuple[SortSpec, ...] = ()
    frame: WindowFrameSpec | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Aliased(ExprNode):
    """``expr.alias("name")``: names the output column the expression computes."""

    expr: ExprNode
    name: str


@dataclass(frozen=True, slots=True, eq=False)
class Access(ExprNode):
    """A path into a nested value: struct fields, array elements, map values (``kind="struct"``)
    or a JSON document (``kind="json"``).  ``path`` is the field names / positions written.

    Resolution fills in what the base's declared type says (``frame/nested.py``): the IR
    ``steps``, whether the value is semi-structured (JSON …), whether the path is ``exact``
    (and the ``reason`` when not) and its ``type``."""

    base: ExprNode
    path: tuple[str | int, ...]
    kind: str
    steps: tuple[str, ...] = ()
    semi_structured: bool = False
    exact: bool = False
    reason: str | None = None
    type: T.DataType = None


def unaliased(node: ExprNode) -> ExprNode:
    """The expression an ``.alias()`` names (the node itself when it has no alias)."""
    return node.expr if isinstance(node, Aliased) else node


def node_children(node: ExprNode) -> tuple[ExprNode, ...]:
    match node:
        case Func(args=args):
            return args
        case Agg(args=args, filter=filter_, order_by=order_by):
            return args + ((filter_,) if filter_ is not None else ()) + order_by
        case Over(function=function, partition_by=partition_by, order_by=order_by):
            return (function,) + partition_by + order_by
        case SortSpec(expr=expr) | Aliased(expr=expr):
            return (expr,)
        case Access(base=base):
            return (base,)
    return ()


def iter_nodes(node: ExprNode):
    """Every node under ``node`` (itself included), parents first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(node_children(current)))


# --- the user-facing Column ----------------------------------------------------------------


class Column:
    """An expression of the dataframe API.  Build with ``col``, ``lit`` and ``functions``;
    combine with Python operators (``==``, ``+``, ``&``, ``|``, ``~`` …)."""

    __slots__ = ("node",)

    def __init__(self, node: ExprNode):
        self.node = node

    def __repr__(self) -> str:
        return f"Column({describe(self.node)})"

    # Python truthiness would silently drop a condition (``a == 1 and b == 2``).
    def __bool__(self) -> bool:
        raise FrameUsageError(
            "a Column has no truth value: combine conditions with & and | (not and/or), and use "
            "columns in frame methods, not in Python if statements", origin=call_site(),
        )

    def __iter__(self):
        raise FrameUsageError("a Column is not iterable: it is an expression, not a list of values",
                              origin=call_site())

    __hash__ = None  # type: ignore[assignment]  # == builds an expression, so no hashing

    # --- comparison and boolean ------------------------------------------------------------

    def __eq__(self, other):  # type: ignore[override]
        return _binary("eq", self, other)

    def __ne__(self, other):  # type: ignore[override]
        return _binary("neq", self, other)

    def __lt__(self, other):
        return _binary("lt", self, other)

    def __le__(self, other):
        return _binary("lte", self, other)

    def __gt__(self, other):
        return _binary("gt", self, other)

    def __ge__(self, other):
        return _binary("gte", self, other)

    def __and__(self, other):
        return _binary("and", self, other)

    def __rand__(self, other):
        return _binary("and", other, self)

    def __or__(self, other):
        return _binary("or", self, other)

    def __ror__(self, other):
        return _binary("or", other, self)

    def __invert__(self):
        origin = call_site()
        return Column(Func(origin, "not", (self.node,)))

    # --- arithmetic ------------------------------------------------------------------------

    def __add__(self, other):
        return _binary("add", self, other)

    def __radd__(self, other):
        return _binary("add", other, self)

    def __sub__(self, other):
        return _binary("sub", self, other)

    def __rsub__(self, other):
        return _binary("sub", other, self)

    def __mul__(self, other):
        return _binary("mul", self, other)

    def __rmul__(self, other):
        return _binary("mul", other, self)

    def __truediv__(self, other):
        return _binary("div", self, other)

    def __rtruediv__(self, other):
        return _binary("div", other, self)

    def __mod__(self, other):
        return _binary("mod", self, other)

    def __rmod__(self, other):
        return _binary("mod", other, self)

    def __neg__(self):
        return Column(Func(call_site(), "neg", (self.node,)))

    # --- naming, casting, predicates -------------------------------------------------------

    def alias(self, name: str) -> "Column":
        origin = call_site()
        _check_name(name, "alias", origin)
        return Column(Aliased(origin, self.node, name))

    def cast(self, type_: str) -> "Column":
        origin = call_site()
        if not isinstance(type_, str) or not type_.strip():
            raise FrameUsageError(f"cast() takes a type name such as 'bigint', got {type_!r}", origin=origin)
        return Column(Func(origin, "cast", (self.node,), type=" ".join(type_.split()).upper()))

    def is_null(self) -> "Column":
        origin = call_site()
        return Column(Func(origin, "is", (self.node, Lit(origin, None, None))))

    def is_not_null(self) -> "Column":
        origin = call_site()
        return Column(Func(origin, "not", (Func(origin, "is", (self.node, Lit(origin, None, None))),)))

    def isin(self, *values) -> "Column":
        origin = call_site()
        items = flatten_items(values)
        if not items:
            raise FrameUsageError("isin() needs at least one value", origin=origin)
        return Column(Func(origin, "in", (self.node, *(to_node(v, origin) for v in items))))

    def between(self, low, high) -> "Column":
        origin = call_site()
        return Column(Func(origin, "between", (self.node, to_node(low, origin), to_node(high, origin))))

    def like(self, pattern) -> "Column":
        origin = call_site()
        return Column(Func(origin, "like", (self.node, to_node(pattern, origin))))

    # --- sort keys -------------------------------------------------------------------------

    def asc(self, *, nulls_first: bool | None = None) -> "Column":
        return Column(SortSpec(call_site(), _unsorted(self.node), False, nulls_first))

    def desc(self, *, nulls_first: bool | None = None) -> "Column":
        return Column(SortSpec(call_site(), _unsorted(self.node), True, nulls_first))

    # --- aggregates and windows ------------------------------------------------------------

    def filter(self, condition: "Column") -> "Column":
        """``F.sum(x).filter(cond)``: the aggregate reads only the rows where ``cond`` holds
        (SQL's ``FILTER (WHERE cond)``)."""
        origin = call_site()
        node = self.node
        if not isinstance(node, Agg):
            raise FrameUsageError(f"filter() applies to an aggregate function, not to {describe(node)}",
                                  origin=origin)
        if not isinstance(condition, Column):
            raise FrameUsageError("filter() takes a Column condition", origin=origin)
        return Column(Agg(origin, node.name, node.args, node.distinct, condition.node, node.order_by, node.star,
                          node.info))

    def over(self, partition_by=None, order_by=None, *, frame: WindowFrameSpec | None = None) -> "Column":
        """A window function: ``F.row_number().over(partition_by=[…], order_by=[…])``,
        ``F.sum(x).over(partition_by=…, frame=F.rows_between(F.preceding(2), F.current_row()))``."""
        origin = call_site()
        node = self.node
        if not (isinstance(node, Agg) or isinstance(node, Func) and node.window_only):
            raise FrameUsageError(
                f"over() applies to an aggregate or window function, not to {describe(node)}", origin=origin
            )
        if frame is not None and not isinstance(frame, WindowFrameSpec):
            raise FrameUsageError("frame= takes F.rows_between(…), F.range_between(…) or F.groups_between(…)",
                                  origin=origin)
        partition = tuple(as_column(p, origin, "partition_by") for p in flatten_arg(partition_by))
        order = tuple(as_sort_key(o, origin) for o in flatten_arg(order_by))
        return Column(Over(origin, node, partition, order, frame))

    # --- nested and semi-structured values -------------------------------------------------

    def field(self, name: str) -> "Column":
        """A field of a struct column (``nested_access``)."""
        origin = call_site()
        _check_name(name, "field", origin)
        return Column(_extend_access(self.node, name, "struct", origin))

    def __getitem__(self, key: str | int) -> "Column":
        """``c["name"]``: a struct field; ``c[0]``: an array element (``nested_access``)."""
        origin = call_site()
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise FrameUsageError(f"a column is indexed by a field name or an array position, not {key!r}",
                                  origin=origin)
        return Column(_extend_access(self.node, key, "struct", origin))

    def json(self, path: str) -> "Column":
        """A value inside a JSON document: ``col("payload").json("$.customer.id")``
        (``semi_structured_access``)."""
        origin = call_site()
        steps = parse_json_path(path, origin)
        node = self.node
        if isinstance(node, Access) and node.kind == "json":
            return Column(Access(origin, node.base, node.path + steps, "json"))
        return Column(Access(origin, node, steps, "json"))


# --- building helpers ----------------------------------------------------------------------


def col(name: str) -> Column:
    """A column of the frame the expression is used in; ``"q.name"`` qualifies it with a
    table name or a frame's ``.alias()``."""
    origin = call_site()
    _check_name(name, "col", origin)
    return Column(ColumnName(origin, name))


def lit(value) -> Column:
    """A constant: ``None``, a bool, int, float, Decimal, str, date or datetime."""
    origin = call_site()
    if isinstance(value, Column):
        raise FrameUsageError("lit() takes a Python value, not a Column", origin=origin)
    return Column(to_node(value, origin))


def to_node(value, origin: Origin | None) -> ExprNode:
    """A Column's node, or a Python value as a literal."""
    if isinstance(value, Column):
        return value.node
    if value is None:
        return Lit(origin, None, None)
    if isinstance(value, bool):
        return Lit(origin, "TRUE" if value else "FALSE", T.BOOLEAN)
    if isinstance(value, int):
        return Lit(origin, str(value), "INT")
    if isinstance(value, (float, decimal.Decimal)):
        return Lit(origin, str(value), "DECIMAL")
    if isinstance(value, str):
        return Lit(origin, value, T.VARCHAR)
    if isinstance(value, datetime.datetime):
        return Lit(origin, value.isoformat(sep=" "), "TIMESTAMP")
    if isinstance(value, datetime.date):
        return Lit(origin, value.isoformat(), "DATE")
    raise FrameUsageError(
        f"cannot use a {type(value).__name__} value in an expression: use a Column, or None, a bool, int, "
        "float, Decimal, str, date or datetime", origin=origin,
    )


def as_column(value, origin: Origin | None, where: str) -> ExprNode:
    """An argument that names a column: a string is a column name, a Column is itself."""
    if isinstance(value, Column):
        return value.node
    if isinstance(value, str):
        _check_name(value, where, origin)
        return ColumnName(origin, value)
    raise FrameUsageError(f"{where} takes column names or Columns, got {type(value).__name__} {value!r}",
                          origin=origin)


def as_sort_key(value, origin: Origin | None) -> SortSpec:
    node = as_column(value, origin, "order_by")
    if isinstance(node, SortSpec):
        return node
    return SortSpec(node.origin, node)


def _binary(name: str, left, right) -> Column:
    origin = call_site()
    return Column(Func(origin, name, (to_node(left, origin), to_node(right, origin))))


def _unsorted(node: ExprNode) -> ExprNode:
    return node.expr if isinstance(node, SortSpec) else node


def _extend_access(node: ExprNode, step: str | int, kind: str, origin: Origin | None) -> Access:
    """``c["a"]["b"]`` is one access with path ``("a", "b")``, written where the last step is;
    a step after a JSON path continues the JSON path."""
    if isinstance(node, Access) and node.kind in (kind, "json"):
        return Access(origin, node.base, node.path + (step,), node.kind)
    return Access(origin, node, (step,), kind)


def parse_json_path(path: str, origin: Origin | None) -> tuple[str | int, ...]:
    """``$.a.b[0]`` / ``a.b[0]`` → ``("a", "b", 0)``."""
    if not isinstance(path, str) or not path.strip():
        raise FrameUsageError(f"json() takes a path such as '$.customer.id', got {path!r}", origin=origin)
    text = path.strip()
    if text.startswith("$"):
        text = text[1:]
    steps: list[str | int] = []
    for part in text.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("[") and part.endswith("]"):
            inner = part[1:-1].strip("'\"")
            steps.append(int(inner) if inner.isdigit() else inner)
        elif "[" in part or "]" in part:
            raise FrameUsageError(f"cannot read the JSON path {path!r}", origin=origin)
        else:
            steps.append(part)
    if not steps:
        raise FrameUsageError(f"the JSON path {path!r} names no field", origin=origin)
    return tuple(steps)


def _check_name(name, where: str, origin: Origin | None) -> None:
    if not isinstance(name, str) or not name:
        raise FrameUsageError(f"{where}() takes a non-empty name, got {name!r}", origin=origin)


def flatten_items(values: Iterable) -> list:
    """``f(a, b)`` and ``f([a, b])`` both mean the items ``a, b``."""
    if len(values) == 1 and isinstance(values[0], (list, tuple)):  # type: ignore[arg-type]
        return list(values[0])  # type: ignore[index]
    return list(values)


def flatten_arg(value) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


# --- how expressions are named and shown ----------------------------------------------------

_INFIX = {
    "eq": "=", "neq": "<>", "lt": "<", "lte": "<=", "gt": ">", "gte": ">=", "and": "AND", "or": "OR",
    "add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "like": "LIKE",
}


def output_name(node: ExprNode) -> str:
    """The name of the column an expression computes when it is not aliased: a column keeps
    its name, anything else is named by its text (as SQL engines name unaliased columns)."""
    match node:
        case Aliased(name=name):
            return name
        case ColumnName(name=name):
            return name.rpartition(".")[2] if "." in name else name
        case BoundColumn(field=field) | InputRef(field=field) | KeyRef(field=field):
            return field.name
        case Access(path=path) if isinstance(path[-1], str):
            return path[-1]  # like SQL's ``SELECT s.qty`` (named qty)
    return describe(node)


def describe(node: ExprNode) -> str:
    """SQL-like text of an expression, for names and messages."""
    match node:
        case ColumnName(name=name):
            return name
        case BoundColumn(field=field) | InputRef(field=field) | KeyRef(field=field):
            return field.name
        case Lit(value=None):
            return "NULL"
        case Lit(value=value, type=T.VARCHAR):
            return "'" + str(value).replace("'", "''") + "'"
        case Lit(value=value):
            return str(value)
        case Func(name="not", args=(arg,)):
            return f"NOT {describe(arg)}"
        case Func(name="neg", args=(arg,)):
            return f"-{describe(arg)}"
        case Func(name="is", args=(arg, _)):
            return f"{describe(arg)} IS NULL"
        case Func(name="cast", args=(arg,), type=type_):
            return f"CAST({describe(arg)} AS {type_})"
        case Func(name=name, args=(left, right)) if name in _INFIX:
            return f"{describe(left)} {_INFIX[name]} {describe(right)}"
        case Func(name=name, args=args):
            return f"{name}({', '.join(describe(a) for a in args)})"
        case Agg(star=True, name=name):
            return f"{name}(*)"
        case Agg(name=name, args=args, distinct=distinct):
            return f"{name}({'DISTINCT ' if distinct else ''}{', '.join(describe(a) for a in args)})"
        case Over(function=function):
            return f"{describe(function)} OVER (…)"
        case Aliased(name=name):
            return name
        case SortSpec(expr=expr, descending=descending):
            return f"{describe(expr)}{' DESC' if descending else ''}"
        case Access(base=base, path=path, kind=kind):
            steps = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)
            return f"{describe(base)}{steps}" if kind == "struct" else f"{describe(base)}->'${steps}'"
    return type(node).__name__
