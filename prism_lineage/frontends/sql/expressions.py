"""Lowering of SQL scalar expressions into IR expressions.

The lowerer works for one SELECT (``SelectState``) in one of three modes:

* ``ROWS``: over the FROM clause's rows (WHERE, ON, GROUP BY keys, aggregate arguments);
* ``GROUPS``: after aggregation (select list, HAVING, ORDER BY, QUALIFY) — a group key written
  again becomes a reference to the key, an aggregate call becomes a measure of the
  ``Aggregate`` operator, a window call becomes a field of the ``Window`` operator;
* ``WINDOW_INPUT``: inside a window call's arguments and specification — like ``GROUPS`` but a
  nested window is an error.

Without aggregation, ``GROUPS`` is ``ROWS`` plus window calls.
"""

from __future__ import annotations

from dataclasses import replace
from enum import Enum
from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import InvalidStatementError, PrismError, ResolutionError, UnknownColumnError, UnknownTableError
from ...ir import (
    AggregateCall,
    Call,
    Expr,
    FieldRef,
    FrameBound,
    FrameUnit,
    Literal,
    NestedAccess,
    Origin,
    SortKey,
    Subquery,
    SubqueryKind,
    WindowCall,
    WindowFrame,
    selected_by,
)
from ...ir import CandidateRef, OuterRef
from ...ir import types as T
from ...ir.expressions import iter_tree
from . import generators, lookups, nested, routines, semi_structured, stars
from .positional import lower_positional, position_of
from .variables import read_variable, variable_name

if TYPE_CHECKING:
    from .select import SelectState


class Mode(Enum):
    ROWS = 1
    GROUPS = 2
    WINDOW_INPUT = 3


# ``Mode.ROWS`` read once: an enum class's attribute goes through ``EnumType.__getattr__``'s slot
# (a Python-level hook, several times a global's cost), and every node lowered asks for it.
_ROWS = Mode.ROWS


_BOOLEAN_OPERATORS = (
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.And, exp.Or, exp.Not, exp.Like, exp.ILike,
    exp.Is, exp.In, exp.Between, exp.Exists, exp.NullSafeEQ, exp.NullSafeNEQ, exp.RegexpLike,
)
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv)
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
# Operators whose runs (``a OR b OR c``, ``c0 + c1 + c2``, ``a || b || c``) lower to one call
# with every operand, applied left to right (``ExpressionLowerer._chain``; specs/project.md).
_CHAINED = (exp.Or, exp.And, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.DPipe, exp.BitwiseAnd,
            exp.BitwiseOr, exp.BitwiseXor)
_RANKING = {"row_number", "rank", "dense_rank", "ntile", "percent_rank", "cume_dist"}
# Wrappers that qualify a function call without changing which inputs it reads.
_WRAPPERS = (exp.IgnoreNulls, exp.RespectNulls, exp.HavingMax)
_STRING_FUNCTIONS = (exp.Upper, exp.Lower, exp.Substring, exp.Trim, exp.Concat, exp.DPipe, exp.Initcap)

_function_names: dict[type, str] = {}


def function_name(node: exp.Expression) -> str:
    """The lower-case name a function or operator node is known by."""
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    cls = type(node)
    name = _function_names.get(cls)
    if name is None:
        if issubclass(cls, exp.Func):
            try:
                name = cls.sql_name().lower()
            except Exception:  # noqa: BLE001 - sqlglot raises AssertionError for nameless classes
                name = cls.key
        else:
            name = cls.key
        _function_names[cls] = name
    return name


