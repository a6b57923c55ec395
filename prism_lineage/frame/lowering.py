"""Lowering a dataframe plan into the Prism IR.

The IR a frame lowers to is the IR its SQL twin lowers to, operator for operator:

=====================================  ===============================================
frame                                  IR
=====================================  ===============================================
``table(name, schema)``                ``Scan`` listing only the columns the plan reads
``filter(p)``                          ``Filter`` (``Window`` → ``Filter(qualify)`` →
                                       ``Project`` when ``p`` compares window functions)
``select`` / ``with_columns`` …        ``Project`` (``Window`` below it for ``.over``)
``group_by(k).agg(a)``                 ``Aggregate`` (+ ``Project`` when an expression
                                       computes over aggregates or keys)
``join``                               ``Join`` (+ ``Project`` merging ``on=`` names)
``sort`` / ``limit`` / ``distinct``    ``Sort`` / ``Limit`` / ``Distinct``
``union`` / ``intersect`` / ``except_``  ``SetOperation``
=====================================  ===============================================

Ids come from the kind of target and its authored call site (``s0.filter@12:5``), with
``~n`` suffixes for repeats in lowering order (``ir/ids.py``), so the same program gives the
same ids run after run.  A plan node used twice (a self-join) is lowered twice: each
occurrence gets its own targets.  Which columns a scan reads is worked out top-down: each
operator asks its input for the positions it needs (``need``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import (
    AccessKind,
    Aggregate,
    AggregateCall,
    Call,
    Distinct,
    Expr,
    Field,
    FieldRef,
    Filter,
    FrameBound,
    FrameUnit,
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
    SetOperation,
    Sort,
    SortKey,
    Statement,
    Window,
    WindowCall,
    WindowFrame,
    field_id,
)
from .expressions import (
    Access,
    Agg,
    Aliased,
    ExprNode,
    FrameBoundSpec,
    Func,
    InputRef,
    KeyRef,
    Lit,
    Over,
    SortSpec,
    iter_nodes,
    unaliased,
)
from .inference import type_of
from .nodes import (
    AggregateNode,
    AliasNode,
    DistinctNode,
    FilterNode,
    GenerateNode,
    JoinNode,
    LimitNode,
    PlanNode,
    ProjectNode,
    ScanNode,
    SetNode,
    SortNode,
)

# Ids of a dataframe plan are those of statement 0, like a one-statement SQL text.
_PREFIX = "s0"


@dataclass(slots=True)
class Lowered:
    """A lowered plan node: its relation and, per frame column position, the IR field that
    carries it (``None`` for a column nothing above reads)."""

    relation: Relation
    fields: list[Field | None]


def lower_plan(node: PlanNode) -> Statement:
    lowered = PlanLowering().relation(node, set(range(len(node.fields))))
    root = lowered.relation
    # Every operator's relation holds its frame's columns in order once they are all needed.
    carried = [f.id for f in lowered.fields if f is not None]
    if len(carried) != len(node.fields) or [f.id for f in root.fields] != carried:
        raise RuntimeError(f"lowering a {type(node).__name__} lost the frame's columns (a bug)")
    return Statement(0, "select", root, node.origin)


class PlanLowering:
    __slots__ = ("ids",)

    def __init__(self) -> None:
        self.ids = IdAllocator(_PREFIX)

    def relation(self, node: PlanNode, need: set[int]) -> Lowered:
        match node:
            case ScanNode():
                return self._scan(node, need)
            case AliasNode(input=input_):
                return self.relation(input_, need)
            case FilterNode():
                return self._filter(node, need)
            case ProjectNode():
                return self._project(node)
            case AggregateNode():
                return self._aggregate(node)
            case JoinNode():
                return self._join(node, need)
            case SortNode():
                return self._sort(node, need)
            case LimitNode():
                return self._limit(node, need)
            case DistinctNode():
                return self._distinct(node)
            case SetNode():
                return self._set(node)
            case GenerateNode():
                return self._generate(node, need)
        raise TypeError(f"no lowering for plan node {type(node).__name__}")  # pragma: no cover - a bug

    # --- leaves --------------------------------------------------------------------------

    def _scan(self, node: ScanNode, need: set[int]) -> Lowered:
        scan_id = self.ids.new("scan", node.origin)
        fields: list[Field | None] = [None] * len(node.fields)
        for position, column in enumerate(node.fields):
            if position in need:
                fields[position] = Field(field_id(scan_id, column.name), column.name, column.type, node.origin)
        read = tuple(f for f in fields if f is not None)
        return Lowered(Scan(scan_id, node.origin, node.table, read, True), fields)

    # --- operators that pass rows --------------------------------------------------------

    def _filter(self, node: FilterNode, need: set[int]) -> Lowered:
        windows = _windows_in([node.predicate])
        below = self.relation(node.input, need | reads(node.predicate))
        if not windows:
            exprs = ExprLowering(self.ids, below.fields)
            predicate = exprs.expr(node.predicate)
            filter_id = self.ids.new("filter", node.origin)
            return Lowered(Filter(filter_id, node.origin, below.relation, predicate, "where"), below.fields)
        # A predicate over window functions (SQL's QUALIFY): window, filter, then the frame's
        # own columns again (the window columns are not part of the frame).
        relation, window_fields = self._window(below, windows)
        exprs = ExprLowering(self.ids, below.fields, windows=window_fields)
        predicate = exprs.expr(node.predicate)
        filter_id = self.ids.new("filter", node.origin)
        relation = Filter(filter_id, node.origin, relation, predicate, "qualify")
        kept = [(p, f) for p, f in enumerate(below.fields) if p in need and f is not None]
        refs = tuple(self._field_ref(f, node.origin) for _, f in kept)
        project = self._project_refs(relation, refs, node.origin, [node.fields[p].name for p, _ in kept])
        fields: list[Field | None] = [None] * len(node.fields)
        for (position, _), created in zip(kept, project.fields):
            fields[position] = created
        return Lowered(project, fields)

    def _join(self, node: JoinNode, need: set[int]) -> Lowered:
        width = len(node.left.fields)
        if node.using is not None:
            return self._using_join(node, need)
        wanted = need | reads(node.condition) if node.condition is not None else set(need)
        left = self.relation(node.left, {p for p in wanted if p < width})
        right = self.relation(node.right, {p - width for p in wanted if p >= width})
        join_id = self.ids.new("join", node.origin)
        condition = None
        if node.condition is not None:
            condition = ExprLowering(self.ids, left.fields + right.fields).expr(node.condition)
        relation = Join(join_id, node.origin, node.kind, left.relation, right.relation, condition)
        fields = left.fields if node.kind in (JoinKind.SEMI, JoinKind.ANTI) else left.fields + right.fields
        return Lowered(relation, fields)

    def _using_join(self, node: JoinNode, need: set[int]) -> Lowered:
        """``join(on=[names])``: the join, then the merged key columns first (as ``SELECT *``
        over ``JOIN … USING`` lists them)."""
        assert node.using is not None
        pairs = node.using
        used_left = {l for l, _ in pairs}
        used_right = {r for _, r in pairs}
        # Output positions → (side, input position): merged keys, other left, other right.
        layout: list[tuple[str, int]] = [("key", i) for i in range(len(pairs))]
        layout += [("left", i) for i in range(len(node.left.fields)) if i not in used_left]
        layout += [("right", i) for i in range(len(node.right.fields)) if i not in used_right]
        left_need = set(used_left)
        right_need = set(used_right)
        for position in need:
            side, index = layout[position]
            if side == "left":
                left_need.add(index)
            elif side == "right":
                right_need.add(index)
        left = self.relation(node.left, left_need)
        right = self.relation(node.right, right_need)
        join_id = self.ids.new("join", node.origin)
        origin = node.origin
        conditions = [self._call("eq", (self._field_ref(left.fields[l], origin),
                                        self._field_ref(right.fields[r], origin)), origin, "BOOLEAN")
                      for l, r in pairs]
        condition = conditions[0]
        for extra in conditions[1:]:
            condition = self._call("and", (condition, extra), origin, "BOOLEAN")
        relation: Relation = Join(join_id, origin, node.kind, left.relation, right.relation, condition)
        if node.kind in (JoinKind.SEMI, JoinKind.ANTI):
            return Lowered(relation, left.fields)
        exprs: list[Expr] = []
        names: list[str] = []
        positions: list[int] = []
        for position in sorted(need):
            side, index = layout[position]
            if side == "key":
                l, r = pairs[index]
                exprs.append(self._merged(node.kind, left.fields[l], right.fields[r], origin))
            elif side == "left":
                exprs.append(self._field_ref(left.fields[index], origin))
            else:
                exprs.append(self._field_ref(right.fields[index], origin))
            names.append(node.fields[position].name)
            positions.append(position)
        project = self._project_refs(relation, tuple(exprs), origin, names)
        fields: list[Field | None] = [None] * len(node.fields)
        for position, created in zip(positions, project.fields):
            fields[position] = created
        return Lowered(project, fields)

    def _merged(self, kind: JoinKind, left: Field | None, right: Field | None, origin: Origin | None) -> Expr:
        """A USING column: the left value, the right one (RIGHT JOIN), or COALESCE (FULL)."""
        assert left is not None and right is not None
        if kind is JoinKind.RIGHT:
            return self._field_ref(right, origin)
        if kind is JoinKind.FULL:
            return self._call("coalesce", (self._field_ref(left, origin), self._field_ref(right, origin)), origin,
                              left.type)
        return self._field_ref(left, origin)

    def _sort(self, node: SortNode, need: set[int]) -> Lowered:
        wanted = set(need)
        for key in node.keys:
            wanted |= reads(key.expr)
        below = self.relation(node.input, wanted)
        exprs = ExprLowering(self.ids, below.fields)
        keys = tuple(SortKey(exprs.expr(k.expr), k.descending, k.nulls_first) for k in node.keys)
        sort_id = self.ids.new("sort", node.origin)
        return Lowered(Sort(sort_id, node.origin, below.relation, keys), below.fields)

    def _limit(self, node: LimitNode, need: set[int]) -> Lowered:
        below = self.relation(node.input, need)
        count = self._literal(node.count, node.origin)
        offset = self._literal(node.offset, node.origin)
        limit_id = self.ids.new("limit", node.origin)
        return Lowered(Limit(limit_id, node.origin, below.relation, count, offset), below.fields)

    def _distinct(self, node: DistinctNode) -> Lowered:
        # Which rows are duplicates depends on every column: all of them are read.
        below = self.relation(node.input, set(range(len(node.input.fields))))
        exprs = ExprLowering(self.ids, below.fields)
        on = tuple(exprs.expr(k) for k in node.on)
        distinct_id = self.ids.new("distinct", node.origin)
        return Lowered(Distinct(distinct_id, node.origin, below.relation, on), below.fields)

    # --- operators that compute columns --------------------------------------------------

    def _project(self, node: ProjectNode) -> Lowered:
        wanted: set[int] = set()
        for expr in node.exprs:
            wanted |= reads(expr)
        below = self.relation(node.input, wanted)
        relation = below.relation
        windows = _windows_in(node.exprs)
        window_fields: dict[int, Field] = {}
        if windows:
            relation, window_fields = self._window(below, windows)
        exprs = ExprLowering(self.ids, below.fields, windows=window_fields)
        lowered = tuple(exprs.expr(e) for e in node.exprs)
        project_id = self.ids.new("project", node.origin)
        columns = tuple(Field(field_id(project_id, i), f.name, e.type, e.origin or f.origin)
                        for i, (f, e) in enumerate(zip(node.fields, lowered)))
        return Lowered(Project(project_id, node.origin, relation, lowered, columns), list(columns))

    def _window(self, below: Lowered, windows: list[Over]) -> tuple[Relation, dict[int, Field]]:
        """One ``Window`` operator computing every window function of an operator."""
        window_id = self.ids.new("window", windows[0].origin)
        exprs = ExprLowering(self.ids, below.fields)
        calls = tuple(exprs.window_call(w) for w in windows)
        columns = tuple(Field(field_id(window_id, i), getattr(c.function, "function", "window"), c.type, c.origin)
                        for i, c in enumerate(calls))
        relation = Window(window_id, calls[0].origin, below.relation, calls, columns)
        return relation, {id(w): f for w, f in zip(windows, columns)}

    def _aggregate(self, node: AggregateNode) -> Lowered:
        wanted: set[int] = set()
        for expr in node.keys + node.aggs:
            wanted |= reads(expr)
        below = self.relation(node.input, wanted)
        aggregate_id = self.ids.new("aggregate", node.origin)
        exprs = ExprLowering(self.ids, below.fields)
        keys = tuple(exprs.expr(k) for k in node.keys)
        key_fields = tuple(Field(field_id(aggregate_id, i), f.name, k.type, k.origin or f.origin)
                           for i, (f, k) in enumerate(zip(node.fields, keys)))
        agg_fields = node.fields[len(node.keys):]
        direct = all(isinstance(unaliased(a), Agg) for a in node.aggs)
        measures: list[AggregateCall] = []
        measure_nodes: list[Agg] = []
        for expr in node.aggs:
            for inner in iter_nodes(expr):
                if isinstance(inner, Agg) and all(inner is not seen for seen in measure_nodes):
                    measure_nodes.append(inner)
                    measures.append(exprs.aggregate_call(inner))
        measure_fields = tuple(
            Field(field_id(aggregate_id, f"m{i}"), agg_fields[i].name if direct else m.function, m.type, m.origin)
            for i, m in enumerate(measures)
        )
        aggregate = Aggregate(aggregate_id, node.origin, below.relation, keys, tuple(measures),
                              key_fields + measure_fields, node.grouping_sets)
        if direct:
            return Lowered(aggregate, list(key_fields + measure_fields))
        # Expressions over aggregates and keys: a projection over the aggregate's fields.
        over = ExprLowering(self.ids, [], keys=list(key_fields),
                            measures={id(n): f for n, f in zip(measure_nodes, measure_fields)})
        outputs = tuple(self._field_ref(f, f.origin) for f in key_fields) + tuple(over.expr(a) for a in node.aggs)
        project = self._project_refs(aggregate, outputs, node.origin, [f.name for f in node.fields])
        return Lowered(project, list(project.fields))

    def _generate(self, node: GenerateNode, need: set[int]) -> Lowered:
        """``explode``: a ``Generator`` over the input (the input's fields pass beside the
        generated ones), then, when the element replaces the exploded column, a projection
        that puts it in that column's place."""
        width = len(node.input.fields)
        wanted = {p for p in need if p < width and p != node.replaces} | reads(node.value)
        below = self.relation(node.input, wanted)
        generator_id = self.ids.new("generator", node.origin)
        argument = ExprLowering(self.ids, below.fields).expr(node.value)
        columns = tuple(Field(field_id(generator_id, i), spec.field.name, spec.field.type, node.origin)
                        for i, spec in enumerate(node.generated))
        outputs = tuple(GeneratedColumn(spec.role, 0, spec.path) for spec in node.generated)
        relation = Generator(generator_id, node.origin, below.relation, "unnest", (argument,), columns, outputs,
                             node.outer)
        if node.replaces is None:
            return Lowered(relation, below.fields + list(columns))
        element = next(c for c, s in zip(columns, node.generated) if s.role is GeneratedRole.ELEMENT)
        others = [c for c, s in zip(columns, node.generated) if s.role is not GeneratedRole.ELEMENT]
        layout = below.fields[:node.replaces] + [element] + below.fields[node.replaces + 1:] + others
        kept = [(p, layout[p]) for p in sorted(need)]
        refs = tuple(self._field_ref(f, node.origin) for _, f in kept)
        project = self._project_refs(relation, refs, node.origin, [node.fields[p].name for p, _ in kept])
        fields: list[Field | None] = [None] * len(node.fields)
        for (position, _), created in zip(kept, project.fields):
            fields[position] = created
        return Lowered(project, fields)

    def _set(self, node: SetNode) -> Lowered:
        left = self.relation(node.left, set(range(len(node.left.fields))))
        right = self.relation(node.right, set(range(len(node.right.fields))))
        set_id = self.ids.new(node.kind.value, node.origin)
        columns = tuple(Field(field_id(set_id, i), f.name, f.type, node.origin) for i, f in enumerate(node.fields))
        relation = SetOperation(set_id, node.origin, node.kind, node.all, left.relation, right.relation, columns)
        return Lowered(relation, list(columns))

    # --- small builders ------------------------------------------------------------------

    def _project_refs(self, relation: Relation, exprs: tuple[Expr, ...], origin: Origin | None,
                      names: list[str]) -> Project:
        project_id = self.ids.new("project", origin)
        columns = tuple(Field(field_id(project_id, i), name, e.type, e.origin) for i, (name, e) in
                        enumerate(zip(names, exprs)))
        return Project(project_id, origin, relation, exprs, columns)

    def _field_ref(self, target: Field | None, origin: Origin | None) -> FieldRef:
        assert target is not None, "a column the plan reads was not lowered"
        return FieldRef(self.ids.new("col", origin), origin, target.type, target.id)

    def _call(self, name: str, args: tuple[Expr, ...], origin: Origin | None, type_) -> Call:
        return Call(self.ids.new("call", origin), origin, type_, name, args)

    def _literal(self, value: int | None, origin: Origin | None) -> Literal | None:
        if value is None:
            return None
        return Literal(self.ids.new("lit", origin), origin, "INT", str(value))


