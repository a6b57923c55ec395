"""Statements that write: INSERT, CREATE TABLE/VIEW … AS, SELECT … INTO, UPDATE, DELETE, MERGE.

Each becomes a ``Statement`` whose ``kind`` names the statement, whose ``target`` is the
written table or view (as the schema spells it, or as written when the schema does not
declare it), and whose ``writes`` pair every written column with the field of the plan that
supplies it (specs/writes.md):

* INSERT / CREATE … AS / SELECT … INTO: the query's fields, by position (or by name for
  ``INSERT … BY NAME``), onto the column list, the declared columns, or the query's names;
* UPDATE / DELETE / MERGE: in modify.py.
"""

from __future__ import annotations


from sqlglot import exp

from ...ir import (
    Expr,
    Field,
    FieldRef,
    Literal,
    Origin,
    Project,
    Relation,
    Statement,
    Values,
    field_id,
)
from .context import LoweringContext
from .names import table_parts
from .procedures import NOT_READ, define_parameters, is_routine
from .queries import CteEnv, QueryLowerer
from .renaming import fit_written, is_star, stored_names

_QUERY = (exp.Query, exp.Values, exp.Subquery)
# Dialects whose INSERT without a column list may give fewer values than the table has
# columns (the rest get their defaults).
_SHORT_INSERT_DIALECTS = ("postgres", "redshift")


from .modify import lower_delete, lower_merge, lower_update, upsert  # noqa: F401 - statements.py reads them here
from .targets import (
    Target,
    column_count_mismatch,
    listed_names,
    no_duplicates,
    resolve_target,
    statement_ctes,
    statement_origin,
    table_of,
    unanalysed,
    written_columns,
)


# --- INSERT ---------------------------------------------------------------------------------


def lower_insert(node: exp.Insert, ctx: LoweringContext) -> Statement:
    kind = "insert_overwrite" if node.args.get("overwrite") else "insert"
    origin = statement_origin(node, ctx)
    table_node = table_of(node.this)
    if table_node is None:
        return unanalysed(node, ctx, kind, f"{kind.upper().replace('_', ' ')} into "
                          f"{node.this.sql(dialect=ctx.dialect) if node.this else 'nothing'} is not analysed")
    target = resolve_target(table_node, ctx)
    query = node.expression
    if not isinstance(query, _QUERY):
        if query is None:  # INSERT … DEFAULT VALUES: no value is written from anywhere
            return Statement(ctx.statement, kind, None, origin, target.name, ())
        return unanalysed(node, ctx, kind, f"the rows inserted into {target.name} come from "
                          f"{query.sql(dialect=ctx.dialect)[:60]}, which is not analysed", target.name)
    queries = QueryLowerer(ctx)
    root = queries.lower_query(query, None, statement_ctes(node, queries))
    static = _static_partitions(table_node, target, ctx)
    dynamic = _dynamic_partitions(table_node, target, ctx)
    names = _insert_names(node, target, root, static, ctx, dynamic)
    if len(names) != len(root.fields) and _only_stars(root):
        root = _spread_star(root, names, ctx)
    elif len(names) != len(root.fields):  # a star among the query's columns (_insert_names)
        root = _fit(root, names, target, "INSERT INTO", ctx)
    if static:
        root = _with_constants(root, static, ctx)
        names = names + [name for name, _ in static]
    if node.args.get("conflict") is not None:
        return upsert(node, target, root, names, kind, origin, ctx)
    return Statement(ctx.statement, kind, root, origin, target.name, written_columns(names, root.fields),
                     tuple(ctx.uncertain))


