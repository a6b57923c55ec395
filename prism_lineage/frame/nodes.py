"""The logical plan a ``DataFrame`` holds: one immutable node per builder call.

This is the user-facing layer (like Polars' DSL plan): nodes keep the user's columns
(``FrameField``) and resolved expressions, and each node's ``origin`` is the call that built
it.  ``frame/lowering.py`` turns a tree of them into the Prism IR, one direction only; the IR
never sees these classes.

A node may appear several times in one plan (``a.join(a.alias("b"), …)``, ``a.union(a)``):
lowering expands every occurrence into its own IR targets, so each side of a self-join has
its own scan, fields and ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import GeneratedRole, JoinKind, Origin, SetKind
from .expressions import ExprNode, FrameField, SortSpec


@dataclass(frozen=True, slots=True, eq=False)
class PlanNode:
    origin: Origin | None
    fields: tuple[FrameField, ...]

    @property
    def inputs(self) -> tuple["PlanNode", ...]:
        return ()


@dataclass(frozen=True, slots=True, eq=False)
class ScanNode(PlanNode):
    """``table(name, schema)``: every declared column (lowering reads only those used)."""

    table: str


@dataclass(frozen=True, slots=True, eq=False)
class _Unary(PlanNode):
    input: PlanNode

    @property
    def inputs(self) -> tuple[PlanNode, ...]:
        return (self.input,)


@dataclass(frozen=True, slots=True, eq=False)
class AliasNode(_Unary):
    """``df.alias(name)``: the same rows, columns qualified by ``name``."""

    name: str


@dataclass(frozen=True, slots=True, eq=False)
class FilterNode(_Unary):
    """``df.filter(predicate)``; a predicate over window functions filters after them."""

    predicate: ExprNode


@dataclass(frozen=True, slots=True, eq=False)
class ProjectNode(_Unary):
    """``select`` / ``with_columns`` / ``drop`` / ``rename``: one expression per column."""

    exprs: tuple[ExprNode, ...]


@dataclass(frozen=True, slots=True, eq=False)
class AggregateNode(_Unary):
    """``group_by(keys).agg(exprs)``: the key columns, then one column per expression.
    ``grouping_sets`` holds key positions per set (``None``: one set of every key)."""

    keys: tuple[ExprNode, ...]
    aggs: tuple[ExprNode, ...]
    grouping_sets: tuple[tuple[int, ...], ...] | None = None


@dataclass(frozen=True, slots=True, eq=False)
class JoinNode(PlanNode):
    """``left.join(right, …)``.  ``condition`` reads positions of ``left.fields + right.fields``.
    ``using`` (join on column names) pairs left and right positions; the output then holds
    each merged key once, then the other left columns, then the other right columns."""

    kind: JoinKind
    left: PlanNode
    right: PlanNode
    condition: ExprNode | None = None
    using: tuple[tuple[int, int], ...] | None = None

    @property
    def inputs(self) -> tuple[PlanNode, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, slots=True, eq=False)
class SortNode(_Unary):
    keys: tuple[SortSpec, ...]


@dataclass(frozen=True, slots=True, eq=False)
class LimitNode(_Unary):
    count: int | None
    offset: int | None


@dataclass(frozen=True, slots=True, eq=False)
class DistinctNode(_Unary):
    on: tuple[ExprNode, ...] = ()


@dataclass(frozen=True, slots=True, eq=False)
class SetNode(PlanNode):
    kind: SetKind
    all: bool
    left: PlanNode
    right: PlanNode

    @property
    def inputs(self) -> tuple[PlanNode, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, slots=True)
class GeneratedSpec:
    """One column an ``explode`` generates: what it holds (``role``) and the path below the
    exploded value it is read at (``[]`` for an element)."""

    role: GeneratedRole
    path: str | None
    field: FrameField


@dataclass(frozen=True, slots=True, eq=False)
class GenerateNode(_Unary):
    """``df.explode(column)``: one row per element of ``value`` (an array or a map), the
    input's columns beside the generated ones.  ``replaces``: the input position whose column
    the element takes the place of (``explode("items")`` without a new name), else ``None``
    and the generated columns come last."""

    value: ExprNode
    generated: tuple[GeneratedSpec, ...]
    outer: bool = False
    replaces: int | None = None
