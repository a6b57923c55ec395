"""Scalar expressions of the Prism IR.

Every expression node is a semantic target: it has a stable ``id``, a ``type`` where known and
the authored ``origin`` that wrote it.  Column references point at field *targets* by id, so an
expression means the same thing wherever the plan is rewritten to; identity of a node is its id,
never structural equality (``eq=False``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from .origin import Origin
from .quick import quick_init
from .types import DataType

if TYPE_CHECKING:
    from .relations import Relation


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Expr:
    id: str
    origin: Origin | None
    type: DataType
    # The authored targets a rewritten expression stands for (see ``Relation.authored``).
    authored: tuple[str, ...] = field(default=(), kw_only=True)


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class FieldRef(Expr):
    """A field of the enclosing operator's input(s)."""

    field: str


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class OuterRef(Expr):
    """A correlated reference: a field of an enclosing query's input, read from a subquery."""

    field: str


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class CandidateRef(Expr):
    """An unqualified column that may belong to any of several schema-less inputs.

    The engine cannot tell which one the database will pick, so lineage from it is
    conservative: every candidate is reported.
    """

    fields: tuple[str, ...]
    reason: str


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Literal(Expr):
    """A constant.  ``value`` is its SQL text (``None`` for NULL)."""

    value: str | None


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Call(Expr):
    """A scalar function or operator.

    ``function`` is a lower-case name (``add``, ``eq``, ``upper``, ``case``, ``cast``, …);
    operators use the name of the operation, functions the name the user wrote.  A run of
    one binary operator is one call of all its operands, applied left to right (``a - b - c``
    is ``sub(a, b, c)``; specs/parsing.md): chains of thousands of terms stay shallow.  ``known``
    says whether the frontend recognised the function as a built-in of its language; an
    unrecognised one is opaque unless the function registry describes it.
    """

    function: str
    args: tuple[Expr, ...]
    known: bool = True
    # The parameter name of each argument, when the frontend knows it (the SQL frontend gives
    # sqlglot's names for the built-ins it models: ``this``, ``unit`` …); empty otherwise, and
    # then arguments are in written order.  The function registry names arguments either way.
    params: tuple[str, ...] = ()
    # Why nothing is known of what the call computes from (a function the script defines whose
    # body cannot be read: it may read tables): its arguments flow in with confidence unknown,
    # whatever the function registry says of the name.  ``None``: the registry decides.
    opaque_reason: str | None = None


@quick_init
@dataclass(frozen=True, slots=True)
class SortKey:
    expr: Expr
    descending: bool = False
    nulls_first: bool | None = None


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class AggregateCall(Expr):
    """An aggregate function; appears only as a measure of an ``Aggregate`` or in a window."""

    function: str
    args: tuple[Expr, ...]
    distinct: bool = False
    filter: Expr | None = None
    order_by: tuple[SortKey, ...] = ()
    star: bool = False  # COUNT(*): counts rows, reads no column
    # ``ARRAY_AGG(x ORDER BY y LIMIT 5)``: how many values, in ``order_by``'s order, are kept.
    limit: Expr | None = None


# ``MAX_BY(x, y [, n])`` and its spellings (``ARG_MAX``, ClickHouse ``argMax``; sqlglot names
# ``ArgMax``/``ArgMin`` ``arg_max``/``arg_min``): x at y's largest (True) or smallest (False)
# value.  y orders the group's values and picks the one (or n) kept — the role of an ordered
# aggregate's ORDER BY with a LIMIT (specs/aggregate.md rule 4: sort, never value).
SELECTED_BY: dict[str, bool] = {
    "arg_max": True, "max_by": True, "argmax": True, "arg_max_null": True,
    "arg_min": False, "min_by": False, "argmin": False, "arg_min_null": False,
}


def selected_by(name: str, args: tuple[Expr, ...] | list[Expr]) -> tuple[tuple[Expr, ...], tuple[SortKey, ...],
                                                                         Expr | None] | None:
    """``(args, order_by, limit)`` an aggregate written ``max_by(x, y [, n])`` stands for —
    ``FIRST(x ORDER BY y DESC)`` / ``ARRAY_AGG(x ORDER BY y DESC LIMIT n)`` — or None for any
    other call.  Every frontend lowers through it, so the rules see one form."""
    descending = SELECTED_BY.get(name)
    if descending is None or not 2 <= len(args) <= 3:
        return None
    return (args[0],), (SortKey(args[1], descending),), args[2] if len(args) == 3 else None


class FrameUnit(StrEnum):
    ROWS = "rows"
    RANGE = "range"
    GROUPS = "groups"


