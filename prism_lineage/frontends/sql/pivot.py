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

import itertools
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
from ...ir.expressions import iter_tree
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
    field_nodes = pivot.args.get("fields") or []
    if not field_nodes or not all(isinstance(f, exp.In) for f in field_nodes):
        raise InvalidStatementError("PIVOT needs FOR column IN (values)", origin=ctx.origin(pivot))
    # Several FOR (DuckDB ``FOR quarter IN ('Q1') region IN ('r1')``, ``ON quarter IN …, region IN …``):
    # one measure per combination of values, filtered on every pivot column (``Q1_r1``).
    pivot_columns = [lowerer.lower(f.this) for f in field_nodes]
    if any(_values_at_run_time(f) for f in field_nodes):
        return _pivot_at_run_time(lowerer, pivot, field_nodes, pivot_columns, columns, build)
    value_lists = [[(v.this, v.args.get("alias")) if isinstance(v, exp.PivotAlias) else (v, None)
                    for v in f.expressions] for f in field_nodes]
    aggregations = [(a.this, a.args.get("alias")) if isinstance(a, exp.Alias) else (a, None)
                    for a in pivot.expressions]
    origin = lowerer._span(pivot) or lowerer._span(field_nodes[0])
    aggregate_id = ctx.ids.new("aggregate", origin)
    measures: list[AggregateCall] = []
    measure_fields: list[Field] = []
    combinations = list(itertools.product(*value_lists))
    names = _pivot_names(pivot, combinations, aggregations, ctx)
    read: set[str] = {c.field for c in pivot_columns if isinstance(c, FieldRef)}
    for column in pivot_columns:  # a computed pivot column (``ON a || b``) reads its columns
        read.update(r.field for r in iter_tree(column) if isinstance(r, FieldRef))
    position = 0
    for combination in combinations:
        for aggregation, _ in aggregations:
            checks: list[Expr] = []
            for pivot_column, (value, _) in zip(pivot_columns, combination):
                literal = lowerer.lower(value) if not isinstance(value, exp.Column) else _quoted_value(value, ctx)
                checks.append(Call(ctx.ids.new("call", origin), origin, T.BOOLEAN, "eq",
                                   (_clone(pivot_column, ctx), literal)))
            condition = and_all(ctx, checks)
            call = _aggregate(aggregation, lowerer, condition, ctx)
            # Every column the aggregate reads, also inside an expression (``SUM(amount + 1)``):
            # none of them is an implicit group key (DuckDB, Spark; field trial 55).
            read.update(r.field for a in call.args for r in iter_tree(a) if isinstance(r, FieldRef))
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


def _values_at_run_time(node: exp.In) -> bool:
    """``IN enum_type`` (DuckDB: the type's values) or ``IN (SELECT …)``: the values, so the
    pivoted columns, are known only when the query runs (field trial 54)."""
    return not node.expressions or any(isinstance(v, exp.Query) for v in node.expressions)


