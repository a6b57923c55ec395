"""Name resolution for the dataframe API: which input column an expression means.

Each frame method resolves the expressions it receives against its input's columns the
moment it is called, so a bad name fails at the user's call with the columns that exist.
Resolution replaces names with ``InputRef`` positions and checks where each kind of
expression may appear:

* row expressions (filter conditions, join predicates, group keys, sort keys, and the
  arguments of aggregates and windows) read input columns only;
* ``select``/``with_columns``/``filter`` may also hold window functions (``.over(...)``);
* ``agg`` expressions hold aggregates; outside an aggregate they may read only group keys.

Name matching follows the catalog: an exact name first, else a case-insensitive match
unless two columns differ only by case; ``"q.name"`` qualifies a name with a table name or
a frame alias.  User functions met on the way are collected with their lineage facts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from ..functions import FunctionInfo
from ..ir import Origin
from .errors import (
    FrameAmbiguousColumnError,
    FrameStatementError,
    FrameUnknownColumnError,
    FrameUsageError,
    foreign_column,
    self_join_ambiguity,
)
from .expressions import (
    Access,
    Agg,
    Aliased,
    BoundColumn,
    ColumnName,
    ExprNode,
    FrameField,
    Func,
    InputRef,
    KeyRef,
    Lit,
    Over,
    SortSpec,
    describe,
)
from .inference import type_of
from .nested import path_facts


class Mode(Enum):
    ROW = "row"
    SELECT = "select"  # rows, plus window functions
    AGG = "agg"  # aggregates; bare columns must be group keys


@dataclass(slots=True)
class Scope:
    """The columns an expression may read (an operator's input, or both sides of a join)."""

    fields: Sequence[FrameField]
    label: str | None = None  # the table's name, for messages about a table read

    def lookup(self, node: ColumnName) -> InputRef:
        positions = self._by_name(node.name)
        if not positions and "." in node.name:
            qualifier, _, name = node.name.rpartition(".")
            positions = [p for p in self._by_name(name) if _qualified_by(self.fields[p], qualifier)]
            if not positions:
                qualified = [f for f in self.fields if _qualified_by(f, qualifier)]
                if qualified:
                    raise FrameUnknownColumnError(name, table=qualifier, available=[f.name for f in qualified],
                                                  origin=node.origin)
        if not positions:
            raise FrameUnknownColumnError(node.name, table=self.label, available=self.available(),
                                          origin=node.origin)
        return self._one(positions, node.name, node.origin)

    def bound(self, node: BoundColumn) -> InputRef:
        positions = [p for p, f in enumerate(self.fields) if f is node.field]
        if not positions:
            raise foreign_column(node.field.name, node.owner, self.available(), node.origin)
        return self._one(positions, node.field.name, node.origin)

    def available(self) -> list[str]:
        counts: dict[str, int] = {}
        for f in self.fields:
            counts[f.name] = counts.get(f.name, 0) + 1
        return [f.label() if counts[f.name] > 1 else f.name for f in self.fields]

    def _by_name(self, name: str) -> list[int]:
        exact = [p for p, f in enumerate(self.fields) if f.name == name]
        if exact:
            return exact
        folded = name.lower()
        return [p for p, f in enumerate(self.fields) if f.name.lower() == folded]

    def _one(self, positions: list[int], name: str, origin: Origin | None) -> InputRef:
        if len(positions) == 1:
            return InputRef(origin, positions[0], self.fields[positions[0]])
        fields = [self.fields[p] for p in positions]
        labels = [f.label() for f in fields]
        if len(set(labels)) < len(labels):
            labels = [f"{label} (column {p + 1})" for label, p in zip(labels, positions)]
        if all(f is fields[0] for f in fields):
            raise self_join_ambiguity(name, labels, origin)
        raise FrameAmbiguousColumnError(name, labels, origin)


def _qualified_by(field_: FrameField, qualifier: str) -> bool:
    folded = qualifier.lower()
    return any(q == qualifier or q.lower() == folded for q in field_.qualifiers)


@dataclass(slots=True)
class GroupKeys:
    """The keys of a ``group_by``, for resolving ``agg`` expressions."""

    exprs: Sequence[ExprNode]  # resolved key expressions
    fields: Sequence[FrameField]  # the key columns of the result


@dataclass(slots=True)
class Resolver:
    """Resolves the expressions of one frame method (see the module docstring)."""

    scope: Scope
    keys: GroupKeys | None = None
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    _within: str | None = None  # the aggregate whose arguments are being resolved

    def resolve(self, node: ExprNode, mode: Mode) -> ExprNode:
        """``node`` resolved; an alias written around it is kept (it names an output column)."""
        return self._node(node, mode, top=True)

    def resolve_value(self, node: ExprNode, mode: Mode) -> ExprNode:
        """``node`` resolved, without the alias (a condition, a key: nothing it could name)."""
        return self._node(node, mode)

    def _node(self, node: ExprNode, mode: Mode, top: bool = False) -> ExprNode:
        match node:
            case ColumnName() | BoundColumn():
                return self._column(node, mode)
            case InputRef() | KeyRef() | Lit():
                return node
            case Aliased(expr=expr, name=name):
                inner = self._node(expr, mode, top)
                return Aliased(node.origin, inner, name) if top else inner
            case Func():
                return self._function(node, mode)
            case Agg():
                return self._aggregate(node, mode)
            case Over():
                return self._window(node, mode)
            case Access():
                return self._access(node, mode)
            case SortSpec():
                raise FrameStatementError(
                    f"{describe(node)} is a sort key: use it in sort() or order_by=, not as a value",
                    origin=node.origin,
                )
        raise FrameUsageError(f"cannot use {describe(node)} here", origin=node.origin)

    def _column(self, node: ColumnName | BoundColumn, mode: Mode) -> ExprNode:
        keys = self.keys
        if mode is Mode.AGG and keys is not None and isinstance(node, ColumnName):
            # An agg expression may name a key column of the result (``group_by(x.alias("k"))``).
            for index, key_field in enumerate(keys.fields):
                if key_field.name == node.name:
                    return KeyRef(node.origin, index, key_field)
        ref = self.scope.lookup(node) if isinstance(node, ColumnName) else self.scope.bound(node)
        if mode is not Mode.AGG:
            return ref
        if keys is not None:
            for index, key in enumerate(keys.exprs):
                if isinstance(key, InputRef) and key.position == ref.position:
                    return KeyRef(node.origin, index, keys.fields[index])
        raise FrameStatementError(
            f"column '{ref.field.name}' is not a group key: aggregate it (e.g. F.any_value(col("
            f"'{ref.field.name}'))) or add it to group_by()", origin=node.origin,
        )

    def _access(self, node: Access, mode: Mode) -> Access:
        """A path into a value: checked against the base's declared type at the call."""
        base = self._node(node.base, mode)
        facts = path_facts(describe(base), type_of(base), node.path, json=node.kind == "json", origin=node.origin)
        return Access(node.origin, base, node.path, node.kind, facts.steps, facts.semi_structured, facts.exact,
                      facts.reason, facts.type)

    def _function(self, node: Func, mode: Mode) -> Func:
        if node.window_only:
            raise FrameStatementError(f"{node.name}() is a window function: call .over(...) on it",
                                      origin=node.origin)
        self._note(node.info, node.origin)
        args = tuple(self._node(a, mode) for a in node.args)
        return Func(node.origin, node.name, args, node.known, node.info, node.type, node.window_only)

    def _aggregate(self, node: Agg, mode: Mode) -> Agg:
        if self._within is not None:
            raise FrameStatementError(f"aggregate {node.name}() cannot be nested inside {self._within}()",
                                      origin=node.origin)
        if mode is not Mode.AGG:
            raise FrameStatementError(
                f"aggregate function {node.name}() is only allowed in agg() or with .over(...)",
                origin=node.origin,
            )
        return self._aggregate_body(node)

    def _aggregate_body(self, node: Agg) -> Agg:
        """An aggregate's arguments, FILTER and ORDER BY read the input rows."""
        self._note(node.info, node.origin)
        row = Mode.ROW
        self._within = node.name
        try:
            args = tuple(self._node(a, row) for a in node.args)
            filter_ = self._node(node.filter, row) if node.filter is not None else None
            order = tuple(self._sort_key(k, row) for k in node.order_by)
        finally:
            self._within = None
        return Agg(node.origin, node.name, args, node.distinct, filter_, order, node.star, node.info)

    def _window(self, node: Over, mode: Mode) -> Over:
        if mode is not Mode.SELECT:
            raise FrameStatementError(
                "window functions are allowed in select(), with_columns() and filter() only "
                "(aggregate first, then add windows with with_columns())", origin=node.origin,
            )
        row = Mode.ROW
        function = node.function
        if isinstance(function, Agg):
            resolved: ExprNode = self._aggregate_body(function)
        else:
            assert isinstance(function, Func)
            self._note(function.info, function.origin)
            resolved = Func(function.origin, function.name, tuple(self._node(a, row) for a in function.args),
                            function.known, function.info, function.type, function.window_only)
        partition = tuple(self._node(p, row) for p in node.partition_by)
        order = tuple(self._sort_key(k, row) for k in node.order_by)
        return Over(node.origin, resolved, partition, order, node.frame)

    def sort_key(self, node: ExprNode, mode: Mode = Mode.ROW) -> SortSpec:
        """A sort key: a ``SortSpec`` or a bare expression (ascending)."""
        return self._sort_key(node if isinstance(node, SortSpec) else SortSpec(node.origin, node), mode)

    def _sort_key(self, key: SortSpec, mode: Mode) -> SortSpec:
        return SortSpec(key.origin, self._node(key.expr, mode), key.descending, key.nulls_first)

    def _note(self, info: FunctionInfo | None, origin: Origin | None) -> None:
        if info is None:
            return
        note_function(self.functions, info, origin)


def note_function(functions: dict[str, FunctionInfo], info: FunctionInfo, origin: Origin | None) -> None:
    """Add a user function's facts to a plan's; one name cannot carry two sets of facts."""
    key = info.name.lower()
    known = functions.get(key)
    if known is None:
        functions[key] = info
    elif known != info:
        raise FrameStatementError(
            f"function {info.name} is declared twice in one plan with different lineage facts "
            f"({known.transformation.value}/{known.confidence.value} and "
            f"{info.transformation.value}/{info.confidence.value})", origin=origin,
        )


def merge_functions(into: dict[str, FunctionInfo], other: Mapping[str, FunctionInfo],
                    origin: Origin | None) -> None:
    for info in other.values():
        note_function(into, info, origin)