class ExpressionLowerer:
    """Lowers the expressions of one SELECT (see the module docstring)."""

    __slots__ = ("state", "ctx", "scope")

    def __init__(self, state: "SelectState"):
        self.state = state
        self.ctx = state.ctx
        self.scope = state.scope

    # --- entry points --------------------------------------------------------------------

    def lower(self, node: exp.Expression, mode: Mode = Mode.ROWS) -> Expr:
        state = self.state
        if mode is not _ROWS and state.aggregate is not None:
            key = state.aggregate.match_key(node)
            if key is not None:
                return self._ref(key, self.ctx.origin(node) or self._span(node))
        handler = _HANDLERS.get(type(node))
        if handler is None:
            handler = _handler_for(type(node))
        return handler(self, node, mode)

    def sort_key(self, node: exp.Ordered | exp.Expression, mode: Mode) -> SortKey:
        if isinstance(node, exp.Ordered):
            expr = self.lower(node.this, mode)
            return SortKey(expr, bool(node.args.get("desc")), node.args.get("nulls_first"))
        return SortKey(self.lower(node, mode))

    # --- helpers -------------------------------------------------------------------------

    def _ref(self, field, origin: Origin | None) -> FieldRef:
        return FieldRef(self.ctx.ids.new("col", origin), origin, field.type, field.id)

    def _span(self, node: exp.Expression) -> Origin | None:
        """A span for nodes the parser kept no position for: from their first to last token."""
        first = last = None
        for child in node.walk():
            meta = child._meta
            if meta and "start" in meta:
                if first is None or meta["start"] < first:
                    first = meta["start"]
                if last is None or meta["end"] > last:
                    last = meta["end"]
        if first is None:
            return None
        return self.ctx.text.span(first, last, self.ctx.statement)

    def _rowid(self, node: exp.Column) -> Expr | None:
        """SQLite's, DuckDB's and Oracle's ``rowid`` pseudo-column of a table that declares no
        column of that name: the row's identity, which reads no column (field trial 67).
        ``None`` elsewhere: another dialect, a derived table, several tables it could be of."""
        if node.name.lower() != "rowid" or type(self.ctx.dialect).__name__.lower() not in ("sqlite", "duckdb", "oracle"):
            return None
        if node.table:
            source = self.scope.source(tuple(self.ctx.normalizer.part(p) for p in node.parts[:-1]))
            if source is None or source.scan is None:
                return None
        elif sum(1 for s in self.scope.sources if s.scan is not None) != 1 or \
                any(s.scan is None for s in self.scope.sources):
            return None
        return self._call("rowid", [], node, T.BIGINT)

    def _call(self, name: str, args: list[Expr], node: exp.Expression, type_: T.DataType = None,
              params: tuple[str, ...] = ()) -> Call:
        # ``ctx.join`` of the node's span with each argument's, in one pass: every call does it.
        origin = self.ctx.text.join_all(self.ctx.origin(node), [arg.origin for arg in args])
        # sqlglot parses the functions it knows into their own classes; ``Anonymous`` is a
        # function it does not know (a UDF, or a built-in of an engine it does not model).
        known = not isinstance(node, exp.Anonymous)
        return Call(self.ctx.ids.new("call", origin), origin, type_, name, tuple(args), known, params)

    def _named_args(self, node: exp.Expression, mode: Mode) -> tuple[list[Expr], tuple[str, ...]]:
        """``_args`` with the parameter name of each (sqlglot's: ``this``, ``unit`` …) for the
        built-ins sqlglot models; a function it does not know has its arguments as written."""
        if isinstance(node, exp.Anonymous):
            return self._args(node, mode), ()
        out: list[Expr] = []
        params: list[str] = []
        for key, value in node.args.items():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, exp.Expression) and not isinstance(item, (exp.DataType, exp.DataTypeParam)):
                    if stars.is_star(item):  # ``OBJECT_CONSTRUCT(*)``: every column
                        read = stars.star_arguments(self, item, node, mode)
                        out.extend(read)
                        params.extend(key for _ in read)
                        continue
                    out.append(self.lower(item, mode))
                    params.append(key)
                    if key == "unit" and type(item) is exp.Var and isinstance(node, exp.TimeUnit) \
                            and not isinstance(node, exp.Interval):
                        column = self._unit_column(node, item)
                        if column is not None:
                            out.append(column)
                            params.append(key)
        return out, tuple(params)

    def _unit_column(self, node: exp.Expression, unit: exp.Var) -> Expr | None:
        """DuckDB's and PostgreSQL's ``date_trunc(s, d)``, ``time_bucket(w, d, origin)``: their
        "unit" is an expression, so a bare name there is a column — but sqlglot turns a column and
        a string (``'s'``) alike into the unit ``S``.  Where a column of that name is in scope the
        call may read it: listed, conservative, with the reason (field trial 83: the column was
        dropped, the field exact without it).  ``None`` elsewhere."""
        if _dialect_name(self.ctx) not in ("duckdb", "postgres") or not unit.name.isidentifier():
            return None
        name = unit.name.lower()
        try:
            found = self.scope.resolve(exp.column(name), None)
        except PrismError:
            return None
        fields = getattr(found, "fields", None) or ((found.field,) if isinstance(found, (FieldRef, OuterRef)) else ())
        if not fields:
            return None
        origin = self._span(node)
        what = node.sql(dialect=self.ctx.dialect)
        return CandidateRef(self.ctx.ids.new("col", origin), origin, found.type, tuple(fields),
                            f"{what}: its unit {name!r} may be the column {name} (sqlglot reads a name and a string "
                            "there alike)")

    def _args(self, node: exp.Expression, mode: Mode) -> list[Expr]:
        """Lower every expression argument of a node, in the order the parser stored them."""
        out: list[Expr] = []
        for value in node.args.values():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, exp.Expression) and not isinstance(item, (exp.DataType, exp.DataTypeParam)):
                    if stars.is_star(item):  # ``HASH(*)``: every column
                        out.extend(stars.star_arguments(self, item, node, mode))
                    else:
                        out.append(self.lower(item, mode))
        return out

    # --- leaves --------------------------------------------------------------------------

    def star(self, node: exp.Star, mode: Mode) -> Expr:
        """A ``*`` anywhere else than a select item or a function argument (``* GLOB 'a*'`` of a
        dialect whose star forms are not read, ``* = 1``): refused, never read as a value with no
        source (which would claim a constant)."""
        raise InvalidStatementError(f"'{node.sql(dialect=self.ctx.dialect)}' is only allowed in a select list or as a "
                                    f"function argument, here: {node.parent.sql(dialect=self.ctx.dialect)[:60]}"
                                    if node.parent is not None else "'*' is only allowed in a select list",
                                    origin=self.ctx.origin(node) or self._span(node.parent or node))

    def column(self, node: exp.Column, mode: Mode) -> Expr:
        if node._meta and stars.READS in node._meta:  # a column COLUMNS(...) stands for
            return stars.lower_stand_in(self, node, mode)
        # (``node.this`` and ``node.table`` are computed properties: ``this`` is read once, and
        # a column with no ``table`` argument has no table name.)
        args = node.args
        this = args.get("this")
        if isinstance(this, exp.Star):
            raise InvalidStatementError(f"'{node.sql()}' is only allowed in a select list or as a function argument",
                                        origin=self.ctx.origin(this))
        if self.ctx.inlining:  # a name in the body of a function of the script, inlined
            found = routines.parameter(self, node, mode)
            if found is not None:
                return found
        # (An identifier is never ``$n`` nor ``#n``: most columns skip the call.)
        number = position_of(this) if type(this) is not exp.Identifier else None
        if number is not None:  # ``t.$2``
            qualifier = tuple(self.ctx.normalizer.part(p) for p in node.parts[:-1])
            return lower_positional(self, node, number, qualifier, self._near_origin(node), mode)
        origin = self.ctx.origin(this)
        unqualified = args.get("table") is None or not node.table
        if unqualified:
            row = self._whole_row(node, origin)
            if row is not None:
                return row
        if unqualified and self._names_a_variable(node):
            variable = read_variable(self.ctx.normalizer.part(node.this), origin, self.ctx)
            if variable is not None:
                return variable
        try:
            resolved = self.scope.resolve(node, origin)
        except UnknownTableError:
            # ``a.b`` where ``a`` is no table but a column: the field ``b`` of a struct column.
            found = self._struct_field(node, mode)
            if found is None:
                raise
            return found
        except UnknownColumnError:
            # ``u.f`` where ``u`` names a one-column relation (``UNNEST(items) AS u``) whose
            # column, also called ``u``, holds structs: the field ``f`` of that column.
            found = self._struct_field(node, mode) if self._names_a_derived_source(node) else None
            if found is None:
                found = self._rowid(node)
            if found is None:
                raise
            return found
        if resolved is None:
            alias = self.state.alias_expression(node)
            if alias is None:
                rowid = self._rowid(node)
                if rowid is not None:
                    return rowid
                raise self.scope.unknown_column(node, origin)
            key, expression = alias
            self.state.expanding.add(key)
            try:
                return self.lower(expression, mode)
            finally:
                self.state.expanding.discard(key)
        if mode is not _ROWS and self.state.aggregate is not None:
            if self.state.in_having and not node.table:
                alias = self.state.having_alias(node, resolved, self, mode)
                if alias is not None:
                    return alias
            return self.state.aggregate.bare_column(resolved, self)
        return resolved

    def _whole_row(self, node: exp.Column, origin: Origin | None) -> Expr | None:
        """A table alias used as a value (``TO_JSON_STRING(t)``, ``row_to_json(t)``, ``STRUCT(t)``,
        ``SELECT t FROM t``: BigQuery, Postgres, DuckDB): the whole row, a struct of every column
        of that FROM item (specs/nested.md).  A column of that name a query's table declares wins,
        as the engines resolve it; over a table without a schema the row is its unknown ``*``
        (which holds a column of that name too, if there is one).  ``None``: not a whole row."""
        dialect = _dialect_name(self.ctx)
        if dialect not in _WHOLE_ROW_DIALECTS:
            return None
        name = self.ctx.normalizer.part(node.this)
        # A whole row needs a FROM item of that name (the ``break`` below): most columns are
        # named after no FROM item, and then no source is asked whether it has the column.
        scope = self.scope
        while scope is not None and scope.source((name,)) is None:
            scope = scope.outer
        if scope is None:
            return None
        key = name.lower()
        scope, depth = self.scope, 0
        while scope is not None:
            if key in scope.merged or any(s.has(key) for s in scope.sources):
                return None
            source = scope.source((name,))
            if source is not None:
                break
            scope, depth = scope.outer, depth + 1
        else:
            return None
        if source.alias.lower() != key:
            return None
        items = source.star_items()
        if not items:
            return None
        refs = tuple(self.scope._ref(f, origin, depth) for _, f in items)
        names = tuple(n for n, _ in items)
        # No struct type; its fields are named, so a field read out of it is that column, inline
        # or through a derived table (``(SELECT t AS r …) d`` then ``d.r.a``: specs/nested.md 5a).
        return Call(self.ctx.ids.new("call", origin), origin, None, "struct", refs, True, names)

    def _names_a_variable(self, node: exp.Column) -> bool:
        """Whether an unqualified name is a script variable rather than a column: a column of
        that name a table of the query declares wins (as in BigQuery); when only tables whose
        columns are not in the schema could hold it, it is the variable, and the answer says so."""
        lookup = getattr(self.ctx.catalog, "variable", None)
        if lookup is None or not getattr(self.ctx.catalog, "has_variables", True):
            return False  # (asked of every unqualified column: most scripts declare none)
        name = self.ctx.normalizer.part(node.this)
        variable = lookup(name)
        if variable is None:
            return False
        key = name.lower()
        open_sources = []
        scope = self.scope
        while scope is not None:
            if key in scope.merged or any(s.has(key) for s in scope.sources):
                return False
            open_sources += [s for s in scope.sources if s.is_open]
            scope = scope.outer
        if open_sources:
            labels = ", ".join(s.label for s in open_sources)
            reason = (f"{name} is read as the script variable ({variable.what}{variable.at()}); a column {name} of "
                      f"{labels}, whose columns are not in the schema, would take its place")
            if all(u.reason != reason for u in self.ctx.uncertain):
                self.ctx.uncertain_about(reason, None, self.ctx.origin(node.this))
        return True

    def parameter(self, node: exp.Expression, mode: Mode) -> Expr:
        """``$x`` (Snowflake), ``@x`` (T-SQL, MySQL): a script variable, else a value bound at
        run time (no source)."""
        number = position_of(node)
        if number is not None and self.ctx.inlining:  # ``$1`` in a Postgres body being inlined
            found = routines.positional(self, number)
            if found is not None:
                return found
        if number is not None and self.scope.sources:  # ``$1``: a column by position (positional.py)
            return lower_positional(self, node, number, None, self._near_origin(node), mode)
        name = variable_name(node, self.ctx)
        if name is not None:
            found = read_variable(name, self._near_origin(node), self.ctx)
            if found is not None:
                return found
        return self.literal(node, mode)

    def comprehension(self, node: exp.Expression, mode: Mode) -> Expr:
        """DuckDB's list comprehension ``[f(x) FOR x IN list IF p(x)]``: like ``list_transform(
        list_filter(list, x -> p(x)), x -> f(x))`` — the variable is no column (sqlglot leaves it
        a Column here, where in a lambda it makes it an Identifier: done the same way here)."""
        variables = {self.ctx.normalizer.part(v).lower() for v in
                     ([node.expression] + list(node.args.get("position") and [node.args["position"]] or []))
                     if isinstance(v, exp.Identifier)}

        def bound(part: exp.Expression | None) -> exp.Expression | None:
            if part is None:
                return None
            copy = part.copy()
            for column in list(copy.find_all(exp.Column)):
                if not column.table and self.ctx.normalizer.part(column.this).lower() in variables:
                    if column is copy:
                        return column.this.copy()
                    column.replace(column.this.copy())
            return copy

        parts = [node.args.get("iterator"), bound(node.this), bound(node.args.get("condition"))]
        args = [self.lower(p, mode) for p in parts if p is not None]
        return self._call("list_comprehension", args, node)

    def positional_column(self, node: exp.Expression, mode: Mode) -> Expr:
        """DuckDB's ``#n``: the n-th column of the FROM clause (positional.py), never a constant."""
        number = position_of(node)
        if number is None:
            raise InvalidStatementError(f"{node.sql(dialect=self.ctx.dialect)}: a column position must be a whole "
                                        "number", origin=self._near_origin(node))
        return lower_positional(self, node, number, None, self._near_origin(node), mode)

    def _near_origin(self, node: exp.Expression) -> Origin | None:
        """sqlglot keeps no position for ``$x``: the nearest enclosing expression's stands in."""
        origin = self.ctx.origin(node) or self._span(node)
        parent = node.parent
        while origin is None and parent is not None:
            origin, parent = self._span(parent), parent.parent
        return origin

    def _names_a_derived_source(self, node: exp.Column) -> bool:
        if len(node.parts) != 2:
            return False
        source = self.scope.source((self.ctx.normalizer.part(node.parts[0]),))
        return source is not None and source.scan is None

    def _struct_field(self, node: exp.Column, mode: Mode) -> Expr | None:
        """``t.a.b`` / ``a.b.c``: the longest table-qualified reading first, as SQL resolves it."""
        for split in range(len(node.parts) - 1, 0, -1):
            column, steps = nested.column_fields(node, split, self.ctx)
            known = self._known_column(column)
            if not known:
                continue
            key = self._grouped_path(column, steps, node, mode)
            if key is not None:
                return key
            try:
                base = self.column(column, mode)
            except ResolutionError:
                continue
            if nested.type_info(base.type, _dialect_name(self.ctx)).kind == "scalar":
                continue  # a number or string has no fields: ``x.a`` meant a table ``x``
            found = nested.access(self, base, steps, node, mode, base_node=column)
            if known == "open" and isinstance(found, NestedAccess) and not found.exact:
                # Say why ``x`` was read as a column at all: no table or alias is called that.
                tables = " or ".join(dict.fromkeys(s.label for s in self._open_sources()))
                found = replace(found, reason=(
                    f"{column.sql(dialect=self.ctx.dialect)} names no table or alias in scope, so it is read as a "
                    f"struct column of {tables}, as {_dialect_label(self.ctx)} does; {found.reason}"))
            return found
        return None

    def _grouped_path(self, column: exp.Column, steps, node: exp.Column, mode: Mode) -> Expr | None:
        """After GROUP BY, a struct path that is a grouping key however it is spelt
        (``GROUP BY project.name … SELECT billing.project.name``): that key, not the field of
        some value of the group."""
        aggregate = self.state.aggregate
        if mode is _ROWS or aggregate is None or not aggregate.complex_keys:
            return None
        try:
            row = nested.access(self, self.column(column, Mode.ROWS), steps, node, Mode.ROWS, base_node=column)
        except ResolutionError:
            return None
        if not isinstance(row, NestedAccess) or row.dynamic or not isinstance(row.base, FieldRef):
            return None
        for expr, field in zip(aggregate.keys, aggregate.key_fields):
            if (isinstance(expr, NestedAccess) and not expr.dynamic and isinstance(expr.base, FieldRef)
                    and expr.base.field == row.base.field and expr.steps == row.steps and expr.kind == row.kind):
                return self._ref(field, self.ctx.origin(node) or self._span(node))
        return None

    def _known_column(self, node: exp.Column) -> bool | str:
        """Whether a schema or a derived table knows the column, or (``"open"``) whether it may be
        a column of a table without a schema in a dialect that reads ``x.a`` as the field ``a``
        of a struct column ``x`` when no FROM item is called ``x`` (BigQuery, DuckDB, Spark,
        Trino …: ``SELECT project.name FROM billing_export``).  Elsewhere (Postgres needs
        ``(x).a``) a name a schema-less table might have is no evidence of a struct, and
        ``x.a`` with no alias ``x`` stays an error."""
        norm = self.ctx.normalizer
        name = norm.part(node.this)
        qualifier = tuple(norm.part(p) for p in node.parts[:-1])
        scope = self.scope
        while scope is not None:
            if qualifier:
                # ``t.s.x`` qualified by a real alias: ``s`` is a column of ``t`` even schema-less.
                if scope.source(qualifier) is not None:
                    return True
            elif any(s.find(name) is not None for s in scope.sources):
                return True
            scope = scope.outer
        if not qualifier and _dialect_name(self.ctx) in _STRUCT_DOT_DIALECTS and self._open_sources():
            return "open"
        return False

    def _open_sources(self) -> list:
        """The FROM items, this query's and enclosing ones', that may have undeclared columns."""
        found, scope = [], self.scope
        while scope is not None:
            found.extend(s for s in scope.sources if s.is_open)
            scope = scope.outer
        return found

    # --- nested, semi-structured, generators -------------------------------------------------

    def dot(self, node: exp.Dot, mode: Mode) -> Expr:
        field_node = node.expression
        if isinstance(field_node, exp.Func):
            call = self._method_call(node) if _dialect_name(self.ctx) == "duckdb" else None
            if call is not None:
                return self.lower(call, mode)
            return self.lower(field_node, mode)  # ``schema.udf(x)``: a qualified function name
        if not isinstance(field_node, exp.Identifier):
            return _generic(self, node, mode)
        base = self.lower(node.this, mode)
        step = nested.Step(name=self.ctx.normalizer.part(field_node))
        return nested.access(self, base, [step], node, mode, base_node=node.this)

    def _method_call(self, node: exp.Dot) -> exp.Expression | None:
        """DuckDB's dot call ``x.f(args)``, which is ``f(x, args)`` (``b.upper()``,
        ``list(v).list_transform(lambda x: x + 1)``), as that call; ``None`` for a qualified
        function name (``main.f(x)``: a built-in schema that names no column).  sqlglot reads
        ``f`` as an anonymous function with the other arguments only: lowered as it is, the
        value ``x`` was lost (no sources at all, exact)."""
        function = node.expression
        base = node.this
        parts: list[exp.Identifier] = []
        walk = base
        while isinstance(walk, exp.Dot) and isinstance(walk.expression, exp.Identifier):
            parts.insert(0, walk.expression)
            walk = walk.this
        if isinstance(walk, exp.Identifier):
            parts.insert(0, walk)
            if len(parts) > 4:
                return None
            column = exp.Column(this=parts[-1].copy(), **{key: part.copy() for key, part in zip(
                ("table", "db", "catalog"), reversed(parts[:-1]))})
            if len(parts) == 1 and not self._known_column(column) and parts[0].name.lower() in _DUCKDB_SCHEMAS:
                return None  # ``main.f(x)``
            # Any other name is a value (a column, or a select item's alias DuckDB lets later
            # items use: ``v.trim() AS t, t.lower()``); a user schema's function spelt so is
            # then refused as an unknown column, never read as a constant.
            base = column
        else:
            # sqlglot leaves the names inside the part before the dot as bare identifiers
            # (``(b).lower()``, ``list(v).f()``): they are columns.
            base = base.copy().transform(_identifier_as_column)
        name = function.name if isinstance(function, exp.Anonymous) else function.sql_name()
        args = [base] + [a.copy() for a in (function.expressions if isinstance(function, exp.Anonymous)
                                            else function.args.values()) if isinstance(a, exp.Expression)]
        try:
            call = exp.func(name, *args, dialect=self.ctx.dialect)
        except Exception:  # noqa: BLE001 - sqlglot's builders raise what they like on odd arities
            call = exp.Anonymous(this=name, expressions=args)
        call.meta.update(node.meta)
        return call

    def bracket(self, node: exp.Bracket, mode: Mode) -> Expr:
        base = self.lower(node.this, mode)
        semi = _dialect_name(self.ctx) == "snowflake" and base.type is None
        return nested.access(self, base, nested.bracket_steps(node), node, mode, semi_structured=semi,
                             base_node=node.this)

    def struct_extract(self, node: exp.StructExtract, mode: Mode) -> Expr:
        base = self.lower(node.this, mode)
        key = node.expression
        step = nested.Step(name=key.name) if isinstance(key, (exp.Literal, exp.Identifier)) else \
            nested.Step(dynamic=key)
        return nested.access(self, base, [step], node, mode, base_node=node.this)

    def json_access(self, node: exp.Expression, mode: Mode) -> Expr:
        return semi_structured.json_access(self, node, mode)

    def generator(self, node: exp.Expression, mode: Mode) -> Expr:
        if mode is _ROWS:
            raise InvalidStatementError(
                f"the generator {function_name(node).upper()} is only allowed in a select list or in FROM",
                origin=self._span(node))
        index, aliases = 0, []
        if isinstance(node, generators.GeneratedOutput):
            index, aliases, node = node.args["index"], node.args.get("aliases") or [], node.this
        return self.state.generator_output(node, index, aliases, self, mode)

    def literal(self, node: exp.Expression, mode: Mode) -> Expr:
        origin = self.ctx.origin(node)
        if isinstance(node, exp.Literal):
            if node.is_string:
                type_ = T.VARCHAR
            else:
                text = node.this
                type_ = "INT" if text.isdigit() else "DECIMAL"
            value = node.this
        elif isinstance(node, exp.Boolean):
            type_, value = T.BOOLEAN, "TRUE" if node.this else "FALSE"
        elif isinstance(node, exp.Null):
            type_, value = None, None
        else:
            type_, value = None, sql_text(node)
        return Literal(self.ctx.ids.new("lit", origin), origin, type_, value)

    def passthrough(self, node: exp.Expression, mode: Mode) -> Expr:
        return self.lower(node.this, mode)

    # --- operators and functions ---------------------------------------------------------

    def binary(self, node: exp.Binary, mode: Mode) -> Expr:
        right = node.expression
        if isinstance(right, (exp.Any, exp.All)) and isinstance(node, _COMPARISONS):
            query = right.this.this if isinstance(right.this, exp.Subquery) else right.this
            if isinstance(query, exp.Query):
                kind = SubqueryKind.ANY if isinstance(right, exp.Any) else SubqueryKind.ALL
                needle = self.lower(node.this, mode)
                return self._subquery(kind, query, node, needle=needle, operator=node.key, mode=mode)
        operands = self._chain(node, mode) if isinstance(node, _CHAINED) else [node.this, right]
        args = [self.lower(operand, mode) for operand in operands]
        if isinstance(node, _BOOLEAN_OPERATORS):
            type_ = T.BOOLEAN
        elif isinstance(node, _ARITHMETIC):
            type_ = args[0].type
            for arg in args[1:]:
                type_ = T.wider_numeric(type_, arg.type)
        elif isinstance(node, exp.DPipe):
            type_ = T.VARCHAR
        else:
            type_ = None
        return self._call(node.key, args, node, type_)

    def _chain(self, node: exp.Binary, mode: Mode) -> list[exp.Expression]:
        """The operands of a run of one operator, in written order: ``a OR b OR c`` (which
        sqlglot parses as ``(a OR b) OR c``) is one ``or`` call of three arguments, the operator
        applied left to right.  Generated SQL writes such runs with tens of thousands of
        terms; read one level at a time, they would nest that deep in the plan and every walk
        over it would recurse that deep.  A part of the run that is a GROUP BY key written
        again stays one operand (it is a reference to the key)."""
        kind = type(node)
        aggregate = self.state.aggregate if mode is not _ROWS else None
        operands = []
        cursor: exp.Expression = node
        while type(cursor) is kind and (cursor is node or aggregate is None or aggregate.match_key(cursor) is None):
            operands.append(cursor.expression)
            cursor = cursor.this
        operands.append(cursor)
        operands.reverse()
        return operands

    def function(self, node: exp.Expression, mode: Mode) -> Expr:
        if isinstance(node, exp.AggFunc) and not isinstance(node, exp.Anonymous):
            return self.aggregate(node, mode)
        if isinstance(node, exp.Anonymous) and self.state.is_aggregate_name(node):
            return self.aggregate(node, mode)
        if isinstance(node, exp.Anonymous) and generators.is_select_generator(node, self.ctx):
            return self.generator(node, mode)
        if isinstance(node, exp.Anonymous):
            inlined = routines.call(self, node, mode)  # a function the script defined
            if inlined is not None:
                return inlined
            if node.name.lower() == "row" and _dialect_name(self.ctx) in _ROW_CONSTRUCTOR_DIALECTS:
                # ``ROW(a, b)`` is ``(a, b)`` (DuckDB, Postgres): a row of its values, compared
                # column by column with a subquery's (``ROW(0, 0) < ANY (SELECT x, y …)``).
                return replace(self._call("tuple", self._args(node, mode), node), known=True)
        if lookups.is_dictionary_lookup(node, self.ctx):
            return lookups.dictionary_lookup(self, node, mode)
        args, params = self._named_args(node, mode)
        return self._call(function_name(node), args, node, _result_type(node, args, self.ctx), params)

    def cast(self, node: exp.Cast, mode: Mode) -> Expr:
        arg = self.lower(node.this, mode)
        to = node.args.get("to")
        type_ = None
        if to is not None:
            type_ = type_text(to, self.ctx.dialect)
            # Upper-cased as the type names are spelled elsewhere — but not a type that names
            # fields (``STRUCT<a INT64>``): a field keeps its name as written (``a``, not ``A``).
            if not (isinstance(to, exp.DataType) and to.args.get("nested") and to.find(exp.ColumnDef)):
                type_ = type_.upper()
        name = "try_cast" if isinstance(node, exp.TryCast) or node.args.get("safe") else "cast"
        return self._call(name, [arg], node, type_)

    def case(self, node: exp.Case, mode: Mode) -> Expr:
        args = self._args(node, mode)
        ifs = node.args.get("ifs") or []
        type_ = None
        for branch in args:
            if branch.type is not None and not isinstance(branch, Literal):
                type_ = branch.type
                break
        if type_ is None and ifs:
            type_ = None
        return self._call("case", args, node, type_)

    def in_(self, node: exp.In, mode: Mode) -> Expr:
        query = node.args.get("query")
        if query is not None:
            inner = query.this if isinstance(query, exp.Subquery) else query
            needle = self.lower(node.this, mode)
            return self._subquery(SubqueryKind.IN, inner, node, needle=needle, mode=mode)
        args = self._args(node, mode)
        return self._call("in", args, node, T.BOOLEAN)

    def exists(self, node: exp.Exists, mode: Mode) -> Expr:
        query = node.this.this if isinstance(node.this, exp.Subquery) else node.this
        return self._subquery(SubqueryKind.EXISTS, query, node, mode=mode)

    def scalar_subquery(self, node: exp.Expression, mode: Mode) -> Expr:
        query = node.this if isinstance(node, exp.Subquery) else node
        return self._subquery(SubqueryKind.SCALAR, query, node, mode=mode)

    def _subquery(
        self,
        kind: SubqueryKind,
        query: exp.Expression,
        node: exp.Expression,
        *,
        needle: Expr | None = None,
        operator: str | None = None,
        mode: Mode | None = None,
    ) -> Expr:
        scope = self.state.scope
        allowed = scope.aggregates_allowed
        scope.aggregates_allowed = mode is Mode.GROUPS and self.state.aggregate is not None
        try:
            relation = self.state.lower_subquery(query)
        finally:
            scope.aggregates_allowed = allowed
        if kind is SubqueryKind.SCALAR and len(relation.fields) != 1:
            raise InvalidStatementError(
                f"a scalar subquery must return one column, this one returns {len(relation.fields)}",
                origin=relation.origin,
            )
        origin = self.ctx.join(needle.origin if needle else None, relation.origin) or self.ctx.origin(node)
        type_ = relation.fields[0].type if kind is SubqueryKind.SCALAR else T.BOOLEAN
        return Subquery(self.ctx.ids.new("subquery", origin), origin, type_, kind, relation, needle, operator)

    # --- aggregates and windows ----------------------------------------------------------

    def aggregate(self, node: exp.Expression, mode: Mode, *, filter_: exp.Expression | None = None) -> Expr:
        if mode is _ROWS or self.state.aggregate is None:
            outer = self._outer_aggregate(node, filter_)
            if isinstance(outer, AggregateCall):
                return outer
            raise InvalidStatementError(
                f"aggregate function {function_name(node).upper()} is not allowed here" + (
                    ": it reads only the enclosing query's columns, so it is an aggregate of that query, and that "
                    "query is not grouped (or it stands in its WHERE, ON or GROUP BY); not read" if outer else ""),
                origin=self.ctx.origin(node),
            )
        return self.state.aggregate.measure(node, self, filter_=filter_)

    def _outer_aggregate(self, node: exp.Expression, filter_: exp.Expression | None) -> AggregateCall | bool:
        """An aggregate in a subquery that reads only the enclosing query's columns is an
        aggregate of the enclosing query (SQL's rule, DuckDB's and Postgres'): ``EXISTS (SELECT
        … WHERE i > MIN(t1.i))`` compares with the minimum of the outer group's ``t1.i``.  Its
        value depends on those columns as an aggregate does; it is read in place (the outer
        reference is to the columns before grouping, as every outer reference is) — only where
        the enclosing query is grouped and may hold an aggregate there.  Else ``True`` when it
        reads only outer columns (the enclosing query would become an aggregate query: not read),
        ``False`` when it reads a column of its own query, nothing, or a subquery."""
        outer_scope = self.state.scope.outer
        if outer_scope is None:
            return False
        try:
            call = self.aggregate_call(node, filter_=filter_, mode=_ROWS)
        except PrismError:
            return False
        outer = False
        for part in iter_tree(call):
            if type(part) is OuterRef:
                outer = True
            elif isinstance(part, (FieldRef, CandidateRef, Subquery)):
                return False
        if outer and outer_scope.aggregates_allowed:
            return call
        return outer

    def aggregate_call(self, node: exp.Expression, *, filter_: exp.Expression | None, mode: Mode) -> AggregateCall:
        """The IR call for an aggregate function node, arguments lowered in ``mode``."""
        split = _if_combinator(node)
        if split is not None:  # ``COUNT_IF(c)``, ``sumIf(b, c)``: the aggregate FILTER (WHERE c)
            node, condition = split
            if filter_ is not None:
                filter_ = exp.And(this=condition, expression=filter_.this if isinstance(filter_, exp.Where) else filter_)
            else:
                filter_ = condition
        name = function_name(node)
        distinct = False
        star = False
        order_by: tuple[SortKey, ...] = ()
        limit: Expr | None = None
        args: list[Expr] = []
        arguments = list(node.args.items())
        if isinstance(node, exp.WithinGroup):
            arguments, name = _within_group_arguments(node)
        for key, value in arguments:
            items = value if isinstance(value, list) else [value]
            for item in items:
                if not isinstance(item, exp.Expression) or isinstance(item, exp.DataType):
                    continue
                if isinstance(item, exp.Limit) and item.this is not None:
                    # ``ARRAY_AGG(x ORDER BY y LIMIT 5)`` (BigQuery, DuckDB): the first values
                    # in the ORDER BY's order; the count is not a value of the aggregate.
                    count = item.args.get("expression")
                    limit = self.lower(count, mode) if count is not None else None
                    item = item.this
                if stars.is_star(item) and not (name in stars.COUNTING and isinstance(item, exp.Star)):
                    args.extend(stars.star_arguments(self, item, node, mode))  # ``HASH_AGG(*)``: every column
                elif isinstance(item, exp.Star):  # ``COUNT(*)``: counts rows
                    star = True
                elif isinstance(item, exp.Distinct):
                    distinct = True
                    args.extend(self.lower(e, mode) for e in item.expressions)
                elif isinstance(item, exp.Order):
                    if item.this is not None:
                        args.append(self.lower(item.this, mode))
                    order_by += tuple(self.sort_key(o, mode) for o in item.expressions)
                else:
                    args.append(self.lower(item, mode))
        # ``MAX_BY(x, y)``: y orders the values and picks the kept x (specs/aggregate.md rule 4).
        selected = selected_by(name, args) if not order_by and limit is None else None
        if selected is not None:
            args, order_by, limit = list(selected[0]), selected[1], selected[2]
        filter_expr = self.lower(filter_.this if isinstance(filter_, exp.Where) else filter_, mode) if filter_ else None
        origin = self.ctx.origin(node)
        for arg in args:
            origin = self.ctx.join(origin, arg.origin)
        type_ = _aggregate_type(name, args)
        return AggregateCall(
            self.ctx.ids.new("agg", origin), origin, type_, name, tuple(args), distinct, filter_expr, order_by, star,
            limit,
        )

    def filtered_aggregate(self, node: exp.Filter, mode: Mode) -> Expr:
        if isinstance(node.this, exp.Anonymous) and not self.state.is_aggregate_name(node.this):
            # Only an aggregate takes FILTER: one this reader does not know — how its arguments
            # make its value is not known, and a guess would be said exact.
            name = function_name(node.this)
            raise InvalidStatementError(
                f"{name.upper()}(…) FILTER (…) is an aggregate function prism_lineage does not know: declare "
                f"{name} with kind: aggregate in a --functions file",
                origin=self.ctx.origin(node.this),
            )
        return self.aggregate(node.this, mode, filter_=node.expression)

    def within_group(self, node: exp.WithinGroup, mode: Mode) -> Expr:
        return self.aggregate(node, mode)

    def window(self, node: exp.Window, mode: Mode) -> Expr:
        if mode is not Mode.GROUPS:
            raise InvalidStatementError("window functions are not allowed here", origin=self._span(node))
        return self.state.window_call(node, self)

    def window_call(self, node: exp.Window, spec: exp.Window | None) -> WindowCall:
        """The IR window call of ``node`` (``spec``: the named window it refers to, if any)."""
        mode = Mode.WINDOW_INPUT
        function_node = node.this
        filter_ = None
        while isinstance(function_node, (*_WRAPPERS, exp.Filter)):
            if isinstance(function_node, exp.Filter):
                filter_ = function_node.expression
            function_node = function_node.this
        if isinstance(function_node, exp.AggFunc) or self.state.is_aggregate_name(function_node):
            function: Expr = self.aggregate_call(function_node, filter_=filter_, mode=mode)
        else:
            args = self._args(function_node, mode)
            name = function_name(function_node)
            function = self._call(name, args, function_node, T.BIGINT if name in _RANKING else _result_type(function_node, args))
        partition: list[Expr] = []
        order: list[SortKey] = []
        frame = None
        for source in (spec, node):
            if source is None:
                continue
            partition.extend(self.lower(p, mode) for p in source.args.get("partition_by") or [])
            order_node = source.args.get("order")
            if order_node is not None:
                order.extend(self.sort_key(o, mode) for o in order_node.expressions)
            if source.args.get("spec") is not None:
                frame = self._frame(source.args["spec"], mode)
        origin = self.ctx.join(function.origin, self._span(node) if not partition and not order else
                               (order[-1].expr.origin if order else partition[-1].origin))
        return WindowCall(
            self.ctx.ids.new("window", origin), origin, function.type, function, tuple(partition), tuple(order), frame
        )

    def _frame(self, spec: exp.WindowSpec, mode: Mode) -> WindowFrame:
        unit = FrameUnit(str(spec.args.get("kind") or "rows").lower())
        return WindowFrame(
            unit,
            self._bound(spec.args.get("start"), spec.args.get("start_side"), mode),
            self._bound(spec.args.get("end"), spec.args.get("end_side"), mode)
            if spec.args.get("end") is not None
            else None,
        )

    def _bound(self, value, side, mode: Mode) -> FrameBound:
        side_text = str(side or "").lower()
        if isinstance(value, str):
            text = value.lower()
            if "unbounded" in text:
                return FrameBound("unbounded_" + (side_text or "preceding"))
            return FrameBound("current")
        if value is None:
            return FrameBound("current")
        return FrameBound(side_text or "preceding", self.lower(value, mode))

    def unsupported_query(self, node: exp.Expression, mode: Mode) -> Expr:
        return self.scalar_subquery(node, mode)


