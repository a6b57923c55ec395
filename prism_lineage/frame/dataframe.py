"""``DataFrame``: the fluent builder of dataframe-style plans.

Each method checks its arguments against the frame's columns *at the call* (a bad name
fails where the user wrote it, naming the columns that exist), records the call site as the
authored origin of what it builds, and returns a new immutable frame.  A frame is a
``PlanSource``: ``prism_lineage.explain(frame)`` lowers it into the Prism IR
(``to_statements``) and explains it exactly as it explains the same query written in SQL.

Which column objects survive an operator (``df["x"]`` refers to one of them): operators that
pass rows through (filter, join, sort, limit, distinct) keep their input's columns;
operators that compute columns (select, with_columns, drop, rename, agg, set operations,
alias) make new ones, as the IR makes new field targets for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import product
from typing import Any

from ..catalog import Catalog
from ..errors import PrismError, SchemaError, UnknownTableError
from ..functions import FunctionInfo, FunctionRegistry
from ..ir import GeneratedRole, JoinKind, Origin, SetKind, Statement
from .callsite import call_site
from .errors import FrameStatementError, FrameUsageError
from .expressions import (
    Aliased,
    BoundColumn,
    Column,
    ColumnName,
    ExprNode,
    FrameField,
    Func,
    InputRef,
    as_column,
    as_sort_key,
    describe,
    flatten_items,
    output_name,
    unaliased,
)
from .inference import type_of
from .nested import explode_shape
from .nodes import (
    AggregateNode,
    AliasNode,
    DistinctNode,
    FilterNode,
    GeneratedSpec,
    GenerateNode,
    JoinNode,
    LimitNode,
    PlanNode,
    ProjectNode,
    ScanNode,
    SetNode,
    SortNode,
)
from .resolve import GroupKeys, Mode, Resolver, Scope, merge_functions

_JOIN_KINDS = {
    "inner": JoinKind.INNER,
    "left": JoinKind.LEFT, "left_outer": JoinKind.LEFT,
    "right": JoinKind.RIGHT, "right_outer": JoinKind.RIGHT,
    "full": JoinKind.FULL, "outer": JoinKind.FULL, "full_outer": JoinKind.FULL,
    "semi": JoinKind.SEMI, "left_semi": JoinKind.SEMI,
    "anti": JoinKind.ANTI, "left_anti": JoinKind.ANTI,
    "cross": JoinKind.CROSS,
}


def table(name: str, schema: Mapping[str, Any] | list[str] | None = None, *,
          catalog: Mapping[str, Any] | Catalog | None = None) -> "DataFrame":
    """A frame reading a table.

    ``schema`` declares its columns (``{column: type}``, or a list of names when the types
    are unknown); or ``catalog`` (a schema document or ``Catalog``, as ``explain`` takes)
    holds the table, looked up by its possibly partial dotted name.
    """
    origin = call_site()
    if not isinstance(name, str) or not name.strip():
        raise FrameUsageError(f"table() takes a table name, got {name!r}", origin=origin)
    if (schema is None) == (catalog is None):
        raise FrameUsageError(
            f"table('{name}') needs its columns: pass schema={{column: type}} or catalog=…, not both",
            origin=origin,
        )
    try:
        if schema is not None:
            _check_columns(schema, name)
            declared = Catalog.from_mapping({name: schema}, source=f"schema of table {name}").tables[0]
        else:
            tables = Catalog.from_mapping(catalog)
            found = tables.lookup(tuple(name.split(".")), origin)
            if found is None:
                raise UnknownTableError(name, [t.name for t in tables.tables], origin)
            declared = found
    except PrismError as error:
        if error.origin is None:
            error.origin = origin
        raise
    qualifiers = frozenset({declared.parts[-1], declared.name})
    fields = tuple(FrameField(c.name, c.type, qualifiers, origin) for c in declared.columns)
    return DataFrame(ScanNode(origin, fields, declared.name), {}, declared.parts[-1])


class DataFrame:
    """A dataframe-style plan.  Build with ``table(…)`` and its methods; explain with
    ``prism_lineage.explain(frame)`` or ``frame.explain()``."""

    __slots__ = ("_node", "_functions", "_label", "_statements")

    def __init__(self, node: PlanNode, functions: Mapping[str, FunctionInfo], label: str | None = None):
        self._node = node
        self._functions = dict(functions)
        self._label = label  # how messages name the frame (its table or alias), if it has one
        self._statements: list[Statement] | None = None

    # --- what the frame is ------------------------------------------------------------------

    @property
    def plan(self) -> PlanNode:
        return self._node

    @property
    def columns(self) -> list[str]:
        return [f.name for f in self._node.fields]

    @property
    def dtypes(self) -> list[tuple[str, str | None]]:
        return [(f.name, f.type) for f in self._node.fields]

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}: {f.type or '?'}" for f in self._node.fields)
        return f"DataFrame[{shown}]"

    def __getitem__(self, name: str) -> Column:
        """``df["x"]``: column ``x`` of this frame, usable wherever this frame's rows flow
        (e.g. to tell apart the two sides of a join)."""
        origin = call_site()
        if not isinstance(name, str):
            raise FrameUsageError(f"a frame is indexed by a column name, not {name!r}", origin=origin)
        ref = self._scope().lookup(ColumnName(origin, name))
        return Column(BoundColumn(origin, ref.field, self._label or "its frame"))

    # --- PlanSource -------------------------------------------------------------------------

    def to_statements(self) -> list[Statement]:
        if self._statements is None:
            from .lowering import lower_plan

            self._statements = [lower_plan(self._node)]
        return list(self._statements)

    def function_infos(self) -> tuple[FunctionInfo, ...]:
        """The lineage facts of the user functions this plan calls (``explain`` adds them to
        its function registry)."""
        return tuple(self._functions.values())

    def explain(self, functions: FunctionRegistry | None = None):
        """``prism_lineage.explain(self)``."""
        from ..explain import explain

        return explain(self, functions=functions)

    # --- columns ----------------------------------------------------------------------------

    def select(self, *exprs) -> "DataFrame":
        """The listed columns and expressions, in order (window functions allowed)."""
        origin = call_site()
        items = flatten_items(exprs)
        if not items:
            raise FrameStatementError("select() needs at least one column", origin=origin)
        resolver = self._resolver()
        resolved = tuple(resolver.resolve(as_column(i, origin, "select"), Mode.SELECT) for i in items)
        fields = tuple(_computed_field(r) for r in resolved)
        return self._derive(ProjectNode(origin, fields, self._node, resolved), resolver)

    def with_columns(self, *exprs) -> "DataFrame":
        """Every column, with the named expressions added (or replacing same-named columns)."""
        origin = call_site()
        items = flatten_items(exprs)
        resolver = self._resolver()
        exprs_out: list[ExprNode] = [InputRef(f.origin, i, f) for i, f in enumerate(self._node.fields)]
        fields = [_computed_field(e) for e in exprs_out]
        for item in items:
            node = resolver.resolve(as_column(item, origin, "with_columns"), Mode.SELECT)
            if not isinstance(node, (Aliased, InputRef)):
                raise FrameUsageError(
                    "with_columns() needs a name for each computed column: add .alias('name')", origin=origin
                )
            name = output_name(node)
            field_ = _computed_field(node)
            for position, existing in enumerate(fields):
                if existing.name == name:
                    exprs_out[position], fields[position] = node, field_
                    break
            else:
                exprs_out.append(node)
                fields.append(field_)
        return self._derive(ProjectNode(origin, tuple(fields), self._node, tuple(exprs_out)), resolver)

    def with_column(self, name: str, expr) -> "DataFrame":
        """``with_columns(expr.alias(name))``."""
        return self.with_columns(Column(as_column(expr, call_site(), "with_column")).alias(name))

    def drop(self, *names) -> "DataFrame":
        origin = call_site()
        dropped = {self._column_ref(n, origin, "drop").position for n in flatten_items(names)}
        kept = [(i, f) for i, f in enumerate(self._node.fields) if i not in dropped]
        if not kept:
            raise FrameStatementError("drop() would leave no columns", origin=origin)
        exprs = tuple(InputRef(f.origin, i, f) for i, f in kept)
        fields = tuple(_computed_field(e) for e in exprs)
        return self._derive(ProjectNode(origin, fields, self._node, exprs))

    def rename(self, mapping: Mapping[str, str]) -> "DataFrame":
        origin = call_site()
        if not isinstance(mapping, Mapping) or not all(isinstance(v, str) and v for v in mapping.values()):
            raise FrameUsageError("rename() takes a mapping of old names to new names", origin=origin)
        scope = self._scope()
        new_names = {scope.lookup(_as_name(old, origin)).position: new for old, new in mapping.items()}
        exprs: list[ExprNode] = []
        for i, f in enumerate(self._node.fields):
            ref = InputRef(f.origin, i, f)
            exprs.append(Aliased(origin, ref, new_names[i]) if i in new_names else ref)
        fields = tuple(_computed_field(e) for e in exprs)
        return self._derive(ProjectNode(origin, fields, self._node, tuple(exprs)))

    def alias(self, name: str) -> "DataFrame":
        """The same rows with columns qualified by ``name`` (``col("name.x")``): how the two
        sides of a self-join are told apart."""
        origin = call_site()
        if not isinstance(name, str) or not name:
            raise FrameUsageError(f"alias() takes a non-empty name, got {name!r}", origin=origin)
        fields = tuple(FrameField(f.name, f.type, frozenset({name}), f.origin) for f in self._node.fields)
        return DataFrame(AliasNode(origin, fields, self._node, name), self._functions, name)

    # --- rows -------------------------------------------------------------------------------

    def filter(self, predicate: Column) -> "DataFrame":
        """The rows where ``predicate`` holds (it may compare window functions, like QUALIFY)."""
        origin = call_site()
        if not isinstance(predicate, Column):
            raise FrameUsageError(
                f"filter() takes a Column condition such as col('status') == 'paid', got {predicate!r}",
                origin=origin,
            )
        resolver = self._resolver()
        resolved = resolver.resolve_value(predicate.node, Mode.SELECT)
        return self._derive(FilterNode(origin, self._node.fields, self._node, resolved), resolver)

    where = filter

    def sort(self, *keys) -> "DataFrame":
        """Rows ordered by ``keys`` (names, Columns, or ``col(…).desc()``)."""
        origin = call_site()
        items = flatten_items(keys)
        if not items:
            raise FrameStatementError("sort() needs at least one key", origin=origin)
        resolver = self._resolver()
        resolved = tuple(resolver.sort_key(as_sort_key(k, origin)) for k in items)
        return self._derive(SortNode(origin, self._node.fields, self._node, resolved), resolver)

    order_by = sort

    def limit(self, count: int | None, offset: int | None = None) -> "DataFrame":
        origin = call_site()
        for name, value in (("count", count), ("offset", offset)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise FrameUsageError(f"limit() takes a {name} that is an int ≥ 0, got {value!r}", origin=origin)
        if count is None and offset is None:
            raise FrameUsageError("limit() needs a count or an offset", origin=origin)
        return self._derive(LimitNode(origin, self._node.fields, self._node, count, offset))

    def offset(self, count: int) -> "DataFrame":
        origin = call_site()
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise FrameUsageError(f"offset() takes an int ≥ 0, got {count!r}", origin=origin)
        return self._derive(LimitNode(origin, self._node.fields, self._node, None, count))

    def distinct(self, *on) -> "DataFrame":
        """Distinct rows; with ``on`` keys, one row per key (DISTINCT ON)."""
        origin = call_site()
        resolver = self._resolver()
        keys = tuple(resolver.resolve_value(as_column(k, origin, "distinct"), Mode.ROW) for k in flatten_items(on))
        return self._derive(DistinctNode(origin, self._node.fields, self._node, keys), resolver)

    unique = distinct

    def explode(self, column, *, name: str | None = None, position: str | None = None,
                names: tuple[str, str] | None = None, outer: bool = False) -> "DataFrame":
        """One row per element of an array (or per entry of a map): SQL's ``UNNEST``.

        ``explode("items")`` puts the element in place of ``items``; ``name=`` keeps ``items``
        and adds the element as a new column.  A map gives two columns, its key and value
        (``names=``, default ``key`` and ``value``).  ``position=`` adds the element's position.
        ``outer=True`` keeps rows whose collection is empty.  Generated columns are new targets
        with lineage ``generator`` from the collection (as SQL's ``UNNEST``)."""
        origin = call_site()
        for label, value in (("name", name), ("position", position)):
            if value is not None and (not isinstance(value, str) or not value):
                raise FrameUsageError(f"explode() takes a non-empty {label}=, got {value!r}", origin=origin)
        if names is not None and (not isinstance(names, (list, tuple)) or len(names) != 2
                                  or not all(isinstance(n, str) and n for n in names)):
            raise FrameUsageError("explode() takes names=(key_name, value_name)", origin=origin)
        resolver = self._resolver()
        value = resolver.resolve_value(as_column(column, origin, "explode"), Mode.ROW)
        shape = explode_shape(describe(value), type_of(value), origin)
        inputs = self._node.fields
        replaces = None
        if shape.is_map:
            key_name, value_name = names or ("key", "value")
            columns = [(GeneratedRole.KEY, None, key_name, shape.key_type),
                       (GeneratedRole.VALUE, "[]", value_name, shape.element_type)]
        else:
            if names is not None:
                raise FrameUsageError("names= is for maps; name an array's element with name=", origin=origin)
            element_name = name or output_name(value)
            columns = [(GeneratedRole.ELEMENT, "[]", element_name, shape.element_type)]
            if name is None and isinstance(value, InputRef):
                replaces = value.position
        if position is not None:
            columns.insert(0, (GeneratedRole.INDEX, None, position, "BIGINT"))
        qualifiers = value.field.qualifiers if isinstance(value, InputRef) else frozenset()
        specs = tuple(GeneratedSpec(role, path, FrameField(label, type_, qualifiers if role is not GeneratedRole.INDEX
                                                                   else frozenset(), origin))
                      for role, path, label, type_ in columns)
        if replaces is None:
            fields = inputs + tuple(s.field for s in specs)
        else:
            element = next(s.field for s in specs if s.role is GeneratedRole.ELEMENT)
            others = tuple(s.field for s in specs if s.role is not GeneratedRole.ELEMENT)
            fields = inputs[:replaces] + (element,) + inputs[replaces + 1:] + others
        node = GenerateNode(origin, fields, self._node, value, specs, bool(outer), replaces)
        return self._derive(node, resolver)

    unnest = explode

    # --- aggregation ------------------------------------------------------------------------

    def group_by(self, *keys, grouping_sets=None) -> "GroupedFrame":
        """Groups by ``keys``; ``grouping_sets`` lists sets of those keys (GROUPING SETS)."""
        origin = call_site()
        items = flatten_items(keys)
        if not items:
            raise FrameStatementError("group_by() needs at least one key (use df.agg(…) for one group)",
                                      origin=origin)
        grouped = self._grouped(items, origin)
        if grouping_sets is not None:
            if not isinstance(grouping_sets, (list, tuple)):
                raise FrameUsageError("grouping_sets takes a list of lists of keys", origin=origin)
            sets = []
            for keyset in grouping_sets:
                members = keyset if isinstance(keyset, (list, tuple)) else [keyset]
                sets.append(tuple(dict.fromkeys(grouped._key_index(m, origin) for m in members)))
            grouped = grouped._with_sets(tuple(sets))
        return grouped

    def rollup(self, *keys) -> "GroupedFrame":
        """``GROUP BY ROLLUP (k1, k2)``: sets (k1, k2), (k1), ()."""
        origin = call_site()
        items = flatten_items(keys)
        grouped = self._grouped(items, origin)
        count = len(items)
        return grouped._with_sets(tuple(tuple(range(n)) for n in range(count, -1, -1)))

    def cube(self, *keys) -> "GroupedFrame":
        """``GROUP BY CUBE (k1, k2)``: every subset of the keys."""
        origin = call_site()
        items = flatten_items(keys)
        grouped = self._grouped(items, origin)
        sets = tuple(tuple(i for i, use in enumerate(mask) if use)
                     for mask in product((True, False), repeat=len(items)))
        return grouped._with_sets(sets)

    def agg(self, *exprs) -> "DataFrame":
        """One group of every row: ``df.agg(F.count())``."""
        origin = call_site()
        return GroupedFrame(self, (), (), None, origin)._aggregate(flatten_items(exprs), origin)

    def _grouped(self, items: list, origin: Origin | None) -> "GroupedFrame":
        if not items:
            raise FrameStatementError("a grouping needs at least one key", origin=origin)
        resolver = self._resolver()
        keys = tuple(resolver.resolve(as_column(k, origin, "group_by"), Mode.ROW) for k in items)
        fields = tuple(_computed_field(k) for k in keys)
        return GroupedFrame(self, keys, fields, None, origin, resolver.functions)

    # --- joins ------------------------------------------------------------------------------

    def join(self, other: "DataFrame", on=None, *, left_on=None, right_on=None, how: str = "inner") -> "DataFrame":
        """Joins ``other``.  ``on`` is column names present on both sides (merged in the output,
        as SQL's USING), or a Column predicate over both sides (e.g. ``col("o.id") ==
        col("c.id")``); ``left_on``/``right_on`` pair key columns of each side.  ``how``: inner,
        left, right, full, semi, anti or cross."""
        origin = call_site()
        if not isinstance(other, DataFrame):
            raise FrameUsageError(f"join() takes a DataFrame, got {type(other).__name__}", origin=origin)
        kind = _JOIN_KINDS.get(how.lower() if isinstance(how, str) else how)
        if kind is None:
            raise FrameUsageError(f"unknown join kind {how!r}; use one of: inner, left, right, full, semi, anti, "
                                  "cross", origin=origin)
        functions = dict(self._functions)
        merge_functions(functions, other._functions, origin)
        left, right = self._node, other._node
        if kind is JoinKind.CROSS:
            if on is not None or left_on is not None or right_on is not None:
                raise FrameUsageError("a cross join takes no on=, left_on= or right_on=", origin=origin)
            return DataFrame(JoinNode(origin, left.fields + right.fields, kind, left, right), functions)
        if (left_on is None) != (right_on is None):
            raise FrameUsageError("join() takes left_on= and right_on= together", origin=origin)
        if (on is None) == (left_on is None):
            raise FrameUsageError("join() needs on= or left_on=/right_on= (not both), or how='cross'", origin=origin)
        if left_on is not None:
            condition = self._key_condition(other, _as_list(left_on), _as_list(right_on), origin)
        else:
            items = _as_list(on)
            if items and all(isinstance(i, str) for i in items):
                return self._using_join(other, items, kind, functions, origin)
            condition = self._predicate(other, items, functions, origin)
        output = left.fields if kind in (JoinKind.SEMI, JoinKind.ANTI) else left.fields + right.fields
        return DataFrame(JoinNode(origin, output, kind, left, right, condition), functions)

    def cross_join(self, other: "DataFrame") -> "DataFrame":
        return self.join(other, how="cross")

    def _key_condition(self, other: "DataFrame", lefts: list, rights: list, origin: Origin | None) -> ExprNode:
        """``left_on``/``right_on``: the ``and`` of one equality per pair of keys."""
        if len(lefts) != len(rights) or not lefts:
            raise FrameUsageError(
                f"left_on= and right_on= must list as many keys ({len(lefts)} and {len(rights)})", origin=origin
            )
        pairs = [(self._column_ref(k, origin, "left_on").position, other._column_ref(r, origin, "right_on").position)
                 for k, r in zip(lefts, rights)]
        return _equalities(pairs, self._node.fields, other._node.fields, len(self._node.fields), origin)

    def _predicate(self, other: "DataFrame", items: list, functions: dict[str, FunctionInfo],
                   origin: Origin | None) -> ExprNode:
        """``on=`` predicates over both sides' columns, ``and``-ed."""
        if not items or not all(isinstance(i, Column) for i in items):
            raise FrameUsageError(
                "on= takes column names present on both sides, or Column predicates (not a mix)", origin=origin
            )
        resolver = Resolver(Scope(self._node.fields + other._node.fields), functions=functions)
        predicates = [resolver.resolve_value(i.node, Mode.ROW) for i in items]
        condition = predicates[0]
        for predicate in predicates[1:]:
            condition = Func(origin, "and", (condition, predicate))
        return condition

    def _using_join(self, other: "DataFrame", names: list[str], kind: JoinKind,
                    functions: dict[str, FunctionInfo], origin: Origin | None) -> "DataFrame":
        left, right = self._node, other._node
        pairs = [(self._column_ref(n, origin, "on").position, other._column_ref(n, origin, "on").position)
                 for n in dict.fromkeys(names)]
        if kind in (JoinKind.SEMI, JoinKind.ANTI):
            condition = _equalities(pairs, left.fields, right.fields, len(left.fields), origin)
            return DataFrame(JoinNode(origin, left.fields, kind, left, right, condition), functions)
        merged = []
        for lpos, rpos in pairs:
            if kind is JoinKind.FULL:
                source = left.fields[lpos]
                merged.append(FrameField(source.name, source.type, source.qualifiers, origin))
            else:
                merged.append(right.fields[rpos] if kind is JoinKind.RIGHT else left.fields[lpos])
        used_left = {l for l, _ in pairs}
        used_right = {r for _, r in pairs}
        fields = (tuple(merged) + tuple(f for i, f in enumerate(left.fields) if i not in used_left)
                  + tuple(f for i, f in enumerate(right.fields) if i not in used_right))
        return DataFrame(JoinNode(origin, fields, kind, left, right, None, tuple(pairs)), functions)

    def _column_ref(self, key, origin: Origin | None, where: str) -> InputRef:
        """A plain column of this frame, named or given as a Column (a key, a column to drop)."""
        scope = self._scope()
        if isinstance(key, str):
            return scope.lookup(_as_name(key, origin))
        return _resolve_ref(scope, key, origin, where)

    # --- set operations ---------------------------------------------------------------------

    def union(self, other: "DataFrame", *, all: bool = False) -> "DataFrame":  # noqa: A002 - SQL's word
        """Rows of both frames, matched by position (``all=True``: keep duplicates)."""
        return self._set(other, SetKind.UNION, all, call_site())

    def union_all(self, other: "DataFrame") -> "DataFrame":
        return self._set(other, SetKind.UNION, True, call_site())

    def intersect(self, other: "DataFrame", *, all: bool = False) -> "DataFrame":  # noqa: A002
        return self._set(other, SetKind.INTERSECT, all, call_site())

    def except_(self, other: "DataFrame", *, all: bool = False) -> "DataFrame":  # noqa: A002
        """Rows of this frame not in ``other`` (SQL's EXCEPT)."""
        return self._set(other, SetKind.EXCEPT, all, call_site())

    subtract = except_

    def _set(self, other: "DataFrame", kind: SetKind, all_: bool, origin: Origin | None) -> "DataFrame":
        if not isinstance(other, DataFrame):
            raise FrameUsageError(f"{kind.value}() takes a DataFrame, got {type(other).__name__}", origin=origin)
        if not isinstance(all_, bool):
            raise FrameUsageError("all= takes True or False", origin=origin)
        left, right = self._node, other._node
        if len(left.fields) != len(right.fields):
            raise FrameStatementError(
                f"{kind.value} needs frames with the same number of columns: {len(left.fields)} on the left, "
                f"{len(right.fields)} on the right", origin=origin,
            )
        functions = dict(self._functions)
        merge_functions(functions, other._functions, origin)
        fields = tuple(FrameField(l.name, l.type if l.type == r.type else None, frozenset(), origin)
                       for l, r in zip(left.fields, right.fields))
        return DataFrame(SetNode(origin, fields, kind, all_, left, right), functions)

    # --- plumbing ---------------------------------------------------------------------------

    def _scope(self) -> Scope:
        return Scope(self._node.fields, self._label)

    def _resolver(self) -> Resolver:
        return Resolver(self._scope(), functions=dict(self._functions))

    def _derive(self, node: PlanNode, resolver: Resolver | None = None) -> "DataFrame":
        functions = resolver.functions if resolver is not None else self._functions
        label = self._label if node.fields and node.fields[0] in self._node.fields else None
        return DataFrame(node, functions, label)


class GroupedFrame:
    """``df.group_by(keys)``: call ``.agg(…)`` to compute one row per group."""

    __slots__ = ("_frame", "_keys", "_fields", "_sets", "_origin", "_functions")

    def __init__(self, frame: DataFrame, keys: tuple[ExprNode, ...], fields: tuple[FrameField, ...],
                 sets: tuple[tuple[int, ...], ...] | None, origin: Origin | None,
                 functions: Mapping[str, FunctionInfo] | None = None):
        self._frame = frame
        self._keys = keys
        self._fields = fields
        self._sets = sets
        self._origin = origin
        self._functions = dict(functions if functions is not None else frame._functions)

    def __repr__(self) -> str:
        return f"GroupedFrame[by {', '.join(f.name for f in self._fields)}]"

    def _with_sets(self, sets: tuple[tuple[int, ...], ...]) -> "GroupedFrame":
        return GroupedFrame(self._frame, self._keys, self._fields, sets, self._origin, self._functions)

    def _key_index(self, key, origin: Origin | None) -> int:
        """The position of a key named in ``grouping_sets``."""
        if isinstance(key, str):
            for index, field_ in enumerate(self._fields):
                if field_.name == key:
                    return index
        resolved = self._frame._resolver().resolve_value(as_column(key, origin, "grouping_sets"), Mode.ROW)
        for index, expr in enumerate(self._keys):
            bare = unaliased(expr)
            if isinstance(resolved, InputRef) and isinstance(bare, InputRef) and bare.position == resolved.position:
                return index
        raise FrameStatementError(
            f"grouping set member {output_name(resolved)} is not one of the group_by keys "
            f"({', '.join(f.name for f in self._fields)})", origin=origin,
        )

    def agg(self, *exprs) -> DataFrame:
        """The key columns, then one column per expression (aggregates such as ``F.sum``, or
        expressions over them and over the keys)."""
        origin = call_site()
        return self._aggregate(flatten_items(exprs), origin)

    def _aggregate(self, items: list, origin: Origin | None) -> DataFrame:
        if not items:
            raise FrameStatementError("agg() needs at least one expression", origin=origin)
        frame = self._frame
        keys = tuple(unaliased(k) for k in self._keys)
        resolver = Resolver(frame._scope(), GroupKeys(keys, self._fields), dict(self._functions))
        aggs = tuple(resolver.resolve(as_column(i, origin, "agg"), Mode.AGG) for i in items)
        fields = self._fields + tuple(_computed_field(a) for a in aggs)
        node = AggregateNode(origin, fields, frame._node, keys, aggs, self._sets)
        return DataFrame(node, resolver.functions)


# --- helpers ---------------------------------------------------------------------------------


def _computed_field(expr: ExprNode) -> FrameField:
    """The new column an expression computes: a bare column keeps its name and qualifiers."""
    bare = unaliased(expr)
    qualifiers = bare.field.qualifiers if isinstance(bare, InputRef) else frozenset()
    return FrameField(output_name(expr), type_of(bare), qualifiers, expr.origin)


def _equalities(pairs, left_fields, right_fields, width: int, origin: Origin | None) -> ExprNode:
    condition: ExprNode | None = None
    for lpos, rpos in pairs:
        eq = Func(origin, "eq", (InputRef(origin, lpos, left_fields[lpos]),
                                  InputRef(origin, width + rpos, right_fields[rpos])))
        condition = eq if condition is None else Func(origin, "and", (condition, eq))
    assert condition is not None
    return condition


def _check_columns(schema, name: str) -> None:
    """``schema=`` declares one table's columns: ``{column: type}`` or a list of names."""
    if isinstance(schema, (list, tuple)):
        valid = all(isinstance(c, str) and c for c in schema)
    elif isinstance(schema, Mapping):
        valid = all(isinstance(k, str) and k and (v is None or isinstance(v, str) or
                                                  isinstance(v, Mapping) and "type" in v)
                    for k, v in schema.items())
    else:
        valid = False
    if not valid:
        raise SchemaError(f"schema of table {name}: expected {{column: type}} or a list of column names, "
                          f"got {schema!r}")


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _as_name(value, origin: Origin | None) -> ColumnName:
    if not isinstance(value, str) or not value:
        raise FrameUsageError(f"expected a column name, got {value!r}", origin=origin)
    return ColumnName(origin, value)


def _resolve_ref(scope: Scope, value, origin: Origin | None, where: str) -> InputRef:
    """A key that must be a plain column of one side (``drop``, ``left_on`` …)."""
    node = as_column(value, origin, where)
    resolved = Resolver(scope).resolve_value(node, Mode.ROW)
    if not isinstance(resolved, InputRef):
        raise FrameUsageError(f"{where} takes columns, not the expression {output_name(node)}", origin=origin)
    return resolved
