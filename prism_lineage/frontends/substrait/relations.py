"""Lowering Substrait relations into IR operators.

Invariant: the IR relation a Substrait relation lowers to has, as its ``fields``, exactly the
relation's output schema *after* its emit (``RelCommon.emit``), in order.  Field references of
the parent resolve by position against those fields.  An emit that drops or reorders fields
becomes a projection of plain references (identity lineage); a ``ProjectRel`` folds its emit
into its own projection.

Each relation type has its own lowering method; the table at the end maps the ``Rel``
oneof to it.  Joins (the physical hash, merge and nested loop joins too) live in ``joins.py``;
plan-level relations (writes, DDL, updates) in ``statements.py``.  A physical relation lowers to
the logical operators it implements: an exchange to its input unchanged, a top-N to a sort and
a limit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from google.protobuf.message import Message

from ...ir import (
    Aggregate,
    AggregateCall,
    CteRef,
    Expr,
    Field,
    FieldRef,
    Filter,
    Limit,
    Literal,
    NestedAccess,
    Project,
    Relation,
    Scan,
    SetKind,
    SetOperation,
    Sort,
    Values,
    Window,
    WindowCall,
)
from ...ir import types as T
from ...ir.opaque import Opaque
from .context import LoweringContext, Record
from .errors import InvalidPlanError
from .expressions import ExpressionLowerer, WindowCollector
from .joins import cross, hash_join, join, lateral_join, merge_join, nested_loop_join, place_join_predicates
from .types import Shape, named_columns, type_name

# Relations whose handler applies its own emit (a generic emit projection would be redundant).
_EMITS_ITSELF = frozenset({"project", "extension_single", "extension_multi", "extension_leaf"})
_PLAN_LEVEL = frozenset({"write", "ddl", "update"})


class RelationLowerer:
    """Lowers the relation tree of one statement (``ctx``)."""

    __slots__ = ("ctx",)

    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx

    # --- dispatch ------------------------------------------------------------------------

    def lower(self, rel: Message, path: str, outer: tuple[Record, ...] = (),
              expected_width: int | None = None) -> Relation:
        """The IR of the ``Rel`` at ``path``; ``outer``: records of the relations whose
        expressions hold the subquery this relation is in (innermost last); ``expected_width``:
        the width the consumer of the output expects, when it is known (RelRoot names)."""
        kind = rel.WhichOneof("rel_type")
        if kind is None:
            raise InvalidPlanError(path, "the relation is empty (no rel_type is set): an input is missing")
        if kind in _PLAN_LEVEL:
            raise InvalidPlanError(path, f"a {getattr(rel, kind).DESCRIPTOR.name} may only be the root of a plan "
                                         "relation")
        handler = _HANDLERS.get(kind)
        if handler is None:
            raise InvalidPlanError(path, f"relations of kind {kind} ({getattr(rel, kind).DESCRIPTOR.name}) are not "
                                         "supported")
        node = getattr(rel, kind)
        common = node.common if _has(node, "common") else None
        self.ctx.enter(path, node.DESCRIPTOR.name, common.rel_anchor if common is not None else None)
        relation = handler(self, node, path, outer, expected_width)
        if kind in _EMITS_ITSELF:
            return relation
        return self.emit(relation, common, f"{path}.{kind}.common.emit", path)

    def input(self, node: Message, path: str, outer: tuple[Record, ...], name: str = "input") -> Relation:
        if not node.HasField(name):
            raise InvalidPlanError(path, f"the {node.DESCRIPTOR.name} has no {name} relation")
        return self.lower(getattr(node, name), f"{path}.{name}", outer)

    def expressions(self, path: str, record: Sequence[Field], anchor: int | None, outer: tuple[Record, ...],
                    windows: WindowCollector | None = None) -> ExpressionLowerer:
        return ExpressionLowerer(self.ctx, path, Record(tuple(record), anchor or None), outer,
                                 self.subquery, windows)

    def subquery(self, rel: Message, path: str, outer: tuple[Record, ...]) -> Relation:
        return self.lower(rel, path, outer)

    # --- emit ----------------------------------------------------------------------------

    def emit(self, relation: Relation, common: Message | None, where: str, path: str) -> Relation:
        """Apply ``RelCommon.emit``: a projection of the direct output's fields, by position."""
        mapping = _emit_mapping(common)
        if mapping is None:
            return relation
        fields = relation.fields
        _check_mapping(mapping, len(fields), where)
        if mapping == list(range(len(fields))):
            return relation
        chosen = [fields[i] for i in mapping]
        return self.project(relation, [self.ref(f, path) for f in chosen], [f.name for f in chosen], path, "emit")

    # --- small builders ------------------------------------------------------------------

    def ref(self, target: Field, path: str) -> FieldRef:
        return FieldRef(self.ctx.new_id("ref", path), self.ctx.origin, target.type, target.id)

    def project(self, input_: Relation, exprs: Sequence[Expr], names: Sequence[str], path: str,
                kind: str = "project") -> Project:
        project_id = self.ctx.new_id(kind, path)
        columns = tuple(
            self.ctx.field(project_id, i, name, expr.type, path, like=_ref_field(expr) or expr.id)
            for i, (expr, name) in enumerate(zip(exprs, names))
        )
        return Project(project_id, self.ctx.origin, input_, tuple(exprs), columns)

    def restore(self, relation: Relation, fields: Sequence[Field], path: str) -> Relation:
        """Project ``relation`` back onto ``fields`` (after a Window added some)."""
        if tuple(f.id for f in relation.fields) == tuple(f.id for f in fields):
            return relation
        return self.project(relation, [self.ref(f, path) for f in fields], [f.name for f in fields], path)

    # --- leaves --------------------------------------------------------------------------

    def read(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        p = f"{path}.read"
        columns = named_columns(node.base_schema, f"{p}.base_schema")
        kind = node.WhichOneof("read_type")
        if kind == "virtual_table":
            base: Relation = self._virtual_table(node.virtual_table, columns, path, f"{p}.virtual_table")
        else:
            table, reason = self._table(node, kind, p)
            base = self.scan(table, columns, reason, path)
        record = base.fields
        lowerer = self.expressions(path, record, node.common.rel_anchor, outer)
        filters: list[tuple[str, Expr]] = []
        for name, clause in (("filter", "where"), ("best_effort_filter", "best_effort")):
            if node.HasField(name):
                filters.append((clause, lowerer.lower(getattr(node, name), f"{p}.{name}")))
        mask = _mask(node, len(columns), f"{p}.projection")
        if isinstance(base, Scan):
            # A scan lists the columns the read produces or its filters read (its projection mask).
            used = set(mask) | {i for _, expr in filters for i in _positions(expr, record)}
            base = Scan(base.id, base.origin, base.table, tuple(f for i, f in enumerate(record) if i in used),
                        base.schema_known, base.opaque_reason)
        relation = base
        for clause, predicate in filters:
            relation = Filter(self.ctx.new_id("filter", path), self.ctx.origin, relation, predicate, clause)
        wanted = [record[i] for i in mask]
        if [f.id for f in relation.fields] == [f.id for f in wanted]:
            return relation
        return self.project(relation, [self.ref(f, path) for f in wanted], [f.name for f in wanted], path)

    def _table(self, node: Message, kind: str | None, path: str) -> tuple[str, str | None]:
        """The name of the table a read reads and, if it cannot be told, why."""
        if kind == "named_table":
            names = tuple(node.named_table.names)
            if not names:
                raise InvalidPlanError(f"{path}.named_table", "the named table has no name")
            catalog = self.ctx.plan.catalog
            declared = catalog.lookup(names) if catalog is not None else None
            return (declared.name if declared is not None else ".".join(names)), None
        if kind == "local_files":
            items = node.local_files.items
            uris = [getattr(i, i.WhichOneof("path_type")) for i in items if i.WhichOneof("path_type")]
            if not uris:
                raise InvalidPlanError(f"{path}.local_files", "the local files list no file")
            return (uris[0] if len(uris) == 1 else f"files({', '.join(uris)})"), None
        if kind == "iceberg_table":
            return node.iceberg_table.direct.metadata_uri, None
        if kind == "extension_table":
            detail = _type_of(node.extension_table.detail)
            label = f"extension_table({detail})"
            return label, (f"the read at {path} reads an extension table ({detail}): which table it is, only its "
                           "producer knows, so lineage through it is unknown")
        raise InvalidPlanError(path, "the read names no table (no read_type is set)")

    def scan(self, table: str, columns: list[tuple[str, Message | None, Shape | None]], reason: str | None,
             path: str) -> Scan:
        scan_id = self.ctx.new_id("scan", path)
        catalog = self.ctx.plan.catalog
        declared = catalog.lookup(tuple(table.split("."))) if catalog is not None and reason is None else None
        fields: list[Field] = []
        seen: set[str] = set()
        for position, (name, substrait_type, shape) in enumerate(columns):
            column = declared.column(name) if declared is not None else None
            spelled = column.name if column is not None else name
            key = spelled if spelled not in seen else str(position)
            seen.add(key)
            fields.append(self.ctx.field(scan_id, key, spelled, self.type_of(substrait_type), path, substrait_type,
                                         shape))
        if reason is not None:
            self.ctx.uncertain_about(reason)
        return Scan(scan_id, self.ctx.origin, table, tuple(fields), reason is None, reason)

    def _virtual_table(self, table: Message, columns: list[tuple[str, Message | None, Shape | None]], path: str,
                       p: str) -> Values:
        values_id = self.ctx.new_id("values", path)
        fields = tuple(self.ctx.field(values_id, i, name, self.type_of(t), path, t, shape)
                       for i, (name, t, shape) in enumerate(columns))
        lowerer = self.expressions(path, (), None, ())
        rows: list[tuple[Expr, ...]] = []
        for i, row in enumerate(table.expressions):
            rows.append(tuple(lowerer.lower_all(row.fields, f"{p}.expressions[{i}].fields")))
        for i, row in enumerate(table.values):  # deprecated: rows of literals
            rows.append(tuple(lowerer.literal(v, f"{p}.values[{i}].fields[{j}]") for j, v in enumerate(row.fields)))
        for i, row in enumerate(rows):
            if len(row) != len(fields):
                raise InvalidPlanError(f"{p}", f"row {i} has {len(row)} value(s), the base schema {len(fields)} field(s)")
        return Values(values_id, self.ctx.origin, fields, tuple(rows))

    # --- single input ----------------------------------------------------------------------

    def filter(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        p = f"{path}.filter"
        input_ = self.input(node, p, outer)
        if not node.HasField("condition"):
            raise InvalidPlanError(p, "the filter has no condition")
        windows = WindowCollector(self.ctx, path)
        lowerer = self.expressions(path, input_.fields, node.common.rel_anchor, outer, windows)
        condition = lowerer.lower(node.condition, f"{p}.condition")
        base = windows.build(input_)
        if base is input_:
            base, remaining = place_join_predicates(self, base, condition, path)
        else:
            remaining = condition
        relation = base
        if remaining is not None:
            relation = Filter(self.ctx.new_id("filter", path), self.ctx.origin, base, remaining, "where")
        return self.restore(relation, input_.fields, path)

    def project_rel(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        p = f"{path}.project"
        input_ = self.input(node, p, outer)
        windows = WindowCollector(self.ctx, path)
        lowerer = self.expressions(path, input_.fields, node.common.rel_anchor, outer, windows)
        exprs = lowerer.lower_all(node.expressions, f"{p}.expressions")
        base = windows.build(input_)
        width = len(input_.fields) + len(exprs)
        mapping = _emit_mapping(node.common) if _has(node, "common") else None
        if mapping is None and self.ctx.plan.expressions_only is not None:
            # DuckDB's ProjectRel without an emit means "only the expressions" (specs/substrait.md).
            mapping = list(range(len(input_.fields), width))
            self.ctx.uncertain_about(self.ctx.plan.expressions_only)
        elif mapping is None:
            mapping = list(range(width))
        _check_mapping(mapping, width, f"{p}.common.emit")
        out_exprs: list[Expr] = []
        names: list[str] = []
        for index in mapping:
            if index < len(input_.fields):
                source = input_.fields[index]
                out_exprs.append(self.ref(source, path))
                names.append(source.name)
            else:
                expr = exprs[index - len(input_.fields)]
                out_exprs.append(expr)
                names.append(expression_name(expr, base.fields))
        return self.project(base, out_exprs, names, path)

    def sort(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        p = f"{path}.sort"
        return self.sorted(node, self.input(node, p, outer), path, p, outer)

    def sorted(self, node: Message, input_: Relation, path: str, p: str, outer: tuple[Record, ...]) -> Relation:
        """``input_`` ordered by ``node.sorts`` (a ``SortRel``'s or a ``TopNRel``'s)."""
        windows = WindowCollector(self.ctx, path)
        lowerer = self.expressions(path, input_.fields, node.common.rel_anchor, outer, windows)
        keys = lowerer.sort_keys(node.sorts, f"{p}.sorts")
        relation = Sort(self.ctx.new_id("sort", path), self.ctx.origin, windows.build(input_), keys)
        return self.restore(relation, input_.fields, path)

    def top_n(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        """``ORDER BY sorts LIMIT count OFFSET offset`` in one relation.  ``WITH TIES`` also keeps
        the rows that tie with the last one: the same dependencies (as SQL's ``FETCH … WITH
        TIES``)."""
        p = f"{path}.top_n"
        relation = self.sorted(node, self.input(node, p, outer), path, p, outer)
        # The count and offset read no row: they are evaluated once, against no record.
        lowerer = self.expressions(path, (), node.common.rel_anchor, outer)
        count = lowerer.lower(node.count, f"{p}.count") if node.HasField("count") else None
        offset = lowerer.lower(node.offset, f"{p}.offset") if node.HasField("offset") else None
        return Limit(self.ctx.new_id("limit", path), self.ctx.origin, relation, count, offset)

    def fetch(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        p = f"{path}.fetch"
        input_ = self.input(node, p, outer)
        # OFFSET and the count read no row: they are evaluated once, against no record.
        lowerer = self.expressions(path, (), node.common.rel_anchor, outer)
        offset: Expr | None = None
        count: Expr | None = None
        if node.HasField("offset_expr"):
            offset = lowerer.lower(node.offset_expr, f"{p}.offset_expr")
        elif node.HasField("offset"):  # deprecated: an integer
            offset = lowerer._literal(str(node.offset), T.BIGINT)
        if node.HasField("count_expr"):
            count = lowerer.lower(node.count_expr, f"{p}.count_expr")
        elif node.HasField("count") and node.count >= 0:  # deprecated: an integer, -1 for ALL
            count = lowerer._literal(str(node.count), T.BIGINT)
        return Limit(self.ctx.new_id("limit", path), self.ctx.origin, input_, count, offset)

    def aggregate(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        p = f"{path}.aggregate"
        input_ = self.input(node, p, outer)
        lowerer = self.expressions(path, input_.fields, node.common.rel_anchor, outer)
        key_messages, key_paths, sets = _grouping(node, p)
        datafusion_layout = len(sets) > 1 and self.ctx.plan.producer == "datafusion"
        if datafusion_layout:
            key_messages, key_paths, sets = _distinct_keys(key_messages, key_paths, sets)
        keys = [lowerer.lower(m, key_path) for m, key_path in zip(key_messages, key_paths)]
        measures: list[AggregateCall] = []
        for i, measure in enumerate(node.measures):
            mp = f"{p}.measures[{i}]"
            filter_ = lowerer.lower(measure.filter, f"{mp}.filter") if measure.HasField("filter") else None
            measures.append(lowerer.aggregate_call(measure.measure, f"{mp}.measure", filter_))
        if not keys and not measures:
            raise InvalidPlanError(p, "the aggregate has no grouping expression and no measure: it yields no field")
        names = [m.function for m in measures]
        if len(sets) > 1:
            # An aggregate of several grouping sets also says which set yielded each row.
            # Substrait puts the set's index last; DataFusion (a producer quirk) its
            # ``__grouping_id`` bitmask between the keys and the measures, as its own schema
            # does.  Either is GROUPING(every key): an aggregate over the keys, as the SQL
            # frontend reads GROUPING (DataFusion's optimiser computes GROUPING(k) from it).
            args = tuple(lowerer.lower(m, key_path) for m, key_path in zip(key_messages, key_paths))
            which = AggregateCall(self.ctx.new_id("agg", path), self.ctx.origin, "INT", "grouping", args)
            position = 0 if datafusion_layout else len(measures)
            measures.insert(position, which)
            names.insert(position, "__grouping_id" if datafusion_layout else "grouping_set_index")
        aggregate_id = self.ctx.new_id("aggregate", path)
        columns = [self.ctx.field(aggregate_id, i, expression_name(k, input_.fields), k.type, path,
                                  like=_ref_field(k) or k.id)
                   for i, k in enumerate(keys)]
        columns += [self.ctx.field(aggregate_id, len(keys) + i, name, m.type, path)
                    for i, (m, name) in enumerate(zip(measures, names))]
        everything = tuple(range(len(keys)))
        grouping_sets = None if len(sets) <= 1 and (not sets or sets[0] == everything) else tuple(sets)
        return Aggregate(aggregate_id, self.ctx.origin, input_, tuple(keys), tuple(measures), tuple(columns),
                         grouping_sets)

    def window(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        p = f"{path}.window"
        input_ = self.input(node, p, outer)
        lowerer = self.expressions(path, input_.fields, node.common.rel_anchor, outer)
        window_id = self.ctx.new_id("window", path)
        calls: list[WindowCall] = []
        fields: list[Field] = []
        for i, function in enumerate(node.window_functions):
            fp = f"{p}.window_functions[{i}]"
            decl = self.ctx.extensions.function(function.function_reference, f"{fp}.function_reference")
            # Partition and order belong to the relation; each call gets its own copy.
            partitions = lowerer.lower_all(node.partition_expressions, f"{p}.partition_expressions")
            order_by = lowerer.sort_keys(node.sorts, f"{p}.sorts")
            call = lowerer.window_call(decl, function, partitions, order_by, fp)
            calls.append(call)
            fields.append(self.ctx.field(window_id, i, decl.ir_name, call.type, path, function.output_type))
        if not calls:
            raise InvalidPlanError(p, "the window relation has no window function")
        return Window(window_id, self.ctx.origin, input_, tuple(calls), tuple(fields))

    def expand(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        """Each input row is emitted once per duplicate: a UNION ALL of one projection per
        duplicate over the (shared) input, each ending with the duplicate's ordinal."""
        p = f"{path}.expand"
        input_ = self.input(node, p, outer)
        counts = {len(f.switching_field.duplicates) for f in node.fields if f.WhichOneof("field_type") == "switching_field"}
        if len(counts) > 1:
            raise InvalidPlanError(f"{p}.fields", f"switching fields list different numbers of duplicates: "
                                                  f"{sorted(counts)}")
        duplicates = counts.pop() if counts else 1
        lowerer = self.expressions(path, input_.fields, node.common.rel_anchor, outer)
        projects: list[Relation] = []
        for k in range(duplicates):
            exprs: list[Expr] = []
            for i, definition in enumerate(node.fields):
                fp = f"{p}.fields[{i}]"
                kind = definition.WhichOneof("field_type")
                if kind == "consistent_field":
                    exprs.append(lowerer.lower(definition.consistent_field, f"{fp}.consistent_field"))
                elif kind == "switching_field":
                    exprs.append(lowerer.lower(definition.switching_field.duplicates[k],
                                               f"{fp}.switching_field.duplicates[{k}]"))
                else:
                    raise InvalidPlanError(fp, "the expand field is neither switching nor consistent")
            # Input fields beyond the definitions are emitted as they are.
            exprs += [self.ref(f, path) for f in input_.fields[len(node.fields):]]
            exprs.append(Literal(self.ctx.new_id("lit", path), self.ctx.origin, T.BIGINT, str(k)))
            names = [expression_name(e, input_.fields) for e in exprs[:-1]] + ["ordinal"]
            projects.append(self.project(input_, exprs, names, path))
        return self.fold(SetKind.UNION, True, projects, path)

    def exchange(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        """Rows redistributed among partitions, unchanged: a projection of plain references
        (identity), kept so the exchange has its targets and ingress origin.  Where a row goes
        (scatter fields, bucket expressions, broadcast, round robin, the targets) says where it
        is processed, not which rows or values the plan's result has: it gives no lineage.  The
        expressions are still read, so a reference out of range is an error."""
        p = f"{path}.exchange"
        input_ = self.input(node, p, outer)
        lowerer = self.expressions(path, input_.fields, node.common.rel_anchor, outer)
        kind = node.WhichOneof("exchange_kind")
        if kind == "scatter_by_fields":
            for i, reference in enumerate(node.scatter_by_fields.fields):
                lowerer.selection(reference, f"{p}.scatter_by_fields.fields[{i}]")
        elif kind in ("single_target", "multi_target"):
            bucket = getattr(node, kind)
            if bucket.HasField("expression"):
                lowerer.lower(bucket.expression, f"{p}.{kind}.expression")
        fields = input_.fields
        return self.project(input_, [self.ref(f, path) for f in fields], [f.name for f in fields], path, "exchange")

    # --- several inputs ------------------------------------------------------------------

    def set_rel(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        p = f"{path}.set"
        inputs = [self.lower(rel, f"{p}.inputs[{i}]", outer) for i, rel in enumerate(node.inputs)]
        if len(inputs) < 2:
            raise InvalidPlanError(p, f"a set operation has at least two inputs, this one has {len(inputs)}")
        width = len(inputs[0].fields)
        for i, relation in enumerate(inputs[1:], 1):
            if len(relation.fields) != width:
                raise InvalidPlanError(f"{p}.inputs[{i}]", f"every input of a set operation has the same number of "
                                                           f"fields: the primary has {width}, this one "
                                                           f"{len(relation.fields)}")
        primary, secondary = inputs[0], inputs[1:]
        match node.op:
            case 1:  # MINUS_PRIMARY: EXCEPT DISTINCT
                return self.fold(SetKind.EXCEPT, False, inputs, path)
            case 7:  # MINUS_PRIMARY_ALL: EXCEPT ALL
                return self.fold(SetKind.EXCEPT, True, inputs, path)
            case 2:  # MINUS_MULTISET: the primary's rows not in every secondary
                removed = self.fold(SetKind.INTERSECT, False, secondary, path)
                return self.fold(SetKind.EXCEPT, False, [primary, removed], path)
            case 3:  # INTERSECTION_PRIMARY: the primary's rows in any secondary
                found = self.fold(SetKind.UNION, True, secondary, path)
                return self.fold(SetKind.INTERSECT, False, [primary, found], path)
            case 4:  # INTERSECTION_MULTISET: INTERSECT DISTINCT
                return self.fold(SetKind.INTERSECT, False, inputs, path)
            case 8:  # INTERSECTION_MULTISET_ALL: INTERSECT ALL
                return self.fold(SetKind.INTERSECT, True, inputs, path)
            case 5:  # UNION_DISTINCT
                return self.fold(SetKind.UNION, False, inputs, path)
            case 6:  # UNION_ALL
                return self.fold(SetKind.UNION, True, inputs, path)
        raise InvalidPlanError(f"{p}.op", f"unknown set operation {node.op}")

    def fold(self, kind: SetKind, all_: bool, inputs: Sequence[Relation], path: str) -> Relation:
        """``((a op b) op c) …``: the IR's set operations are binary."""
        relation = inputs[0]
        for right in inputs[1:]:
            set_id = self.ctx.new_id(kind.value, path)
            columns = tuple(
                self.ctx.field(set_id, i, left.name, left.type if left.type == other.type else None, path,
                               like=left.id)
                for i, (left, other) in enumerate(zip(relation.fields, right.fields))
            )
            relation = SetOperation(set_id, self.ctx.origin, kind, all_, relation, right, columns)
        return relation

    # --- references and extensions -------------------------------------------------------

    def reference(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        """A subtree shared through ``Plan.relations``: like a CTE, one definition and one
        reference node per use."""
        ordinal = node.subtree_ordinal
        relations = self.ctx.plan.plan.relations
        if not 0 <= ordinal < len(relations):
            raise InvalidPlanError(f"{path}.reference", f"subtree_ordinal {ordinal} is out of range: the plan has "
                                                        f"{len(relations)} relation(s)")
        definition = self.ctx.shared.get(ordinal)
        if definition is None:
            if self.ctx.sharing(ordinal):
                raise InvalidPlanError(f"{path}.reference", f"relations[{ordinal}] refers to itself through "
                                                            "ReferenceRel")
            entry = relations[ordinal]
            which = entry.WhichOneof("rel_type")
            shared_path = f"relations[{ordinal}].rel" if which == "rel" else f"relations[{ordinal}].root.input"
            rel = entry.rel if which == "rel" else entry.root.input
            self.ctx.begin_shared(ordinal)
            try:
                # Outer references inside a shared subtree cannot be resolved by steps (the
                # spec asks for anchors there): it is lowered outside any subquery.
                definition = self.lower(rel, shared_path)
            finally:
                self.ctx.end_shared(ordinal)
            self.ctx.shared[ordinal] = definition
        ref_id = self.ctx.new_id("cte", path)
        columns = tuple(self.ctx.field(ref_id, i, f.name, f.type, path, like=f.id)
                        for i, f in enumerate(definition.fields))
        return CteRef(ref_id, self.ctx.origin, f"relations[{ordinal}]", definition, columns)

    def extension(self, node: Message, path: str, outer: tuple[Record, ...], expected: int | None) -> Relation:
        kind = node.DESCRIPTOR.name
        p = f"{path}.{_ONEOF_OF[kind]}"
        if kind == "ExtensionSingleRel":
            inputs = [self.input(node, p, outer)]
        elif kind == "ExtensionMultiRel":
            inputs = [self.lower(rel, f"{p}.inputs[{i}]", outer) for i, rel in enumerate(node.inputs)]
        else:
            inputs = []
        detail = _type_of(node.detail)
        names = _extension_names(node, inputs, expected, p, kind)
        reason = (f"{kind} ({detail}) at {path} is an extension relation: how it computes its output only its "
                  "producer knows")
        self.ctx.uncertain_about(reason)
        if not inputs:
            return self.scan(f"{_ONEOF_OF[kind]}({detail})", [(n, None, None) for n in names], reason, path)
        opaque_id = self.ctx.new_id("opaque", path)
        columns = tuple(self.ctx.field(opaque_id, i, name, None, path) for i, name in enumerate(names))
        return Opaque(opaque_id, self.ctx.origin, f"{kind} {detail}", tuple(inputs), columns,
                      f"{reason}: every input column may flow into every output field")

    def type_of(self, substrait_type: Message | None) -> T.DataType:
        return type_name(substrait_type, self.ctx.extensions.type_names)


def expression_name(expr: Expr, record: Sequence[Field]) -> str:
    """A name for a computed field (Substrait names fields only at the root)."""
    if isinstance(expr, FieldRef):
        for field in record:
            if field.id == expr.field:
                return field.name
    if isinstance(expr, NestedAccess):
        return expression_name(expr.base, record) + "".join(expr.steps)
    for attribute in ("function", "value"):
        value = getattr(expr, attribute, None)
        if isinstance(value, str):
            return value
    function = getattr(expr, "function", None)
    if function is not None and isinstance(getattr(function, "function", None), str):
        return function.function
    return type(expr).__name__.lower()


def _ref_field(expr: Expr) -> str | None:
    return expr.field if isinstance(expr, FieldRef) else None


def _has(node: Message, name: str) -> bool:
    return name in node.DESCRIPTOR.fields_by_name and node.HasField(name)


def _emit_mapping(common: Message | None) -> list[int] | None:
    if common is None or common.WhichOneof("emit_kind") != "emit":
        return None
    return list(common.emit.output_mapping)


def _check_mapping(mapping: list[int], width: int, where: str) -> None:
    for index in mapping:
        if not 0 <= index < width:
            raise InvalidPlanError(where, f"output_mapping names field {index}, but the relation's direct output has "
                                          f"{width} field(s)")


def _mask(node: Message, width: int, path: str) -> list[int]:
    """The positions a read's projection keeps, in order (all when it has none)."""
    if not node.HasField("projection") or not node.projection.HasField("select"):
        return list(range(width))
    positions = [item.field for item in node.projection.select.struct_items]
    for position in positions:
        if not 0 <= position < width:
            raise InvalidPlanError(path, f"the projection selects field {position}, but the base schema has {width}")
    return positions


def _positions(expr: Expr, record: Sequence[Field]) -> set[int]:
    from ...ir.expressions import iter_tree

    index = {f.id: i for i, f in enumerate(record)}
    return {index[node.field] for node in iter_tree(expr) if isinstance(node, FieldRef) and node.field in index}


def _grouping(node: Message, path: str) -> tuple[list[Message], list[str], list[tuple[int, ...]]]:
    """The grouping expressions (in output order), their paths, and each grouping set as
    positions among them.  Current plans list the expressions once on the aggregate and refer
    to them from each set; older ones repeat them inside each set (``Grouping.grouping_expressions``,
    deprecated), where equal expressions are one key."""
    expressions = list(node.grouping_expressions)
    paths = [f"{path}.grouping_expressions[{i}]" for i in range(len(expressions))]
    sets: list[tuple[int, ...]] = []
    for g, grouping in enumerate(node.groupings):
        if len(grouping.expression_references):
            refs = list(grouping.expression_references)
            for ref in refs:
                if ref >= len(expressions):
                    raise InvalidPlanError(f"{path}.groupings[{g}].expression_references",
                                           f"grouping expression {ref} is out of range: the aggregate lists "
                                           f"{len(expressions)}")
        else:
            refs = []
            for e, expression in enumerate(grouping.grouping_expressions):
                position = next((i for i, known in enumerate(expressions) if known == expression), None)
                if position is None:
                    position = len(expressions)
                    expressions.append(expression)
                    paths.append(f"{path}.groupings[{g}].grouping_expressions[{e}]")
                refs.append(position)
        sets.append(tuple(dict.fromkeys(refs)))
    return expressions, paths, sets


def _distinct_keys(expressions: list[Message], paths: list[str],
                   sets: list[tuple[int, ...]]) -> tuple[list[Message], list[str], list[tuple[int, ...]]]:
    """DataFusion lists a key once per grouping set it is in, yet numbers the aggregate's
    output after each distinct key once: merge equal grouping expressions."""
    kept: list[Message] = []
    kept_paths: list[str] = []
    moved: dict[int, int] = {}
    for position, expression in enumerate(expressions):
        found = next((i for i, known in enumerate(kept) if known == expression), None)
        if found is None:
            found = len(kept)
            kept.append(expression)
            kept_paths.append(paths[position])
        moved[position] = found
    return kept, kept_paths, [tuple(dict.fromkeys(moved[i] for i in s)) for s in sets]


def _type_of(detail: Message) -> str:
    url = detail.type_url
    return url.rpartition("/")[2] if url else "no detail"


def _extension_names(node: Message, inputs: list[Relation], expected: int | None, path: str,
                     kind: str) -> list[str]:
    """The output field names of an extension relation, whose schema is in its opaque detail:
    from its emit or hint, else the width its consumer expects, else its inputs' shape."""
    common = node.common
    hinted = list(common.hint.output_names) if common.HasField("hint") else []
    mapping = _emit_mapping(common)
    guess = [f.name for relation in inputs for f in relation.fields]
    width = len(mapping) if mapping is not None else len(hinted) if hinted else expected
    if width is None:
        if not inputs:
            raise InvalidPlanError(path, f"the output schema of this {kind} is unknown: give it an emit "
                                         "(RelCommon.emit) or output names (RelCommon.hint.output_names)")
        width = len(guess)
    if len(hinted) == width:
        return hinted
    if len(guess) == width:
        return guess
    return [f"field{i}" for i in range(width)]


_ONEOF_OF = {"ExtensionSingleRel": "extension_single", "ExtensionMultiRel": "extension_multi",
             "ExtensionLeafRel": "extension_leaf"}


_R = RelationLowerer
_HANDLERS: dict[str, Callable] = {
    "read": _R.read,
    "filter": _R.filter,
    "project": _R.project_rel,
    "sort": _R.sort,
    "fetch": _R.fetch,
    "aggregate": _R.aggregate,
    "window": _R.window,
    "expand": _R.expand,
    "set": _R.set_rel,
    "reference": _R.reference,
    "extension_single": _R.extension,
    "extension_multi": _R.extension,
    "extension_leaf": _R.extension,
    "join": join,
    "lateral_join": lateral_join,
    "cross": cross,
    # Physical relations: the logical operation each one implements.
    "hash_join": hash_join,
    "merge_join": merge_join,
    "nested_loop_join": nested_loop_join,
    "exchange": _R.exchange,
    "top_n": _R.top_n,
}