def _pivot_at_run_time(lowerer, pivot: exp.Pivot, field_nodes: list[exp.In], pivot_columns: list[Expr],
                       columns, build) -> Relation:
    """A PIVOT whose values are found at run time: as DuckDB's PIVOT without IN — the group
    keys, then one field ``*`` standing for the pivoted columns, whose names are unknown (said);
    each is the aggregate filtered on the pivot column equal to one of the values (a subquery
    giving them is read: control)."""
    ctx = lowerer.ctx
    origin = lowerer._span(pivot) or _first_origin(pivot, ctx)
    shown = " ".join(f.sql(dialect=ctx.dialect) for f in field_nodes)
    aggregations = [a.this if isinstance(a, exp.Alias) else a for a in pivot.expressions]
    if len(aggregations) != 1:
        raise InvalidStatementError(
            f"PIVOT … FOR {shown}: its columns are the values found at run time, and with several aggregates "
            "which column is which is not read by prism_lineage: pivot with one aggregate, or list the values",
            origin=origin)
    aggregate_id = ctx.ids.new("aggregate", origin)
    checks: list[Expr] = []
    for column, node in zip(pivot_columns, field_nodes):
        query = node.args.get("query") or next((v for v in node.expressions if isinstance(v, exp.Query)), None)
        value = lowerer.lower(query if isinstance(query, exp.Subquery) or query is None else exp.Subquery(
            this=query.copy())) if query is not None else Literal(ctx.ids.new("lit", origin), origin, None, None)
        checks.append(Call(ctx.ids.new("call", origin), origin, T.BOOLEAN, "eq", (_clone(column, ctx), value)))
    measure = _aggregate(aggregations[0], lowerer, and_all(ctx, checks), ctx)
    return _run_time_aggregate(lowerer, aggregate_id, pivot.args.get("group"), pivot_columns, [measure], columns, build,
                               f"PIVOT … FOR {shown}: its columns are the values found at run time (an ENUM type's "
                               "or a subquery's), so their names are unknown; '*' stands for them", origin)


def _run_time_aggregate(lowerer, aggregate_id: str, group, pivot_columns: list[Expr], measures: list[AggregateCall],
                        columns, build, reason: str, origin) -> Aggregate:
    """The group keys (GROUP BY, else every column neither the pivot columns nor the aggregates
    read), then one ``*`` field per aggregate standing for the pivoted columns."""
    ctx = lowerer.ctx
    if group is not None:
        keys = [lowerer.lower(k) for k in group.expressions]
    else:
        # Every column neither ON nor USING names groups the rows (DuckDB: GROUP BY ALL over them).
        read = {r.field for e in [*pivot_columns, *(a for m in measures for a in m.args)]
                for r in iter_tree(e) if isinstance(r, FieldRef)}
        keys = [FieldRef(ctx.ids.new("col", f.origin), f.origin, f.type, f.id) for _, f in columns
                if f.id not in read]
    relation = build()
    ctx.uncertain_about(reason, "*", origin)
    key_fields = [Field(field_id(aggregate_id, i), _key_name(k, relation), k.type, k.origin) for i, k in enumerate(keys)]
    measure_fields = [Field(field_id(aggregate_id, f"m{i}"), "*", m.type, m.origin) for i, m in enumerate(measures)]
    return Aggregate(aggregate_id, origin, relation, tuple(keys), tuple(measures),
                     tuple(key_fields) + tuple(measure_fields))


def _pivot_names(pivot: exp.Pivot, combinations, aggregations, ctx) -> list[str]:
    """Output names as the dialect makes them (sqlglot computes them), combination by
    combination of values (one value per FOR column, joined by ``_``)."""
    given = [ctx.normalizer.output_name(c) if isinstance(c, exp.Identifier) else ctx.normalizer.part(c)
             for c in pivot.args.get("columns") or []]
    if len(given) == len(combinations) * len(aggregations):
        return given
    names = []
    for combination in combinations:
        base = "_".join(ctx.normalizer.part(alias.this if isinstance(alias, exp.TableAlias) else alias)
                        if alias is not None else value.name for value, alias in combination)
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
        for column, ref in zip(columns, refs):
            if not isinstance(ref, FieldRef) and len({r.field for r in iter_tree(ref) if isinstance(r, FieldRef)}) != 1:
                # DuckDB: "UNPIVOT clause must contain exactly one column" (an expression over one
                # column is that column unpivoted, named after it).
                raise InvalidStatementError(
                    f"UNPIVOT … IN ({column.sql(dialect=ctx.dialect)}): an unpivoted expression must read exactly "
                    "one column", origin=lowerer._span(column) or lowerer._span(entry))
        if len(refs) != len(value_names):
            raise InvalidStatementError(f"UNPIVOT lists {len(refs)} columns where it names {len(value_names)} values",
                                        origin=lowerer._span(entry))
        label = norm.part(alias) if isinstance(alias, exp.Identifier) else (
            alias.name if alias is not None else "_".join(_label(c, r, lowerer) for c, r in zip(columns, refs)))
        groups.append((label, refs, lowerer._span(entry), columns))
    # An unpivoted expression (``amount::VARCHAR``) consumes its column as a listed column does
    # (DuckDB; field trial 56): it is not kept.
    listed = {r.field for _, refs, _, _ in groups for ref in refs for r in iter_tree(ref) if isinstance(r, FieldRef)}
    relation = build()
    kept = [f for _, f in inputs if f.id not in listed]
    names = [f.name for f in kept] + [name_column] + value_names
    include_nulls = bool(pivot.args.get("include_nulls"))
    result: Relation | None = None
    for label, refs, origin, nodes in groups:
        branch: Relation = relation
        if not include_nulls:
            checks = [Call(ctx.ids.new("call", r.origin), r.origin, T.BOOLEAN, "not",
                           (Call(ctx.ids.new("call", r.origin), r.origin, T.BOOLEAN, "is_null",
                                 (_clone(r, ctx) if isinstance(r, FieldRef) else lowerer.lower(n),)),))
                      for r, n in zip(refs, nodes)]
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