def _if_combinator(node: exp.Expression) -> tuple[exp.Expression, exp.Expression] | None:
    """``COUNT_IF(c)`` (every dialect's COUNTIF / count_if / countIf) and ClickHouse's ``-If``
    combinator (``sumIf(b, c)``, ``argMaxIf(a, b, c)``: the last argument is the condition) as the
    base aggregate and its condition: the same meaning as ``COUNT(*) FILTER (WHERE c)``, so the
    condition is a filter (control), never a value of the aggregate (specs/aggregate.md rule 9)."""
    if isinstance(node, exp.CountIf) and isinstance(node.this, exp.Expression):
        base: exp.Expression = exp.Count(this=exp.Star())
        condition = node.this
    elif isinstance(node, exp.CombinedAggFunc) and isinstance(node.this, str) and node.this.endswith("If") \
            and len(node.this) > 2 and len(node.expressions) >= 2:
        base = exp.Anonymous(this=node.this[:-2], expressions=node.expressions[:-1])
        condition = node.expressions[-1]
    else:
        return None
    if node._meta:  # the base aggregate stands where the call is written
        base.meta.update(node._meta)
    return base, condition


# Ordered-set aggregates: in ``f(p) WITHIN GROUP (ORDER BY x)`` the ordered ``x`` is the value
# aggregated (``p`` is a parameter); for others (``LISTAGG … WITHIN GROUP``) it only orders.
_ORDERED_SET = frozenset({"percentile_cont", "percentile_disc", "mode", "rank", "dense_rank", "percent_rank",
                          "cume_dist"})


