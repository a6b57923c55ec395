"""Nested data: struct fields, array elements and map values (specs/nested.md).

Types are kept in the IR as SQL type strings; this module reads them with sqlglot's
``DataType`` (``STRUCT<sku VARCHAR, qty INT>``, ``ARRAY<STRUCT<…>>``, ``MAP<…>``, DuckDB's
``STRUCT(…)``, Trino's ``ROW(…)``) and lowers access into ``NestedAccess`` with a path:

* ``.name``   a struct field (or an object key of semi-structured data);
* ``[n]``     the array element at constant position ``n``, counted from 0 whatever the
              dialect's own base (DuckDB's ``arr[1]`` and BigQuery's ``arr[ORDINAL(1)]`` are ``[0]``);
* ``['k']``   the map value at constant key ``k``;
* ``[]``      an element or value chosen at run time (a computed index or key, a generator).

Access is exact when the accessed type is declared and has the path; a struct field the
declared type does not have is an error; access into a value whose type is not declared is
conservative, with the reason.  Semi-structured types (JSON, VARIANT, OBJECT, SUPER) may
declare their shape in the schema (``JSON<STRUCT<…>>``): paths inside the shape are exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from ...errors import UnknownColumnError
from ...ir import AccessKind, Call, Expr, FieldRef, Literal, NestedAccess, OuterRef

if TYPE_CHECKING:
    from .expressions import ExpressionLowerer, Mode

_SEMI = {exp.DataType.Type.JSON, exp.DataType.Type.JSONB, exp.DataType.Type.VARIANT, exp.DataType.Type.OBJECT,
         exp.DataType.Type.SUPER}
_SHAPED = re.compile(r"^\s*(JSONB?|VARIANT|OBJECT|SUPER)\s*<(.*)>\s*$", re.I | re.S)


@dataclass(frozen=True, slots=True)
class TypeInfo:
    """What is known of a value's type: ``kind`` is struct, array, map, semi (JSON-like),
    scalar or unknown; ``node`` the parsed type; ``shape`` a semi-structured type's declared shape."""

    kind: str
    node: exp.DataType | None = None
    shape: "TypeInfo | None" = None

    @property
    def known(self) -> bool:
        return self.kind != "unknown"

    def sql(self) -> str | None:
        if self.kind == "semi":
            base = self.node.sql() if self.node is not None else "JSON"
            return f"{base}<{self.shape.sql()}>" if self.shape is not None else base
        return self.node.sql() if self.node is not None else None

    def field(self, name: str) -> tuple[str, "TypeInfo"] | None:
        """A struct field by name (matched without case), as the type spells it."""
        if self.kind != "struct" or self.node is None:
            return None
        found = None
        for column in self.node.expressions:
            if isinstance(column, exp.ColumnDef) and column.name.lower() == name.lower():
                if column.name == name or found is None:
                    found = (column.name, _info(column.args.get("kind")))
        return found

    def field_names(self) -> list[str]:
        if self.kind != "struct" or self.node is None:
            return []
        return [c.name for c in self.node.expressions if isinstance(c, exp.ColumnDef)]

    def fields(self) -> list[tuple[str, "TypeInfo"]]:
        if self.kind != "struct" or self.node is None:
            return []
        return [(c.name, _info(c.args.get("kind"))) for c in self.node.expressions if isinstance(c, exp.ColumnDef)]

    def element(self) -> "TypeInfo":
        if self.kind == "array" and self.node is not None and self.node.expressions:
            return _info(self.node.expressions[0])
        if self.kind == "semi":
            return self.shape.element() if self.shape is not None else SEMI
        return UNKNOWN

    def key(self) -> "TypeInfo":
        if self.kind == "map" and self.node is not None and len(self.node.expressions) == 2:
            return _info(self.node.expressions[0])
        return UNKNOWN

    def value(self) -> "TypeInfo":
        if self.kind == "map" and self.node is not None and len(self.node.expressions) == 2:
            return _info(self.node.expressions[1])
        if self.kind == "semi":
            return SEMI
        return UNKNOWN