def _insert_names(node: exp.Insert, target: Target, root: Relation, static: list, ctx: LoweringContext,
                  dynamic: list[str] = ()) -> list[str]:
    """The written columns, in the order of the query's fields.  Dynamic partition columns
    (``PARTITION (d)``, Hive/Spark) take the last fields, in the PARTITION clause's order,
    wherever the table's schema puts them."""
    listed = listed_names(node.this, ctx)
    width = len(root.fields)
    statement = "INSERT OVERWRITE" if node.args.get("overwrite") else "INSERT INTO"
    partitioned = {name.lower() for name, _ in static} | {name.lower() for name in dynamic}
    if listed is not None:
        names = [target.column(name, where) for name, where in listed if name.lower() not in partitioned]
        names += list(dynamic)
        no_duplicates(names, target, target.origin)
    elif node.args.get("by_name"):
        names = [target.column(f.name, root.origin) for f in root.fields]
        no_duplicates(names, target, root.origin)
        return names
    elif target.table is not None:
        names = [c.name for c in target.table.columns if c.name.lower() not in partitioned] + list(dynamic)
        if width < len(names) and _short_inserts(ctx) and not any(is_star(f) for f in root.fields):
            names = names[:width]  # the remaining columns get their defaults
    else:
        names = [f.name for f in root.fields]
        if dynamic and len(dynamic) <= len(names):
            names = names[:len(names) - len(dynamic)] + list(dynamic)
        ctx.uncertain_about(
            f"{statement} {target.name} has no column list and {target.name} is not in the schema: the "
            "written columns are named after the query's columns"
            + (" (the last after its PARTITION clause)" if dynamic else "")
            + " (their names in the table are not known)",
            None, target.origin,
        )
        return names
    if len(names) != width and not any(is_star(f) for f in root.fields):
        raise column_count_mismatch(statement, target, names, width, root.origin or target.origin)
    return names


def _short_inserts(ctx: LoweringContext) -> bool:
    return ctx.dialect.__class__.__name__.lower() in _SHORT_INSERT_DIALECTS


def _fit(root: Relation, names: list[str], target: Target, statement: str, ctx: LoweringContext) -> Relation:
    """The query's columns, a star among them, onto the written names (renaming.fit_written)."""
    fitted = fit_written(ctx, root, names, "the query", exact_width=not _short_inserts(ctx))
    if fitted is None:
        raise column_count_mismatch(statement, target, names, len(root.fields), root.origin or target.origin)
    return fitted


def _only_stars(relation: Relation) -> bool:
    """``SELECT * FROM t`` over a table without a schema: any number of columns."""
    return bool(relation.fields) and all(f.name == "*" or f.name.endswith(".*") for f in relation.fields)


def _spread_star(root: Relation, names: list[str], ctx: LoweringContext) -> Relation:
    """Each written column from the star that stands for the query's unknown columns."""
    origin = root.origin
    project_id = ctx.ids.new("project", origin)
    star = root.fields[0]
    refs = tuple(FieldRef(ctx.ids.new("col", origin), origin, None, star.id) for _ in names)
    return Project(project_id, origin, root, refs,
                   tuple(Field(field_id(project_id, i), name, None, origin) for i, name in enumerate(names)))


def _static_partitions(table_node: exp.Table, target: Target, ctx: LoweringContext) -> list[tuple[str, Expr]]:
    """``PARTITION (dt = '2024-01-01')``: columns written with a constant (Hive, Spark)."""
    partition = table_node.args.get("partition")
    out = []
    for item in partition.expressions if isinstance(partition, exp.Partition) else []:
        if isinstance(item, exp.EQ) and isinstance(item.this, exp.Column):
            name = target.column(ctx.normalizer.part(item.this.this), ctx.origin(item.this.this))
            value = item.expression
            origin = ctx.origin(value)
            text = value.name if isinstance(value, exp.Literal) else value.sql(dialect=ctx.dialect)
            out.append((name, Literal(ctx.ids.new("lit", origin), origin, target.type_of(name), text)))
    return out