@quick_init
@dataclass(frozen=True, slots=True)
class FrameBound:
    """``UNBOUNDED PRECEDING``, ``CURRENT ROW``, ``<offset> FOLLOWING`` …"""

    kind: str  # "unbounded", "current", "preceding", "following"
    offset: Expr | None = None


@quick_init
@dataclass(frozen=True, slots=True)
class WindowFrame:
    unit: FrameUnit
    start: FrameBound
    end: FrameBound | None = None


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class WindowCall(Expr):
    """A window function: ``function`` is an ``AggregateCall`` or a ranking/offset ``Call``."""

    function: Expr
    partition_by: tuple[Expr, ...] = ()
    order_by: tuple[SortKey, ...] = ()
    frame: WindowFrame | None = None


class SubqueryKind(StrEnum):
    SCALAR = "scalar"
    EXISTS = "exists"
    IN = "in"
    ANY = "any"
    ALL = "all"


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Subquery(Expr):
    """A subquery used as an expression.

    ``kind`` says how it is used: a scalar value, ``EXISTS``, ``needle IN (…)`` or a quantified
    comparison ``needle <op> ANY|ALL (…)``.  ``negated`` marks ``NOT EXISTS`` / ``NOT IN``.
    """

    kind: SubqueryKind
    relation: "Relation"
    needle: Expr | None = None
    operator: str | None = None
    negated: bool = False

    def __new__(cls, *args, **kwargs):
        # Counted however it is made (``__init__``, ``dataclasses.replace``, a copy, a pickle):
        # a plan built while ``subqueries_made()`` did not change holds no subquery
        # (``governance/sync_read``: nothing to look for in its expressions).
        _MADE[0] += 1
        return object.__new__(cls)


_MADE = [0]


def subqueries_made() -> int:
    """How many ``Subquery`` nodes this process has made so far (only ever grows)."""
    return _MADE[0]


class AccessKind(StrEnum):
    NESTED = "nested"  # struct field, array element, map value of a typed value
    SEMI_STRUCTURED = "semi_structured"  # a path into JSON / VARIANT data
    COLUMN = "column"  # a column named through a star that stands for unknown columns (``.name``)


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class NestedAccess(Expr):
    """Reading part of a structured value: ``base`` then the ``steps`` of a path.

    Steps are rendered path syntax (specs/nested.md): ``.name`` a struct field or object key,
    ``[0]`` an array element by constant (0-based) position, ``[]`` an element chosen at run
    time, ``['k']`` a map value by constant key.  ``exact`` says whether the accessed schema is
    typed and declares the path; ``reason`` says why not.  ``dynamic`` holds index or key
    expressions computed at run time (they decide which part is read, so they are inputs too).
    """

    base: Expr
    steps: tuple[str, ...]
    kind: AccessKind = AccessKind.NESTED
    exact: bool = True
    reason: str | None = None
    dynamic: tuple[Expr, ...] = ()


def children(expr: Expr) -> tuple[Expr, ...]:
    """The scalar sub-expressions of ``expr`` (not descending into subquery relations)."""
    # The commonest nodes first, by exact class (every walk asks for every node's children):
    # the same answers as the match below, without trying its patterns one by one.
    kind = type(expr)
    if kind is Call:
        return expr.args
    if kind in _LEAVES:
        return ()
    if kind is AggregateCall:  # the case below, for the class itself
        order_by, limit, filter_ = expr.order_by, expr.limit, expr.filter
        if not order_by and limit is None:
            return expr.args + ((filter_,) if filter_ is not None else ())
        extra = tuple(key.expr for key in order_by) + ((limit,) if limit is not None else ())
        return expr.args + ((filter_,) if filter_ is not None else ()) + extra
    match expr:
        case Call(args=args):
            return args
        case AggregateCall(args=args, filter=filter_, order_by=order_by, limit=limit):
            extra = tuple(key.expr for key in order_by) + ((limit,) if limit is not None else ())
            return args + ((filter_,) if filter_ is not None else ()) + extra
        case WindowCall(function=function, partition_by=partition_by, order_by=order_by, frame=frame):
            out = (function,) + partition_by + tuple(key.expr for key in order_by)
            if frame is not None:
                out += tuple(b.offset for b in (frame.start, frame.end) if b is not None and b.offset is not None)
            return out
        case Subquery(needle=needle):
            return (needle,) if needle is not None else ()
        case NestedAccess(base=base, dynamic=dynamic):
            return (base,) + dynamic
        case _:
            return ()


_LEAVES = frozenset({FieldRef, OuterRef, CandidateRef, Literal})


def iter_tree(expr: Expr):
    """Every expression node under ``expr``, itself included, parents first."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))