def _within_group_arguments(node: exp.WithinGroup) -> tuple[list[tuple[str, object]], str]:
    inner = node.this
    name = function_name(inner)
    order = node.expression
    arguments: list[tuple[str, object]] = list(inner.args.items())
    if isinstance(order, exp.Order) and name in _ORDERED_SET:
        arguments.append(("within", [o.this if isinstance(o, exp.Ordered) else o for o in order.expressions]))
    else:
        arguments.append(("within", order))
    return arguments, name


def and_all(ctx, exprs: list[Expr]) -> Expr:
    """``e1 AND e2 AND …`` (the conjuncts a clause was split into, joined back)."""
    result = exprs[0]
    for expr in exprs[1:]:
        origin = ctx.join(result.origin, expr.origin)
        result = Call(ctx.ids.new("call", origin), origin, T.BOOLEAN, "and", (result, expr))
    return result


# Dialects where a FROM item's alias used as a value is its whole row (a STRUCT / composite).
# The SQL text of a plain type name (``CAST(x AS DATE)``) by dialect and type: ``.sql()`` copies
# the node and makes a generator for a text that depends on nothing else (asked for every cast).
_TYPE_TEXTS: dict[tuple, str] = {}
_DIALECT_STATE = frozenset({"version", "normalization_strategy", "settings"})
_POSITION_KEYS = frozenset({"line", "col", "start", "end"})