def _label(column: exp.Expression, ref: Expr, lowerer) -> str:
    """The name a listed column gives its rows: the column's; an expression's is the one
    column it reads (DuckDB: ``amount::VARCHAR`` is ``amount``)."""
    if isinstance(column, exp.Column):
        return column.name
    inner = next((c for c in column.find_all(exp.Column)), None)
    return inner.name if inner is not None else column.name


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
    """DuckDB's ``PIVOT t ON c1 [IN (…)], c2 … [USING agg, …] [GROUP BY …]`` and
    ``UNPIVOT t ON c1, c2 … [INTO NAME n VALUE v]`` statements, as queries (specs/pivot.md 2)."""
    ctx = queries.ctx
    if node.args.get("unpivot"):
        return _unpivot_statement(node, queries, env)
    ons = list(node.expressions)
    using = list(node.args.get("using") or [])
    if not ons:
        raise InvalidStatementError("a PIVOT statement without ON is not read by prism_lineage: write it as "
                                    "SELECT … GROUP BY", origin=ctx.origin(node) or _first_origin(node, ctx))
    if not using:
        using = [exp.Count(this=exp.Star())]  # DuckDB: without USING each cell counts its rows
    for on in ons:
        if isinstance(on, exp.In) and not isinstance(on.this, exp.Column):
            # DuckDB reads ``ON a || b IN ('x')`` as one boolean expression, not a column and its values.
            raise InvalidStatementError(
                f"PIVOT ON {on.sql(dialect=ctx.dialect)}: only a column before IN is read by prism_lineage: "
                "compute the value in a subquery and pivot on its column", origin=_first_origin(on, ctx))
    table = node.this
    from .scope import Scope

    if all(isinstance(on, exp.In) for on in ons):
        clause = exp.Pivot(expressions=[u.copy() for u in using], fields=[on.copy() for on in ons], unpivot=False)
        clause.set("columns", [exp.to_identifier(n, quoted=True) for n in _statement_names(ons, using)])
        if node.args.get("group") is not None:
            clause.set("group", node.args["group"].copy())
        item = table.copy()
        item.set("pivots", [clause])
        build, _ = with_pivots(queries, item, Scope(ctx, None), env, False)
        return build()
    # Without IN the columns are the values found at run time: one field stands for them.
    scope = Scope(ctx, None)
    build, sources = queries._source(table, scope, env, lateral=False)
    columns = sources[0].star_items()
    lowerer = _lowerer(queries, sources[0], scope, env)
    pivot_columns = [lowerer.lower(on.this if isinstance(on, exp.In) else on) for on in ons]
    origin = lowerer._span(node) or _first_origin(node, ctx)
    if len(using) > 1:
        raise InvalidStatementError("PIVOT without IN and with several USING aggregates is not supported",
                                    origin=origin)
    aggregate_id = ctx.ids.new("aggregate", origin)
    checks: list[Expr] = [Call(ctx.ids.new("call", origin), origin, T.BOOLEAN, "eq",
                               (_clone(c, ctx), Literal(ctx.ids.new("lit", origin), origin, None, None)))
                          for c in pivot_columns]
    measures = [_aggregate(u, lowerer, and_all(ctx, checks), ctx) for u in using]
    shown = ", ".join(on.sql(dialect=ctx.dialect) for on in ons)
    return _run_time_aggregate(lowerer, aggregate_id, node.args.get("group"), pivot_columns, measures, columns, build,
                               f"PIVOT ON {shown} without IN: its columns are the values found at run time, so "
                               "their names are unknown; '*' stands for them", origin)


