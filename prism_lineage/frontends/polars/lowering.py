"""Lowering a Polars plan (``snapshot.PNode``) into the Prism IR.

Each Polars node lowers to the IR operator(s) of its SQL analogue, so that a LazyFrame explains
like its SQL twin (specs/polars.md has the table).  Columns are resolved by name against the
input's output, as Polars resolves them; Polars has already expanded ``pl.all()``, resolved
names and types, and inserted the casts its type coercion needs.

Origins are spans of the plan's text (``text.PlanText``): an expression's own text, a node's
line.  Every target also keeps an ingress origin naming the plan node it came from
(``root.input_left`` …, protocol ``polars``): provenance, never lineage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from types import SimpleNamespace
from dataclasses import dataclass, field
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from ...catalog import Catalog
from ...ir import (
    Aggregate,
    AggregateCall,
    Call,
    Distinct,
    Expr,
    Field,
    FieldRef,
    Filter,
    GeneratedColumn,
    GeneratedRole,
    Generator,
    IdAllocator,
    Join,
    JoinKind,
    Limit,
    Literal,
    NestedAccess,
    Origin,
    Project,
    Relation,
    Scan,
    SetKind,
    SetOperation,
    Sort,
    SortKey,
    SourceText,
    Statement,
    Uncertainty,
    Window,
    WindowCall,
    field_id,
)
from ...ir.ingress import IngressOrigin
from ...ir.opaque import Opaque
from ..picked import read_picked_parts
from .errors import InvalidPolarsPlanError
from .snapshot import NAME_MARK, PExpr, PNode
from .text import PlanText, function_name, operator

PROTOCOL = "polars"

_OPERATOR_NAMES = {
    "Eq": "eq", "EqValidity": "is_not_distinct_from", "NotEq": "neq", "NotEqValidity": "is_distinct_from",
    "Lt": "lt", "LtEq": "lte", "Gt": "gt", "GtEq": "gte", "Plus": "add", "Minus": "sub", "Multiply": "mul",
    "Divide": "div", "TrueDivide": "div", "FloorDivide": "intdiv", "Modulus": "mod", "And": "and", "Or": "or",
    "Xor": "xor", "LogicalAnd": "and", "LogicalOr": "or",
}
# Polars aggregation names spelled as SQL's (one registry entry serves both).
_AGGREGATE_NAMES = {"mean": "avg", "std": "stddev", "var": "variance", "implode": "array_agg",
                    "n_unique": "count", "count": "count", "len": "count"}
_JOIN_KINDS = {"inner": JoinKind.INNER, "left": JoinKind.LEFT, "right": JoinKind.RIGHT, "full": JoinKind.FULL,
               "cross": JoinKind.CROSS, "semi": JoinKind.SEMI, "anti": JoinKind.ANTI}
_UDF_REASON = ("a Python function (map_elements / map_batches) or an expression Polars hides (list.eval …): Polars' "
               "plan visitor does not show which columns it reads, so it is read as reading every column of its input "
               "(conservative)")


@dataclass(slots=True)
class _Ingress:
    kind: str
    targets: list[str] = field(default_factory=list)


class Context:
    """Ids, origins, ingress records and findings of one plan being lowered."""

    def __init__(self, root: PNode, catalog: Catalog | None, name: str):
        self.text = PlanText(root)
        self.source = SourceText(self.text.text, 0, name)
        self.catalog = catalog
        self.ids = IdAllocator("s0")
        self.uncertain: list[Uncertainty] = []
        self.ingress: dict[str, _Ingress] = {}
        self.path = "root"
        self.frames = 0

    def origin(self, obj: object) -> Origin | None:
        span = self.text.spans.get(id(obj))
        return self.source.span(*span) if span is not None else None

    def enter(self, node: PNode) -> None:
        self.path = node.path
        self.ingress.setdefault(node.path, _Ingress(node.kind))

    def new_id(self, kind: str, origin: Origin | None) -> str:
        target = self.ids.new(kind, origin)
        self.ingress.setdefault(self.path, _Ingress("node")).targets.append(target)
        return target

    def field(self, relation_id: str, key: int | str, name: str, type_: str | None, origin: Origin | None) -> Field:
        created = Field(field_id(relation_id, key), name, type_, origin)
        self.ingress.setdefault(self.path, _Ingress("node")).targets.append(created.id)
        return created

    def uncertain_about(self, reason: str, field_name: str | None = None, origin: Origin | None = None) -> None:
        if not any(u.reason == reason and u.field == field_name for u in self.uncertain):
            self.uncertain.append(Uncertainty(reason, field_name, origin))

    def ingress_origins(self, present: set[str]) -> tuple[IngressOrigin, ...]:
        out = []
        for path, entry in self.ingress.items():
            kept = tuple(t for t in entry.targets if t in present)
            if kept:
                out.append(IngressOrigin(PROTOCOL, path, entry.kind, kept, None, None))
        return tuple(out)


class _Windows:
    """Window functions met while lowering one node's expressions: each becomes a field of a
    ``Window`` below the node (its id is taken at the first one), and the expression reads
    that field."""

    def __init__(self, ctx: Context, origin: Origin | None):
        self.ctx = ctx
        self.origin = origin
        self.id: str | None = None
        self.calls: list[WindowCall] = []
        self.columns: list[Field] = []

    def add(self, call: WindowCall, name: str) -> Field:
        if self.id is None:
            self.id = self.ctx.new_id("window", self.origin)
        created = self.ctx.field(self.id, len(self.columns), name, None, call.origin)
        self.calls.append(call)
        self.columns.append(created)
        return created

    def build(self, input_: Relation) -> Relation:
        if not self.calls:
            return input_
        return Window(self.id, self.origin, input_, tuple(self.calls), tuple(self.columns))


class ExprLowerer:
    """Lowers expressions of one node against its input's fields (by name)."""

    def __init__(self, ctx: Context, node: PNode, scope: Sequence[Field], windows: _Windows | None = None,
                 measures: list[AggregateCall] | None = None, keys: dict[str, Field] | None = None,
                 aggregate: tuple[str, int] | None = None):
        self.ctx = ctx
        self.node = node
        self.scope = list(scope)
        self.by_name = {f.name: f for f in scope}
        self.windows = windows
        # In a group_by (and a reducing select): aggregations become measures of the Aggregate
        # whose id and number of keys are ``aggregate``; its n-th measure is field n + keys.
        self.measures = measures
        self.keys = keys or {}
        self.aggregate = aggregate
        self.nested = False  # lowering an aggregation's argument inside group_by().agg()
        # rolling(): every aggregation is a window over (partition, order) instead of the whole frame
        self.over: tuple[tuple[Expr, ...], tuple[SortKey, ...]] | None = None

    def fail(self, problem: str) -> InvalidPolarsPlanError:
        return InvalidPolarsPlanError(self.node.path, self.node.kind, problem)

    def ref(self, target: Field, origin: Origin | None) -> FieldRef:
        return FieldRef(self.ctx.new_id("ref", origin), origin, target.type, target.id)

    def lower(self, e: PExpr) -> Expr:
        origin = self.ctx.origin(e)
        kind, a = e.kind, e.attrs
        if kind == "Column":
            name = a.get("name")
            if self.measures is not None and name in self.keys:
                return self.ref(self.keys[name], origin)
            target = self.by_name.get(name)
            if target is None:
                raise self.fail(f"column {name!r} is not in its input (columns: {', '.join(self.by_name)})")
            if self.measures is not None:
                # A column outside an aggregation in group_by().agg(): Polars collects its values
                # per group into a list (an implicit implode).
                return self._measure(AggregateCall(self.ctx.new_id("aggregate", origin), origin, None, "array_agg",
                                                   (self.ref(target, origin),)), origin)
            return self.ref(target, origin)
        if kind == "Literal":
            value = a.get("value")
            return Literal(self.ctx.new_id("literal", origin), origin, None, None if value is None else str(value))
        if kind == "Len":
            call = AggregateCall(self.ctx.new_id("aggregate", origin), origin, None, "count", (), star=True)
            return self._aggregate(call, origin)
        if kind == "BinaryExpr":
            name = _OPERATOR_NAMES.get(operator(e), _snake(operator(e)))
            return self._call(name, [e.child("left"), e.child("right")], origin)
        if kind == "Cast":
            return self._call("cast", [e.child("expr")], origin)
        if kind == "Ternary":
            return self._call("case", [e.child("predicate"), e.child("truthy"), e.child("falsy")], origin)
        if kind == "Agg":
            return self._agg(e, origin)
        if kind == "Function":
            return self._function(e, origin)
        if kind == "Window":
            return self._window(e, origin)
        # The condition / keys choose and order the first argument's values (control, through
        # the registry's polars.* entries; field trial 47).
        if kind == "Filter":
            return self._call("polars.filter", [e.child("input"), e.child("by")], origin)
        if kind == "SortBy":
            return self._call("polars.sort_by", [e.child("expr"), *e.child_list("by")], origin)
        if kind == "Sort":
            return self._call("sort", [e.child("expr")], origin)
        if kind == "Explode":
            # ``col("l").explode()`` in a select: the list's elements, one per row.
            return NestedAccess(self.ctx.new_id("access", origin), origin, None, self.lower(e.child("expr")),
                                ("[]",))
        if kind == "Gather":
            return self._call("gather", [e.child("expr"), e.child("idx")], origin)
        if kind == "Slice":
            return self._call("slice", [e.child("input"), e.child("offset"), e.child("length")], origin)
        if kind == "AnonymousFunction":
            self.ctx.uncertain_about(_UDF_REASON, e.output_name, origin)
            args = tuple(self.ref(f, origin) for f in self.scope)
            return Call(self.ctx.new_id("call", origin), origin, None, "python_udf", args, known=False)
        raise self.fail(f"expressions of kind {kind} are not read")

    def _call(self, name: str, args: list[PExpr | None], origin: Origin | None, known: bool = True) -> Call:
        lowered = tuple(self.lower(a) for a in args if a is not None)
        return Call(self.ctx.new_id("call", origin), origin, None, name, lowered, known)

    def _function(self, e: PExpr, origin: Origin | None) -> Expr:
        name = function_name(e)
        args = e.child_list("input")
        data = e.attrs.get("function_data")
        if name == "struct.field_by_name" and args:
            field_name = data[1] if isinstance(data, (list, tuple)) and len(data) > 1 else "?"
            return NestedAccess(self.ctx.new_id("access", origin), origin, None, self.lower(args[0]),
                                (f".{field_name}",))
        if name == "list.get" and len(args) == 2:
            base = self.lower(args[0])
            if args[1].kind == "Literal" and isinstance(args[1].attrs.get("value"), int):
                return NestedAccess(self.ctx.new_id("access", origin), origin, None, base,
                                    (f"[{args[1].attrs['value']}]",))
            return NestedAccess(self.ctx.new_id("access", origin), origin, None, base, ("[]",),
                                dynamic=(self.lower(args[1]),))
        spelled = {"as_struct": "struct", "is_in": "in", "str.to_uppercase": "upper", "str.uppercase": "upper",
                   "str.to_lowercase": "lower", "str.lowercase": "lower", "top_k_by": "polars.top_k_by"}.get(name, name)
        return self._call(spelled, args, origin)

    def _agg(self, e: PExpr, origin: Origin | None) -> Expr:
        name = str(e.attrs.get("name"))
        args = e.child_list("arguments")
        filter_: Expr | None = None
        order_by: tuple[SortKey, ...] = ()
        lowered: list[Expr] = []
        for arg in args:
            # ``col.filter(p).sum()`` is SQL's FILTER clause; ``col.sort_by(k).first()`` its
            # ORDER BY inside the aggregate.
            if arg.kind == "Filter":
                filter_ = self.lower(arg.child("by"))
                arg = arg.child("input")
            if arg.kind == "SortBy":
                options = arg.attrs.get("sort_options") or (False, [], [])
                descending = list(options[2]) if len(options) > 2 else []
                order_by = tuple(SortKey(self.lower(b), bool(descending[i]) if i < len(descending) else False)
                                 for i, b in enumerate(arg.child_list("by")))
                arg = arg.child("expr")
            lowered.append(self._plain(arg))
        call = AggregateCall(self.ctx.new_id("aggregate", origin), origin, None, _AGGREGATE_NAMES.get(name, name),
                             tuple(lowered), distinct=name == "n_unique", filter=filter_, order_by=order_by)
        return self._aggregate(call, origin)

    def _plain(self, e: PExpr) -> Expr:
        """An aggregate's argument: read row by row (columns are not imploded there)."""
        saved = self.measures, self.nested
        # In group_by().agg(), an aggregation inside another's argument (``(b - b.mean()).implode()``)
        # is over the same group: an aggregate call nested in the argument.
        self.nested = self.nested or saved[0] is not None
        self.measures = None
        try:
            return self.lower(e)
        finally:
            self.measures, self.nested = saved

    def _aggregate(self, call: AggregateCall, origin: Origin | None) -> Expr:
        if self.measures is not None:
            return self._measure(call, origin)
        if self.nested:
            return call
        if self.windows is None:
            raise self.fail("an aggregation here (outside group_by().agg(), select and with_columns) is not read")
        # In select/with_columns beside row-wise expressions: the aggregate of the whole frame,
        # broadcast to every row (SQL's ``SUM(c) OVER ()``); in rolling(), over each row's window.
        partition, order = self.over or ((), ())
        return self._windowed(WindowCall(self.ctx.new_id("window_call", origin), origin, None, call, partition,
                                         order), origin)

    def _measure(self, call: AggregateCall, origin: Origin | None) -> Expr:
        assert self.measures is not None and self.aggregate is not None
        aggregate_id, keys = self.aggregate
        target = field_id(aggregate_id, keys + len(self.measures))
        self.measures.append(call)
        return FieldRef(self.ctx.new_id("ref", origin), origin, None, target)

    def _window(self, e: PExpr, origin: Origin | None) -> Expr:
        if self.windows is None:
            raise self.fail(".over() is not read here (only in select, with_columns and filter)")
        function = e.child("function")
        partition = tuple(self._plain(p) for p in e.child_list("partition_by"))
        order = e.child("order_by")
        keys: tuple[SortKey, ...] = ()
        if order is not None:
            keys = (SortKey(self._plain(order), bool(e.attrs.get("order_by_descending")),
                            None if e.attrs.get("order_by_nulls_last") is None
                            else not e.attrs.get("order_by_nulls_last")),)
        if function.kind == "Agg":
            inner = self._agg_call(function)
        elif function.kind == "Len":
            f_origin = self.ctx.origin(function)
            inner = AggregateCall(self.ctx.new_id("aggregate", f_origin), f_origin, None, "count", (), star=True)
        else:
            inner = self._plain(function)
            if not isinstance(inner, Call):
                # ``pl.col("a").over("g")``: a row-wise expression that is not a call (a column,
                # a struct field …) laid out per window. Its value is the expression's (a value
                # source); the window rule reads a window function's arguments, so it is wrapped
                # in a call that passes the value on (field trial 38: the column was lost).
                inner = Call(self.ctx.new_id("call", origin), origin, None, "over", (inner,))
        call = WindowCall(self.ctx.new_id("window_call", origin), origin, None, inner, partition, keys)
        return self._windowed(call, origin)

    def _agg_call(self, e: PExpr) -> AggregateCall:
        saved = self.measures, self.windows, self.aggregate
        collected: list[AggregateCall] = []
        self.measures, self.windows, self.aggregate = collected, None, ("window_function", 0)
        try:
            self._agg(e, self.ctx.origin(e))
        finally:
            self.measures, self.windows, self.aggregate = saved
        return collected[-1]

    def _windowed(self, call: WindowCall, origin: Origin | None) -> Expr:
        assert self.windows is not None
        created = self.windows.add(call, f"window{len(self.windows.calls)}")
        return FieldRef(self.ctx.new_id("ref", origin), origin, None, created.id)


