"""PIVOT and UNPIVOT, lowered into the operators they stand for (specs/pivot.md).

``t PIVOT (SUM(amount) FOR status IN ('paid', 'open'))`` is an aggregate: grouped by every
column of ``t`` the PIVOT does not name (or by its GROUP BY), one measure per value and
aggregate, each filtered on the pivot column: ``SUM(amount) FILTER (WHERE status = 'paid')``.
So a pivoted column has value lineage from ``amount`` (aggregate), grouping lineage from the
keys and control lineage from ``status``.

``t UNPIVOT (amount FOR month IN (jan, feb))`` is a ``UNION ALL`` of one projection per listed
column: the other columns, the column's name (a constant) and its value; unless ``INCLUDE
NULLS``, rows whose value is NULL are dropped — control lineage from the listed columns.

DuckDB's ``PIVOT t ON col USING agg`` without ``IN`` makes one column per value of ``col``
found at run time: the names are unknown, said in ``uncertain``; its values are the aggregate's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import InvalidStatementError
from ...ir import (
    Aggregate,
    AggregateCall,
    Call,
    Expr,
    Field,
    FieldRef,
    Filter,
    Literal,
    Project,
    Relation,
    SetKind,
    SetOperation,
    field_id,
    stands_for_columns,
)
from ...ir import types as T
from .expressions import and_all, function_name

if TYPE_CHECKING:
    from .queries import CteEnv, QueryLowerer
    from .scope import Scope, Source


def with_pivots(queries: "QueryLowerer", item: exp.Expression, scope: "Scope", env: "CteEnv", lateral: bool):
    """A FROM item carrying PIVOT/UNPIVOT clauses: the item, then each clause in turn."""
    pivots = item.args["pivots"]
    bare = item.copy()
    bare.set("pivots", None)
    alias = bare.args.get("alias")
    build, sources = queries._source(bare, scope, env, lateral=lateral)
    for pivot in pivots:
        source = sources[0]
        relation = (_unpivot if pivot.args.get("unpivot") else _pivot)(queries, pivot, build, source, scope, env)
        name_node = pivot.args.get("alias") or alias
        name = queries.ctx.normalizer.part(name_node.this) if isinstance(name_node, exp.TableAlias) \
            and name_node.this else None
        renames = pivot.args.get("alias").columns if isinstance(pivot.args.get("alias"), exp.TableAlias) else []
        if renames:
            relation = _renamed(queries.ctx, pivot, relation, [queries.ctx.normalizer.part(c) for c in renames],
                                source.label)
        build, sources = queries._derived(relation, name, [], pivot)
    return build, sources


def _renamed(ctx, pivot: exp.Pivot, relation: Relation, names: list[str], label: str) -> Relation:
    """``… PIVOT (…) AS p(a, b, …)``: the alias list renames the clause's output columns by
    position (a shorter list the first ones).  Over a table whose columns are not in the
    schema, the implicit group keys (or the columns UNPIVOT keeps) are a ``*`` of unknown
    width: the names after the known columns before it and before the known ones after it
    stand for that many of its columns — each one of the table's unknown columns (unknown,
    said), never a column of that name."""
    what = "UNPIVOT" if pivot.args.get("unpivot") else "PIVOT"
    fields = relation.fields
    stars = [i for i, f in enumerate(fields) if stands_for_columns(f)]
    origin = ctx.origin(pivot.args["alias"].this) if pivot.args["alias"].this is not None else relation.origin
    if not stars:
        if len(names) > len(fields):
            raise InvalidStatementError(
                f"{what} … AS {pivot.args['alias'].name}({', '.join(names)}) names {len(names)} columns, but the "
                f"{what} makes {len(fields)} ({', '.join(f.name for f in fields)})", origin=origin)
        plan: list[tuple[str, Field, bool]] = [(names[i] if i < len(names) else f.name, f, False)
                                               for i, f in enumerate(fields)]
    else:
        star = stars[0]
        before, after = fields[:star], fields[star + 1:]
        width = len(names) - len(before) - len(after)
        if len(names) <= len(before):
            plan = [(names[i] if i < len(names) else f.name, f, False) for i, f in enumerate(fields)]
        elif width < 0 or len(stars) > 1:
            raise InvalidStatementError(
                f"{what} … AS {pivot.args['alias'].name}({', '.join(names)}) renames columns by position, but the "
                f"columns of {label} are not in the schema, so which columns the names stand for is not known: "
                "declare it in the schema", origin=origin)
        else:
            plan = [(names[i], f, False) for i, f in enumerate(before)]
            plan += [(names[len(before) + i], fields[star], True) for i in range(width)]
            plan += [(names[len(before) + width + i], f, False) for i, f in enumerate(after)]
    project_id = ctx.ids.new("project", origin)
    exprs = []
    columns = []
    for position, (name, field, unknown) in enumerate(plan):
        exprs.append(FieldRef(ctx.ids.new("col", origin), origin, field.type, field.id))
        columns.append(Field(field_id(project_id, position), name, field.type, origin))
        if unknown:
            ctx.uncertain_about(
                f"{name} renames one of the columns of {label} the {what} {'groups by' if what == 'PIVOT' else 'keeps'}, and those are not in "
                "the schema: which one is not known", name, origin)
    return Project(project_id, origin, relation, tuple(exprs), tuple(columns))


# --- PIVOT ----------------------------------------------------------------------------------------


def _pivot(queries: "QueryLowerer", pivot: exp.Pivot, build, source: "Source", scope: "Scope",
           env: "CteEnv") -> Relation:
    ctx = queries.ctx
    lowerer = _lowerer(queries, source, scope, env)
    columns = source.star_items()  # every column of the pivoted item (a table read lists them all)
    field_node = pivot.args["fields"][0] if pivot.args.get("fields") else None
    if not isinstance(field_node, exp.In):
        raise InvalidStatementError("PIVOT needs FOR column IN (values)", origin=ctx.origin(pivot))
    pivot_column = lowerer.lower(field_node.this)
    values = [(v.this, v.args.get("alias")) if isinstance(v, exp.PivotAlias) else (v, None)
              for v in field_node.expressions]
    aggregations = [(a.this, a.args.get("alias")) if isinstance(a, exp.Alias) else (a, None)
                    for a in pivot.expressions]
    origin = lowerer._span(pivot) or lowerer._span(field_node)
    aggregate_id = ctx.ids.new("aggregate", origin)
    measures: list[AggregateCall] = []
    measure_fields: list[Field] = []
    names = _pivot_names(pivot, values, aggregations, ctx)
    read: set[str] = {pivot_column.field} if isinstance(pivot_column, FieldRef) else set()
    position = 0
    for value, _ in values:
        for aggregation, _ in aggregations:
            literal = lowerer.lower(value) if not isinstance(value, exp.Column) else _quoted_value(value, ctx)
            condition = Call(ctx.ids.new("call", origin), origin, T.BOOLEAN, "eq", (_clone(pivot_column, ctx), literal))
            call = _aggregate(aggregation, lowerer, condition, ctx)
            read.update(a.field for a in call.args if isinstance(a, FieldRef))
            measures.append(call)
            measure_fields.append(Field(field_id(aggregate_id, f"m{position}"), names[position], call.type, call.origin))
            position += 1
    group = pivot.args.get("group")
    if group is not None:
        keys = [lowerer.lower(k) for k in group.expressions]
    else:
        # Every column the PIVOT does not name groups the rows.
        keys = [FieldRef(ctx.ids.new("col", f.origin), f.origin, f.type, f.id) for _, f in columns
                if f.id not in read]
    relation = build()  # after every column it must list was named
    key_fields = [Field(field_id(aggregate_id, i), _key_name(k, relation), k.type, k.origin) for i, k in enumerate(keys)]
    return Aggregate(aggregate_id, origin, relation, tuple(keys), tuple(measures),
                     tuple(key_fields) + tuple(measure_fields))


def _pivot_names(pivot: exp.Pivot, values, aggregations, ctx) -> list[str]:
    """Output names as the dialect makes them (sqlglot computes them), value by value."""
    given = [ctx.normalizer.part(c) for c in pivot.args.get("columns") or []]
    if len(given) == len(values) * len(aggregations):
        return given
    names = []
    for value, alias in values:
        base = ctx.normalizer.part(alias.this if isinstance(alias, exp.TableAlias) else alias) if alias is not None \
            else value.name
        for aggregation, agg_alias in aggregations:
            names.append(base if len(aggregations) == 1 else f"{base}_{ctx.normalizer.part(agg_alias) if agg_alias else function_name(aggregation)}")
    return names


def _key_name(key: Expr, relation: Relation) -> str:
    if isinstance(key, FieldRef):
        for f in relation.fields:
            if f.id == key.field:
                return f.name
    return "key"


def _quoted_value(value: exp.Column, ctx) -> Literal:
    """T-SQL writes PIVOT values as bracketed names: ``IN ([paid], [open])`` are the values."""
    origin = ctx.origin(value.this)
    return Literal(ctx.ids.new("lit", origin), origin, T.VARCHAR, value.name)


def _aggregate(node: exp.Expression, lowerer, condition: Expr, ctx) -> AggregateCall:
    if not isinstance(node, exp.AggFunc) and not (isinstance(node, exp.Anonymous) and lowerer.state.is_aggregate_name(node)):
        raise InvalidStatementError(f"PIVOT needs aggregate functions, not {node.sql(dialect=ctx.dialect)}",
                                    origin=ctx.origin(node))
    args: list[Expr] = []
    star = False
    for value in node.args.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, exp.Star):
                star = True
            elif isinstance(item, exp.Expression) and not isinstance(item, exp.DataType):
                args.append(lowerer.lower(item))
    origin = lowerer._span(node)
    name = function_name(node)
    type_ = args[0].type if args and name in ("sum", "min", "max") else (T.BIGINT if name == "count" else None)
    return AggregateCall(ctx.ids.new("agg", origin), origin, type_, name, tuple(args), False, condition, (), star)


# --- UNPIVOT --------------------------------------------------------------------------------------


def _unpivot(queries: "QueryLowerer", pivot: exp.Pivot, build, source: "Source", scope: "Scope",
             env: "CteEnv") -> Relation:
    ctx = queries.ctx
    lowerer = _lowerer(queries, source, scope, env)
    inputs = source.star_items()
    norm = ctx.normalizer
    value_names = [norm.part(i) for e in pivot.expressions
                   for i in (e.expressions if isinstance(e, exp.Tuple) else [e])]
    field_node = pivot.args["fields"][0]
    name_column = norm.part(field_node.this if isinstance(field_node.this, exp.Identifier) else field_node.this.this)
    groups = []
    for entry in field_node.expressions:
        alias = entry.args.get("alias") if isinstance(entry, exp.PivotAlias) else None
        columns = entry.this if isinstance(entry, exp.PivotAlias) else entry
        columns = columns.expressions if isinstance(columns, exp.Tuple) else [columns]
        refs = [lowerer.lower(c) for c in columns]
        if len(refs) != len(value_names):
            raise InvalidStatementError(f"UNPIVOT lists {len(refs)} columns where it names {len(value_names)} values",
                                        origin=lowerer._span(entry))
        label = norm.part(alias) if isinstance(alias, exp.Identifier) else (
            alias.name if alias is not None else "_".join(c.name for c in columns))
        groups.append((label, refs, lowerer._span(entry)))
    listed = {r.field for _, refs, _ in groups for r in refs if isinstance(r, FieldRef)}
    relation = build()
    kept = [f for _, f in inputs if f.id not in listed]
    names = [f.name for f in kept] + [name_column] + value_names
    include_nulls = bool(pivot.args.get("include_nulls"))
    result: Relation | None = None
    for label, refs, origin in groups:
        branch: Relation = relation
        if not include_nulls:
            checks = [Call(ctx.ids.new("call", r.origin), r.origin, T.BOOLEAN, "not",
                           (Call(ctx.ids.new("call", r.origin), r.origin, T.BOOLEAN, "is_null", (_clone(r, ctx),)),))
                      for r in refs]
            predicate = and_all(ctx, checks)
            branch = Filter(ctx.ids.new("filter", origin), origin, branch, predicate, "where")
        exprs: list[Expr] = [FieldRef(ctx.ids.new("col", f.origin), f.origin, f.type, f.id) for f in kept]
        exprs.append(Literal(ctx.ids.new("lit", origin), origin, T.VARCHAR, label))
        exprs.extend(refs)
        project_id = ctx.ids.new("project", origin)
        columns = tuple(Field(field_id(project_id, i), n, e.type, e.origin or origin) for i, (n, e) in
                        enumerate(zip(names, exprs)))
        branch = Project(project_id, origin, branch, tuple(exprs), columns)
        result = branch if result is None else _union_all(result, branch, ctx)
    assert result is not None
    return result


def _union_all(left: Relation, right: Relation, ctx) -> Relation:
    origin = ctx.join(left.origin, right.origin)
    union_id = ctx.ids.new("union", origin)
    columns = tuple(Field(field_id(union_id, i), l.name, l.type if l.type == r.type else None, l.origin)
                    for i, (l, r) in enumerate(zip(left.fields, right.fields)))
    return SetOperation(union_id, origin, SetKind.UNION, True, left, right, columns)


# --- shared -----------------------------------------------------------------------------------------


def _lowerer(queries: "QueryLowerer", source: "Source", scope: "Scope", env: "CteEnv"):
    """Expressions of a PIVOT read the pivoted item's columns only."""
    from .expressions import ExpressionLowerer
    from .scope import Scope
    from .select import SelectState

    inner = Scope(queries.ctx, scope.outer)
    inner.add(source)
    return ExpressionLowerer(SelectState(queries.ctx, inner, queries, env))