def _statement_names(ons: list[exp.In], using: list[exp.Expression]) -> list[str]:
    """The names DuckDB gives a PIVOT statement's columns (sqlglot computes them for the
    clause, not the statement): the values of each ON column joined by ``_``, then the
    aggregate's alias — or, with several aggregates, its text (``Q1_r1_sum(amount)``)."""
    from sqlglot.dialects.dialect import pivot_column_names

    if len(using) == 1:
        suffixes = [using[0].alias] if isinstance(using[0], exp.Alias) and using[0].alias else []
    else:
        suffixes = pivot_column_names(using, dialect="duckdb")
    values = [[v.alias_or_name if isinstance(v, exp.PivotAlias) else (v.name if isinstance(v, exp.Literal)
               else v.sql(dialect="duckdb")) for v in on.expressions] for on in ons]
    if suffixes:
        values.append(suffixes)
    return ["_".join(parts) for parts in itertools.product(*values)]


def _unpivot_statement(node: exp.Pivot, queries: "QueryLowerer", env: "CteEnv") -> Relation:
    """``UNPIVOT t ON a, b [INTO NAME n VALUE v]``: the clause ``t UNPIVOT (v FOR n IN (a, b))``
    (DuckDB names them ``name`` and ``value`` by default); ``ON (a, b) AS l … VALUE v1, v2``
    unpivots a tuple of columns under the label ``l``."""
    ctx = queries.ctx
    items = []
    for on in node.expressions:
        if isinstance(on, exp.Column):
            items.append(on.copy())
        elif isinstance(on, exp.Alias) and isinstance(on.this, exp.Tuple) \
                and all(isinstance(c, exp.Column) for c in on.this.expressions):
            items.append(exp.PivotAlias(this=on.this.copy(), alias=on.args["alias"].copy()))
        else:
            raise InvalidStatementError(
                f"UNPIVOT ON {on.sql(dialect=ctx.dialect)}: only listed columns (or (a, b) AS label) are read by "
                "prism_lineage: list the columns", origin=_first_origin(on, ctx))
    if not items:
        raise InvalidStatementError("UNPIVOT needs ON and the columns to unpivot", origin=_first_origin(node, ctx))
    into = node.args.get("into")
    name = into.this if into is not None else exp.to_identifier("name")
    name = name.this if isinstance(name, exp.Column) else name
    values = [v.this if isinstance(v, exp.Column) else v for v in into.expressions] if into is not None \
        else [exp.to_identifier("value")]
    clause = exp.Pivot(expressions=[v.copy() for v in values], unpivot=True,
                       fields=[exp.In(this=name.copy(), expressions=items)])
    item = node.this.copy()
    item.set("pivots", [clause])
    from .scope import Scope

    build, _ = with_pivots(queries, item, Scope(ctx, None), env, False)
    return build()


def _first_origin(node: exp.Expression, ctx):
    """Where a statement is: the first position any part of it carries (sqlglot keeps none for
    keywords)."""
    for part in node.walk():
        origin = ctx.origin(part)
        if origin is not None:
            return origin
    return None