def sql_text(node: exp.Expression, dialect=None) -> str:
    """``node.sql(dialect=dialect)`` without copying the parser's positions: ``.sql()`` copies
    the node first, and the copy runs ``copy.deepcopy`` over every node's ``meta`` dict — most
    of the cost of naming an unaliased select item by its text.  The positions (``line``,
    ``col``, ``start``, ``end``) are set aside for the call and put back after; the generator
    never reads them (it reads other meta keys, which stay: a node with any other key keeps
    its whole meta).  tests/test_speed_equivalences.py compares the two on sqlglot's identity
    fixtures and every TPC-H/TPC-DS select item."""
    aside = []
    for child in node.walk():
        meta = child._meta
        if meta and _POSITION_KEYS.issuperset(meta):
            aside.append((child, meta))
            child._meta = None
    try:
        return node.sql(dialect=dialect)
    finally:
        for child, meta in aside:
            child._meta = meta


def type_text(to: exp.Expression, dialect) -> str:
    """``to.sql(dialect=dialect)``, remembered for a plain type: a ``DataType`` whose arguments
    are the type and flags (no parameters, no comments, no metadata besides its position) in a
    dialect with no settings — the text is then a function of those alone, all in the key
    (``nullable=False`` and no ``nullable`` differ: ClickHouse writes ``Nullable(DATE)`` for
    the latter)."""
    state = vars(dialect)
    if (type(to) is not exp.DataType or not isinstance(to.this, exp.DType) or to.comments
            or state.keys() != _DIALECT_STATE or state["settings"]
            or (to._meta and not _POSITION_KEYS.issuperset(to._meta))):
        return sql_text(to, dialect)
    if any(key != "this" and value is not None and type(value) is not bool for key, value in to.args.items()):
        # A type with parameters (``DECIMAL(12, 2)``, ``ARRAY<INT>``): remembered by its whole
        # shape (``_shape``), when nothing but its classes and plain values can show in its text.
        shape = _shape(to)
        if shape is None:
            return sql_text(to, dialect)
        key = ("shape", type(dialect), state["version"], state["normalization_strategy"], shape)
    else:
        key = (type(dialect), state["version"], state["normalization_strategy"], tuple(sorted(to.args.items())))
    text = _TYPE_TEXTS.get(key)
    if text is None:
        text = _TYPE_TEXTS[key] = sql_text(to, dialect)
    return text