def _clone(expr: Expr, ctx) -> Expr:
    if isinstance(expr, FieldRef):
        return FieldRef(ctx.ids.new("col", expr.origin), expr.origin, expr.type, expr.field)
    return expr


def pivot_statement(node: exp.Pivot, queries: "QueryLowerer", env: "CteEnv") -> Relation:
    """DuckDB's ``PIVOT t ON col [IN (…)] USING agg [GROUP BY …]`` as a query."""
    ctx = queries.ctx
    on = node.expressions[0] if node.expressions else None
    using = node.args.get("using") or []
    if on is None or not using:
        raise InvalidStatementError("PIVOT needs ON and USING", origin=ctx.origin(node))
    table = node.this
    if isinstance(on, exp.In):
        clause = exp.Pivot(expressions=[u.copy() for u in using], fields=[on.copy()], unpivot=False)
        if node.args.get("group") is not None:
            clause.set("group", node.args["group"].copy())
        item = table.copy()
        item.set("pivots", [clause])
        from .scope import Scope

        build, _ = with_pivots(queries, item, Scope(ctx, None), env, False)
        return build()
    # Without IN the columns are the values of ``on`` found at run time: one field stands for them.
    from .scope import Scope

    scope = Scope(ctx, None)
    build, sources = queries._source(table, scope, env, lateral=False)
    lowerer = _lowerer(queries, sources[0], scope, env)
    pivot_column = lowerer.lower(on)
    origin = lowerer._span(node)
    aggregate_id = ctx.ids.new("aggregate", origin)
    group = node.args.get("group")
    keys = [lowerer.lower(k) for k in group.expressions] if group is not None else []
    if len(using) > 1:
        raise InvalidStatementError("PIVOT without IN and with several USING aggregates is not supported",
                                    origin=origin)
    condition = Call(ctx.ids.new("call", origin), origin, T.BOOLEAN, "eq",
                     (pivot_column, Literal(ctx.ids.new("lit", origin), origin, None, None)))
    measures = [_aggregate(u, lowerer, condition, ctx) for u in using]
    relation = build()
    ctx.uncertain_about(
        f"PIVOT ON {on.sql(dialect=ctx.dialect)} without IN: its columns are the values found at run time, so "
        "their names are unknown; '*' stands for them", "*", origin)
    key_fields = [Field(field_id(aggregate_id, i), _key_name(k, relation), k.type, k.origin) for i, k in enumerate(keys)]
    measure_fields = [Field(field_id(aggregate_id, f"m{i}"), "*", m.type, m.origin) for i, m in enumerate(measures)]
    return Aggregate(aggregate_id, origin, relation, tuple(keys), tuple(measures),
                     tuple(key_fields) + tuple(measure_fields))