def _dynamic_partitions(table_node: exp.Table, target: Target, ctx: LoweringContext) -> list[str]:
    """``PARTITION (d)``: columns whose values are the query's last fields (Hive, Spark)."""
    partition = table_node.args.get("partition")
    out = []
    for item in partition.expressions if isinstance(partition, exp.Partition) else []:
        if isinstance(item, exp.Column):
            out.append(target.column(ctx.normalizer.part(item.this), ctx.origin(item.this)))
    return out


def _with_constants(root: Relation, constants: list[tuple[str, Expr]], ctx: LoweringContext) -> Relation:
    origin = constants[0][1].origin or root.origin
    project_id = ctx.ids.new("project", origin)
    exprs: list[Expr] = [FieldRef(ctx.ids.new("col", f.origin), f.origin, f.type, f.id) for f in root.fields]
    exprs += [expr for _, expr in constants]
    names = [f.name for f in root.fields] + [name for name, _ in constants]
    columns = tuple(Field(field_id(project_id, i), name, e.type, e.origin or origin)
                    for i, (name, e) in enumerate(zip(names, exprs)))
    return Project(project_id, origin, root, tuple(exprs), columns)


# --- CREATE TABLE / VIEW, SELECT … INTO ---------------------------------------------------------


def lower_create(node: exp.Create, ctx: LoweringContext) -> Statement:
    created = str(node.args.get("kind") or "").upper()
    origin = statement_origin(node, ctx)
    properties = node.args.get("properties")
    props = properties.expressions if properties is not None else []
    materialized = any(isinstance(p, exp.MaterializedProperty) for p in props) or "MATERIALIZED" in created
    table_node = table_of(node.this)
    if created not in ("TABLE", "VIEW", "MATERIALIZED VIEW") or table_node is None:
        # CREATE SCHEMA / FUNCTION / INDEX …: no data moves.  A procedure's or function's SQL
        # body is answered statement by statement after it (procedures.py); what of it could
        # not be read is said here.
        kind = "create_" + (created.lower().replace(" ", "_") or "object")
        target = resolve_target(table_node, ctx).name if table_node is not None else None
        for reason in (node.meta.get(NOT_READ) or []) if node._meta else []:
            ctx.uncertain_about(reason, None, origin)
        if is_routine(node):
            define_parameters(node, ctx)
        return Statement(ctx.statement, kind, None, origin, target, (), tuple(ctx.uncertain))
    kind = "create_table" if created == "TABLE" else ("create_materialized_view" if materialized else "create_view")
    # ClickHouse: CREATE MATERIALIZED VIEW mv TO t AS …: the view's rows are written into t.
    into = next((p.this for p in props if isinstance(p, exp.ToTableProperty)), None)
    target = resolve_target(into if isinstance(into, exp.Table) else table_node, ctx)
    listed = listed_names(node.this, ctx)
    query = node.expression
    clone = node.args.get("clone")
    if query is None and isinstance(clone, exp.Clone) and isinstance(clone.this, exp.Table):
        # CREATE TABLE t CLONE s / COPY s: every column of s, as it is (the star stands where s is named).
        star = exp.Star()
        star.meta.update({k: v for k, v in (clone.this.this.meta or {}).items() if k in ("line", "col", "start", "end")})
        query = exp.select(star).from_(clone.this.copy())
    if query is None:
        return _create_empty(node, kind, target, listed, origin, ctx)
    if not isinstance(query, _QUERY):
        return unanalysed(node, ctx, kind, f"{target.name} is created from {query.sql(dialect=ctx.dialect)[:60]}, "
                          "which is not analysed", target.name)
    queries = QueryLowerer(ctx)
    root = queries.lower_query(query, None, statement_ctes(node, queries))
    names = stored_names([f.name for f in root.fields], ctx)  # DuckDB: ``a, a`` is created as ``a, a_1``
    if listed:
        if len(listed) != len(names) and _only_stars(root):
            root = _spread_star(root, [n for n, _ in listed], ctx)
        elif len(listed) != len(names) and any(is_star(f) for f in root.fields):
            root = _fit(root, [n for n, _ in listed], target, f"CREATE {created}", ctx)
        elif len(listed) != len(names):
            raise column_count_mismatch(f"CREATE {created}", target, [n for n, _ in listed], len(names), root.origin or origin)
        names = [name for name, _ in listed]
    return Statement(ctx.statement, kind, root, origin, target.name, written_columns(names, root.fields),
                     tuple(ctx.uncertain))