_PLAIN_VALUES = (str, bool, int, float, type(None))


def _shape(node: exp.Expression) -> tuple | None:
    """``node`` as its class and its arguments in order, each plain value with its type (``True``
    and ``1`` differ), recursively: the generator writes a node from nothing else (its position
    aside, which ``sql_text`` sets aside too).  None for a node with comments or other meta, or a
    value of another kind: not remembered."""
    if node.comments or (node._meta and not _POSITION_KEYS.issuperset(node._meta)):
        return None
    parts: list = [type(node)]
    for key, value in node.args.items():
        if isinstance(value, exp.Expression):
            value = _shape(value)
            if value is None:
                return None
        elif type(value) is list:
            items = []
            for item in value:
                if isinstance(item, exp.Expression):
                    item = _shape(item)
                    if item is None:
                        return None
                elif type(item) in _PLAIN_VALUES or isinstance(item, exp.DType):
                    item = (type(item), item)
                else:
                    return None
                items.append(item)
            value = (list, tuple(items))
        elif type(value) in _PLAIN_VALUES or isinstance(value, exp.DType):
            value = (type(value), value)
        else:
            return None
        parts.append((key, value))
    return tuple(parts)

_WHOLE_ROW_DIALECTS = frozenset({"bigquery", "postgres", "duckdb", "redshift", "materialize", "risingwave"})
# Dialects that read ``x.a`` as the field ``a`` of a struct column ``x`` when no FROM item is
# called ``x`` (Postgres and its kin need ``(x).a``; Snowflake reads ``x:a``).
_STRUCT_DOT_DIALECTS = frozenset({
    "bigquery", "duckdb", "spark", "spark2", "databricks", "hive", "trino", "presto", "athena", "redshift",
})