UNKNOWN = TypeInfo("unknown")
SEMI = TypeInfo("semi")


def _info(node: exp.DataType | None) -> TypeInfo:
    if not isinstance(node, exp.DataType):
        return UNKNOWN
    kind = node.this
    if kind == exp.DataType.Type.STRUCT or kind == exp.DataType.Type.UNION:
        # A bare STRUCT (RECORD) declares no fields: what it holds is not known.  DuckDB's UNION
        # reads its members as a struct's fields (``u.num``: the member, NULL when the value
        # holds another; field trial 65).
        return TypeInfo("struct", node) if node.expressions else UNKNOWN
    if kind == exp.DataType.Type.ARRAY:
        return TypeInfo("array", node)
    if kind == exp.DataType.Type.MAP:
        return TypeInfo("map", node)
    if kind in _SEMI:
        return TypeInfo("semi", node)
    if kind == exp.DataType.Type.UNKNOWN:
        return UNKNOWN
    return TypeInfo("scalar", node)


@lru_cache(maxsize=4096)
def type_info(text: str | None, dialect: str | None = None) -> TypeInfo:
    """Read a type string (as the schema or the IR spells it)."""
    if not text:
        return UNKNOWN
    shaped = _SHAPED.match(text)
    if shaped:
        base = _parse(shaped.group(1), dialect)
        shape = type_info(shaped.group(2), dialect)
        return TypeInfo("semi", base, shape if shape.known else None)
    return _info(_parse(text, dialect))


def _parse(text: str, dialect: str | None) -> exp.DataType | None:
    for read in (dialect, None):
        try:
            return exp.DataType.build(text, dialect=read, udt=True)
        except (ParseError, TokenError, ValueError):
            continue
    return None


def struct_type(columns: str, dialect: str | None) -> TypeInfo:
    """A schema written as a column list (``a INT, b STRING``: Spark's FROM_JSON) or a type."""
    whole = type_info(columns, dialect)
    if whole.kind in ("struct", "array", "map"):
        return whole
    return type_info(f"STRUCT<{columns}>", dialect)


