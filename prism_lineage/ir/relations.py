"""Relational operators of the Prism IR.

Each SQL clause lowers to its own operator (no fused SELECT node).  A relation is a semantic
target with a stable ``id``; so is each field it *creates*.  Operators that only pass rows
through (filter, join, sort, limit, distinct) forward their inputs' field targets unchanged,
since they create no new values; operators that compute values (scan, values, project,
aggregate, window, set operation, CTE reference) create new fields.

Field references in expressions point at field ids of the operator's input(s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .expressions import AggregateCall, Expr, SortKey, WindowCall
from .origin import Origin
from .quick import quick_init
from .types import DataType


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Field:
    """A field a relation creates.  ``authored``: see ``Relation``."""

    id: str
    name: str
    type: DataType = None
    origin: Origin | None = None
    authored: tuple[str, ...] = ()


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Relation:
    """A relational operator.

    ``authored`` links a target made by a rewrite to the authored targets it stands for
    (specs/rewrites.md): empty for an authored target, and for a rewritten one that keeps the
    id of the single authored target it stands for; otherwise the ids of the authored targets
    (never of other rewritten ones) it came from.
    """

    id: str
    origin: Origin | None
    authored: tuple[str, ...] = field(default=(), kw_only=True)

    @property
    def inputs(self) -> tuple["Relation", ...]:
        return ()

    @property
    def fields(self) -> tuple[Field, ...]:  # pragma: no cover - every operator overrides
        raise NotImplementedError

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


# --- leaves -------------------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class MaskingPolicy:
    """A declared masking policy on a column of a scanned table: readers see a masked value.

    ``reads`` are the (table, column) pairs the policy's expression reads besides the column
    itself (a role mapping table, a region column …): they decide what a reader sees.
    """

    column: str
    name: str | None = None
    reads: tuple[tuple[str, str], ...] = ()


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Scan(Relation):
    """``FROM table``.  ``table`` is the name as the catalog spells it (or as written, when the
    table is not in the catalog: then ``schema_known`` is false and ``fields`` holds the
    columns the query was seen to read)."""

    table: str
    columns: tuple[Field, ...]
    schema_known: bool = True
    opaque_reason: str | None = None  # set when the "table" is a construct not analysed
    masks: tuple[MaskingPolicy, ...] = ()  # declared masking policies of the columns read

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Values(Relation):
    """``VALUES (…), (…)``: literal rows."""

    columns: tuple[Field, ...]
    rows: tuple[tuple[Expr, ...], ...]

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns


# --- single input ------------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Project(Relation):
    """``SELECT expr AS name, …``: one new field per expression."""

    input: Relation
    exprs: tuple[Expr, ...]
    columns: tuple[Field, ...]

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.input,)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Filter(Relation):
    """``WHERE`` / ``HAVING`` / ``QUALIFY``: keeps the rows where ``predicate`` holds."""

    input: Relation
    predicate: Expr
    clause: str = "where"

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.input,)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.input.fields


class JoinKind(StrEnum):
    INNER = "inner"
    LEFT = "left"
    RIGHT = "right"
    FULL = "full"
    CROSS = "cross"
    SEMI = "semi"
    ANTI = "anti"


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Join(Relation):
    """``left <kind> JOIN right ON condition``.  Semi and anti joins keep the left fields only.

    ``condition_clause`` is ``None`` for the join's own ON/USING condition.  A condition a
    rewrite moved here from elsewhere names the clause it was authored in (``where``,
    ``having`` … as ``Filter.clause``) and keeps that clause's meaning: the semi join that
    decorrelating ``WHERE EXISTS (…)`` makes still filters rows (control lineage, not join).
    """

    kind: JoinKind
    left: Relation
    right: Relation
    condition: Expr | None = None
    condition_clause: str | None = None

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.left, self.right)

    @property
    def fields(self) -> tuple[Field, ...]:
        if self.kind in (JoinKind.SEMI, JoinKind.ANTI):
            return self.left.fields
        return self.left.fields + self.right.fields


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Aggregate(Relation):
    """``GROUP BY keys`` with ``measures``.

    Output: one field per key, then one per measure.  ``grouping_sets`` lists, for ROLLUP,
    CUBE and GROUPING SETS, the key positions of each set (``None``: one set of all keys).
    """

    input: Relation
    keys: tuple[Expr, ...]
    measures: tuple[AggregateCall, ...]
    columns: tuple[Field, ...]
    grouping_sets: tuple[tuple[int, ...], ...] | None = None

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.input,)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Window(Relation):
    """Window functions over the input: the input's fields, then one new field per call."""

    input: Relation
    calls: tuple[WindowCall, ...]
    columns: tuple[Field, ...]  # the new fields only

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.input,)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.input.fields + self.columns


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Sort(Relation):
    """``ORDER BY keys``."""

    input: Relation
    keys: tuple[SortKey, ...]

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.input,)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.input.fields


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Limit(Relation):
    """``LIMIT count OFFSET offset`` (either may be absent); with ``by`` (ClickHouse's ``LIMIT n
    BY keys``) the limit applies to each group of rows with equal ``by`` values."""

    input: Relation
    count: Expr | None = None
    offset: Expr | None = None
    by: tuple[Expr, ...] = ()

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.input,)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.input.fields


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class Distinct(Relation):
    """``SELECT DISTINCT`` (``on`` empty) or ``DISTINCT ON (on…)``."""

    input: Relation
    on: tuple[Expr, ...] = ()

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.input,)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.input.fields