def _dialect_label(ctx) -> str:
    name = _dialect_name(ctx)
    return {"bigquery": "BigQuery", "duckdb": "DuckDB", "spark": "Spark", "spark2": "Spark",
            "databricks": "Databricks", "hive": "Hive", "trino": "Trino", "presto": "Presto",
            "athena": "Athena", "redshift": "Redshift"}.get(name or "", name or "SQL")


# Schemas every DuckDB database has: ``main.f(x)`` is a function of that schema.
_DUCKDB_SCHEMAS = frozenset({"main", "pg_catalog", "information_schema", "temp", "system", "memory"})

_NAME_HOLDERS = (exp.Column, exp.Table, exp.TableAlias, exp.Alias, exp.Lambda, exp.PropertyEQ, exp.DataType,
                 exp.ColumnDef, exp.Kwarg, exp.Dot)


def _identifier_as_column(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Identifier) and not isinstance(node.parent, _NAME_HOLDERS):
        column = exp.Column(this=node.copy())
        column.meta.update(node.meta)
        return column
    return node


def _dialect_name(ctx) -> str | None:
    name = type(ctx.dialect).__name__.lower()
    return None if name == "dialect" else name


def _result_type(node: exp.Expression, args: list[Expr], ctx=None) -> T.DataType:
    if isinstance(node, exp.FromJson) and isinstance(node.expression, exp.Literal) and ctx is not None:
        # FROM_JSON(text, 'a INT, b STRING'): the schema declares the parsed value's type.
        shape = nested.struct_type(node.expression.this, _dialect_name(ctx))
        return shape.sql() if shape.known else None
    if isinstance(node, _BOOLEAN_OPERATORS):
        return T.BOOLEAN
    if isinstance(node, _STRING_FUNCTIONS):
        return T.VARCHAR
    if isinstance(node, (exp.Coalesce, exp.Abs, exp.Round, exp.Floor, exp.Ceil, exp.Greatest, exp.Least)):
        return args[0].type if args else None
    if isinstance(node, (exp.Extract, exp.Length)):
        return "INT"
    if isinstance(node, exp.Array) and args and ctx is not None:
        return nested.constructed_list_type(args, ctx)
    return None