class ExprLowering:
    """Lowers resolved expressions over an operator's input fields (by frame position), its
    group keys and measures, and the window functions computed below it."""

    __slots__ = ("ids", "inputs", "keys", "measures", "windows")

    def __init__(self, ids: IdAllocator, inputs: list[Field | None], *, keys: list[Field] | None = None,
                 measures: dict[int, Field] | None = None, windows: dict[int, Field] | None = None):
        self.ids = ids
        self.inputs = inputs
        self.keys = keys or []
        self.measures = measures or {}
        self.windows = windows or {}

    def expr(self, node: ExprNode) -> Expr:
        ids = self.ids
        origin = node.origin
        match node:
            case Aliased(expr=expr):
                return self.expr(expr)
            case InputRef(position=position):
                return self._ref(self.inputs[position], origin)
            case KeyRef(index=index):
                return self._ref(self.keys[index], origin)
            case Lit(value=value, type=type_):
                return Literal(ids.new("lit", origin), origin, type_, value)
            case Agg() if id(node) in self.measures:
                return self._ref(self.measures[id(node)], origin)
            case Over() if id(node) in self.windows:
                return self._ref(self.windows[id(node)], origin)
            case Func(name=name, args=args, known=known, info=info):
                lowered = tuple(self.expr(a) for a in args)
                # A user function is never a built-in: without its facts it stays opaque.
                return Call(ids.new("call", origin), origin, type_of(node), name, lowered,
                            known and info is None)
            case Access(base=base, steps=steps, semi_structured=semi, exact=exact, reason=reason, type=type_):
                access = AccessKind.SEMI_STRUCTURED if semi else AccessKind.NESTED
                return NestedAccess(ids.new("access", origin), origin, type_, self.expr(base), steps, access, exact,
                                    reason)
            case Agg():
                return self.aggregate_call(node)
        raise TypeError(f"cannot lower {type(node).__name__} here")  # pragma: no cover - resolution forbids it

    def aggregate_call(self, node: Agg) -> AggregateCall:
        args = tuple(self.expr(a) for a in node.args)
        filter_ = self.expr(node.filter) if node.filter is not None else None
        order = tuple(self.sort_key(k) for k in node.order_by)
        return AggregateCall(self.ids.new("agg", node.origin), node.origin, type_of(node), node.name, args,
                             node.distinct, filter_, order, node.star)

    def sort_key(self, key: SortSpec) -> SortKey:
        return SortKey(self.expr(key.expr), key.descending, key.nulls_first)

    def window_call(self, node: Over) -> WindowCall:
        function = node.function
        if isinstance(function, Agg):
            lowered: Expr = self.aggregate_call(function)
        else:
            lowered = self.expr(function)
        partition = tuple(self.expr(p) for p in node.partition_by)
        order = tuple(self.sort_key(k) for k in node.order_by)
        frame = None
        if node.frame is not None:
            frame = WindowFrame(FrameUnit(node.frame.unit), self._bound(node.frame.start, node.origin),
                                self._bound(node.frame.end, node.origin) if node.frame.end is not None else None)
        return WindowCall(self.ids.new("window", node.origin), node.origin, lowered.type, lowered, partition, order,
                          frame)

    def _bound(self, bound: FrameBoundSpec, origin: Origin | None) -> FrameBound:
        if bound.offset is None:
            return FrameBound(bound.kind)
        return FrameBound(bound.kind, Literal(self.ids.new("lit", origin), origin, "INT", str(bound.offset)))

    def _ref(self, target: Field | None, origin: Origin | None) -> FieldRef:
        assert target is not None, "a column the plan reads was not lowered"
        return FieldRef(self.ids.new("col", origin), origin, target.type, target.id)


# --- what expressions read ------------------------------------------------------------------


def reads(node: ExprNode) -> set[int]:
    """The input positions an expression reads."""
    return {n.position for n in iter_nodes(node) if isinstance(n, InputRef)}


def _windows_in(exprs) -> list[Over]:
    found: list[Over] = []
    for expr in exprs:
        for node in iter_nodes(expr):
            if isinstance(node, Over) and all(node is not seen for seen in found):
                found.append(node)
    return found