def _create_empty(node: exp.Create, kind: str, target: Target, listed, origin: Origin | None,
                  ctx: LoweringContext) -> Statement:
    """``CREATE TABLE t (a INT, …)`` / ``CREATE TABLE t LIKE s`` / ``(LIKE s, b INT)``: a table
    with these columns and no rows (nothing is written).  The columns of a ``LIKE`` table not in
    the schema are unknown: a ``*`` field stands for them."""
    schema = node.this if isinstance(node.this, exp.Schema) else None
    items = list(schema.expressions) if schema is not None else []
    properties = node.args.get("properties")
    items += [p for p in (properties.expressions if properties is not None else []) if isinstance(p, exp.LikeProperty)]
    values_id = ctx.ids.new("values", target.origin or origin)
    columns: list[tuple[str, str | None, Origin | None]] = []
    for item in items:
        if isinstance(item, exp.ColumnDef):
            type_node = item.args.get("kind")
            columns.append((ctx.normalizer.part(item.this), type_node.sql(dialect=ctx.dialect) if type_node else None,
                            ctx.origin(item.this)))
        elif isinstance(item, exp.LikeProperty) and isinstance(item.this, exp.Table):
            columns.extend(_like_columns(item.this, ctx))
    fields = tuple(Field(field_id(values_id, i), name, type_, where) for i, (name, type_, where) in enumerate(columns))
    root = Values(values_id, target.origin or origin, fields, ())
    return Statement(ctx.statement, kind, root, origin, target.name, (), tuple(ctx.uncertain))


def _like_columns(table_node: exp.Table, ctx: LoweringContext) -> list[tuple[str, str | None, Origin | None]]:
    where = ctx.origin(table_node.this)
    like = ctx.catalog.lookup(table_parts(table_node, ctx), where)
    if like is None:
        return [("*", None, where)]
    return [(c.name, c.type, where) for c in like.columns]


def lower_select_into(node: exp.Select, ctx: LoweringContext) -> Statement:
    """``SELECT … INTO t FROM …`` (T-SQL, Postgres): creates ``t`` from the query."""
    into = node.args["into"]
    origin = statement_origin(node, ctx)
    table_node = table_of(into.this)
    query = node.copy()
    query.set("into", None)
    ctx.result_query(query)
    queries = QueryLowerer(ctx)
    root = queries.lower_query(query, None, CteEnv())
    if table_node is None:
        return Statement(ctx.statement, "select", root, origin, uncertain=tuple(ctx.uncertain))
    target = resolve_target(table_node, ctx)
    names = [f.name for f in root.fields]
    return Statement(ctx.statement, "create_table", root, origin, target.name, written_columns(names, root.fields),
                     tuple(ctx.uncertain))



# --- statements not analysed -------------------------------------------------------------------


def lower_copy(node: exp.Copy, ctx: LoweringContext) -> Statement:
    """``COPY INTO t FROM <files>``: the rows come from files, whose lineage is not known."""
    table_node = table_of(node.this)
    files = ", ".join(f.sql(dialect=ctx.dialect) for f in node.args.get("files") or [])
    if table_node is not None and node.args.get("kind"):
        target = resolve_target(table_node, ctx).name
        return unanalysed(node, ctx, "copy", f"COPY INTO {target} loads rows from files ({files or 'not named'})",
                          target)
    return unanalysed(node, ctx, "copy", "COPY to files is not analysed")