def _aggregate_type(name: str, args: list[Expr]) -> T.DataType:
    if name in ("count", "count_if", "approx_distinct", "approx_count_distinct"):
        return T.BIGINT
    if name in ("avg", "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop"):
        return T.DOUBLE
    if name in ("sum", "min", "max", "any_value", "first", "last") and args:
        return args[0].type
    return None


def _handler_for(cls: type):
    """Find (and cache) the handler of a node class from the families it belongs to.

    sqlglot's classes list ``Expression`` before their family (``Binary``, ``Func``) in the
    MRO, so families are tried in a fixed order instead of walking the MRO.
    """
    for base, handler in _BY_BASE:
        if issubclass(cls, base):
            _HANDLERS[cls] = handler
            return handler
    _HANDLERS[cls] = _generic
    return _generic


_ROW_CONSTRUCTOR_DIALECTS = frozenset({"duckdb", "postgres"})


def _generic(self: ExpressionLowerer, node: exp.Expression, mode: Mode) -> Expr:
    args, params = self._named_args(node, mode)
    return self._call(function_name(node), args, node, _result_type(node, args, self.ctx), params)


_L = ExpressionLowerer
_HANDLERS: dict[type, object] = {
    exp.Column: _L.column,
    exp.Star: _L.star,
    exp.Literal: _L.literal,
    exp.Boolean: _L.literal,
    exp.Null: _L.literal,
    exp.Var: _L.literal,
    exp.Identifier: _L.literal,
    exp.Placeholder: _L.literal,
    exp.Parameter: _L.parameter,
    exp.PositionalColumn: _L.positional_column,
    exp.Comprehension: _L.comprehension,
    exp.SessionParameter: _L.literal,
    exp.Paren: _L.passthrough,
    exp.Alias: _L.passthrough,
    exp.Cast: _L.cast,
    exp.TryCast: _L.cast,
    exp.Case: _L.case,
    exp.In: _L.in_,
    exp.Exists: _L.exists,
    exp.Subquery: _L.scalar_subquery,
    exp.Select: _L.unsupported_query,
    exp.Window: _L.window,
    exp.Filter: _L.filtered_aggregate,
    exp.WithinGroup: _L.within_group,
    exp.Dot: _L.dot,
    exp.Bracket: _L.bracket,
    exp.StructExtract: _L.struct_extract,
    exp.Columns: stars.lower_columns,
    exp.Struct: nested.lower_struct,
    **{cls: _L.json_access for cls in semi_structured.ACCESS_NODES},
    **{cls: _L.generator for cls in (exp.Explode, exp.ExplodeOuter, exp.Posexplode, exp.PosexplodeOuter, exp.Inline,
                                     exp.Unnest, exp.ExplodingGenerateSeries, exp.QueryTransform,
                                     generators.GeneratedOutput)},
}
_BY_BASE: tuple[tuple[type, object], ...] = (
    # Before Func: sqlglot's subclasses of a generator (Spark's ``explode_outer`` is
    # ``_ExplodeOuter``) are generators too, not functions of one value.
    (exp.Explode, _L.generator),
    (exp.Binary, _L.binary),
    (exp.Func, _L.function),
)
