"""Lowering Substrait expressions into IR expressions.

Field references are positional: ``StructField(i)`` is the ``i``-th field of the record the
expression is evaluated against — the input's output schema *after* its emit — and resolves to
that field's target id; names are never consulted.  An outer reference (``steps_out`` or,
in newer plans, ``rel_reference``) resolves against the record of an enclosing relation whose
expression holds the subquery.  Functions resolve through the plan's extension declarations
(``extensions.py``): standard Substrait functions are known built-ins, any other function is
opaque to the lineage rules unless the function registry describes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

from google.protobuf.message import Message

from ...ir import (
    AccessKind,
    AggregateCall,
    Call,
    Expr,
    Field,
    FieldRef,
    FrameBound,
    FrameUnit,
    Literal,
    NestedAccess,
    OuterRef,
    Relation,
    SortKey,
    Subquery,
    SubqueryKind,
    Window,
    WindowCall,
    WindowFrame,
)
from ...ir import types as T
from ...ir.expressions import selected_by
from .context import LoweringContext, Record
from .errors import InvalidPlanError
from .extensions import FunctionDecl
from .types import Shape, type_name

# Lowers the relation of a subquery: (rel message, its path, the enclosing records).
SubqueryLowering = Callable[[Message, str, tuple[Record, ...]], Relation]

_LITERAL_TYPES = {
    "boolean": T.BOOLEAN, "i8": "TINYINT", "i16": "SMALLINT", "i32": "INT", "i64": T.BIGINT, "fp32": "REAL",
    "fp64": T.DOUBLE, "string": T.VARCHAR, "binary": "VARBINARY", "date": "DATE", "uuid": "UUID",
    "interval_year_to_month": "INTERVAL YEAR TO MONTH", "interval_day_to_second": "INTERVAL DAY TO SECOND",
    "interval_compound": "INTERVAL", "var_char": T.VARCHAR, "fixed_char": "CHAR", "fixed_binary": "BINARY",
    "precision_time": "TIME", "precision_timestamp": "TIMESTAMP", "precision_timestamp_tz": "TIMESTAMPTZ",
}
_COMPARISONS = {1: "eq", 2: "neq", 3: "lt", 4: "gt", 5: "lte", 6: "gte"}
# SortField.SortDirection → (descending, nulls first)
_DIRECTIONS = {0: (False, None), 1: (False, True), 2: (False, False), 3: (True, True), 4: (True, False),
               5: (False, None)}
_DISTINCT = 2  # AggregationInvocation.AGGREGATION_INVOCATION_DISTINCT
_RETURN_NULL = 1  # Cast.FailureBehavior.FAILURE_BEHAVIOR_RETURN_NULL
_UNIQUE = 2  # SetPredicate.PredicateOp.PREDICATE_OP_UNIQUE
_ALL = 2  # SetComparison.ReductionOp.REDUCTION_OP_ALL
_BOUNDS = {1: FrameUnit.ROWS, 2: FrameUnit.RANGE}


class WindowCollector:
    """Window functions met in the expressions of one relation: they become one ``Window``
    operator below it, and each call a field of that operator the expression reads."""

    __slots__ = ("ctx", "path", "id", "calls", "fields")

    def __init__(self, ctx: LoweringContext, path: str):
        self.ctx = ctx
        self.path = path
        self.id: str | None = None
        self.calls: list[WindowCall] = []
        self.fields: list[Field] = []

    def add(self, call: WindowCall, name: str, substrait_type: Message | None) -> Field:
        if self.id is None:
            self.id = self.ctx.new_id("window", self.path)
        created = self.ctx.field(self.id, len(self.calls), name, call.type, self.path, substrait_type)
        self.calls.append(call)
        self.fields.append(created)
        return created

    def build(self, input_: Relation) -> Relation:
        if not self.calls:
            return input_
        assert self.id is not None
        return Window(self.id, self.ctx.origin, input_, tuple(self.calls), tuple(self.fields))


class ExpressionLowerer:
    """Lowers the expressions of one relation, evaluated against ``record``.

    ``outer`` are the records of the enclosing relations (innermost last) that outer
    references reach; ``outer_positions`` are positions of ``record`` read as outer
    references (a mark join reads its left side from inside the subquery it becomes);
    ``windows`` collects window functions where the relation allows them.
    """

    __slots__ = ("ctx", "path", "record", "outer", "lower_relation", "windows", "outer_positions")

    def __init__(self, ctx: LoweringContext, path: str, record: Record, outer: tuple[Record, ...],
                 subquery: SubqueryLowering, windows: WindowCollector | None = None,
                 outer_positions: frozenset[int] = frozenset()):
        self.ctx = ctx
        self.path = path
        self.record = record
        self.outer = outer
        self.lower_relation = subquery
        self.windows = windows
        self.outer_positions = outer_positions

    # --- helpers -------------------------------------------------------------------------

    def _id(self, kind: str) -> str:
        return self.ctx.new_id(kind, self.path)

    def _call(self, name: str, args: Sequence[Expr], type_: T.DataType = None, known: bool = True) -> Call:
        return Call(self._id("call"), self.ctx.origin, type_, name, tuple(args), known)

    def _literal(self, value: str | None, type_: T.DataType = None) -> Literal:
        return Literal(self._id("lit"), self.ctx.origin, type_, value)

    def _type(self, substrait_type: Message | None) -> T.DataType:
        return type_name(substrait_type, self.ctx.extensions.type_names)

    def invalid(self, path: str, problem: str) -> InvalidPlanError:
        return InvalidPlanError(path, problem)

    # --- entry points --------------------------------------------------------------------

    def lower(self, expression: Message, path: str) -> Expr:
        kind = expression.WhichOneof("rex_type")
        handler = _HANDLERS.get(kind) if kind is not None else None
        if handler is None:
            if kind is None:
                raise self.invalid(path, "the expression is empty (no rex_type is set)")
            raise self.invalid(path, f"expressions of kind {kind} are not supported")
        return handler(self, getattr(expression, kind), f"{path}.{kind}")

    def lower_all(self, expressions: Sequence[Message], path: str) -> list[Expr]:
        return [self.lower(e, f"{path}[{i}]") for i, e in enumerate(expressions)]

    def sort_key(self, sort_field: Message, path: str) -> SortKey:
        descending, nulls_first = _DIRECTIONS.get(sort_field.direction, (False, None))
        return SortKey(self.lower(sort_field.expr, f"{path}.expr"), descending, nulls_first)

    def sort_keys(self, sort_fields: Sequence[Message], path: str) -> tuple[SortKey, ...]:
        return tuple(self.sort_key(s, f"{path}[{i}]") for i, s in enumerate(sort_fields))

    def arguments(self, function: Message, path: str) -> list[Expr]:
        """The value arguments of a function call (enum and type arguments carry no data).
        Plans from older producers list them in the deprecated ``args``."""
        if len(function.arguments):
            return [self.lower(argument.value, f"{path}.arguments[{i}].value")
                    for i, argument in enumerate(function.arguments) if argument.WhichOneof("arg_type") == "value"]
        # ``WindowRelFunction`` never had the old field.
        return self.lower_all(getattr(function, "args", ()), f"{path}.args")

    # --- references ----------------------------------------------------------------------

    def selection(self, reference: Message, path: str) -> Expr:
        root = reference.WhichOneof("root_type")
        if root == "expression":
            base = self.lower(reference.expression, f"{path}.expression")
            return self._segments(base, reference, path)
        if root == "lambda_parameter_reference":
            # A lambda's parameter is bound to elements of the function's other arguments,
            # which carry its lineage.
            return self._literal(None)
        record, outer = self._record_of(reference, path)
        return self._segments(None, reference, path, record, outer)

    def _record_of(self, reference: Message, path: str) -> tuple[Record, bool]:
        if reference.WhichOneof("root_type") != "outer_reference":
            return self.record, False
        outer = reference.outer_reference
        how = outer.WhichOneof("outer_reference_type")
        if how == "rel_reference":
            for record in reversed(self.outer):
                if record.anchor == outer.rel_reference:
                    return record, True
            raise self.invalid(path, f"outer reference to relation anchor {outer.rel_reference}: no enclosing "
                                     "relation has that anchor")
        steps = outer.steps_out
        if not 1 <= steps <= len(self.outer):
            raise self.invalid(path, f"outer reference {steps} step(s) out, but the expression is nested in "
                                     f"{len(self.outer)} subquer{'y' if len(self.outer) == 1 else 'ies'}")
        return self.outer[-steps], True

    def _segments(self, base: Expr | None, reference: Message, path: str, record: Record | None = None,
                  outer: bool = False) -> Expr:
        kind = reference.WhichOneof("reference_type")
        if kind == "masked_reference":
            if base is not None:
                raise self.invalid(path, "a masked reference into an expression's result is not supported")
            items = reference.masked_reference.select.struct_items
            refs = [self._field(record, item.field, f"{path}.masked_reference", outer) for item in items]
            return refs[0] if len(refs) == 1 else self._call("struct", refs)
        if kind != "direct_reference":
            raise self.invalid(path, "the field reference has no direct or masked reference")
        segment: Message | None = reference.direct_reference
        segment_path = f"{path}.direct_reference"
        if base is None:
            which = segment.WhichOneof("reference_type")
            if which != "struct_field":
                raise self.invalid(segment_path, f"a record is a struct: its fields are read with struct_field, "
                                                 f"not {which}")
            base = self._field(record, segment.struct_field.field, segment_path, outer)
            shape = self.ctx.shapes.get(base.field)
            segment_path = f"{segment_path}.struct_field.child"
            segment = segment.struct_field.child if segment.struct_field.HasField("child") else None
        else:
            shape = None
        steps: list[str] = []
        while segment is not None and segment.WhichOneof("reference_type") is not None:
            which = segment.WhichOneof("reference_type")
            part = getattr(segment, which)
            step, shape = self._step(which, part, shape, segment_path)
            steps.append(step)
            segment_path = f"{segment_path}.{which}.child"
            segment = part.child if part.HasField("child") else None
        if not steps:
            return base
        # Substrait is typed: the part read is known, so nested access is exact.
        return NestedAccess(self._id("access"), self.ctx.origin, None, base, tuple(steps), AccessKind.NESTED)

    def _step(self, which: str, part: Message, shape: Shape | None, path: str) -> tuple[str, Shape | None]:
        """One step of a nested reference in path syntax (``.city``, ``[0]``, ``['k']``), and
        the shape below it."""
        if which == "struct_field":
            name, below = shape.child(part.field) if shape is not None and shape.kind == "struct" else (None, None)
            return f".{name or part.field}", below
        if which == "list_element":
            below = shape.child(0)[1] if shape is not None and shape.kind == "list" else None
            return f"[{part.offset}]", below
        key = self.literal(part.map_key, f"{path}.map_key")
        below = shape.child(1)[1] if shape is not None and shape.kind == "map" else None
        return (f"['{key.value}']" if key.type == T.VARCHAR else f"[{key.value}]"), below

    def _field(self, record: Record | None, index: int, path: str, outer: bool) -> Expr:
        assert record is not None
        fields = record.fields
        if not 0 <= index < len(fields):
            shown = ", ".join(f"{i}: {f.name}" for i, f in enumerate(fields[:12])) + (", …" if len(fields) > 12 else "")
            where = " of the enclosing relation" if outer else ""
            raise self.invalid(path, f"field {index} is out of range: the input record{where} has "
                                     f"{len(fields)} field(s) ({shown or 'none'})")
        target = fields[index]
        if outer or (record is self.record and index in self.outer_positions):
            return OuterRef(self._id("outer"), self.ctx.origin, target.type, target.id)
        return FieldRef(self._id("ref"), self.ctx.origin, target.type, target.id)

    # --- constants -----------------------------------------------------------------------

    def literal(self, literal: Message, path: str) -> Literal:
        kind = literal.WhichOneof("literal_type")
        if kind is None or kind == "null":
            return self._literal(None, self._type(literal.null) if kind == "null" else None)
        value = getattr(literal, kind)
        match kind:
            case "decimal":
                return self._literal(_decimal_text(value), f"DECIMAL({value.precision}, {value.scale})")
            case "boolean":
                return self._literal("TRUE" if value else "FALSE", T.BOOLEAN)
            case "struct" | "list" | "map" | "empty_list" | "empty_map" | "user_defined" | "interval_compound" | \
                    "interval_year_to_month" | "interval_day_to_second":
                return self._literal(kind, _LITERAL_TYPES.get(kind))
            case "precision_timestamp" | "precision_timestamp_tz" | "precision_time":
                return self._literal(str(value.value), _LITERAL_TYPES[kind])
            case "binary" | "fixed_binary" | "uuid":
                return self._literal(value.hex(), _LITERAL_TYPES[kind])
            case "var_char":
                return self._literal(value.value, T.VARCHAR)
        return self._literal(str(value), _LITERAL_TYPES.get(kind))

    def dynamic_parameter(self, parameter: Message, path: str) -> Expr:
        return self._literal(f"${parameter.parameter_reference}", self._type(parameter.type))

    def context_variable(self, variable: Message, path: str) -> Expr:
        # CURRENT_TIMESTAMP, CURRENT_USER …: values of the session, not of any column.
        return self._literal(variable.WhichOneof("context_variable_type") or "context", None)

    # --- functions -----------------------------------------------------------------------

    def scalar_function(self, function: Message, path: str) -> Expr:
        decl = self.ctx.extensions.function(function.function_reference, f"{path}.function_reference")
        args = self.arguments(function, path)
        call = self._call(decl.ir_name, args, self._type(function.output_type), decl.standard)
        self.ctx.remember(call.id, function.output_type)
        return call

    def aggregate_call(self, function: Message, path: str, filter_: Expr | None = None) -> AggregateCall:
        """A measure (``AggregateFunction``): its arguments, DISTINCT, FILTER and ORDER BY."""
        decl = self.ctx.extensions.function(function.function_reference, f"{path}.function_reference")
        args = self.arguments(function, path)
        order_by = self.sort_keys(function.sorts, f"{path}.sorts")
        return self._aggregate(decl, args, function.invocation, filter_, order_by, function.output_type)

    def _aggregate(self, decl: FunctionDecl, args: list[Expr], invocation: int, filter_: Expr | None,
                   order_by: tuple[SortKey, ...], output_type: Message | None) -> AggregateCall:
        star = not args and decl.name == "count"  # COUNT(*): counts rows, reads no column
        if args and not decl.standard:
            # The IR knows no opaque aggregate: a private extension's aggregate is an
            # aggregate over an opaque function of its arguments, which the function
            # registry can describe by its name.
            args = [self._call(decl.ir_name, args, None, known=False)]
        limit = None
        if decl.standard and not order_by:
            # ``arg_max(x, y)``: y orders the values and picks the kept x (specs/aggregate.md rule 4).
            args, order_by, limit = selected_by(decl.ir_name, args) or (args, order_by, None)
        return AggregateCall(self._id("agg"), self.ctx.origin, self._type(output_type), decl.ir_name, tuple(args),
                             invocation == _DISTINCT, filter_, order_by, star, limit)

    def window_function(self, function: Message, path: str) -> Expr:
        if self.windows is None:
            raise self.invalid(path, "a window function is only allowed in the expressions of a ProjectRel, "
                                     "FilterRel or SortRel")
        decl = self.ctx.extensions.function(function.function_reference, f"{path}.function_reference")
        call = self.window_call(decl, function, self.lower_all(function.partitions, f"{path}.partitions"),
                                self.sort_keys(function.sorts, f"{path}.sorts"), path)
        created = self.windows.add(call, decl.ir_name, function.output_type)
        return FieldRef(self._id("ref"), self.ctx.origin, created.type, created.id)

    def window_call(self, decl: FunctionDecl, function: Message, partitions: list[Expr],
                    order_by: tuple[SortKey, ...], path: str) -> WindowCall:
        """A window call from a ``WindowFunction`` or a ``WindowRelFunction`` (whose partition
        and order are its relation's)."""
        args = self.arguments(function, path)
        if decl.is_aggregate:
            inner: Expr = self._aggregate(decl, args, function.invocation, None, (), function.output_type)
        else:
            inner = self._call(decl.ir_name, args, self._type(function.output_type), decl.standard)
        frame = self._frame(function, path)
        return WindowCall(self._id("over"), self.ctx.origin, inner.type, inner, tuple(partitions), order_by, frame)

    def _frame(self, function: Message, path: str) -> WindowFrame | None:
        if not function.HasField("lower_bound") and not function.HasField("upper_bound"):
            return None
        unit = _BOUNDS.get(function.bounds_type, FrameUnit.RANGE)
        start = self._bound(function.lower_bound, "preceding", f"{path}.lower_bound")
        end = self._bound(function.upper_bound, "following", f"{path}.upper_bound")
        return WindowFrame(unit, start, end)

    def _bound(self, bound: Message, unbounded_side: str, path: str) -> FrameBound:
        kind = bound.WhichOneof("kind")
        if kind in ("preceding", "following"):
            detail = getattr(bound, kind)
            if detail.HasField("offset_expr"):
                return FrameBound(kind, self.lower(detail.offset_expr, f"{path}.{kind}.offset_expr"))
            return FrameBound(kind, self._literal(str(detail.offset), T.BIGINT))
        if kind == "current_row":
            return FrameBound("current")
        # Unbounded, or not given: Substrait reads an absent bound as unbounded.
        return FrameBound(f"unbounded_{unbounded_side}")

    # --- conditionals and lists ----------------------------------------------------------

    def if_then(self, node: Message, path: str) -> Expr:
        args: list[Expr] = []
        clauses = list(node.ifs)
        if len(clauses) > 1 and not clauses[0].HasField("then"):
            # DataFusion writes ``CASE x WHEN v THEN …`` with the operand ``x`` as a first
            # clause that has no THEN (a producer quirk): read it as the CASE operand.
            args.append(self.lower(getattr(clauses[0], "if"), f"{path}.ifs[0].if"))
            clauses = clauses[1:]
            first = 1
        else:
            first = 0
        for i, clause in enumerate(clauses, first):
            args.append(self.lower(getattr(clause, "if"), f"{path}.ifs[{i}].if"))
            args.append(self.lower(clause.then, f"{path}.ifs[{i}].then"))
        if node.HasField("else"):
            args.append(self.lower(getattr(node, "else"), f"{path}.else"))
        return self._call("case", args, _first_type(args[1 + first::2]))

    def switch(self, node: Message, path: str) -> Expr:
        args = [self.lower(node.match, f"{path}.match")]
        for i, clause in enumerate(node.ifs):
            args.append(self.literal(getattr(clause, "if"), f"{path}.ifs[{i}].if"))
            args.append(self.lower(clause.then, f"{path}.ifs[{i}].then"))
        if node.HasField("else"):
            args.append(self.lower(getattr(node, "else"), f"{path}.else"))
        return self._call("case", args, _first_type(args[2::2]))

    def singular_or_list(self, node: Message, path: str) -> Expr:
        args = [self.lower(node.value, f"{path}.value")] + self.lower_all(node.options, f"{path}.options")
        return self._call("in", args, T.BOOLEAN)

    def multi_or_list(self, node: Message, path: str) -> Expr:
        args = self.lower_all(node.value, f"{path}.value")
        for i, option in enumerate(node.options):
            args.extend(self.lower_all(option.fields, f"{path}.options[{i}].fields"))
        return self._call("in", args, T.BOOLEAN)

    def cast(self, node: Message, path: str) -> Expr:
        name = "try_cast" if node.failure_behavior == _RETURN_NULL else "cast"
        call = self._call(name, [self.lower(node.input, f"{path}.input")], self._type(node.type))
        self.ctx.remember(call.id, node.type)
        return call

    def nested(self, node: Message, path: str) -> Expr:
        kind = node.WhichOneof("nested_type")
        if kind == "struct":
            return self._call("struct", self.lower_all(node.struct.fields, f"{path}.struct.fields"))
        if kind == "list":
            return self._call("array", self.lower_all(node.list.values, f"{path}.list.values"))
        if kind == "map":
            args: list[Expr] = []
            for i, pair in enumerate(node.map.key_values):
                args.append(self.lower(pair.key, f"{path}.map.key_values[{i}].key"))
                args.append(self.lower(pair.value, f"{path}.map.key_values[{i}].value"))
            return self._call("map", args)
        raise self.invalid(path, "the nested expression builds nothing (no struct, list or map)")

    def lambda_(self, node: Message, path: str) -> Expr:
        return self._call("lambda", [self.lower(node.body, f"{path}.body")])

    def lambda_invocation(self, node: Message, path: str) -> Expr:
        args = [self.lambda_(getattr(node, "lambda"), f"{path}.lambda")]
        args += self.lower_all(node.arguments.fields, f"{path}.arguments.fields") \
            if node.HasField("arguments") else []
        return self._call("lambda_invoke", args)

    # --- subqueries ----------------------------------------------------------------------

    def subquery(self, node: Message, path: str) -> Expr:
        kind = node.WhichOneof("subquery_type")
        inner = (*self.outer, self.record)
        if kind == "scalar":
            relation = self.lower_relation(node.scalar.input, f"{path}.scalar.input", inner)
            if len(relation.fields) != 1:
                raise self.invalid(f"{path}.scalar.input", f"a scalar subquery returns one field, this one "
                                                           f"returns {len(relation.fields)}")
            return Subquery(self._id("subquery"), self.ctx.origin, relation.fields[0].type, SubqueryKind.SCALAR,
                            relation)
        if kind == "in_predicate":
            needles = self.lower_all(node.in_predicate.needles, f"{path}.in_predicate.needles")
            relation = self.lower_relation(node.in_predicate.haystack, f"{path}.in_predicate.haystack", inner)
            if len(needles) != len(relation.fields):
                raise self.invalid(f"{path}.in_predicate", f"{len(needles)} needle(s) against a haystack of "
                                                           f"{len(relation.fields)} field(s)")
            needle = needles[0] if len(needles) == 1 else self._call("row", needles)
            return Subquery(self._id("subquery"), self.ctx.origin, T.BOOLEAN, SubqueryKind.IN, relation, needle)
        if kind == "set_predicate":
            relation = self.lower_relation(node.set_predicate.tuples, f"{path}.set_predicate.tuples", inner)
            if node.set_predicate.predicate_op == _UNIQUE:
                self.ctx.uncertain_about(
                    f"UNIQUE predicate at {path}: whether the subquery's rows repeat depends on all of its "
                    "columns; only the dependencies of its rows are recorded"
                )
            return Subquery(self._id("subquery"), self.ctx.origin, T.BOOLEAN, SubqueryKind.EXISTS, relation)
        if kind == "set_comparison":
            comparison = node.set_comparison
            needle = self.lower(comparison.left, f"{path}.set_comparison.left")
            relation = self.lower_relation(comparison.right, f"{path}.set_comparison.right", inner)
            quantifier = SubqueryKind.ALL if comparison.reduction_op == _ALL else SubqueryKind.ANY
            return Subquery(self._id("subquery"), self.ctx.origin, T.BOOLEAN, quantifier, relation, needle,
                            _COMPARISONS.get(comparison.comparison_op, "eq"))
        raise self.invalid(path, "the subquery has no kind (scalar, in_predicate, set_predicate, set_comparison)")

    def unsupported(self, node: Message, path: str) -> Expr:
        raise self.invalid(path, "detached expressions (Plan-level expressions referenced by ordinal) are not "
                                 "supported")


def _decimal_text(value: Message) -> str:
    """A decimal literal's 16 little-endian two's-complement bytes, scaled."""
    unscaled = int.from_bytes(value.value, "little", signed=True)
    return str(Decimal(unscaled).scaleb(-value.scale))


def _first_type(exprs: Sequence[Expr]) -> T.DataType:
    for expr in exprs:
        if expr.type is not None and not isinstance(expr, Literal):
            return expr.type
    return next((e.type for e in exprs if e.type is not None), None)


_L = ExpressionLowerer
_HANDLERS: dict[str, Callable] = {
    "literal": _L.literal,
    "selection": _L.selection,
    "scalar_function": _L.scalar_function,
    "window_function": _L.window_function,
    "if_then": _L.if_then,
    "switch_expression": _L.switch,
    "singular_or_list": _L.singular_or_list,
    "multi_or_list": _L.multi_or_list,
    "cast": _L.cast,
    "subquery": _L.subquery,
    "nested": _L.nested,
    "dynamic_parameter": _L.dynamic_parameter,
    "lambda": _L.lambda_,
    "lambda_invocation": _L.lambda_invocation,
    "execution_context_variable": _L.context_variable,
    "detached_expression_ordinal": _L.unsupported,
}
