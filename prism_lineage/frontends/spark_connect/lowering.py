"""Lowering a Spark Connect ``Plan`` into the Prism IR.

Spark Connect plans are *unresolved*: columns are named (``unresolved_attribute``), tables are
named, functions are named.  This module resolves them as Spark's analyser does, against the
tables the catalog (``--schema``) declares: names case-insensitively, ``t.col`` by a table name
or ``alias()``, ``df["col"]`` by the ``plan_id`` of the DataFrame it was taken from, ``a.b``
past a column as a struct field.  Each relation lowers to the IR operator(s) of its SQL
analogue (specs/spark-connect.md has the table); a ``SQL`` relation (``spark.sql``) is lowered by
the SQL frontend with the Spark dialect.

Origins: PySpark records the user's call site on each expression (``common.origin.
python_origin.call_site``, ``file:line``); that is the expression's authored origin.  Every
target keeps an ingress origin naming the relation it came from (its path in the plan, its
kind and ``plan_id``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import combinations
from typing import Any

from google.protobuf.message import Message

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
    Statement,
    Uncertainty,
    Values,
    Window,
    WindowCall,
    WrittenColumn,
    field_id,
    walk_relations,
)
from ...ir.expressions import iter_tree, selected_by
from ...ir.ingress import IngressOrigin
from ...ir.walk import expressions_of
from ..picked import read_picked_parts
from ..sql.nested import type_info
from .errors import InvalidSparkPlanError

PROTOCOL = "spark_connect"

_OPERATORS = {
    "==": "eq", "=": "eq", "!=": "neq", "<>": "neq", "<=>": "is_not_distinct_from", "<": "lt", "<=": "lte",
    ">": "gt", ">=": "gte", "+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod", "and": "and", "or": "or",
    "not": "not", "!": "not", "negative": "neg", "isnull": "is_null", "isnotnull": "is_not_null", "in": "in",
    "when": "case", "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor",
}
# Spark's aggregate functions (those sqlglot does not already know as aggregates).
_AGGREGATES = {
    "sum", "avg", "mean", "count", "min", "max", "first", "last", "collect_list", "collect_set", "stddev",
    "stddev_samp", "stddev_pop", "std", "variance", "var_samp", "var_pop", "approx_count_distinct", "any_value",
    "bool_and", "bool_or", "every", "some", "corr", "covar_pop", "covar_samp", "kurtosis", "skewness",
    "percentile_approx", "percentile", "median", "mode", "max_by", "min_by", "array_agg", "first_value",
    "last_value", "count_if", "grouping", "grouping_id", "product", "listagg", "string_agg", "sum_distinct",
    "count_distinct", "bit_and", "bit_or", "bit_xor", "approx_percentile",
}
_AGGREGATE_NAMES = {"mean": "avg", "count_distinct": "count", "sum_distinct": "sum", "std": "stddev"}
_JOINS = {
    "JOIN_TYPE_INNER": JoinKind.INNER, "JOIN_TYPE_FULL_OUTER": JoinKind.FULL, "JOIN_TYPE_LEFT_OUTER": JoinKind.LEFT,
    "JOIN_TYPE_RIGHT_OUTER": JoinKind.RIGHT, "JOIN_TYPE_LEFT_ANTI": JoinKind.ANTI,
    "JOIN_TYPE_LEFT_SEMI": JoinKind.SEMI, "JOIN_TYPE_CROSS": JoinKind.CROSS,
    "JOIN_TYPE_UNSPECIFIED": JoinKind.INNER,
}
# Relations that change where or how rows are processed, not which rows or values: their input.
_PASS_THROUGH = {"hint", "repartition", "repartition_by_expression", "with_watermark", "sample"}


@lru_cache(maxsize=None)
def _sqlglot_kind(name: str, arity: int) -> tuple[bool, bool, str]:
    """(known to Spark's SQL, an aggregate, the name the SQL frontend gives it): what sqlglot
    makes of ``name(c0, …)`` in the Spark dialect, so a function is known exactly when the SQL
    frontend knows it."""
    import sqlglot
    from sqlglot import exp

    args = ", ".join(f"c{i}" for i in range(arity))
    try:
        node = sqlglot.parse_one(f"SELECT {name}({args})", read="spark").expressions[0]
    except Exception:  # noqa: BLE001 - a name sqlglot cannot even parse is unknown
        return False, False, name.lower()
    known = not isinstance(node, exp.Anonymous)
    return known, isinstance(node, exp.AggFunc), (node.key if known else name.lower())


@dataclass(frozen=True, slots=True)
class Col:
    """A column of a lowered relation: its field, the name Spark resolves it by, the
    qualifiers (table names, aliases) and the DataFrames (``plan_id``) it can be taken from."""

    field: Field
    name: str
    qualifiers: frozenset[str] = frozenset()
    plan_ids: frozenset[int] = frozenset()


@dataclass(slots=True)
class Lowered:
    relation: Relation
    cols: list[Col]
    # Columns not in the output that its parent may still name by DataFrame or qualifier: a USING
    # join's key of each side (``t.join(u, "k").select(u["k"])`` is u's key, as in Spark SQL).
    hidden: list[Col] = field(default_factory=list)


@dataclass(slots=True)
class _Ingress:
    kind: str
    anchor: int | None
    targets: list[str] = field(default_factory=list)


class Context:
    def __init__(self, catalog: Catalog | None, file: str | None):
        self.catalog = catalog
        self.file = file
        self.ids = IdAllocator("s0")
        self.origin = Origin(0, 0, 0, 0, 0, file) if file else None
        self.uncertain: list[Uncertainty] = []
        self.ingress: dict[str, _Ingress] = {}
        self.path = "root"
        self.sql_statements = 0

    def enter(self, path: str, kind: str, anchor: int | None) -> None:
        self.path = path
        self.ingress.setdefault(path, _Ingress(kind, anchor))

    def new_id(self, kind: str, path: str | None = None) -> str:
        where = path or self.path
        target = self.ids.new(f"{kind}@{where}", None)
        self.ingress.setdefault(where, _Ingress("Relation", None)).targets.append(target)
        return target

    def field(self, relation_id: str, key: int | str, name: str, type_: str | None = None,
              origin: Origin | None = None) -> Field:
        created = Field(field_id(relation_id, key), name, type_, origin or self.origin)
        self.ingress.setdefault(self.path, _Ingress("Relation", None)).targets.append(created.id)
        return created

    def uncertain_about(self, reason: str, field_name: str | None = None) -> None:
        if not any(u.reason == reason and u.field == field_name for u in self.uncertain):
            self.uncertain.append(Uncertainty(reason, field_name, self.origin))

    def ingress_origins(self, present: set[str]) -> tuple[IngressOrigin, ...]:
        return tuple(
            IngressOrigin(PROTOCOL, path, entry.kind, kept, entry.anchor, self.file)
            for path, entry in self.ingress.items()
            if (kept := tuple(t for t in entry.targets if t in present))
        )


def _origin_of(message: Message, fallback: Origin | None) -> Origin | None:
    """The user's call site PySpark recorded (``file:line``), else ``fallback``."""
    common = getattr(message, "common", None)
    if common is None or not message.HasField("common") or not common.HasField("origin"):
        return fallback
    origin = common.origin
    if origin.WhichOneof("function") != "python_origin":
        return fallback
    site = origin.python_origin.call_site
    file, _, line = site.rpartition(":")
    if not line.isdigit():
        return fallback
    return Origin(int(line), 0, int(line), 0, 0, file or None)


def split_identifier(text: str) -> list[str]:
    """``a.b``, ``` `a.b`.c ``` → parts (backticks quote, doubled backticks escape)."""
    parts, current, quoted, i = [], [], False, 0
    while i < len(text):
        ch = text[i]
        if ch == "`":
            if quoted and i + 1 < len(text) and text[i + 1] == "`":
                current.append("`")
                i += 1
            else:
                quoted = not quoted
        elif ch == "." and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


@dataclass(slots=True)
class _Ids:
    """What ``substrait.joins.place_join_predicates`` asks of a lowerer: its context (ids, origin)."""

    ctx: "Context"


class _Windows:
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.id: str | None = None
        self.calls: list[WindowCall] = []
        self.columns: list[Field] = []

    def add(self, call: WindowCall) -> Field:
        if self.id is None:
            self.id = self.ctx.new_id("window")
        created = self.ctx.field(self.id, len(self.columns), f"window{len(self.columns)}", None, call.origin)
        self.calls.append(call)
        self.columns.append(created)
        return created

    def build(self, input_: Relation) -> Relation:
        if not self.calls:
            return input_
        return Window(self.id, self.ctx.origin, input_, tuple(self.calls), tuple(self.columns))


class _Measures:
    """Aggregations met while lowering an aggregate's expressions: the n-th is field
    ``keys + n`` of the ``Aggregate`` whose id is given."""

    def __init__(self, aggregate_id: str, keys: list[tuple[Expr, Col | None]], key_fields: list[Field]):
        self.aggregate_id = aggregate_id
        self.keys = keys
        self.key_fields = key_fields
        self.calls: list[AggregateCall] = []

    def add(self, call: AggregateCall) -> str:
        self.calls.append(call)
        return field_id(self.aggregate_id, len(self.keys) + len(self.calls) - 1)


class ExprLowerer:
    """Lowers the expressions of one relation against its input's columns."""

    def __init__(self, ctx: Context, path: str, kind: str, plan_id: int | None, cols: Sequence[Col],
                 windows: _Windows | None = None, measures: _Measures | None = None, hidden: Sequence[Col] = ()):
        self.ctx = ctx
        self.hidden = list(hidden)
        self.path = path
        self.kind = kind
        self.plan_id = plan_id
        self.cols = list(cols)
        self.windows = windows
        self.measures = measures
        self.lambdas: list[set[str]] = []
        self.saw_aggregate = False

    def fail(self, problem: str) -> InvalidSparkPlanError:
        return InvalidSparkPlanError(self.path, self.kind, problem, self.plan_id)

    def ref(self, target: Field, origin: Origin | None) -> FieldRef:
        return FieldRef(self.ctx.new_id("ref", self.path), origin, target.type, target.id)

    # --- names ---------------------------------------------------------------------------------

    def resolve(self, identifier: str, plan_id: int | None) -> tuple[Col, list[str]]:
        try:
            return self._resolve_in(self.cols, identifier, plan_id)
        except InvalidSparkPlanError:
            # Not among the output: a hidden column (a USING join's key of one side), named by its
            # DataFrame or its qualifier only.
            if not self.hidden or (plan_id is None and len(split_identifier(identifier)) < 2):
                raise
            try:
                return self._resolve_in(self.hidden, identifier, plan_id)
            except InvalidSparkPlanError:
                pass
            raise

    def _resolve_in(self, cols: Sequence[Col], identifier: str, plan_id: int | None) -> tuple[Col, list[str]]:
        parts = split_identifier(identifier)
        if plan_id is not None:
            cols = [c for c in cols if plan_id in c.plan_ids]
            if not cols:
                raise self.fail(f"column {identifier!r} is taken from the DataFrame with plan_id {plan_id}, "
                                "which is not an input here")
        lowered = [p.lower() for p in parts]
        for width in range(len(parts) - 1, 0, -1):  # a qualifier (table name, alias) first
            qualifier = ".".join(lowered[:width])
            found = [c for c in cols if qualifier in c.qualifiers and c.name.lower() == lowered[width]]
            if found:
                return self._one(found, identifier), parts[width + 1:]
        found = [c for c in cols if c.name.lower() == lowered[0]]
        if not found:
            names = ", ".join(dict.fromkeys(c.name for c in cols)) or "none"
            raise self.fail(f"no column {identifier!r} in its input (columns: {names})")
        return self._one(found, identifier), parts[1:]

    def _one(self, found: list[Col], identifier: str) -> Col:
        unique = list({c.field.id: c for c in found}.values())
        if len(unique) > 1:
            raise self.fail(f"column {identifier!r} is ambiguous: it could be any of "
                            f"{', '.join(sorted({'.'.join(sorted(c.qualifiers)) or '?' for c in unique}))}"
                            " (qualify it, or take it from its DataFrame: df[...])")
        return unique[0]

    # --- expression lists (select lists: stars expand) -----------------------------------------

    def lower_list(self, exprs: Sequence[Message]) -> list[tuple[Expr, str, Col | None]]:
        """(expression, output name, the input column when the expression is one) per output."""
        out: list[tuple[Expr, str, Col | None]] = []
        for e in exprs:
            kind = e.WhichOneof("expr_type")
            if kind == "unresolved_star":
                origin = _origin_of(e, self.ctx.origin)
                target = e.unresolved_star.unparsed_target if e.unresolved_star.HasField("unparsed_target") else ""
                fields = self._struct_star(target.removesuffix(".*"), origin) if target else None
                if fields is not None:
                    out.extend(fields)
                    continue
                for col in self._star(e.unresolved_star):
                    out.append((self.ref(col.field, origin), col.name, col))
                continue
            if kind == "expression_string" and e.expression_string.expression.strip().endswith("*"):
                # selectExpr("*", …) / selectExpr("t.*"): every column (of that qualifier), as a star.
                target = e.expression_string.expression.strip()[:-1].strip().removesuffix(".").strip()
                origin = _origin_of(e, self.ctx.origin)
                fields = self._struct_star(target, origin) if target else None
                if fields is not None:
                    out.extend(fields)
                    continue
                cols = self.cols
                if target:
                    cols = [c for c in cols if target.lower() in c.qualifiers]
                    if not cols:
                        raise self.fail(f"{target}.* names no table, alias or struct column of its input")
                out.extend((self.ref(c.field, origin), c.name, c) for c in cols)
                continue
            lowered, name = self.lower_named(e)
            col = self._col_of(e)
            out.append((lowered, name, col))
        return out

    def _star(self, star: Message) -> list[Col]:
        cols = self.cols
        if star.HasField("plan_id"):
            cols = [c for c in cols if star.plan_id in c.plan_ids]
        if star.HasField("unparsed_target"):
            target = star.unparsed_target.removesuffix(".*").lower()
            cols = [c for c in cols if target in c.qualifiers]
            if not cols:
                raise self.fail(f"{star.unparsed_target} names no table or alias of its input")
        return cols

    def _struct_star(self, target: str, origin: Origin | None) -> list[tuple[Expr, str, Col | None]] | None:
        """``st.*`` of a struct column whose type is declared: one column per field (nested access);
        ``None`` when ``target`` is a qualifier of the input, or names no such column."""
        if not target or any(target.lower() in c.qualifiers for c in self.cols):
            return None
        try:
            col, steps = self.resolve(target, None)
        except InvalidSparkPlanError:
            return None
        info = type_info(col.field.type, "spark")
        for step in steps:
            info = info.field(step)[1] if info.field(step) is not None else type_info(None)
        fields = info.fields()
        if not fields:
            raise self.fail(f"{target}.*: the fields of {target} are not known (declare its struct type)")
        prefix = tuple(f".{s}" for s in steps)
        return [(NestedAccess(self.ctx.new_id("access", self.path), origin, None, self.ref(col.field, origin),
                              prefix + (f".{name}",)), name, None) for name, _ in fields]

    def _col_of(self, e: Message) -> Col | None:
        if e.WhichOneof("expr_type") == "unresolved_attribute":
            attribute = e.unresolved_attribute
            col, steps = self.resolve(attribute.unparsed_identifier,
                                      attribute.plan_id if attribute.HasField("plan_id") else None)
            return None if steps else col
        return None

    def lower_named(self, e: Message) -> tuple[Expr, str]:
        kind = e.WhichOneof("expr_type")
        if kind == "alias":
            names = list(e.alias.name)
            if len(names) != 1:
                raise self.fail("an alias with several names (a multi-column alias) is not read")
            return self.lower(e), names[0]
        if kind == "expression_string":
            # selectExpr("amount * 2 AS doubled"): the alias inside the text names the column.
            import sqlglot

            text = e.expression_string.expression
            try:
                node = sqlglot.parse_one(f"SELECT {text}", read="spark").expressions[0]
            except sqlglot.errors.ParseError:
                node = None
            name = node.alias_or_name if node is not None and node.alias_or_name else text
            return self.lower(e), name
        return self.lower(e), self.name_of(e)

    def name_of(self, e: Message) -> str:
        """The column name Spark gives an unaliased expression (close to Spark's ``toString``)."""
        kind = e.WhichOneof("expr_type")
        if kind == "unresolved_attribute":
            return split_identifier(e.unresolved_attribute.unparsed_identifier)[-1]
        if kind == "alias":
            return e.alias.name[0] if e.alias.name else ""
        if kind in ("unresolved_function", "call_function"):
            node = getattr(e, kind)
            args = ", ".join(self.name_of(a) for a in node.arguments)
            return f"{node.function_name}({args})"
        if kind == "literal":
            return str(_literal_text(e.literal))
        if kind == "expression_string":
            return e.expression_string.expression
        if kind == "cast":
            return f"CAST({self.name_of(e.cast.expr)} AS {e.cast.type_str or 'type'})"
        if kind == "unresolved_star":
            return "*"
        return kind or "expr"

    # --- expressions ------------------------------------------------------------------------------

    def lower(self, e: Message) -> Expr:
        # An expression PySpark recorded no call site for (the inside of an alias, say) was
        # written where its enclosing expression was.
        outer = getattr(self, "_outer", None)
        origin = _origin_of(e, outer or self.ctx.origin)
        self._outer = origin
        try:
            return self._lower(e, origin)
        finally:
            self._outer = outer

    def _lower(self, e: Message, origin: Origin | None) -> Expr:
        kind = e.WhichOneof("expr_type")
        if kind == "unresolved_attribute":
            attribute = e.unresolved_attribute
            name = attribute.unparsed_identifier
            if self.lambdas and name.lower() in self.lambdas[-1]:
                return Literal(self.ctx.new_id("lambda_variable", self.path), origin, None, None)
            col, steps = self.resolve(name, attribute.plan_id if attribute.HasField("plan_id") else None)
            base: Expr = self.ref(col.field, origin)
            if steps:
                return NestedAccess(self.ctx.new_id("access", self.path), origin, None, base,
                                    tuple(f".{s}" for s in steps))
            return base
        if kind == "literal":
            value = _literal_text(e.literal)
            return Literal(self.ctx.new_id("literal", self.path), origin, None, None if value is None else str(value))
        if kind == "alias":
            return self.lower(e.alias.expr)
        if kind == "cast":
            return Call(self.ctx.new_id("call", self.path), origin, None, "cast", (self.lower(e.cast.expr),))
        if kind in ("unresolved_function", "call_function"):
            node = getattr(e, kind)
            user = kind == "unresolved_function" and node.is_user_defined_function
            distinct = kind == "unresolved_function" and node.is_distinct
            return self.function(node.function_name, list(node.arguments), origin, distinct=distinct, user=user)
        if kind == "common_inline_user_defined_function":
            udf = e.common_inline_user_defined_function
            args = tuple(self.lower(a) for a in udf.arguments)
            self.ctx.uncertain_about(f"{udf.function_name or 'a user-defined function'} is a user-defined function: "
                                     "its result is read as computed from its arguments (opaque, conservative)")
            return Call(self.ctx.new_id("call", self.path), origin, None, udf.function_name.lower() or "udf", args,
                        known=False)
        if kind == "expression_string":
            return self.sql_expression(e.expression_string.expression, origin)
        if kind == "window":
            return self.window(e.window, origin)
        if kind == "unresolved_extract_value":
            extract = e.unresolved_extract_value
            base = self.lower(extract.child)
            key = extract.extraction
            if key.WhichOneof("expr_type") == "literal":
                value = _literal_text(key.literal)
                step = f".{value}" if isinstance(value, str) else f"[{value}]"
                if isinstance(value, str) and type_info(base.type, "spark").kind == "map":
                    step = f"['{value}']"  # a map's value by key, not a struct field
                return NestedAccess(self.ctx.new_id("access", self.path), origin, None, base, (step,))
            return NestedAccess(self.ctx.new_id("access", self.path), origin, None, base, ("[]",),
                                dynamic=(self.lower(key),))
        if kind == "lambda_function":
            function = e.lambda_function
            names = {v.name_parts[-1].lower() for v in function.arguments}
            self.lambdas.append(names | (self.lambdas[-1] if self.lambdas else set()))
            try:
                body = self.lower(function.function)
            finally:
                self.lambdas.pop()
            return Call(self.ctx.new_id("call", self.path), origin, None, "lambda", (body,))
        if kind == "unresolved_named_lambda_variable":
            return Literal(self.ctx.new_id("lambda_variable", self.path), origin, None, None)
        if kind == "sort_order":
            return self.lower(e.sort_order.child)
        if kind == "named_argument_expression":
            return self.lower(e.named_argument_expression.value)
        raise self.fail(f"expressions of kind {kind} are not read by prism_lineage")

    def function(self, name: str, args: list[Message], origin: Origin | None, *, distinct: bool = False,
                 user: bool = False) -> Expr:
        lowered_name = name.lower()
        if user:
            self.ctx.uncertain_about(f"{name} is a user-defined function: its result is read as computed from its "
                                     "arguments (opaque, conservative)")
            return Call(self.ctx.new_id("call", self.path), origin, None, lowered_name,
                        tuple(self.lower(a) for a in args), known=False)
        if lowered_name in _OPERATORS:
            return Call(self.ctx.new_id("call", self.path), origin, None, _OPERATORS[lowered_name],
                        tuple(self.lower(a) for a in args))
        known, aggregate, spelled = _sqlglot_kind(lowered_name, max(len(args), 1))
        if lowered_name in _AGGREGATES or aggregate:
            return self.aggregate(lowered_name, args, origin, distinct)
        return Call(self.ctx.new_id("call", self.path), origin, None, spelled if known else lowered_name,
                    tuple(self.lower(a) for a in args), known=known)

    def aggregate(self, name: str, args: list[Message], origin: Origin | None, distinct: bool) -> Expr:
        star = name == "count" and (not args or (len(args) == 1 and _is_star_or_one(args[0])))
        saved = self.measures, self.windows
        self.measures, self.windows = None, None  # an aggregate's arguments are read row by row
        try:
            lowered = () if star else tuple(self.lower(a) for a in args)
        finally:
            self.measures, self.windows = saved
        function = _AGGREGATE_NAMES.get(name, name)
        # ``max_by(x, y)``: y orders the values and picks the kept x (specs/aggregate.md rule 4).
        lowered, order_by, limit = selected_by(function, lowered) or (lowered, (), None)
        filter_ = None
        if function == "count_if" and len(lowered) == 1:
            # COUNT(*) FILTER (WHERE c): the condition is a filter, not a value (specs/aggregate.md
            # rule 9; field trial 45).
            function, star, filter_, lowered = "count", True, lowered[0], ()
        call = AggregateCall(self.ctx.new_id("aggregate", self.path), origin, None, function, lowered,
                             distinct=distinct or name in ("count_distinct", "sum_distinct"), star=star,
                             filter=filter_, order_by=order_by, limit=limit)
        self.saw_aggregate = True
        if self.measures is not None:
            return FieldRef(self.ctx.new_id("ref", self.path), origin, None, self.measures.add(call))
        if self.windows is not None and getattr(self, "_in_window", False):
            return call
        raise self.fail(f"the aggregate function {name} is used outside an aggregation (groupBy().agg(), or a "
                        "select of aggregates only)")

    def window(self, w: Message, origin: Origin | None) -> Expr:
        if self.windows is None:
            raise self.fail("a window function is not read here (only in select, withColumns and filter)")
        self._in_window = True
        saved_windows = self.windows
        try:
            function = self.lower(w.window_function)
        finally:
            self._in_window = False
        self.windows = None
        try:
            partition = tuple(self.lower(p) for p in w.partition_spec)
            order = tuple(self.sort_key(o) for o in w.order_spec)
        finally:
            self.windows = saved_windows
        call = WindowCall(self.ctx.new_id("window_call", self.path), origin, None, function, partition, order)
        created = self.windows.add(call)
        return FieldRef(self.ctx.new_id("ref", self.path), origin, None, created.id)

    def sort_key(self, order: Message) -> SortKey:
        descending = order.direction == 2  # SORT_DIRECTION_DESCENDING
        nulls = {1: True, 2: False}.get(order.null_ordering)  # SORT_NULLS_FIRST / _LAST
        return SortKey(self.lower(order.child), descending, nulls)

    def sql_expression(self, text: str, origin: Origin | None) -> Expr:
        """``selectExpr`` / ``F.expr``: Spark SQL text, parsed by sqlglot and lowered here."""
        import sqlglot

        try:
            node = sqlglot.parse_one(f"SELECT {text}", read="spark").expressions[0]
        except sqlglot.errors.ParseError as error:
            raise self.fail(f"the SQL expression {text!r} does not parse: {str(error).splitlines()[0]}") from None
        return self._sqlglot(node, origin)

    def _sqlglot(self, node: Any, origin: Origin | None) -> Expr:
        from sqlglot import exp

        if isinstance(node, exp.Alias):
            return self._sqlglot(node.this, origin)
        if isinstance(node, exp.Paren):
            return self._sqlglot(node.this, origin)
        if isinstance(node, exp.Column):
            col, steps = self.resolve(".".join(p.name for p in node.parts), None)
            base: Expr = self.ref(col.field, origin)
            if steps:
                return NestedAccess(self.ctx.new_id("access", self.path), origin, None, base,
                                    tuple(f".{s}" for s in steps))
            return base
        if isinstance(node, (exp.Literal, exp.Boolean, exp.Null)):
            return Literal(self.ctx.new_id("literal", self.path), origin, None, None if isinstance(node, exp.Null)
                           else node.sql(dialect="spark"))
        children = [c for c in node.iter_expressions() if not isinstance(c, (exp.DataType, exp.Var))]
        if isinstance(node, exp.AggFunc):
            star = isinstance(node, exp.Count) and (node.this is None or isinstance(node.this, exp.Star))
            saved = self.measures, self.windows
            self.measures, self.windows = None, None
            try:
                args = () if star else tuple(self._sqlglot(c, origin) for c in children
                                             if not isinstance(c, exp.Distinct))
                if isinstance(node.this, exp.Distinct):
                    args = tuple(self._sqlglot(c, origin) for c in node.this.expressions)
            finally:
                self.measures, self.windows = saved
            args, order_by, limit = selected_by(node.key, args) or (args, (), None)
            function, filter_ = node.key, None
            if isinstance(node, exp.CountIf) and len(args) == 1:  # COUNT(*) FILTER (WHERE c), as above
                function, star, filter_, args = "count", True, args[0], ()
            call = AggregateCall(self.ctx.new_id("aggregate", self.path), origin, None, function, args,
                                 distinct=isinstance(node.this, exp.Distinct), star=star, filter=filter_,
                                 order_by=order_by, limit=limit)
            self.saw_aggregate = True
            if self.measures is not None:
                return FieldRef(self.ctx.new_id("ref", self.path), origin, None, self.measures.add(call))
            raise self.fail(f"the aggregate {node.sql(dialect='spark')} is used outside an aggregation")
        name = node.key if not isinstance(node, exp.Anonymous) else str(node.this).lower()
        return Call(self.ctx.new_id("call", self.path), origin, None, name,
                    tuple(self._sqlglot(c, origin) for c in children), known=not isinstance(node, exp.Anonymous))


_GENERATORS = frozenset({"explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer"})


def _sql_generator(text: str) -> tuple[str, Any, list[str]]:
    """(function, its argument's sqlglot node, the aliases written) of a generator written as Spark
    SQL text (``explode(l) AS e``, ``posexplode(l) AS (p, v)``); ``("", None, [])`` otherwise."""
    import sqlglot
    from sqlglot import exp

    try:
        node = sqlglot.parse_one(f"SELECT {text}", read="spark").expressions[0]
    except sqlglot.errors.ParseError:
        return "", None, []
    aliases: list[str] = []
    if isinstance(node, exp.Aliases):
        aliases, node = [a.name for a in node.expressions], node.this
    elif isinstance(node, exp.Alias):
        aliases, node = [node.alias], node.this
    if isinstance(node, exp.Anonymous):
        name = str(node.this).lower()
        args = list(node.expressions)
    else:
        name = {"ExplodeOuter": "explode_outer", "PosexplodeOuter": "posexplode_outer"}.get(
            type(node).__name__.lstrip("_"), type(node).__name__.lower())
        args = [node.this] if node.this is not None else []
    if name not in _GENERATORS or len(args) != 1:
        return "", None, []
    return name, args[0], aliases


def _generator_at(expressions: list[Message], lowerer: "ExprLowerer") -> int | None:
    """The position of the one generator of a select list (Spark allows one), or ``None``."""
    found = []
    for i, e in enumerate(expressions):
        if e.WhichOneof("expr_type") == "alias":
            e = e.alias.expr
        kind = e.WhichOneof("expr_type")
        if kind in ("unresolved_function", "call_function") and getattr(e, kind).function_name.lower() in _GENERATORS:
            found.append(i)
        elif kind == "expression_string" and _sql_generator(e.expression_string.expression)[0]:
            found.append(i)
    if len(found) > 1:
        raise lowerer.fail("a select with more than one generator (explode, posexplode, inline …): Spark refuses it")
    return found[0] if found else None


def _constructed_structs(arg: Message) -> list[list[Message]] | None:
    """The structs' values of ``array(struct(…), …)`` written in the plan, each struct as wide
    as the first; ``None`` for any other argument."""
    def call(e: Message, name: str) -> Message | None:
        kind = e.WhichOneof("expr_type")
        if kind in ("unresolved_function", "call_function") and getattr(e, kind).function_name.lower() == name:
            return getattr(e, kind)
        return None

    array = call(arg, "array")
    if array is None or not array.arguments:
        return None
    structs = [call(a, "struct") for a in array.arguments]
    if any(s is None or not s.arguments for s in structs):
        return None
    values = [list(s.arguments) for s in structs]
    return values if all(len(v) == len(values[0]) for v in values) else None


_NUMERIC = ("int", "integer", "bigint", "long", "smallint", "short", "tinyint", "byte", "float", "double", "real",
            "decimal", "numeric")


def _takes(type_: str | None, literal_kind: str | None) -> bool:
    """Does a column of ``type_`` take a ``df.na`` value of this literal kind (Spark: strings fill
    string columns, numbers numeric ones, booleans boolean ones)?  Unknown types do."""
    if not type_ or literal_kind is None:
        return True
    base = type_.strip().lower().split("(")[0].split("<")[0]
    if literal_kind == "string":
        return base in ("string", "varchar", "char", "text")
    if literal_kind == "boolean":
        return base in ("boolean", "bool")
    if literal_kind in ("integer", "long", "short", "byte", "float", "double", "decimal"):
        return base in _NUMERIC
    return True


def _is_star_or_one(e: Message) -> bool:
    kind = e.WhichOneof("expr_type")
    if kind == "unresolved_star":
        return True
    return kind == "literal" and _literal_text(e.literal) in (1, "1")


def _literal_text(literal: Message) -> Any:
    kind = literal.WhichOneof("literal_type")
    if kind is None or kind == "null":
        return None
    value = getattr(literal, kind)
    if isinstance(value, (bool, int, float, str, bytes)):
        return value
    return kind


# --- relations ---------------------------------------------------------------------------------


class Lowerer:
    def __init__(self, ctx: Context, functions=None):
        self.ctx = ctx
        self.functions = functions

    def fail(self, path: str, kind: str, problem: str, plan_id: int | None = None) -> InvalidSparkPlanError:
        return InvalidSparkPlanError(path, kind, problem, plan_id)

    def lower(self, rel: Message, path: str) -> Lowered:
        kind = rel.WhichOneof("rel_type")
        if kind is None:
            raise self.fail(path, "Relation", "the relation is empty (no relation type is set): an input is missing")
        node = getattr(rel, kind)
        plan_id = rel.common.plan_id if rel.HasField("common") and rel.common.HasField("plan_id") else None
        handler = getattr(self, f"_{kind}", None)
        if handler is None and kind not in _PASS_THROUGH:
            raise self.fail(f"{path}.{kind}", node.DESCRIPTOR.name, f"relations of kind {kind} "
                                                                    f"({node.DESCRIPTOR.name}) are not read by "
                                                                    "prism_lineage", plan_id)
        here = f"{path}.{kind}"
        if kind in _PASS_THROUGH:
            result = self.input(node, here)
        else:
            result = handler(node, here, plan_id)
        self.ctx.enter(here, node.DESCRIPTOR.name, plan_id)
        if plan_id is not None:
            result.cols = [replace(c, plan_ids=c.plan_ids | {plan_id}) for c in result.cols]
        return result

    def input(self, node: Message, path: str, name: str = "input") -> Lowered:
        if not node.HasField(name):
            raise self.fail(path, node.DESCRIPTOR.name, f"the {node.DESCRIPTOR.name} has no {name} relation")
        lowered = self.lower(getattr(node, name), f"{path}.{name}")
        self._hidden = lowered.hidden  # for the parent's expressions only (exprs)
        return lowered

    def exprs(self, path: str, node: Message, plan_id: int | None, cols: Sequence[Col], **kw) -> ExprLowerer:
        self.ctx.enter(path, node.DESCRIPTOR.name, plan_id)
        kw.setdefault("hidden", getattr(self, "_hidden", ()))
        return ExprLowerer(self.ctx, path, node.DESCRIPTOR.name, plan_id, cols, **kw)

    def refs(self, cols: Sequence[Col]) -> list[Expr]:
        return [FieldRef(self.ctx.new_id("ref"), self.ctx.origin, c.field.type, c.field.id) for c in cols]

    def project(self, input_: Relation, exprs: Sequence[Expr], names: Sequence[str], kind: str = "project"
                ) -> Project:
        project_id = self.ctx.new_id(kind)
        columns = tuple(self.ctx.field(project_id, i, name, expr.type, expr.origin)
                        for i, (expr, name) in enumerate(zip(exprs, names)))
        return Project(project_id, self.ctx.origin, input_, tuple(exprs), columns)

    def projected(self, input_: Lowered, items: Sequence[tuple[Expr, str, Col | None]], kind: str = "project",
                  base: Relation | None = None) -> Lowered:
        """A projection whose plain references keep their column's qualifiers and plan ids."""
        project = self.project(base or input_.relation, [e for e, _, _ in items], [n for _, n, _ in items], kind)
        cols = [Col(f, name, col.qualifiers if col is not None else frozenset(),
                    col.plan_ids if col is not None else frozenset())
                for f, (_, name, col) in zip(project.columns, items)]
        return Lowered(project, cols)

    # --- leaves ------------------------------------------------------------------------------------

    def _read(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        self.ctx.enter(path, "Read", plan_id)
        which = node.WhichOneof("read_type")
        if which == "named_table":
            name = node.named_table.unparsed_identifier
            parts = tuple(split_identifier(name))
            declared = self.ctx.catalog.lookup(parts) if self.ctx.catalog is not None else None
            if declared is None:
                raise self.fail(path, "Read", f"table {name!r} is not in the schema: a Spark Connect plan does not "
                                              "carry its tables' columns, give them with --schema (schema=…)",
                                plan_id)
            columns = [(c.name, c.type) for c in declared.columns]
            return self.scan(declared.name, columns, {name.lower(), parts[-1].lower(), declared.name.lower()})
        if which == "data_source":
            source = node.data_source
            paths = list(source.paths)
            if not source.schema:
                table = source.source_name or _stem(paths[0]) if paths else source.format or "data_source"
                declared = self.ctx.catalog.lookup((table,)) if self.ctx.catalog is not None else None
                if declared is None:
                    raise self.fail(path, "Read", f"the data source ({source.format or 'a file'} "
                                                  f"{', '.join(paths)}) has no schema in the plan and {table!r} is "
                                                  "not in the schema: give one (.schema(...) or --schema)", plan_id)
                columns = [(c.name, c.type) for c in declared.columns]
            else:
                columns = parse_schema(source.schema)
                table = _stem(paths[0]) if paths else (source.format or "data_source")
            return self.scan(table, columns, {table.lower()})
        raise self.fail(path, "Read", "the read names no table and no data source", plan_id)

    def scan(self, table: str, columns: list[tuple[str, str | None]], qualifiers: set[str]) -> Lowered:
        scan_id = self.ctx.new_id("scan")
        fields = [self.ctx.field(scan_id, name, name, type_) for name, type_ in columns]
        scan = Scan(scan_id, self.ctx.origin, table, tuple(fields))
        return Lowered(scan, [Col(f, f.name, frozenset(qualifiers)) for f in fields])

    def _local_relation(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        self.ctx.enter(path, "LocalRelation", plan_id)
        if node.schema:
            columns = parse_schema(node.schema)
        elif node.data:
            import pyarrow as pa

            columns = [(f.name, str(f.type)) for f in pa.ipc.open_stream(node.data).schema]
        else:
            raise self.fail(path, "LocalRelation", "the local relation has neither a schema nor data", plan_id)
        return self.values(columns)

    def values(self, columns: list[tuple[str, str | None]]) -> Lowered:
        values_id = self.ctx.new_id("values")
        fields = tuple(self.ctx.field(values_id, i, name, type_) for i, (name, type_) in enumerate(columns))
        # Rows held in the plan itself: their values come from no table.
        return Lowered(Values(values_id, self.ctx.origin, fields, ()), [Col(f, f.name) for f in fields])

    def _range(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        self.ctx.enter(path, "Range", plan_id)
        return self.values([("id", "bigint")])

    def _sql(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        from ...catalog import Catalog as _Catalog
        from ..sql import lower_sql

        self.ctx.enter(path, "SQL", plan_id)
        catalog = self.ctx.catalog if self.ctx.catalog is not None else _Catalog.from_mapping(None)
        statements = lower_sql(node.query, catalog=catalog, dialect="spark", file=self.ctx.file,
                               functions=self.functions)
        if len(statements) != 1 or statements[0].kind != "select" or statements[0].root is None:
            raise self.fail(path, "SQL", f"spark.sql() here must be one query (it holds "
                                         f"{len(statements)} statement(s) of kind "
                                         f"{', '.join(s.kind for s in statements)})", plan_id)
        statement = statements[0]
        self.ctx.sql_statements += 1
        root = _reid(statement.root, f"sql{self.ctx.sql_statements}.")
        for u in statement.uncertain:
            self.ctx.uncertain_about(u.reason, u.field)
        ids = self.ctx.ingress.setdefault(path, _Ingress("SQL", plan_id)).targets
        ids.extend(_plan_ids(root))
        return Lowered(root, [Col(f, f.name) for f in root.fields])

    # --- one input ---------------------------------------------------------------------------------

    def _project(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path) if node.HasField("input") else self.values([])
        windows = _Windows(self.ctx)
        lowerer = self.exprs(path, node, plan_id, input_.cols, windows=windows)
        expressions = list(node.expressions)
        at = _generator_at(expressions, lowerer)
        try:
            if at is None:
                items = lowerer.lower_list(expressions)
            else:
                items = lowerer.lower_list(expressions[:at])
                generated = self.generator(expressions[at], lowerer, input_)
                items += generated + lowerer.lower_list(expressions[at + 1:])
        except InvalidSparkPlanError as error:
            if "outside an aggregation" not in error.problem:
                raise
            # A select of aggregates only: one row, an aggregate with no keys.
            return self.aggregate(node, path, plan_id, input_, [], expressions, None)
        base = windows.build(input_.relation)
        if at is not None:
            base = replace(self._generator, input=base)
        return self.projected(input_, items, base=base)

    def generator(self, e: Message, lowerer: "ExprLowerer", input_: Lowered,
                  aliases: Sequence[str] = ()) -> list[tuple[Expr, str, Col | None]]:
        """A generator in a select (``F.explode``, ``posexplode``, ``inline`` and their ``_outer``
        forms): a ``Generator`` below the projection (kept in ``self._generator``; its input is
        set by the caller), whose columns are named as Spark names them, or by the aliases given
        (field trial 44: it was one column of a plain call)."""
        aliases = list(aliases)
        origin = _origin_of(e, self.ctx.origin)
        if e.WhichOneof("expr_type") == "alias":
            aliases = list(e.alias.name)
            e = e.alias.expr
        if e.WhichOneof("expr_type") == "expression_string":
            # selectExpr("explode(l) AS e") / F.expr("posexplode(l)"): the same, from Spark SQL text.
            name, node, written = _sql_generator(e.expression_string.expression)
            aliases = aliases or written
            arguments = [node]
            lower_arg = lambda a: lowerer._sqlglot(a, origin)  # noqa: E731
            name_arg = lambda a: a.sql(dialect="spark")  # noqa: E731
        else:
            call = getattr(e, e.WhichOneof("expr_type"))
            name = call.function_name.lower()
            arguments = list(call.arguments)
            lower_arg, name_arg = lowerer.lower, lowerer.name_of
        function, outer = name.removesuffix("_outer"), name.endswith("_outer")
        if len(arguments) != 1:
            raise lowerer.fail(f"{name} takes one argument, the plan gives {len(arguments)}")
        arg = arguments[0]
        outputs: list[tuple[str, GeneratedColumn, str | None]] = []
        args: list[Expr]
        structs = _constructed_structs(arg) if function == "inline" and isinstance(arg, Message) else None
        if structs is not None:
            # inline(array(struct(a AS p, x AS q), …)): column i is field i of every struct.
            width = len(structs[0])
            args = [lowerer.lower(value) for struct in structs for value in struct]
            names = [lowerer.name_of(value) for value in structs[0]]
            outputs = [(names[i], GeneratedColumn(GeneratedRole.VALUE, tuple(range(i, len(args), width))), None)
                       for i in range(width)]
        else:
            lowered = lower_arg(arg)
            args = [lowered]
            shape = type_info(lowered.type, "spark")
            if function == "posexplode":
                outputs.append(("pos", GeneratedColumn(GeneratedRole.INDEX), "int"))
            if function == "inline":
                fields = shape.element().fields()
                if not fields:
                    raise lowerer.fail(f"{name} of {name_arg(arg)}: the fields of its structs are not known "
                                       "(declare the column's type), so neither are the columns it makes")
                outputs += [(n, GeneratedColumn(GeneratedRole.ELEMENT, 0, f"[].{n}"), info.sql() if info.known else None)
                            for n, info in fields]
            elif shape.kind == "map":
                outputs += [("key", GeneratedColumn(GeneratedRole.KEY), shape.key().sql() if shape.known else None),
                            ("value", GeneratedColumn(GeneratedRole.VALUE, 0, "[]"),
                             shape.value().sql() if shape.known else None)]
            else:
                element = shape.element()
                outputs.append(("col", GeneratedColumn(GeneratedRole.ELEMENT, 0, "[]"),
                                element.sql() if element.known else None))
        if aliases and len(aliases) != len(outputs):
            raise lowerer.fail(f"{name} makes {len(outputs)} columns, the alias names {len(aliases)}")
        names = aliases or [n for n, _, _ in outputs]
        generator_id = self.ctx.new_id("generator")
        columns = tuple(self.ctx.field(generator_id, i, n, t, origin) for i, (n, (_, _, t)) in
                        enumerate(zip(names, outputs)))
        self._generator = Generator(generator_id, origin, input_.relation, function, tuple(args), columns,
                                    tuple(o for _, o, _ in outputs), outer)
        return [(FieldRef(self.ctx.new_id("ref"), origin, c.type, c.id), c.name, None) for c in columns]

    def _filter(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        windows = _Windows(self.ctx)
        predicate = self.exprs(path, node, plan_id, input_.cols, windows=windows).lower(node.condition)
        if not windows.calls and isinstance(input_.relation, Join):
            # crossJoin(…).filter(…): SQL's FROM a, b WHERE … — a conjunct relating the crossed
            # inputs is the join's condition (join lineage), as the SQL and Substrait frontends read it.
            from ..substrait.joins import place_join_predicates

            joined, rest = place_join_predicates(_Ids(self.ctx), input_.relation, predicate, path)
            if rest is None:
                return Lowered(joined, input_.cols)
            input_, predicate = Lowered(joined, input_.cols), rest
        base = windows.build(input_.relation)
        relation: Relation = Filter(self.ctx.new_id("filter"), self.ctx.origin, base, predicate,
                                    "where" if base is input_.relation else "qualify")
        if base is not input_.relation:
            return self.projected(Lowered(relation, input_.cols),
                                  [(r, c.name, c) for r, c in zip(self.refs(input_.cols), input_.cols)])
        return Lowered(relation, input_.cols)

    def _sort(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        lowerer = self.exprs(path, node, plan_id, input_.cols)
        keys = tuple(lowerer.sort_key(o) for o in node.order)
        return Lowered(Sort(self.ctx.new_id("sort"), self.ctx.origin, input_.relation, keys), input_.cols)

    def _limit(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        self.ctx.enter(path, node.DESCRIPTOR.name, plan_id)
        count = Literal(self.ctx.new_id("literal"), self.ctx.origin, None, str(node.limit))
        return Lowered(Limit(self.ctx.new_id("limit"), self.ctx.origin, input_.relation, count), input_.cols)

    _tail = _limit

    def _offset(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        self.ctx.enter(path, "Offset", plan_id)
        offset = Literal(self.ctx.new_id("literal"), self.ctx.origin, None, str(node.offset))
        return Lowered(Limit(self.ctx.new_id("limit"), self.ctx.origin, input_.relation, None, offset), input_.cols)

    def _deduplicate(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        lowerer = self.exprs(path, node, plan_id, input_.cols)
        on: tuple[Expr, ...] = ()
        if node.column_names and not node.all_columns_as_keys:
            on = tuple(lowerer.ref(lowerer.resolve(n, None)[0].field, self.ctx.origin) for n in node.column_names)
        return Lowered(Distinct(self.ctx.new_id("distinct"), self.ctx.origin, input_.relation, on), input_.cols)

    def _subquery_alias(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        alias = node.alias.lower()
        return Lowered(input_.relation, [replace(c, qualifiers=frozenset({alias})) for c in input_.cols])

    def _with_columns(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        windows = _Windows(self.ctx)
        lowerer = self.exprs(path, node, plan_id, input_.cols, windows=windows)
        items: list[tuple[Expr, str, Col | None]] = [(r, c.name, c) for r, c in zip(self.refs(input_.cols),
                                                                                      input_.cols)]
        generated = None
        for alias in node.aliases:
            if len(alias.name) != 1:
                raise lowerer.fail("withColumns with a multi-column alias is not read")
            name = alias.name[0]
            if _generator_at([alias.expr], lowerer) is not None:
                if generated is not None:
                    raise lowerer.fail("withColumns with more than one generator (explode …): Spark refuses it")
                generated = self.generator(alias.expr, lowerer, input_, [name])
                expr = generated[0][0]
            else:
                expr = lowerer.lower(alias.expr)
            position = next((i for i, (_, n, _) in enumerate(items) if n.lower() == name.lower()), None)
            if position is None:
                items.append((expr, name, None))
            else:
                items[position] = (expr, name, None)
        base = windows.build(input_.relation)
        if generated is not None:
            base = replace(self._generator, input=base)
        return self.projected(input_, items, base=base)

    def _with_columns_renamed(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        self.ctx.enter(path, "WithColumnsRenamed", plan_id)
        renames = {k.lower(): v for k, v in node.rename_columns_map.items()}
        renames.update({r.col_name.lower(): r.new_col_name for r in node.renames})
        items = [(r, renames.get(c.name.lower(), c.name), c) for r, c in zip(self.refs(input_.cols), input_.cols)]
        return self.projected(input_, items)

    def _drop(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        lowerer = self.exprs(path, node, plan_id, input_.cols)
        dropped = {c.field.id for c in input_.cols if c.name.lower() in {n.lower() for n in node.column_names}}
        for e in node.columns:
            col = lowerer._col_of(e)
            if col is None:
                raise lowerer.fail("drop() takes columns, not expressions")
            dropped.add(col.field.id)
        kept = [c for c in input_.cols if c.field.id not in dropped]
        return self.projected(input_, [(r, c.name, c) for r, c in zip(self.refs(kept), kept)])

    def _unpivot(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        """``unpivot(ids, values, var, val)`` / ``melt``: one block of rows per value column —
        ``SELECT ids…, 'v' AS var, v AS val`` — stacked (UNION ALL); without values, every column
        that is not an id. ``var`` holds names (no sources), ``val`` each value column's values."""
        input_ = self.input(node, path)
        self.ctx.enter(path, "Unpivot", plan_id)
        lowerer = self.exprs(path, node, plan_id, input_.cols)
        ids = lowerer.lower_list(node.ids)
        if node.HasField("values"):
            values = lowerer.lower_list(node.values.values)
        else:
            taken = {c.field.id for _, _, c in ids if c is not None}
            values = [(r, c.name, c) for r, c in zip(self.refs(input_.cols), input_.cols) if c.field.id not in taken]
        if not values:
            raise lowerer.fail("unpivot has no value column")
        names = [n for _, n, _ in ids] + [node.variable_column_name, node.value_column_name]
        blocks: list[Relation] = []
        for expr, name, _ in values:
            again = [lowerer.lower_list([e])[0][0] for e in node.ids] if blocks else [e for e, _, _ in ids]
            variable = Literal(self.ctx.new_id("literal"), self.ctx.origin, None, name)
            blocks.append(self.project(input_.relation, again + [variable, expr], names, "unpivot"))
        relation = blocks[0]
        for other in blocks[1:]:
            set_id = self.ctx.new_id("union")
            columns = tuple(self.ctx.field(set_id, i, f.name, f.type) for i, f in enumerate(relation.fields))
            relation = SetOperation(set_id, self.ctx.origin, SetKind.UNION, True, relation, other, columns)
        return Lowered(relation, [Col(f, f.name) for f in relation.fields])

    # --- df.na: fill, drop, replace ---------------------------------------------------------------

    def _na_targets(self, node: Message, lowerer: "ExprLowerer", input_: Lowered, value: Message | None) -> list[Col]:
        """The columns a ``df.na`` operation touches: those named, else every column whose type
        takes ``value`` (a string fills string columns, a number numeric ones — Spark's rule;
        a column of unknown type is counted in)."""
        if node.cols:
            return [lowerer.resolve(name, None)[0] for name in node.cols]
        return [c for c in input_.cols if value is None or _takes(c.field.type, value.WhichOneof("literal_type"))]

    def _fill_na(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        """``fillna(v[, subset])`` / ``fillna({c: v})``: each filled column is ``coalesce(c, v)``."""
        input_ = self.input(node, path)
        self.ctx.enter(path, "NAFill", plan_id)
        lowerer = self.exprs(path, node, plan_id, input_.cols)
        values = list(node.values)
        if not values:
            raise lowerer.fail("fillna gives no value")
        targets = self._na_targets(node, lowerer, input_, values[0] if len(values) == 1 else None)
        if len(values) == 1:
            values = values * len(targets)
        elif len(values) != len(targets):
            raise lowerer.fail(f"fillna names {len(targets)} columns and {len(values)} values")
        filled = {c.field.id: v for c, v in zip(targets, values)}
        items: list[tuple[Expr, str, Col | None]] = []
        for ref, c in zip(self.refs(input_.cols), input_.cols):
            value = filled.get(c.field.id)
            if value is None:
                items.append((ref, c.name, c))
                continue
            text = _literal_text(value)
            literal = Literal(self.ctx.new_id("literal"), self.ctx.origin, None, None if text is None else str(text))
            items.append((Call(self.ctx.new_id("call"), self.ctx.origin, None, "coalesce", (ref, literal)), c.name,
                          replace(c, field=c.field)))
        return self.projected(input_, items)

    def _drop_na(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        """``dropna(how, thresh, subset)``: a filter on the named (else every) column's nulls:
        control from each of them."""
        input_ = self.input(node, path)
        self.ctx.enter(path, "NADrop", plan_id)
        lowerer = self.exprs(path, node, plan_id, input_.cols)
        targets = self._na_targets(node, lowerer, input_, None)
        refs = [FieldRef(self.ctx.new_id("ref"), self.ctx.origin, c.field.type, c.field.id) for c in targets]
        least = node.min_non_nulls if node.HasField("min_non_nulls") else len(refs)
        count = Literal(self.ctx.new_id("literal"), self.ctx.origin, None, str(least))
        predicate = Call(self.ctx.new_id("call"), self.ctx.origin, None, "non_nulls_at_least", (count, *refs))
        return Lowered(Filter(self.ctx.new_id("filter"), self.ctx.origin, input_.relation, predicate), input_.cols)

    def _replace(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        """``replace(old, new[, subset])``: each touched column is ``CASE c WHEN old THEN new … ELSE c``
        — its own value (or a literal): value lineage from it alone."""
        input_ = self.input(node, path)
        self.ctx.enter(path, "NAReplace", plan_id)
        lowerer = self.exprs(path, node, plan_id, input_.cols)
        first = node.replacements[0].old_value if node.replacements else None
        touched = {c.field.id for c in self._na_targets(node, lowerer, input_, first)}
        items: list[tuple[Expr, str, Col | None]] = []
        for ref, c in zip(self.refs(input_.cols), input_.cols):
            if c.field.id not in touched:
                items.append((ref, c.name, c))
                continue
            args: list[Expr] = [ref]
            for replacement in node.replacements:
                for value in (replacement.old_value, replacement.new_value):
                    text = _literal_text(value)
                    args.append(Literal(self.ctx.new_id("literal"), self.ctx.origin, None,
                                        None if text is None else str(text)))
            items.append((Call(self.ctx.new_id("call"), self.ctx.origin, None, "replace_values", tuple(args)), c.name,
                          None))
        return self.projected(input_, items)

    def _to_df(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        self.ctx.enter(path, "ToDF", plan_id)
        if len(node.column_names) != len(input_.cols):
            raise self.fail(path, "ToDF", f"toDF() names {len(node.column_names)} column(s) of "
                                          f"{len(input_.cols)}", plan_id)
        items = [(r, n, None) for r, n in zip(self.refs(input_.cols), node.column_names)]
        return self.projected(input_, items)

    def _aggregate(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        input_ = self.input(node, path)
        group_type = node.DESCRIPTOR.fields_by_name["group_type"].enum_type.values_by_number[node.group_type].name
        if group_type == "GROUP_TYPE_PIVOT":
            return self._pivot(node, path, plan_id, input_)
        return self.aggregate(node, path, plan_id, input_, list(node.grouping_expressions),
                              list(node.aggregate_expressions), group_type)

    def _pivot(self, node: Message, path: str, plan_id: int | None, input_: Lowered) -> Lowered:
        """``groupBy(keys).pivot(col, [v1, …]).agg(f1, …)``: per value and aggregate, the aggregate
        over the group's rows whose pivot column equals the value — ``f FILTER (WHERE col = v)``:
        control from the pivot column. Columns: the keys, then per value its aggregates, named
        ``v`` (one aggregate) or ``v_alias`` (several: each must be aliased, as Spark's own names
        for unnamed ones come from their SQL text)."""
        values = list(node.pivot.values)
        if not values:
            raise self.fail(path, "Aggregate", "pivot() without values: its columns are the pivot column's distinct "
                                               "values, which only the data knows (list them: pivot(col, [values]))",
                            plan_id)
        measures = list(node.aggregate_expressions)
        if len(measures) > 1 and any(m.WhichOneof("expr_type") != "alias" for m in measures):
            raise self.fail(path, "Aggregate", "pivot() with several aggregates that are not all aliased: Spark "
                                               "names their columns from the aggregates' SQL text (alias them)", plan_id)
        lowered = self.aggregate(node, path, plan_id, input_, list(node.grouping_expressions),
                                 [m for _ in values for m in measures], None,
                                 pivot=(node.pivot.col, values, len(measures)))
        return lowered

    def aggregate(self, node: Message, path: str, plan_id: int | None, input_: Lowered, keys: list[Message],
                  measures: list[Message], group_type: str | None, pivot: tuple | None = None) -> Lowered:
        key_lowerer = self.exprs(path, node, plan_id, input_.cols)
        lowered_keys = []
        for k in keys:
            expr, name = key_lowerer.lower_named(k)
            lowered_keys.append((expr, name, key_lowerer._col_of(k)))
        aggregate_id = self.ctx.new_id("aggregate")
        key_fields = [self.ctx.field(aggregate_id, i, name, None, expr.origin)
                      for i, (expr, name, _) in enumerate(lowered_keys)]
        collector = _Measures(aggregate_id, [(e, c) for e, _, c in lowered_keys], key_fields)
        lowerer = self.exprs(path, node, plan_id, input_.cols, measures=collector)
        # A column the aggregate expressions read outside an aggregation must be a key.
        key_cols = [Col(f, name, col.qualifiers if col else frozenset(), col.plan_ids if col else frozenset())
                    for f, (_, name, col) in zip(key_fields, lowered_keys)]
        key_by_input = {col.field.id: kf for (_, _, col), kf in zip(lowered_keys, key_fields) if col is not None}
        outputs: list[tuple[Expr, str]] = []
        for position, m in enumerate(measures):
            first = len(collector.calls)
            expr, name = lowerer.lower_named(m)
            if pivot is not None:
                column, values, width = pivot
                value = values[position // width]
                # This value's aggregates: FILTER (WHERE pivot column = value).
                test = Call(self.ctx.new_id("call"), self.ctx.origin, None, "eq",
                            (key_lowerer.lower(column), Literal(self.ctx.new_id("literal"), self.ctx.origin, None,
                                                                str(_literal_text(value)))))
                for i in range(first, len(collector.calls)):
                    call = collector.calls[i]
                    both = test if call.filter is None else Call(self.ctx.new_id("call"), self.ctx.origin, None,
                                                                 "and", (call.filter, test))
                    collector.calls[i] = replace(call, filter=both)
                label = str(_literal_text(value))
                name = label if width == 1 else f"{label}_{name}"
            outputs.append((_keys_read(expr, key_by_input, lowerer), name))
        measure_fields = []
        direct = {o.field: n for o, n in outputs if isinstance(o, FieldRef)}
        for i, call in enumerate(collector.calls):
            target = field_id(aggregate_id, len(key_fields) + i)
            measure_fields.append(self.ctx.field(aggregate_id, len(key_fields) + i,
                                                 direct.get(target, f"__measure{i}"), None, call.origin))
        sets = _grouping_sets(group_type, node, len(keys), lowered_keys, key_lowerer)
        aggregate = Aggregate(aggregate_id, self.ctx.origin, input_.relation, tuple(e for e, _, _ in lowered_keys),
                              tuple(collector.calls), tuple(key_fields + measure_fields), sets)
        names = [f.name for f in key_fields] + [n for _, n in outputs]
        if [o.field if isinstance(o, FieldRef) else None for o, _ in outputs] == [f.id for f in measure_fields] \
                and list(aggregate.names) == names:
            return Lowered(aggregate, key_cols + [Col(f, f.name) for f in measure_fields])
        items = [(r, c.name, c) for r, c in zip(self.refs(key_cols), key_cols)] + [(o, n, None) for o, n in outputs]
        lowered = self.projected(Lowered(aggregate, key_cols), items)
        return lowered

    # --- several inputs ------------------------------------------------------------------------

    def _join(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        left = self.input(node, path, "left")
        right = self.input(node, path, "right")
        join_type = node.DESCRIPTOR.fields_by_name["join_type"].enum_type.values_by_number[node.join_type].name
        kind = _JOINS[join_type]
        lowerer = self.exprs(path, node, plan_id, left.cols + right.cols, hidden=left.hidden + right.hidden)
        condition: Expr | None = None
        if node.HasField("join_condition"):
            condition = lowerer.lower(node.join_condition)
        using = list(node.using_columns)
        pairs = []
        for name in using:
            l_col = ExprLowerer(self.ctx, path, "Join", plan_id, left.cols).resolve(name, None)[0]
            r_col = ExprLowerer(self.ctx, path, "Join", plan_id, right.cols).resolve(name, None)[0]
            pairs.append((l_col, r_col))
            l_ref, r_ref = self.refs([l_col, r_col])
            eq = Call(self.ctx.new_id("call"), self.ctx.origin, None, "eq", (l_ref, r_ref))
            condition = eq if condition is None else Call(self.ctx.new_id("call"), self.ctx.origin, None, "and",
                                                          (condition, eq))
        if kind is JoinKind.INNER and condition is None:
            kind = JoinKind.CROSS
        join = Join(self.ctx.new_id("join"), self.ctx.origin, kind, left.relation, right.relation, condition)
        if kind in (JoinKind.SEMI, JoinKind.ANTI):
            return Lowered(join, left.cols)
        if not using:
            return Lowered(join, left.cols + right.cols)
        # USING: the join columns once (the left's, the right's for a right join, either for a
        # full join), then the left's other columns, then the right's.
        items: list[tuple[Expr, str, Col | None]] = []
        for l_col, r_col in pairs:
            # The merged key answers to the side whose value it is (the left's, the right's for a
            # right join, neither's for a full join: coalesce); each side's own key stays reachable
            # by its DataFrame or qualifier (``hidden``), as Spark SQL's t.k / u.k.
            owner = {JoinKind.FULL: None, JoinKind.RIGHT: r_col}.get(kind, l_col)
            merged = replace(l_col, plan_ids=owner.plan_ids if owner else frozenset(),
                             qualifiers=owner.qualifiers if owner else frozenset())
            if kind is JoinKind.FULL:
                expr = Call(self.ctx.new_id("call"), self.ctx.origin, None, "coalesce", tuple(self.refs([l_col, r_col])))
                items.append((expr, l_col.name, merged))
            else:
                chosen = r_col if kind is JoinKind.RIGHT else l_col
                items.append((self.refs([chosen])[0], l_col.name, merged))
        used = {c.field.id for pair in pairs for c in pair}
        for col in left.cols + right.cols:
            if col.field.id not in used:
                items.append((self.refs([col])[0], col.name, col))
        lowered = self.projected(Lowered(join, left.cols + right.cols), items, "join_output")
        lowered.hidden = [c for pair in pairs for c in pair]
        return lowered

    def _set_op(self, node: Message, path: str, plan_id: int | None) -> Lowered:
        left = self.input(node, path, "left_input")
        right = self.input(node, path, "right_input")
        op = node.DESCRIPTOR.fields_by_name["set_op_type"].enum_type.values_by_number[node.set_op_type].name
        kind = {"SET_OP_TYPE_UNION": SetKind.UNION, "SET_OP_TYPE_INTERSECT": SetKind.INTERSECT,
                "SET_OP_TYPE_EXCEPT": SetKind.EXCEPT}.get(op)
        if kind is None:
            raise self.fail(path, "SetOperation", f"set operation {op} is not read", plan_id)
        self.ctx.enter(path, "SetOperation", plan_id)
        left_rel, right_rel, names = left.relation, right.relation, [c.name for c in left.cols]
        if node.by_name:
            by_name = {c.name.lower(): c for c in right.cols}
            missing_right = [c for c in left.cols if c.name.lower() not in by_name]
            extra = [c for c in right.cols if c.name.lower() not in {l.name.lower() for l in left.cols}]
            if (missing_right or extra) and not node.allow_missing_columns:
                raise self.fail(path, "SetOperation", "unionByName over different columns "
                                                      f"({', '.join(c.name for c in missing_right + extra)}) "
                                                      "without allowMissingColumns", plan_id)
            left_exprs: list[Expr] = self.refs(left.cols) + [self._null() for _ in extra]
            names = [c.name for c in left.cols] + [c.name for c in extra]
            right_exprs = [self.refs([by_name[c.name.lower()]])[0] if c.name.lower() in by_name else self._null()
                           for c in left.cols] + self.refs(extra)
            if extra:
                left_rel = self.project(left_rel, left_exprs, names)
            right_rel = self.project(right_rel, right_exprs, names)
        elif len(left.cols) != len(right.cols):
            raise self.fail(path, "SetOperation", f"its inputs have {len(left.cols)} and {len(right.cols)} "
                                                  "columns", plan_id)
        set_id = self.ctx.new_id("set_operation")
        columns = tuple(self.ctx.field(set_id, i, n) for i, n in enumerate(names))
        relation = SetOperation(set_id, self.ctx.origin, kind, node.is_all, left_rel, right_rel, columns)
        return Lowered(relation, [Col(f, f.name) for f in columns])

    def _null(self) -> Literal:
        return Literal(self.ctx.new_id("literal"), self.ctx.origin, None, None)


def _keys_read(expr: Expr, key_by_input: dict[str, Field], lowerer: ExprLowerer) -> Expr:
    """``expr`` (an aggregate's output) with references to input columns that are grouping
    keys turned into references to the key fields; a column that is no key is an error."""
    from ...ir import transform
    from ...ir.walk import Transformed

    problems = []

    def on_expr(node: Expr) -> Transformed[Expr]:
        if isinstance(node, FieldRef) and not node.field.startswith(lowerer.measures.aggregate_id):
            key = key_by_input.get(node.field)
            if key is None:
                problems.append(node.field)
                return Transformed(node, False)
            return Transformed(replace(node, field=key.id), True)
        return Transformed(node, False)

    result = transform(expr, on_expr=on_expr).node
    if problems:
        names = {c.field.id: c.name for c in lowerer.cols}
        raise lowerer.fail(f"column {names.get(problems[0], problems[0])!r} is read outside an aggregate function "
                           "and is not grouped by")
    return result


def _grouping_sets(group_type: str | None, node: Message, count: int, keys, lowerer: ExprLowerer
                   ) -> tuple[tuple[int, ...], ...] | None:
    if group_type in (None, "GROUP_TYPE_GROUPBY", "GROUP_TYPE_UNSPECIFIED"):
        return None
    if group_type == "GROUP_TYPE_ROLLUP":
        return tuple(tuple(range(n)) for n in range(count, -1, -1))
    if group_type == "GROUP_TYPE_CUBE":
        return tuple(c for n in range(count, -1, -1) for c in combinations(range(count), n))
    if group_type == "GROUP_TYPE_GROUPING_SETS":
        texts = [k.SerializeToString(deterministic=True) for k in node.grouping_expressions]
        out = []
        for grouping_set in node.grouping_sets:
            positions = []
            for e in grouping_set.grouping_set:
                text = e.SerializeToString(deterministic=True)
                if text not in texts:
                    raise lowerer.fail("a grouping set holds an expression that is not a grouping expression")
                positions.append(texts.index(text))
            out.append(tuple(positions))
        return tuple(out)
    raise lowerer.fail(f"grouping of type {group_type} is not read")


def _stem(path: str) -> str:
    name = path.rstrip("/").rsplit("/", 1)[-1]
    stem = name.split(".")[0]
    return stem or name


def parse_schema(text: str) -> list[tuple[str, str | None]]:
    """The columns of a Spark schema string: DDL (``a INT, b STRING``), ``struct<…>`` or the
    JSON form."""
    text = text.strip()
    if text.startswith("{"):
        document = json.loads(text)
        return [(f["name"], json.dumps(f["type"]) if not isinstance(f["type"], str) else f["type"])
                for f in document.get("fields", [])]
    import sqlglot
    from sqlglot import exp

    body = text[len("struct<"):-1] if text.lower().startswith("struct<") else text
    body = body.replace(":", " ") if text.lower().startswith("struct<") else body
    create = sqlglot.parse_one(f"CREATE TABLE t ({body})", read="spark")
    return [(c.name, c.args["kind"].sql(dialect="spark").lower() if c.args.get("kind") else None)
            for c in create.find_all(exp.ColumnDef)]


def _reid(root: Relation, prefix: str) -> Relation:
    """The SQL frontend's plan with every id prefixed (two ``spark.sql`` relations of one plan
    would otherwise share ids); base columns (``column:``) keep theirs."""
    import dataclasses

    memo: dict[int, Any] = {}

    def fix(value: Any, name: str = "") -> Any:
        if isinstance(value, str):
            if name in ("id", "field", "cte") and not value.startswith("column:"):
                return prefix + value
            return value
        if isinstance(value, tuple):
            if name in ("fields", "cte_fields", "authored") and all(isinstance(v, str) for v in value):
                return tuple(v if v.startswith("column:") else prefix + v for v in value)
            return tuple(fix(v) for v in value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            key = id(value)
            if key in memo:
                return memo[key]
            changes = {f.name: fix(getattr(value, f.name), f.name) for f in dataclasses.fields(value)}
            memo[key] = out = dataclasses.replace(value, **changes)
            return out
        return value

    return fix(root)


def _plan_ids(root: Relation) -> list[str]:
    out = []
    for relation in walk_relations(root):
        out.append(relation.id)
        out.extend(f.id for f in getattr(relation, "columns", None) or ())
        for expr in expressions_of(relation):
            out.extend(n.id for n in iter_tree(expr))
    return out


def lower_plan(plan: Message, catalog: Catalog | None, file: str | None, functions=None) -> list[Statement]:
    ctx = Context(catalog, file)
    lowerer = Lowerer(ctx, functions)
    which = plan.WhichOneof("op_type")
    kind, target, writes = "select", None, None
    if which == "root":
        lowered = lowerer.lower(plan.root, "root")
    elif which == "command" and plan.command.WhichOneof("command_type") == "write_operation":
        write = plan.command.write_operation
        lowered = lowerer.lower(write.input, "command.write_operation.input")
        save = write.WhichOneof("save_type")
        if save == "table":
            target = write.table.table_name
            method = write.table.save_method  # 1: saveAsTable, 2: insertInto
            kind = "insert" if method == 2 else "create_table"
        elif save == "path":
            target = write.path
            kind = "insert"
        else:
            raise InvalidSparkPlanError("command.write_operation", "WriteOperation", "the write names no table or path")
        writes = tuple(WrittenColumn(c.name, c.field.id) for c in lowered.cols)
    else:
        raise InvalidSparkPlanError(which or "plan", "Plan", "only a plan's root relation and its write operation "
                                                             "(saveAsTable, insertInto, save) are read")
    root = read_picked_parts(lowered.relation)
    names = [c.name for c in lowered.cols]
    if list(root.names) != names:
        ctx.enter("root", "Plan", None)
        root = lowerer.project(root, lowerer.refs(lowered.cols), names, "root")
    present = set(_plan_ids(root))
    return [Statement(0, kind, root, ctx.origin, target, writes, tuple(ctx.uncertain), ctx.ingress_origins(present))]