# --- several inputs ----------------------------------------------------------------------


class SetKind(StrEnum):
    UNION = "union"
    INTERSECT = "intersect"
    EXCEPT = "except"


def stands_for_columns(field: Field) -> bool:
    """Whether ``field`` stands for columns nobody declared (``*`` over a table without a
    schema, ``t.*`` when several such tables are read): how many, and which, is unknown."""
    name = field.name
    return name == "*" or name.endswith(".*")


def position_matches(left: tuple[Field, ...], right: tuple[Field, ...]) -> tuple[tuple[tuple[int, ...], bool], ...]:
    """How a set operation pairs its inputs' columns by position: for each position of
    ``left``, the positions of ``right`` it may be paired with, and whether that is known.

    Positions before the first field that stands for unknown columns (on either side) pair
    one to one, and so do positions after the last one, counted from the end.  Between them
    the widths are unknown: each left position may be paired with any right field there."""
    n, m = len(left), len(right)
    left_open = [stands_for_columns(f) for f in left]
    right_open = [stands_for_columns(f) for f in right]
    if not any(left_open) and not any(right_open):
        return tuple(((i,), True) for i in range(min(n, m)))
    prefix = 0
    while prefix < min(n, m) and not left_open[prefix] and not right_open[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(n, m) - prefix and not left_open[n - 1 - suffix] and not right_open[m - 1 - suffix]:
        suffix += 1
    middle = tuple(range(prefix, m - suffix))
    out = []
    for i in range(n):
        if i < prefix:
            out.append(((i,), True))
        elif i >= n - suffix:
            out.append(((m - (n - i),), True))
        else:
            out.append((middle, False))
    return tuple(out)


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class SetOperation(Relation):
    """``left UNION|INTERSECT|EXCEPT [ALL] right``: fields merge by position, named after the
    left input's (``position_matches``: where an input has a field standing for unknown
    columns, the inputs may differ in width and the pairing there is unknown)."""

    kind: SetKind
    all: bool
    left: Relation
    right: Relation
    columns: tuple[Field, ...]

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.left, self.right)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns


# --- common table expressions ------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class CteRef(Relation):
    """One reference to a ``WITH name AS (definition)``.

    Each reference is its own node with its own fields (a self-join of a CTE has two sides);
    the definition is shared between references and analysed once.

    ``script``: a read, through a script, of the rows earlier statements wrote into a table
    (frontends/sql/scripts.py).  Such a definition is complete on its own — built from earlier
    statements only, it reads nothing of the statement that reads it, and none of its sorts
    is that statement's result order — so its lineage is the same for every reader, and is
    resolved once for them all (lineage/through.py).
    """

    name: str
    definition: Relation
    columns: tuple[Field, ...]
    script: bool = False

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.definition,)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class RecursiveCte(Relation):
    """``WITH RECURSIVE name AS (anchor UNION [ALL] recursive)``.

    ``recursive`` reads the CTE's own rows through ``RecursiveRef`` nodes, which point back at
    this node by id (the plan stays a tree; the lineage graph gets the cycle).
    """

    name: str
    anchor: Relation
    recursive: Relation
    all: bool
    columns: tuple[Field, ...]

    @property
    def inputs(self) -> tuple[Relation, ...]:
        return (self.anchor, self.recursive)

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns


@quick_init
@dataclass(frozen=True, slots=True, eq=False)
class RecursiveRef(Relation):
    """The recursive CTE read from inside its own recursive term."""

    name: str
    cte: str  # id of the RecursiveCte
    cte_fields: tuple[str, ...]  # ids of the RecursiveCte's fields, by position
    columns: tuple[Field, ...]

    @property
    def fields(self) -> tuple[Field, ...]:
        return self.columns