# --- steps --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a path as read from the SQL: a name, a constant position or key, or a
    value computed at run time (``dynamic``)."""

    name: str | None = None  # a field or key by name
    position: int | None = None  # an array position, from 0
    dynamic: exp.Expression | None = None
    wildcard: bool = False  # every element (a JSON path's ``[*]``)


def render(step: Step, kind: str, info: TypeInfo) -> str:
    """The path syntax of ``step`` read from a value of type ``info``."""
    if step.dynamic is not None or step.wildcard:
        return "[]"
    if step.position is not None:
        return f"[{step.position}]"
    assert step.name is not None
    if kind == "map" or (info.kind == "map"):
        return "['" + step.name.replace("'", "''") + "']"
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", step.name):
        return "['" + step.name.replace("'", "''") + "']"
    return f".{step.name}"


def access(lowerer: "ExpressionLowerer", base: Expr, steps: list[Step], node: exp.Expression, mode: "Mode",
           semi_structured: bool = False, base_node: exp.Expression | None = None) -> Expr:
    """``base`` (written as ``base_node``) read at ``steps``: a ``NestedAccess`` with its path,
    type and exactness."""
    ctx = lowerer.ctx
    dialect = _dialect_name(ctx)
    if ctx.constructed and isinstance(base, (FieldRef, OuterRef)) and steps and steps[0].name is not None:
        parts = ctx.constructed.get(base.field)
        if parts is not None:
            # A field of a struct built in a derived table: the field's own value, exposed by
            # that derived table (``expose_constructed_fields``), as if the constructor were here.
            names, fields = parts
            position = constructed_field(names, steps[0], semi_structured and dialect == "snowflake")
            if position is not None:
                part = fields[position]
                ref = type(base)(ctx.ids.new("col", base.origin), base.origin, part.type, part.id)
                return ref if len(steps) == 1 else access(lowerer, ref, steps[1:], node, mode,
                                                          semi_structured=semi_structured)
    names = constructor_names(base) if steps and steps[0].name is not None else None
    if names is not None:
        # Snowflake's object keys are told apart by case; struct fields elsewhere are not.
        case_sensitive = semi_structured and dialect == "snowflake"
        position = constructed_field(names, steps[0], case_sensitive)
        if position is None and not semi_structured and not any(
                n.lower() == steps[0].name.lower() for n in names):
            # A field the constructor does not build: an error, as for a declared struct.
            raise UnknownColumnError(steps[0].name, table=_describe(base_node if base_node is not None else node,
                                                                    ctx), available=list(names),
                                     origin=_where(lowerer, node))
        if position is not None:
            # ``STRUCT(a AS x).x`` is ``a``: the constructor names the field, so the value read is
            # exactly that field's expression (specs/nested.md rule 5a).
            field = base.args[position]
            if len(steps) == 1:
                return field
            inner = base_node.args.get("expressions") if isinstance(base_node, exp.Struct) else None
            named = _field_node(inner, steps[0]) if inner else None
            return access(lowerer, field, steps[1:], node, mode, semi_structured=semi_structured,
                          base_node=named)
    info = type_info(base.type, dialect)
    label = _describe(base_node if base_node is not None else node, ctx)
    if info.kind == "scalar" and semi_structured:
        info = SEMI  # JSON held as text: a path into it is semi-structured
    if info.kind == "scalar":
        # Part of a string or number (DuckDB's ``s[1]``): a computation on the value, not a path.
        return lowerer._call("element_at", [base] + [lowerer.lower(s.dynamic, mode) for s in steps if s.dynamic],
                             node)
    rendered: list[str] = []
    dynamic: list[Expr] = []
    is_semi = semi_structured or info.kind == "semi"
    why: str | None = None  # "undeclared", "outside", "unchecked": why the access is not exact
    for step in steps:
        if step.dynamic is not None:
            dynamic.append(lowerer.lower(step.dynamic, mode))
        if info.kind == "semi":
            is_semi = True
            if info.shape is None:
                rendered.append(render(step, "semi", info))
                why = why or "undeclared"
                continue
            before = info.shape
            info, spelled = _step_into(before, step, label, declared_semi=True)
            rendered.append(render(spelled, before.kind, before))
            if not info.known:
                why = why or "outside"
                info = SEMI
            elif info.kind != "semi" and info.kind in ("struct", "array", "map"):
                info = TypeInfo("semi", None, info)  # still JSON, with the declared shape below
            continue
        if not info.known:
            rendered.append(render(step, "unknown", info))
            why = why or ("undeclared" if is_semi else "unchecked")
            continue
        before = info
        if before.kind == "scalar":
            rendered.append(render(step, "unknown", before))
            why = why or "unchecked"
            info = UNKNOWN
            continue
        try:
            info, spelled = _step_into(before, step, label)
        except UnknownColumnError as error:
            error.origin = error.origin or _where(lowerer, node)
            raise
        rendered.append(render(spelled, before.kind, before))
    path = label + "".join(rendered)
    reason = {
        None: None,
        "undeclared": f"{path} reads semi-structured data whose shape is not declared",
        "outside": f"{path} is outside the declared shape of {label}",
        "unchecked": f"the type of {label} is not declared, so the path {path} is not checked",
    }[why]
    exact = why is None
    if isinstance(base, NestedAccess) and base.kind == (AccessKind.SEMI_STRUCTURED if is_semi else AccessKind.NESTED):
        # ``a.b`` then ``.c``: one access with the whole path.
        exact = exact and base.exact
        reason = base.reason or reason
        dynamic = list(base.dynamic) + dynamic
        rendered = list(base.steps) + rendered
        base = base.base
    origin = lowerer._span(node)
    kind = AccessKind.SEMI_STRUCTURED if is_semi else AccessKind.NESTED
    type_ = info.sql() if info.known and info.kind != "semi" else (info.sql() if info.shape is not None else
                                                                      ("JSON" if is_semi else None))
    return NestedAccess(ctx.ids.new("access", origin), origin, type_, base, tuple(rendered), kind, exact,
                        None if exact else reason, tuple(dynamic))


def constructor_names(call: Expr) -> tuple[str, ...] | None:
    """The field names of a struct constructor that plainly names every field (``STRUCT(a AS x)``,
    ``{'x': a}``, ``named_struct('x', a)``, ``OBJECT_CONSTRUCT('x', a)``, a whole row of declared
    columns); ``None`` for anything else (a field left unnamed, an unknown ``*`` part)."""
    if not isinstance(call, Call) or call.function != "struct" or not call.params:
        return None
    if len(call.params) != len(call.args):
        return None
    if any(not name or name == "*" or name.endswith(".*") for name in call.params):
        return None
    return call.params


def expose_constructed_fields(ctx, relation):
    """A derived table whose query ends in a Project building named structs (``SELECT STRUCT(t.x
    AS a, t.y AS b) AS s …``): the same Project with each such struct's fields as extra fields
    after its own (their values, each its own copy of the field's expression), noted in
    ``ctx.constructed`` by the struct field's id, so that ``d.s.a`` read outside is the field
    ``a``'s value — exact, as ``STRUCT(t.x AS a).a`` written inline is (specs/nested.md 5a).  The
    extra fields are no columns of the derived table (``*`` does not list them).  A field whose
    expression cannot be copied here (a subquery, an aggregate or window call) leaves its struct
    as it was (rule 3)."""
    from ...ir import Field, Project, field_id

    if not isinstance(relation, Project):
        return relation
    exprs = list(relation.exprs)
    columns = list(relation.columns)
    pending = list(zip(relation.columns, relation.exprs))
    while pending:  # a struct inside a struct: its fields too (``d.s.p.r``)
        field, expr = pending.pop(0)
        names = constructor_names(expr)
        if names is None:
            continue
        copies = [_copied(arg, ctx) for arg in expr.args]
        if any(c is None for c in copies):
            continue
        fields = []
        for name, value in zip(names, copies):
            part = Field(field_id(relation.id, len(columns)), f"{field.name}.{name}", value.type, value.origin)
            exprs.append(value)
            columns.append(part)
            fields.append(part)
            pending.append((part, value))
        ctx.constructed[field.id] = (names, tuple(fields))
    if len(columns) == len(relation.columns):
        return relation
    return Project(relation.id, relation.origin, relation.input, tuple(exprs), tuple(columns))


def _copied(expr: Expr, ctx) -> Expr | None:
    """``expr`` with fresh ids (one node may stand in one place of a plan only); ``None`` for
    what is not copied here."""
    from dataclasses import replace

    from ...ir import FieldRef, Literal, OuterRef

    kind = expr.id.split(".", 1)[-1].split("@", 1)[0] or "col"
    if isinstance(expr, (FieldRef, OuterRef, Literal)):
        return replace(expr, id=ctx.ids.new(kind, expr.origin))
    if type(expr) is Call:
        args = [_copied(a, ctx) for a in expr.args]
        if any(a is None for a in args):
            return None
        return replace(expr, id=ctx.ids.new(kind, expr.origin), args=tuple(args))
    if type(expr) is NestedAccess:
        base = _copied(expr.base, ctx)
        dynamic = [_copied(d, ctx) for d in expr.dynamic]
        if base is None or any(d is None for d in dynamic):
            return None
        return replace(expr, id=ctx.ids.new(kind, expr.origin), base=base, dynamic=tuple(dynamic))
    return None


def constructed_field(names: tuple[str, ...], step: Step, case_sensitive: bool = False) -> int | None:
    """The position of the field ``step`` names among a constructor's ``names``; ``None`` when no
    field, or more than one, has that name (``{'x': a, 'X': b}`` where names match without case)."""
    if step.name is None:
        return None
    if case_sensitive:
        found = [i for i, name in enumerate(names) if name == step.name]
    else:
        found = [i for i, name in enumerate(names) if name.lower() == step.name.lower()]
    return found[0] if len(found) == 1 else None


def _field_node(items: list[exp.Expression], step: Step) -> exp.Expression | None:
    """The SQL of the constructor's field ``step`` names (for the label of a deeper access)."""
    for item in items:
        name = struct_field_name(item)
        if name is not None and name.lower() == (step.name or "").lower():
            return struct_field_value(item)
    return None


def struct_field_name(node: exp.Expression) -> str | None:
    """The name a struct constructor's item gives its field (``a AS x``, ``x := a``, ``'x': a``,
    ``named_struct('x', a)``), as written; ``None`` for an unnamed item."""
    if isinstance(node, exp.PropertyEQ):
        name = node.this
        if isinstance(name, exp.Identifier) or (isinstance(name, exp.Literal) and name.is_string):
            return name.name
        return None
    if isinstance(node, exp.Alias):
        return node.alias or None
    return None


def struct_field_value(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.PropertyEQ):
        return node.expression
    if isinstance(node, exp.Alias):
        return node.this
    return node


def lower_struct(lowerer: "ExpressionLowerer", node: exp.Struct, mode: "Mode") -> Expr:
    """A struct constructor whose every item names its field: ``struct(values…)`` with the field
    names as the call's parameter names (as a whole row is), so a field read out of it later in
    the same expression is that field's value (``access``).  Any other constructor (an unnamed
    item, a ``*``) is lowered as any function."""
    from . import stars

    items = node.expressions
    names = [struct_field_name(item) for item in items]
    if not items or any(n is None for n in names) or any(stars.is_star(struct_field_value(i)) for i in items):
        # No parameter names: sqlglot's (``expressions``) would read as field names.
        return lowerer._call("struct", lowerer._args(node, mode), node, None)
    normalizer = lowerer.ctx.normalizer
    spelled = [normalizer.part(item.this) if isinstance(item, exp.PropertyEQ) and isinstance(item.this, exp.Identifier)
               else (normalizer.part(item.args["alias"]) if isinstance(item, exp.Alias) else name)
               for item, name in zip(items, names)]
    values = [lowerer.lower(struct_field_value(item), mode) for item in items]
    return lowerer._call("struct", values, node, constructed_struct_type(names, values, lowerer.ctx),
                         tuple(spelled))


def constructed_struct_type(names: list[str], values: list[Expr], ctx) -> str | None:
    """DuckDB: the type of a struct the query builds, its fields named as written (DuckDB keeps
    their case; a field's type ``UNKNOWN`` when its value's is not known).  What depends on a struct's fields, not
    its values, is then read exactly wherever the struct goes: ``unnest(v.s)`` of a struct
    built in a derived table or a VALUES list makes a column per field (DuckDB 2.0.1: ``SELECT
    unnest(a) FROM (VALUES ({'a': 42, 'b': 88})) v(a)`` gives ``a, b``; it was one column, of
    no sources, said exact).  Other dialects: ``None`` (their constructors name and type
    fields in ways not read here)."""
    if _dialect_name(ctx) != "duckdb" or len({name.lower() for name in names}) != len(names):
        return None
    columns = []
    for name, value in zip(names, values):
        kind = type_info(value.type, "duckdb").node if value.type else None
        columns.append(exp.ColumnDef(this=exp.to_identifier(name, quoted=True),
                                     kind=kind.copy() if kind is not None else exp.DataType.build("UNKNOWN")))
    return exp.DataType(this=exp.DataType.Type.STRUCT, expressions=columns, nested=True).sql("duckdb")


def constructed_list_type(values: list[Expr], ctx) -> str | None:
    """DuckDB: the type of a list the query builds when its elements' types are known and
    alike (NULLs aside): ``INT[]``, ``INT[][]``, ``STRUCT("a" INT)[]``.  A recursive unnest of
    it then knows how deep its lists go (``unnest([l, l], recursive := true)`` of an ``INT[]``
    column: a row per element of each, exact)."""
    if _dialect_name(ctx) != "duckdb":
        return None
    elements = [type_info(value.type, "duckdb") for value in values
                if not (isinstance(value, Literal) and value.type is None)]
    if not elements or any(not e.known or e.node is None or e.kind == "semi" for e in elements):
        return None
    if len({e.node.sql("duckdb") for e in elements}) != 1:  # INTEGER and INT spell one type
        return None
    element = elements[0]
    return exp.DataType(this=exp.DataType.Type.ARRAY, expressions=[element.node.copy()], nested=True).sql("duckdb")


def _step_into(info: TypeInfo, step: Step, described: str,
               declared_semi: bool = False) -> tuple[TypeInfo, Step]:
    """The type reached by one step, and the step as the type spells it; a field a declared
    struct does not have is an error (in a declared semi-structured shape: just not exact)."""
    if step.dynamic is not None or step.position is not None or step.wildcard:
        if info.kind == "map":
            return info.value(), step
        return (info.element() if info.kind in ("array", "semi") else UNKNOWN), step
    assert step.name is not None
    if info.kind == "map":
        return info.value(), step
    if info.kind == "struct":
        found = info.field(step.name)
        if found is None:
            if declared_semi:
                return UNKNOWN, step
            raise UnknownColumnError(step.name, table=described, available=info.field_names(), origin=None)
        return found[1], Step(name=found[0])
    if info.kind == "semi":
        return SEMI, step
    return UNKNOWN, step


def _where(lowerer: "ExpressionLowerer", node: exp.Expression):
    """Where an access is written, for its errors: the field name of ``x.f``, else the access."""
    ctx = lowerer.ctx
    named = node.expression if isinstance(node, exp.Dot) else (
        node.expressions[0] if isinstance(node, exp.Bracket) and node.expressions else None)
    if named is not None and ctx.origin(named) is not None:
        return ctx.origin(named)
    return ctx.origin(node) or lowerer._span(node)


def _describe(node: exp.Expression, ctx) -> str:
    """How a value is written: a column as its (qualified) name, anything else as SQL."""
    if isinstance(node, exp.Column):
        text = ".".join(p.name for p in node.parts)
    else:
        text = " ".join(node.sql(dialect=ctx.dialect).split())
    return text if len(text) <= 60 else text[:57] + "…"


def _dialect_name(ctx) -> str | None:
    name = type(ctx.dialect).__name__.lower()
    return None if name == "dialect" else name


# --- reading the SQL ----------------------------------------------------------------------------


def bracket_steps(node: exp.Bracket) -> list[Step]:
    """``x[1]``, ``x['k']``, BigQuery's ``x[OFFSET(0)]`` (sqlglot keeps the index base apart)."""
    offset = node.args.get("offset") or 0
    steps = []
    for index in node.expressions:
        if isinstance(index, exp.Literal) and index.is_string:
            steps.append(Step(name=index.this))
        elif isinstance(index, exp.Literal) and index.this.lstrip("-").isdigit():
            steps.append(Step(position=int(index.this) - int(offset)))
        else:
            steps.append(Step(dynamic=index))
    return steps


def column_fields(node: exp.Column, split: int, ctx) -> tuple[exp.Column, list[Step]]:
    """``a.b.c`` read as the column named by the first ``split`` parts and fields after them."""
    parts = node.parts
    head = parts[:split]
    column = exp.Column(this=head[-1].copy(), table=head[-2].copy() if len(head) > 1 else None,
                        db=head[-3].copy() if len(head) > 2 else None,
                        catalog=head[-4].copy() if len(head) > 3 else None)
    for part, original in zip(column.parts, head):
        part.meta.update(original.meta or {})
    steps = [Step(name=ctx.normalizer.part(p) if isinstance(p, exp.Identifier) else p.name) for p in parts[split:]]
    return column, steps