def _snake(name: str) -> str:
    return "".join(("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(name))


class Lowerer:
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def fail(self, node: PNode, problem: str) -> InvalidPolarsPlanError:
        return InvalidPolarsPlanError(node.path, node.kind, problem)

    def lower(self, node: PNode) -> Relation:
        handler = getattr(self, f"_{node.kind}", None)
        if handler is None:
            raise self.fail(node, f"plan nodes of kind {node.kind} are not read by prism_lineage")
        inputs = [self.lower(child) for child in node.inputs] if node.kind not in ("HStack",) else None
        self.ctx.enter(node)
        if inputs is None:
            return handler(node)
        relation = handler(node, *inputs) if node.kind not in ("Union", "MergeSorted") else handler(node, inputs)
        names = [name for name, _ in node.schema]
        if list(relation.names) != names:
            raise self.fail(node, f"its output ({', '.join(relation.names)}) does not match the schema Polars "
                                  f"gives it ({', '.join(names)})")
        return relation

    # --- helpers -------------------------------------------------------------------------------

    def origin(self, obj: object) -> Origin | None:
        return self.ctx.origin(obj)

    def project(self, input_: Relation, exprs: Sequence[Expr], names: Sequence[str], origin: Origin | None,
                kind: str = "project") -> Project:
        project_id = self.ctx.new_id(kind, origin)
        columns = tuple(self.ctx.field(project_id, i, name, expr.type, expr.origin or origin)
                        for i, (expr, name) in enumerate(zip(exprs, names)))
        return Project(project_id, origin, input_, tuple(exprs), columns)

    def refs(self, fields: Sequence[Field], origin: Origin | None) -> list[FieldRef]:
        return [FieldRef(self.ctx.new_id("ref", origin), origin, f.type, f.id) for f in fields]

    # --- leaves -------------------------------------------------------------------------------

    def _Scan(self, node: PNode) -> Relation:
        paths = node.attrs.get("paths") or []
        stems = []
        for p in paths:
            path = PureWindowsPath(p) if "\\" in p else PurePosixPath(p)
            stem = path.name.split(".")[0]
            if any(ch in stem for ch in "*?[") or not stem:
                stem = path.parent.name or stem
            stems.append(stem)
        unique = list(dict.fromkeys(stems))
        if not unique:
            raise self.fail(node, "the scan names no file")
        table = unique[0] if len(unique) == 1 else f"files({', '.join(unique)})"
        return self.scan(node, table)

    def _DataFrameScan(self, node: PNode) -> Relation:
        self.ctx.frames += 1
        table = f"frame{self.ctx.frames}"
        self.ctx.uncertain_about(
            f"an in-memory DataFrame has no table name: its columns are reported as table {table!r} "
            "(name it with prism_lineage.frontends.polars.named(\"orders\", frame))")
        return self.scan(node, table)

    def _PythonScan(self, node: PNode) -> Relation:
        reason = f"the scan at {node.path} reads from a Python function: which data it reads only that function knows"
        self.ctx.uncertain_about(reason)
        return self.scan(node, "python_scan", reason)

    def scan(self, node: PNode, table: str, reason: str | None = None) -> Relation:
        """The scan of ``table``: its columns as the catalog spells them, and above it — where
        that spelling differs from Polars' — a projection back to Polars' names, which the
        expressions above resolve."""
        origin = self.origin(node)
        declared = self.ctx.catalog.lookup(tuple(table.split("."))) if self.ctx.catalog is not None else None
        if declared is not None:
            table = declared.name
        scan_id = self.ctx.new_id("scan", origin)
        fields = []
        for name, dtype in node.schema:
            column = declared.column(name) if declared is not None else None
            spelled = column.name if column is not None else name
            fields.append(self.ctx.field(scan_id, spelled, spelled, dtype.lower(), origin))
        scan = Scan(scan_id, origin, table, tuple(fields), reason is None, reason)
        names = [name for name, _ in node.schema]
        if list(scan.names) == names:
            return scan
        return self.project(scan, self.refs(scan.fields, origin), names, origin, "spelling")

    # --- single input -------------------------------------------------------------------------

    def _HStack(self, node: PNode) -> Relation:
        exprs = node.exprs.get("exprs", [])
        below = node.inputs[0]
        # named("orders", frame): a literal column added and dropped again names the scan below.
        if (len(exprs) == 1 and exprs[0].output_name == NAME_MARK and exprs[0].kind == "Literal"
                and below.kind in ("DataFrameScan", "Scan")):
            self.ctx.enter(below)
            input_ = self.scan(below, str(exprs[0].attrs.get("value")))
            self.ctx.enter(node)
            marker = self._select_like(node, input_, exprs, keep_input=True)
            return marker
        input_ = self.lower(below)
        self.ctx.enter(node)
        relation = self._select_like(node, input_, exprs, keep_input=True)
        names = [name for name, _ in node.schema]
        if list(relation.names) != names:
            raise self.fail(node, f"its output ({', '.join(relation.names)}) does not match the schema Polars "
                                  f"gives it ({', '.join(names)})")
        return relation

    def _Select(self, node: PNode, input_: Relation) -> Relation:
        exprs = node.exprs.get("expr", [])
        if exprs and all(_reduces(e) for e in exprs):
            return self._reduce(node, input_, exprs)
        return self._select_like(node, input_, exprs, keep_input=False)

    def _select_like(self, node: PNode, input_: Relation, exprs: list[PExpr], keep_input: bool) -> Relation:
        origin = self.origin(node)
        windows = _Windows(self.ctx, origin)
        lowerer = ExprLowerer(self.ctx, node, input_.fields, windows)
        lowered = [lowerer.lower(e) for e in exprs]
        base = windows.build(input_)
        if not keep_input:
            return self.project(base, lowered, [e.output_name or "" for e in exprs], origin)
        # with_columns: the input's columns (replaced by name), then the new ones.
        out_exprs: list[Expr] = list(self.refs(input_.fields, origin))
        names = [f.name for f in input_.fields]
        for expr, e in zip(lowered, exprs):
            if e.output_name in names:
                out_exprs[names.index(e.output_name)] = expr
            else:
                out_exprs.append(expr)
                names.append(e.output_name or "")
        if node.kind == "HStack" and exprs and exprs[0].output_name == NAME_MARK:
            names_out = [n for n in names if n != NAME_MARK]
            keep = [x for x, n in zip(out_exprs, names) if n != NAME_MARK]
            return self.project(base, keep, names_out, origin)
        return self.project(base, out_exprs, names, origin)

    def _reduce(self, node: PNode, input_: Relation, exprs: list[PExpr]) -> Relation:
        """``select(pl.col("c").sum(), pl.len())``: one row, an aggregate with no keys."""
        return self._aggregate(node, input_, [], exprs)

    def _GroupBy(self, node: PNode, input_: Relation) -> Relation:
        if node.attrs.get("apply"):
            raise self.fail(node, "group_by().map_groups() is not read by prism_lineage")
        options = node.attrs.get("options")
        options = getattr(options, "value", options)
        rolling, dynamic = getattr(options, "rolling", None), getattr(options, "dynamic", None)
        if rolling is not None:
            return self._rolling(node, input_, str(rolling.index_column))
        extra: list[tuple[str, Expr]] = []
        if dynamic is not None:
            # group_by_dynamic: a group per window of the index column (and the group_by keys); the
            # window's label — and its boundaries, when asked — are computed from the index values.
            index = str(dynamic.index_column)
            by_name = {f.name: f for f in input_.fields}
            if index not in by_name:
                raise self.fail(node, f"group_by_dynamic's index column {index!r} is not in its input")
            origin = self.origin(node)
            names = (["_lower_boundary", "_upper_boundary"] if dynamic.include_boundaries else []) + [index]
            extra = [(name, Call(self.ctx.new_id("call", origin), origin, None, "dynamic_window",
                                 tuple(self.refs([by_name[index]], origin)))) for name in names]
        return self._aggregate(node, input_, node.exprs.get("keys", []), node.exprs.get("aggs", []), extra)

    def _rolling(self, node: PNode, input_: Relation, index: str) -> Relation:
        """``rolling(index_column, period, group_by=…).agg(…)``: for every row, the aggregations over
        the rows of its group whose index lies in the period before it — window functions
        partitioned by the group keys and ordered by the index; the row's keys and index as
        they are."""
        origin = self.origin(node)
        by_name = {f.name: f for f in input_.fields}
        if index not in by_name:
            raise self.fail(node, f"rolling's index column {index!r} is not in its input")
        key_lowerer = ExprLowerer(self.ctx, node, input_.fields)
        keys = node.exprs.get("keys", [])
        key_exprs = [key_lowerer.lower(k) for k in keys]
        windows = _Windows(self.ctx, origin)
        order = (SortKey(self.refs([by_name[index]], origin)[0], False),)
        lowerer = ExprLowerer(self.ctx, node, input_.fields, windows)
        lowerer.over = (tuple(key_lowerer.lower(k) for k in keys), order)
        aggs = node.exprs.get("aggs", [])
        outputs = [lowerer.lower(a) for a in aggs]
        base = windows.build(input_)
        names = [k.output_name or "" for k in keys] + [index] + [a.output_name or "" for a in aggs]
        return self.project(base, key_exprs + self.refs([by_name[index]], origin) + outputs, names, origin)

    def _aggregate(self, node: PNode, input_: Relation, keys: list[PExpr], aggs: list[PExpr],
                   extra: Sequence[tuple[str, Expr]] = ()) -> Relation:
        origin = self.origin(node)
        key_lowerer = ExprLowerer(self.ctx, node, input_.fields)
        key_exprs = [key_lowerer.lower(k) for k in keys] + [expr for _, expr in extra]
        aggregate_id = self.ctx.new_id("aggregate", origin)
        key_fields = [self.ctx.field(aggregate_id, i, k.output_name or "", None, self.origin(k))
                      for i, k in enumerate(keys)]
        key_fields += [self.ctx.field(aggregate_id, len(keys) + i, name, None, origin)
                       for i, (name, _) in enumerate(extra)]
        measures: list[AggregateCall] = []
        lowerer = ExprLowerer(self.ctx, node, input_.fields, measures=measures,
                              keys={k.output_name: f for k, f in zip(keys, key_fields) if k.output_name},
                              aggregate=(aggregate_id, len(key_fields)))
        outputs = [lowerer.lower(a) for a in aggs]
        direct = {o.field: a.output_name for o, a in zip(outputs, aggs) if isinstance(o, FieldRef)}
        measure_fields = []
        for i, call in enumerate(measures):
            target = field_id(aggregate_id, len(key_fields) + i)
            name = direct.get(target) or f"__measure{i}"
            measure_fields.append(self.ctx.field(aggregate_id, len(key_fields) + i, name, None, call.origin))
        aggregate = Aggregate(aggregate_id, origin, input_, tuple(key_exprs), tuple(measures),
                              tuple(key_fields + measure_fields))
        names = [f.name for f in key_fields] + [a.output_name or "" for a in aggs]
        if [o.field if isinstance(o, FieldRef) else None for o in outputs] == [f.id for f in measure_fields] \
                and list(aggregate.names) == names:
            return aggregate
        return self.project(aggregate, self.refs(key_fields, origin) + outputs, names, origin)

    def _Filter(self, node: PNode, input_: Relation) -> Relation:
        origin = self.origin(node)
        windows = _Windows(self.ctx, origin)
        lowerer = ExprLowerer(self.ctx, node, input_.fields, windows)
        predicate = lowerer.lower(node.exprs["predicate"][0])
        if not windows.calls:
            crossed = self._comma_join(input_, predicate, origin)
            if crossed is not None:
                return crossed
        base = windows.build(input_)
        clause = "where" if base is input_ else "qualify"
        relation: Relation = Filter(self.ctx.new_id("filter", origin), origin, base, predicate, clause)
        if base is not input_:
            relation = self.project(relation, self.refs(input_.fields, origin), [f.name for f in input_.fields],
                                    origin)
        return relation

    def _comma_join(self, input_: Relation, predicate: Expr, origin: Origin | None) -> Relation | None:
        """``join_where`` / a cross join then ``filter``: SQL's ``FROM a, b WHERE …`` — the conjuncts
        relating both sides become the join's condition (join lineage), the others stay a filter
        (below the join's output, over the same columns); ``None`` when the input is no cross join's
        plain output."""
        if not (isinstance(input_, Project) and isinstance(input_.input, Join)
                and input_.input.kind is JoinKind.CROSS and all(isinstance(e, FieldRef) for e in input_.exprs)):
            return None
        from ...ir import transform
        from ...ir.walk import Transformed
        from ..substrait.joins import place_join_predicates

        below = {c.id: e.field for c, e in zip(input_.columns, input_.exprs)}

        def to_join(node: Expr) -> Transformed[Expr]:
            if isinstance(node, FieldRef) and node.field in below:
                return Transformed(dataclasses.replace(node, field=below[node.field]), True)
            return Transformed(node, False)

        # What that helper asks of a lowerer: ids (here: at the filter's origin) and an origin.
        ids = SimpleNamespace(ctx=SimpleNamespace(new_id=lambda kind, _path: self.ctx.new_id(kind, origin),
                                                  origin=origin))
        joined, rest = place_join_predicates(ids, input_.input, transform(predicate, on_expr=to_join).node,
                                             self.ctx.path)
        if joined is input_.input:
            return None
        if rest is not None:
            joined = Filter(self.ctx.new_id("filter", origin), origin, joined, rest, "where")
        return dataclasses.replace(input_, input=joined)

    def _Sort(self, node: PNode, input_: Relation) -> Relation:
        origin = self.origin(node)
        options = node.attrs.get("sort_options") or (False, [], [])
        nulls_last = list(options[1]) if len(options) > 1 else []
        descending = list(options[2]) if len(options) > 2 else []
        lowerer = ExprLowerer(self.ctx, node, input_.fields)
        keys = []
        for i, e in enumerate(node.exprs.get("by_column", [])):
            desc = bool(descending[i] if i < len(descending) else (descending[0] if descending else False))
            last = nulls_last[i] if i < len(nulls_last) else (nulls_last[0] if nulls_last else None)
            keys.append(SortKey(lowerer.lower(e), desc, None if last is None else not last))
        relation: Relation = Sort(self.ctx.new_id("sort", origin), origin, input_, tuple(keys))
        slice_ = node.attrs.get("slice")
        if slice_:
            relation = self._limit(relation, slice_[0], slice_[1], origin)
        return relation

    def _limit(self, input_: Relation, offset: Any, length: Any, origin: Origin | None) -> Limit:
        count = Literal(self.ctx.new_id("literal", origin), origin, None, str(length)) if length is not None else None
        skip = Literal(self.ctx.new_id("literal", origin), origin, None, str(offset)) if offset else None
        return Limit(self.ctx.new_id("limit", origin), origin, input_, count, skip)

    def _Slice(self, node: PNode, input_: Relation) -> Relation:
        offset = node.attrs.get("offset") or 0
        if offset < 0:
            # tail(n) / a slice from the end: rows chosen by position as head's are (a limit).
            return self._limit(input_, 0, node.attrs.get("len"), self.origin(node))
        return self._limit(input_, offset, node.attrs.get("len"), self.origin(node))

    def _Distinct(self, node: PNode, input_: Relation) -> Relation:
        origin = self.origin(node)
        options = node.attrs.get("options") or ("any", None, False, None)
        subset = options[1] if len(options) > 1 else None
        on: tuple[Expr, ...] = ()
        if subset:
            by_name = {f.name: f for f in input_.fields}
            on = tuple(self.refs([by_name[name] for name in subset], origin))
        relation: Relation = Distinct(self.ctx.new_id("distinct", origin), origin, input_, on)
        if len(options) > 3 and options[3]:
            relation = self._limit(relation, options[3][0], options[3][1], origin)
        return relation

    def _SimpleProjection(self, node: PNode, input_: Relation) -> Relation:
        origin = self.origin(node)
        by_name = {f.name: f for f in input_.fields}
        chosen = [by_name[name] for name, _ in node.schema]
        if [f.id for f in chosen] == [f.id for f in input_.fields]:
            return input_
        return self.project(input_, self.refs(chosen, origin), [f.name for f in chosen], origin)

    def _Cache(self, node: PNode, input_: Relation) -> Relation:
        return input_

    def _MapFunction(self, node: PNode, input_: Relation) -> Relation:
        origin = self.origin(node)
        function = node.attrs.get("function")
        name = str(function[0]) if isinstance(function, (list, tuple)) and function else str(function)
        if name == "explode":
            return self._explode(node, input_, list(function[1]), origin)
        if name == "unnest":
            # unnest("s", separator="_") names the fields "s_a" …: the separator is the third item.
            separator = function[2] if len(function) > 2 else None
            return self._unnest(node, input_, list(function[1]), origin, separator)
        if name == "row_index":
            index_id = self.ctx.new_id("window", origin)
            call = WindowCall(self.ctx.new_id("window_call", origin), origin, None,
                              Call(self.ctx.new_id("call", origin), origin, None, "row_number", ()))
            column = self.ctx.field(index_id, 0, str(function[1]), "uint32", origin)
            window = Window(index_id, origin, input_, (call,), (column,))
            return self.project(window, self.refs([column, *input_.fields], origin),
                                [column.name, *[f.name for f in input_.fields]], origin)
        if name == "unpivot" and len(function) > 4:
            return self._unpivot(node, input_, list(function[1]), list(function[2]), str(function[3]),
                                 str(function[4]), origin)
        if name in ("rename",):
            return self.project(input_, self.refs(input_.fields, origin), [n for n, _ in node.schema], origin)
        # LazyFrame.map_batches and other whole-frame functions: opaque.
        reason = (f"{node.path} ({name if 'python' not in name else 'a Python function over the whole frame'}): "
                  "how its output is computed from its input, only the function knows")
        self.ctx.uncertain_about(reason)
        opaque_id = self.ctx.new_id("opaque", origin)
        columns = tuple(self.ctx.field(opaque_id, i, n, t.lower(), origin) for i, (n, t) in enumerate(node.schema))
        return Opaque(opaque_id, origin, f"MapFunction {name}", (input_,), columns, reason)

    def _unpivot(self, node: PNode, input_: Relation, index: list[str], on: list[str], variable: str, value: str,
                 origin: Origin | None) -> Relation:
        """``unpivot(on, index=…)`` (``melt``): one block of rows per ``on`` column — ``SELECT index…,
        'c' AS variable, c AS value`` — stacked as UNION ALL (nulls are kept). ``variable`` holds
        names (no sources); ``value`` each column's values, cast where Polars casts them to one
        type."""
        by_name = {f.name: f for f in input_.fields}
        missing = [c for c in index + on if c not in by_name]
        if missing or not on:
            raise self.fail(node, f"unpivot of columns its input does not have: {', '.join(missing) or '(none)'}")
        out_type = dict(node.schema).get(value)
        in_types = dict(node.inputs[0].schema)
        names = index + [variable, value]
        relation: Relation | None = None
        for column in on:
            read: Expr = self.refs([by_name[column]], origin)[0]
            if in_types.get(column) != out_type:
                read = Call(self.ctx.new_id("call", origin), origin, None, "cast", (read,))
            label = Literal(self.ctx.new_id("literal", origin), origin, None, column)
            block = self.project(input_, [*self.refs([by_name[c] for c in index], origin), label, read], names,
                                 origin, "unpivot")
            if relation is None:
                relation = block
                continue
            set_id = self.ctx.new_id("union", origin)
            columns = tuple(self.ctx.field(set_id, i, f.name, f.type, origin) for i, f in enumerate(relation.fields))
            relation = SetOperation(set_id, origin, SetKind.UNION, True, relation, block, columns)
        assert relation is not None
        return relation

    def _explode(self, node: PNode, input_: Relation, columns: list[str], origin: Origin | None) -> Relation:
        by_name = {f.name: f for f in input_.fields}
        missing = [c for c in columns if c not in by_name]
        if missing:
            raise self.fail(node, f"explode names columns its input does not have: {', '.join(missing)}")
        generator_id = self.ctx.new_id("generator", origin)
        args = tuple(self.refs([by_name[c] for c in columns], origin))
        created = tuple(self.ctx.field(generator_id, i, c, None, origin) for i, c in enumerate(columns))
        outputs = tuple(GeneratedColumn(GeneratedRole.ELEMENT, i, "[]") for i in range(len(columns)))
        generator = Generator(generator_id, origin, input_, "explode", args, created, outputs, True)
        replaced = {c: f for c, f in zip(columns, created)}
        layout = [replaced.get(f.name, f) for f in input_.fields]
        return self.project(generator, self.refs(layout, origin), [f.name for f in layout], origin)

    def _unnest(self, node: PNode, input_: Relation, columns: list[str], origin: Origin | None,
                separator: str | None = None) -> Relation:
        by_name = {f.name: f for f in input_.fields}
        dtypes = node.inputs[0].dtypes
        exprs: list[Expr] = []
        names: list[str] = []
        for f in input_.fields:
            if f.name not in columns:
                exprs.extend(self.refs([f], origin))
                names.append(f.name)
                continue
            dtype = dtypes.get(f.name)
            fields = getattr(dtype, "fields", None)
            if fields is None:
                raise self.fail(node, f"unnest of {f.name!r}, which is not a struct ({dtype})")
            for inner in fields:
                base = self.refs([by_name[f.name]], origin)[0]
                exprs.append(NestedAccess(self.ctx.new_id("access", origin), origin, None, base, (f".{inner.name}",)))
                names.append(inner.name if separator is None else f"{f.name}{separator}{inner.name}")
        return self.project(input_, exprs, names, origin)

    # --- several inputs -----------------------------------------------------------------------

    def _Union(self, node: PNode, inputs: list[Relation]) -> Relation:
        origin = self.origin(node)
        relation = inputs[0]
        for other in inputs[1:]:
            if len(other.fields) != len(relation.fields):
                raise self.fail(node, "its inputs have different numbers of columns")
            set_id = self.ctx.new_id("union", origin)
            columns = tuple(self.ctx.field(set_id, i, f.name, f.type, origin) for i, f in enumerate(relation.fields))
            relation = SetOperation(set_id, origin, SetKind.UNION, True, relation, other, columns)
        return relation

    _MergeSorted = _Union

    def _Join(self, node: PNode, left: Relation, right: Relation) -> Relation:
        origin = self.origin(node)
        options = node.attrs.get("options") or ("Inner",)
        how_raw = options[0]
        asof = isinstance(how_raw, (list, tuple))
        how = str(how_raw[0] if asof else how_raw).lower()
        coalesce = bool(options[4]) if len(options) > 4 else False
        suffix = str(options[3]) if len(options) > 3 and options[3] is not None else "_right"
        if asof:
            how = "left"
        kind = _JOIN_KINDS.get(how)
        if kind is None:
            raise self.fail(node, f"joins of kind {how_raw!r} are not read by prism_lineage")
        left_on = node.exprs.get("left_on", [])
        right_on = node.exprs.get("right_on", [])
        left_lowerer = ExprLowerer(self.ctx, node, left.fields)
        right_lowerer = ExprLowerer(self.ctx, node, right.fields)
        pairs = [(left_lowerer.lower(l), right_lowerer.lower(r)) for l, r in zip(left_on, right_on)]
        key_names = [(l.attrs.get("name"), r.attrs.get("name")) for l, r in zip(left_on, right_on)
                     if l.kind == "Column" and r.kind == "Column"]
        on_names = list(key_names)
        by_right: list[str] = []
        if asof:
            by_left = list(how_raw[4] or []) if len(how_raw) > 4 else []
            by_right = list(how_raw[5] or []) if len(how_raw) > 5 else []
            lf = {f.name: f for f in left.fields}
            rf = {f.name: f for f in right.fields}
            by_pairs = [(self.refs([lf[a]], origin)[0], self.refs([rf[b]], origin)[0]) for a, b in zip(by_left, by_right)]
            key_names += list(zip(by_left, by_right))
            reason = ("join_asof matches each left row with the nearest right row by its 'on' key (and equal 'by' "
                      "keys): read as a left join on an opaque match of those keys (conservative)")
            self.ctx.uncertain_about(reason)
            args = tuple(x for pair in pairs + by_pairs for x in pair)
            condition: Expr | None = Call(self.ctx.new_id("call", origin), origin, None, "asof_match", args,
                                          known=False)
        else:
            condition = None
            for l, r in pairs:
                eq = Call(self.ctx.new_id("call", origin), origin, None, "eq", (l, r))
                condition = eq if condition is None else Call(self.ctx.new_id("call", origin), origin, None, "and",
                                                               (condition, eq))
        predicate = node.exprs.get("predicate")
        if predicate:
            both = ExprLowerer(self.ctx, node, [*left.fields, *right.fields])
            extra = both.lower(predicate[0])
            condition = extra if condition is None else Call(self.ctx.new_id("call", origin), origin, None, "and",
                                                             (condition, extra))
        join = Join(self.ctx.new_id("join", origin), origin, kind, left, right, condition)
        if kind in (JoinKind.SEMI, JoinKind.ANTI):
            return join
        # Polars' output: coalesced keys once, other right columns suffixed where they collide.
        lf_fields, rf_fields = list(left.fields), list(right.fields)
        exprs: list[Expr] = []
        names: list[str] = []
        coalesced = coalesce and kind is not JoinKind.CROSS
        left_keys = {l for l, _ in key_names} if coalesced else set()
        right_keys = {r for _, r in key_names} if coalesced else set()
        if asof:
            # join_asof drops the right 'by' keys always, the right 'on' key only when coalescing
            # one of the left's name (a right key of another name stays, where the right puts it).
            right_keys = set(by_right) | {r for l, r in on_names if coalesce and l == r}
        partner = {l: r for l, r in key_names}
        rf_by_name = {f.name: f for f in rf_fields}
        if coalesced and kind is JoinKind.RIGHT:
            kept_left = [f for f in lf_fields if f.name not in left_keys]
            for f in kept_left:
                exprs += self.refs([f], origin)
                names.append(f.name)
            for f in rf_fields:
                exprs += self.refs([f], origin)
                names.append(f.name + suffix if f.name in names else f.name)
        else:
            for f in lf_fields:
                if coalesced and kind is JoinKind.FULL and f.name in left_keys and partner.get(f.name) in rf_by_name:
                    args = tuple(self.refs([f, rf_by_name[partner[f.name]]], origin))
                    exprs.append(Call(self.ctx.new_id("call", origin), origin, None, "coalesce", args))
                else:
                    exprs += self.refs([f], origin)
                names.append(f.name)
            left_names = set(names)
            for f in rf_fields:
                if f.name in right_keys:
                    continue
                exprs += self.refs([f], origin)
                names.append(f.name + suffix if f.name in left_names else f.name)
        return self.project(join, exprs, names, origin, "join_output")

    def _HConcat(self, node: PNode, *inputs: Relation) -> Relation:
        """``concat(how="horizontal")``: the frames side by side, rows paired by position (the
        shorter padded with nulls) — no row of one decides which rows of another are there, so a
        join with no condition (DuckDB's ``POSITIONAL JOIN`` reads the same), then the columns."""
        origin = self.origin(node)
        relation = inputs[0]
        for other in inputs[1:]:
            relation = Join(self.ctx.new_id("join", origin), origin, JoinKind.CROSS, relation, other, None)
        return self.project(relation, self.refs(relation.fields, origin), [f.name for f in relation.fields], origin,
                            "join_output")


def _reduces(e: PExpr) -> bool:
    """Does ``e`` reduce the frame to one row (aggregations and literals only)?"""
    if e.kind in ("Agg", "Len"):
        return True
    if e.kind in ("Column", "Window", "AnonymousFunction"):
        return False
    if e.kind == "Literal":
        return True
    children = [c for v in e.children.values() for c in (v if isinstance(v, list) else [v]) if c is not None]
    return bool(children) and all(_reduces(c) for c in children) and any(_has_agg(c) for c in children)


def _has_agg(e: PExpr) -> bool:
    if e.kind in ("Agg", "Len"):
        return True
    return any(_has_agg(c) for v in e.children.values() for c in (v if isinstance(v, list) else [v])
               if c is not None)


def lower_plan(root: PNode, catalog: Catalog | None, name: str) -> Statement:
    ctx = Context(root, catalog, name)
    relation = read_picked_parts(Lowerer(ctx).lower(root))
    from ...ir import walk_relations
    from ...ir.expressions import iter_tree
    from ...ir.walk import expressions_of

    present: set[str] = set()
    for r in walk_relations(relation):
        present.add(r.id)
        for created in getattr(r, "columns", None) or ():
            present.add(created.id)
        for expr in expressions_of(r):
            for n in iter_tree(expr):
                present.add(n.id)
    origin = ctx.source.span(0, max(0, len(ctx.text.text) - 1))
    return Statement(0, "select", relation, origin, None, None, tuple(ctx.uncertain), ctx.ingress_origins(present))
