"""UPDATE, DELETE and MERGE (and INSERT … ON CONFLICT DO UPDATE, an upsert): rows changed in
place.  Each becomes a ``Modify`` operator over the target's rows matched with the sources;
its fields are the written columns (none for DELETE) — specs/writes.md."""

from __future__ import annotations


from sqlglot import exp

from ...errors import InvalidStatementError, UnknownColumnError, UnknownTargetError
from ...ir import (
    Expr,
    Field,
    FieldRef,
    Filter,
    Matched,
    Modify,
    Origin,
    Project,
    Relation,
    Sort,
    SortKey,
    Statement,
    Subquery,
    SubqueryKind,
    WriteAction,
    WriteClause,
    WrittenColumn,
    field_id,
)
from .context import LoweringContext
from .expressions import ExpressionLowerer, and_all
from .queries import CteEnv, FromClause, QueryLowerer
from .scope import Scope
from .select import SelectState, _conjuncts



from .targets import (
    Target,
    column_count_mismatch,
    resolve_target,
    statement_ctes,
    statement_origin,
    table_of,
    unanalysed,
    written_columns,
)


# --- UPDATE, DELETE, MERGE: rows changed in place ----------------------------------------------


class _MatchedRows:
    """The FROM-like input of a Modify: the target's rows with the sources, resolved in one scope."""

    __slots__ = ("ctx", "queries", "scope", "clause", "env", "lowerer")

    def __init__(self, ctx: LoweringContext, env: CteEnv):
        self.ctx = ctx
        self.queries = QueryLowerer(ctx)
        self.scope = Scope(ctx, None)
        self.clause = FromClause(ctx)
        self.env = env
        self.lowerer = ExpressionLowerer(SelectState(ctx, self.scope, self.queries, env))

    def add(self, item: exp.Expression, join: exp.Join | None = None) -> None:
        """Add a FROM item; after the first, an item without a join is comma-joined."""
        if join is None and self.clause.items:
            join = exp.Join()
        self.queries._add_item(self.clause, item, join, self.scope, self.env)

    def lower(self, node: exp.Expression) -> Expr:
        return self.lowerer.lower(node)

    def build(self, where: exp.Expression | None) -> Relation:
        residual: list[Expr] = []
        if where is not None:
            for conjunct in _conjuncts(where.this if isinstance(where, exp.Where) else where):
                lowered = self.lower(conjunct)
                if not self.clause.place_join_predicate(lowered):
                    residual.append(lowered)
        relation = self.clause.build()
        if residual:
            ctx = self.ctx
            predicate = and_all(ctx, residual)
            relation = Filter(ctx.ids.new("filter", residual[0].origin), predicate.origin, relation, predicate, "where")
        return relation


def _declared_target(node: exp.Table, statement: str, ctx: LoweringContext) -> Target:
    """UPDATE, DELETE and MERGE change the rows of an existing table: when a schema is given,
    it must declare the table (docs: specs/writes.md)."""
    target = resolve_target(node, ctx)
    if target.table is None and _has_schema(ctx):
        raise UnknownTargetError(statement, target.name, sorted(t.name for t in _declared_tables(ctx)), target.origin)
    return target


def _has_schema(ctx: LoweringContext) -> bool:
    return bool(_declared_tables(ctx))


def _declared_tables(ctx: LoweringContext):
    catalog = ctx.catalog
    base = getattr(catalog, "base", catalog)
    return list(base.tables)


class _Columns:
    """The written columns of a Modify, in the target's declared order (else as first written).
    ``view`` maps the columns of an updatable view the statement names (a CTE, a derived
    table) onto the base table's."""

    def __init__(self, target: Target, view: "_View | None" = None):
        self.target = target
        self.view = view
        self.names: list[str] = []
        self._index: dict[str, int] = {}

    def position(self, name: str, origin: Origin | None) -> int:
        if self.view is not None:
            name = self.view.base_column(name, origin)
        name = self.target.column(name, origin)
        key = name.lower()
        if key not in self._index:
            self._index[key] = len(self.names)
            self.names.append(name)
        return self._index[key]

    def fields(self, modify_id: str, origin: Origin | None) -> tuple[list[Field], dict[int, int]]:
        """The fields, and the renumbering from first-written order to the final order."""
        order = list(range(len(self.names)))
        if self.target.table is not None:
            declared = {c.name.lower(): i for i, c in enumerate(self.target.table.columns)}
            order.sort(key=lambda i: declared.get(self.names[i].lower(), len(declared)))
        fields = [Field(field_id(modify_id, n), self.names[i], self.target.type_of(self.names[i]), origin)
                  for n, i in enumerate(order)]
        return fields, {i: n for n, i in enumerate(order)}


def _modify_statement(kind: str, target: Target, rows: Relation, clauses: list[WriteClause], columns: _Columns,
                      origin: Origin | None, ctx: LoweringContext) -> Statement:
    modify_id = ctx.ids.new("modify", target.origin or origin)
    fields, renumber = columns.fields(modify_id, target.origin or origin)
    clauses = [WriteClause(c.action, c.matched, c.condition, tuple((renumber[p], e) for p, e in c.assignments))
               for c in clauses]
    root = Modify(modify_id, target.origin or origin, target.name, rows, tuple(clauses), tuple(fields))
    writes = tuple(WrittenColumn(f.name, f.id) for f in fields)
    return Statement(ctx.statement, kind, root, origin, target.name, writes, tuple(ctx.uncertain))


class _View:
    """An updatable view a statement writes through — ``WITH c AS (SELECT … FROM t …) UPDATE c``
    / ``DELETE FROM c`` (T-SQL), ``DELETE FROM (SELECT … FROM t …)`` (Oracle), ``UPDATE x … FROM
    (SELECT … FROM t) AS x`` (T-SQL): a query over one table, whose rows are that table's rows.
    The statement writes ``table``; a column of the view is the base column it projects."""

    def __init__(self, name: str, table: exp.Table, columns: dict[str, str], expressions: set[str], star: bool):
        self.name = name
        self.table = table
        self.columns = columns  # view column (lower-case) → base column
        self.expressions = expressions  # view columns computed by an expression (not writable)
        self.star = star  # the view selects every column of what it reads (under its own name)

    def base_column(self, name: str, origin: Origin | None) -> str:
        key = name.lower()
        if key in self.expressions:
            raise InvalidStatementError(
                f"column '{name}' of {self.name} is computed, so it cannot be written through it", origin=origin)
        found = self.columns.get(key)
        if found is not None:
            return found
        if not self.star:
            raise UnknownColumnError(name, table=self.name, available=list(self.columns), origin=origin)
        return name


def _updatable_view(name: str, body: exp.Expression | None, env: CteEnv, ctx: LoweringContext,
                    depth: int = 0) -> _View | None:
    """The base table a view's query reads rows from (``None``: not one table's rows)."""
    while isinstance(body, exp.Subquery):
        body = body.this
    if not isinstance(body, exp.Select) or body.args.get("joins") or body.args.get("group") or depth > 20:
        return None
    from_ = body.args.get("from_") or body.args.get("from")
    item = from_.this if from_ is not None else None
    if isinstance(item, exp.Subquery):
        inner = _updatable_view(name, item, env, ctx, depth + 1)
    elif isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
        definition = env.lookup(ctx.normalizer.part(item.this)) if not item.args.get("db") else None
        if definition is not None:
            inner = _updatable_view(name, definition.node.this, definition.env, ctx, depth + 1)
        else:
            inner = _View(name, item, {}, set(), True)
    else:
        return None
    if inner is None:
        return None
    columns: dict[str, str] = {}
    computed: set[str] = set()
    star = False
    for expression in body.expressions:
        target = expression.this if isinstance(expression, exp.Alias) else expression
        if isinstance(expression, exp.Star) or (isinstance(target, exp.Column) and isinstance(target.this, exp.Star)):
            star = True
            continue
        out = ctx.normalizer.part(expression.args["alias"]) if isinstance(expression, exp.Alias) \
            else ctx.normalizer.part(target.this) if isinstance(target, exp.Column) else expression.sql()
        if isinstance(target, exp.Column) and isinstance(target.this, exp.Identifier):
            columns[out.lower()] = inner.base_column(ctx.normalizer.part(target.this), None)
        else:
            computed.add(out.lower())
    return _View(name, inner.table, columns, computed | (inner.expressions if star else set()), star)


def _view_target(table_node: exp.Expression | None, env: CteEnv, ctx: LoweringContext) -> _View | None:
    """The updatable view ``table_node`` names: a CTE of the statement or a derived table."""
    if isinstance(table_node, exp.Subquery):
        alias = table_node.args.get("alias")
        return _updatable_view(alias.name if alias is not None else "the derived table", table_node, env, ctx)
    if isinstance(table_node, exp.Table) and isinstance(table_node.this, exp.Identifier) and not table_node.args.get("db"):
        definition = env.lookup(ctx.normalizer.part(table_node.this))
        if definition is not None:
            return _updatable_view(definition.name, definition.node.this, definition.env, ctx)
    return None


def _view_or_target(table_node: exp.Expression, statement: str, env: CteEnv,
                    ctx: LoweringContext) -> tuple[Target, _View | None]:
    """The table a statement writes: the base table of the view it names, or the table itself.
    A CTE or derived table over more than one table's rows cannot be written through."""
    view = _view_target(table_node, env, ctx)
    if view is not None:
        return _declared_target(view.table, statement, ctx), view
    if not isinstance(table_node, exp.Table) or (isinstance(table_node, exp.Table) and env.lookup(
            ctx.normalizer.part(table_node.this)) is not None and not table_node.args.get("db")):
        name = table_node.alias_or_name if isinstance(table_node, exp.Expression) else "?"
        raise InvalidStatementError(
            f"{statement} writes through {name or 'a derived table'}, whose rows are not the rows of one table: "
            "its target is not known", origin=ctx.origin(table_node) or statement_origin(table_node, ctx))
    return _declared_target(table_node, statement, ctx), None


def lower_update(node: exp.Update, ctx: LoweringContext) -> Statement:
    origin = statement_origin(node, ctx)
    table_node = node.this if isinstance(node.this, exp.Table) else None
    if table_node is None or not isinstance(table_node.this, exp.Identifier):
        return unanalysed(node, ctx, "update", "UPDATE of something other than a table is not analysed")
    from_ = node.args.get("from_") or node.args.get("from")
    sources = ([from_.this] + [j.this for j in from_.args.get("joins") or []]) if from_ is not None else []
    # T-SQL's ``UPDATE a SET … FROM t AS a JOIN …`` names the target by its alias in FROM.
    aliased = _aliased_in(table_node, sources, ctx)
    env = statement_ctes(node, QueryLowerer(ctx))
    target, view = _view_or_target(aliased or table_node, "UPDATE", env, ctx)
    matched = _MatchedRows(ctx, env)
    if aliased is None:
        matched.add(table_node)
    if from_ is not None:
        matched.add(from_.this)
        for join in from_.args.get("joins") or []:
            matched.add(join.this, join)
    columns = _Columns(target, view)
    assignments = []
    written = node.expressions
    if _dialect_name(ctx) in _LEFT_TO_RIGHT_UPDATES and from_ is None and not table_node.args.get("joins"):
        written = _left_to_right(written, table_node, ctx)
    for assignment in written:
        assignments.extend(_assignments(assignment, columns, matched, ctx))
    rows = _first_rows(node, matched, ctx)
    clause = WriteClause(WriteAction.UPDATE, Matched.ALWAYS, None, tuple(assignments))
    return _modify_statement("update", target, rows, [clause], columns, origin, ctx)


# MySQL (and so MariaDB by default) evaluates a single-table UPDATE's assignments left to right,
# each seeing the values already assigned (MySQL manual, "UPDATE Statement"): ``SET a = a + 1,
# b = a`` gives b the new a.  Standard SQL (Postgres, DuckDB, Snowflake, SQL Server …) reads
# every right side against the old row.
_LEFT_TO_RIGHT_UPDATES = ("mysql",)


def _dialect_name(ctx: LoweringContext) -> str | None:
    name = type(ctx.dialect).__name__.lower()
    return None if name == "dialect" else name


def _left_to_right(assignments: list[exp.Expression], table_node: exp.Table,
                   ctx: LoweringContext) -> list[exp.Expression]:
    """The assignments with every read of a column an earlier assignment set replaced by the
    value it was set to (itself read the same way): what MySQL computes."""
    norm = ctx.normalizer
    qualifiers = {norm.part(table_node.this).lower()}
    alias = table_node.args.get("alias")
    if isinstance(alias, exp.TableAlias) and alias.this is not None:
        qualifiers = {norm.part(alias.this).lower()}
    assigned: dict[str, exp.Expression] = {}
    out: list[exp.Expression] = []
    for assignment in assignments:
        if not isinstance(assignment, exp.EQ) or not isinstance(assignment.this, exp.Column):
            return assignments  # a tuple assignment: not MySQL syntax, left as written
        value = assignment.expression.copy()
        if assigned:
            for column in list(value.find_all(exp.Column)):
                if column.find_ancestor(exp.Query) is not None or not isinstance(column.this, exp.Identifier):
                    continue
                qualifier = norm.part(column.args["table"]).lower() if column.args.get("table") else None
                earlier = assigned.get(norm.part(column.this).lower())
                if earlier is not None and (qualifier is None or qualifier in qualifiers):
                    replacement = exp.paren(earlier.copy())
                    if column is value:
                        value = replacement
                    else:
                        column.replace(replacement)
        assigned[norm.part(assignment.this.this).lower()] = value
        out.append(exp.EQ(this=assignment.this, expression=value))
    return out


def _aliased_in(table_node: exp.Table, items: list[exp.Expression], ctx: LoweringContext) -> exp.Expression | None:
    if table_node.args.get("db") or table_node.args.get("alias") is not None:
        return None
    name = ctx.normalizer.part(table_node.this).lower()
    for item in items:
        alias = item.args.get("alias") if isinstance(item, (exp.Table, exp.Subquery)) else None
        if isinstance(alias, exp.TableAlias) and alias.this is not None and \
                ctx.normalizer.part(alias.this).lower() == name:
            return item
    return None


def _assignments(node: exp.Expression, columns: _Columns, matched: _MatchedRows,
                 ctx: LoweringContext) -> list[tuple[int, Expr]]:
    """``SET col = expr`` (and Postgres' ``SET (a, b) = (SELECT x, y …)`` / ``= (x, y)``)."""
    if not isinstance(node, exp.EQ):
        raise InvalidStatementError(f"cannot read the assignment {node.sql(dialect=ctx.dialect)}",
                                    origin=ctx.origin(node))
    left, right = node.this, node.expression
    targets = left.expressions if isinstance(left, exp.Tuple) else [left.this if isinstance(left, exp.Paren) else left]
    names = []
    for column in targets:
        identifier = column.this if isinstance(column, exp.Column) else column
        names.append((ctx.normalizer.part(identifier), ctx.origin(identifier)))
    if len(names) == 1:
        return [(columns.position(*names[0]), matched.lower(right))]
    values = right.this if isinstance(right, exp.Paren) else right
    if isinstance(values, exp.Tuple):
        if len(values.expressions) != len(names):
            raise InvalidStatementError(
                f"{len(names)} columns are set from {len(values.expressions)} values", origin=ctx.origin(node))
        return [(columns.position(*name), matched.lower(value)) for name, value in zip(names, values.expressions)]
    query = values.this if isinstance(values, exp.Subquery) else values
    if not isinstance(query, exp.Query):
        raise InvalidStatementError(f"cannot read the assignment {node.sql(dialect=ctx.dialect)}",
                                    origin=ctx.origin(node))
    relation = matched.queries.lower_query(query, matched.scope, matched.env)
    if len(relation.fields) != len(names):
        raise InvalidStatementError(
            f"{len(names)} columns are set from a subquery returning {len(relation.fields)}", origin=relation.origin)
    out = []
    for position, (name, where) in enumerate(names):
        # One scalar subquery per column: the column's value is that subquery column's.
        picked = relation.fields[position]
        pick_id = ctx.ids.new("project", where or relation.origin)
        ref = FieldRef(ctx.ids.new("col", where), where, picked.type, picked.id)
        single = Project(pick_id, where or relation.origin, relation, (ref,),
                         (Field(field_id(pick_id, 0), picked.name, picked.type, where),))
        sub = Subquery(ctx.ids.new("subquery", where), where, picked.type, SubqueryKind.SCALAR, single)
        out.append((columns.position(name, where), sub))
    return out


def lower_delete(node: exp.Delete, ctx: LoweringContext) -> Statement:
    origin = statement_origin(node, ctx)
    named = [t for t in node.args.get("tables") or [] if not _is_top(t)]
    # ``DELETE t WHERE …`` (T-SQL, Oracle: FROM is optional) names its table in ``tables`` only.
    source = node.this if isinstance(node.this, (exp.Table, exp.Subquery)) else (named[0] if named else None)
    table_node = named[0] if named and isinstance(named[0], exp.Table) else source
    if isinstance(table_node, exp.Table) and not isinstance(table_node.this, exp.Identifier) or \
            not isinstance(table_node, (exp.Table, exp.Subquery)):
        return unanalysed(node, ctx, "delete", "DELETE from something other than a table is not analysed")
    env = statement_ctes(node, QueryLowerer(ctx))
    target, _ = _view_or_target(table_node, "DELETE", env, ctx)
    matched = _MatchedRows(ctx, env)
    matched.add(source)  # MySQL's DELETE t1 FROM t1 JOIN t2 …: the joined tables are here
    for item in node.args.get("using") or []:
        matched.add(item)
    rows = _first_rows(node, matched, ctx)
    clause = WriteClause(WriteAction.DELETE, Matched.ALWAYS)
    return _modify_statement("delete", target, rows, [clause], _Columns(target), origin, ctx)


def _first_rows(node: exp.Update | exp.Delete, matched: _MatchedRows, ctx: LoweringContext) -> Relation:
    """The rows the statement changes: the matched rows its WHERE keeps — and with MySQL's
    single-table ``UPDATE/DELETE … ORDER BY k LIMIT n`` only the first n of them in that order,
    so the order decides which rows (control, as a query's ORDER BY … LIMIT); without a LIMIT
    the order changes nothing the statement writes."""
    limit = node.args.get("limit")
    order = node.args.get("order") if limit is not None else None
    # The keys are lowered before the rows are built: a scan gets the columns read by then.
    keys = tuple(SortKey(matched.lower(o.this), bool(o.args.get("desc")), o.args.get("nulls_first"))
                 for o in order.expressions) if order is not None else ()
    rows = matched.build(node.args.get("where"))
    if limit is None:
        return rows
    if keys:
        origin = ctx.join(keys[0].expr.origin, keys[-1].expr.origin)
        rows = Sort(ctx.ids.new("sort", origin), origin, rows, keys)
    return matched.queries.apply_limit(node, rows, None, matched.env)


def _is_top(table: exp.Expression) -> bool:
    """T-SQL's ``DELETE TOP (10) FROM t``, which sqlglot reads as a table named TOP: a row
    limit (which rows it removes is arbitrary), never the target."""
    alias = table.args.get("alias") if isinstance(table, exp.Table) else None
    return isinstance(table, exp.Table) and table.name.upper() == "TOP" and alias is not None and \
        not alias.name and bool(alias.columns)


def lower_merge(node: exp.Merge, ctx: LoweringContext) -> Statement:
    origin = statement_origin(node, ctx)
    table_node = node.this if isinstance(node.this, exp.Table) else None
    if table_node is None or not isinstance(table_node.this, exp.Identifier):
        return unanalysed(node, ctx, "merge", "MERGE into something other than a table is not analysed")
    env = statement_ctes(node, QueryLowerer(ctx))
    target, view = _view_or_target(table_node, "MERGE", env, ctx)
    whens = node.args.get("whens")
    whens = whens.expressions if isinstance(whens, exp.Whens) else (whens or [])
    matched_kinds = [_matched(w) for w in whens]
    side = _merge_side(matched_kinds)
    matched = _MatchedRows(ctx, env)
    matched.add(table_node)
    using = node.args["using"]
    on = node.args.get("on")
    on = on if isinstance(on, exp.Expression) else None  # absent: sqlglot leaves False
    join = exp.Join(this=using.copy(), on=on.copy() if on is not None else None, side=side)
    by_columns = node.args.get("using_cond")
    if isinstance(by_columns, list) and by_columns:  # DuckDB's ``USING s USING (k)``: a join on k
        join.set("using", [c.copy() for c in by_columns])
    matched.add(using, join)
    target_rows, source = matched.scope.sources[0], matched.scope.sources[-1]
    columns = _Columns(target, view)
    clauses = []
    for when, kind in zip(whens, matched_kinds):
        # A NOT MATCHED action has only the source's row, a NOT MATCHED BY SOURCE one only the
        # target's: an unqualified name both have is that row's (MATCHED: both, ambiguous).
        matched.scope.visible = [source] if kind is Matched.NOT_MATCHED else \
            [target_rows] if kind is Matched.NOT_MATCHED_BY_SOURCE else None
        condition = when.args.get("condition")
        lowered = matched.lower(condition) if condition is not None else None
        clauses.append(_merge_clause(when.args.get("then"), kind, lowered, columns, matched, source, target, ctx))
    matched.scope.visible = None
    rows = matched.build(None)
    return _modify_statement("merge", target, rows, clauses, columns, origin, ctx)


def _matched(when: exp.When) -> Matched:
    if when.args.get("matched"):
        return Matched.MATCHED
    return Matched.NOT_MATCHED_BY_SOURCE if when.args.get("source") else Matched.NOT_MATCHED


def _merge_side(kinds: list[Matched]) -> str:
    """The join of target and source the clauses need (the lineage is the same for all)."""
    by_source = Matched.NOT_MATCHED_BY_SOURCE in kinds
    by_target = Matched.NOT_MATCHED in kinds
    if by_source and by_target:
        return "FULL"
    if by_source:
        return "LEFT"
    return "RIGHT" if by_target else ""


def _merge_clause(then: exp.Expression | None, kind: Matched, condition: Expr | None, columns: _Columns,
                  matched: _MatchedRows, source, target: Target, ctx: LoweringContext) -> WriteClause:
    if isinstance(then, exp.Update):
        items = then.expressions if isinstance(then.expressions, list) else []
        if not items or len(items) == 1 and isinstance(items[0], exp.Star):
            # ``UPDATE SET *`` / DuckDB's bare ``UPDATE``: the whole row from the source's.
            assignments = _whole_row(source, columns, matched, ctx, then)
        else:
            assignments = [a for item in items for a in _assignments(item, columns, matched, ctx)]
        return WriteClause(WriteAction.UPDATE, kind, condition, tuple(assignments))
    if isinstance(then, exp.Insert):
        return WriteClause(WriteAction.INSERT, kind, condition,
                           tuple(_merge_insert(then, columns, matched, source, target, ctx)))
    if isinstance(then, exp.Var) and then.name.upper() == "DELETE" or then is None:
        return WriteClause(WriteAction.DELETE, kind, condition)
    if isinstance(then, exp.Var) and " ".join(then.name.upper().split()) == "DO NOTHING":
        # Changes no row; its condition still keeps the rows it takes from the clauses after it.
        return WriteClause(WriteAction.NOTHING, kind, condition)
    raise InvalidStatementError(f"cannot read the MERGE action {then.sql(dialect=ctx.dialect)}",
                                origin=ctx.origin(then))


def _merge_insert(then: exp.Insert, columns: _Columns, matched: _MatchedRows, source, target: Target,
                  ctx: LoweringContext) -> list[tuple[int, Expr]]:
    listed, values = then.this, then.expression
    if not isinstance(listed, exp.Expression):  # ``INSERT`` with nothing after it parses as True/False
        listed = None
    if not isinstance(values, exp.Expression):
        values = None
    by = _duckdb_by(listed)
    if by is not None:  # DuckDB's ``INSERT BY NAME`` / ``INSERT BY POSITION``
        return _by_name(source, columns, matched, ctx, then) if by == "name" else \
            _by_position(source, columns, matched, ctx, then)
    if isinstance(listed, exp.Var) and listed.name.upper() == "ROW":
        return _by_position(source, columns, matched, ctx, then)  # BigQuery's INSERT ROW
    if isinstance(listed, exp.Star) or listed is None and values is None and _dialect_name(ctx) == "duckdb":
        # INSERT * / DuckDB's bare INSERT: the whole row from the source's.
        return _whole_row(source, columns, matched, ctx, then)
    if listed is None and values is None:
        raise InvalidStatementError(
            "MERGE … INSERT with neither columns nor VALUES is DuckDB's insert of the whole source row; this "
            "dialect has no such form (read it with --dialect duckdb if it is DuckDB's)", origin=ctx.origin(then))
    names = [(ctx.normalizer.part(c.this if isinstance(c, exp.Column) else c), ctx.origin(c))
             for c in (listed.expressions if isinstance(listed, exp.Tuple) else [listed] if listed else [])]
    value_nodes = values.expressions if isinstance(values, exp.Tuple) else ([values] if values is not None else [])
    if not names:
        if target.table is None:
            raise InvalidStatementError(
                f"MERGE … INSERT without a column list needs the columns of {target.name}: declare it in the schema",
                origin=ctx.origin(then))
        names = [(c.name, None) for c in target.table.columns]
    if len(names) != len(value_nodes):
        raise InvalidStatementError(
            f"MERGE … INSERT into {target.name} lists {len(names)} columns but {len(value_nodes)} values",
            origin=ctx.origin(then) or (ctx.origin(value_nodes[0]) if value_nodes else None))
    return [(columns.position(name, where), matched.lower(value)) for (name, where), value in zip(names, value_nodes)]


def _whole_row(source, columns: _Columns, matched: _MatchedRows, ctx: LoweringContext,
               node: exp.Expression) -> list[tuple[int, Expr]]:
    """``UPDATE SET *`` / ``INSERT *``: by name in Spark and Databricks (Delta Lake's MERGE);
    in DuckDB by position, as its bare ``UPDATE`` / ``INSERT`` (DuckDB 2.0.1 puts a source
    ``SELECT 20 AS b, 2 AS a`` into a target ``(a, b)`` as a = 20; ``BY NAME`` matches names)."""
    if _dialect_name(ctx) == "duckdb":
        return _by_position(source, columns, matched, ctx, node)
    return _by_name(source, columns, matched, ctx, node)


def _duckdb_by(listed: exp.Expression | None) -> str | None:
    """``name`` / ``position`` for DuckDB's ``INSERT BY NAME`` / ``BY POSITION``, which sqlglot
    reads as a column list holding ``by AS name``."""
    if not isinstance(listed, exp.Tuple) or len(listed.expressions) != 1:
        return None
    item = listed.expressions[0]
    if isinstance(item, exp.Alias) and isinstance(item.this, exp.Column) and not item.this.table and \
            item.this.name.lower() == "by" and item.alias.lower() in ("name", "position"):
        return item.alias.lower()
    return None


def _source_columns(source, what: str, target: Target, ctx: LoweringContext, node: exp.Expression):
    columns = source.star_items()
    if any(name == "*" for name, _ in columns):
        raise InvalidStatementError(
            f"MERGE … {what} * needs the columns of the source {source.label}: declare it in the schema",
            origin=ctx.origin(node))
    return columns


def _by_name(source, columns: _Columns, matched: _MatchedRows, ctx: LoweringContext,
             node: exp.Expression) -> list[tuple[int, Expr]]:
    """Every target column from the source column of the same name (the source's columns,
    when the target is not declared)."""
    what = "UPDATE SET" if isinstance(node, exp.Update) else "INSERT"
    origin = ctx.origin(node)
    target = columns.target
    if target.table is None:
        pairs = _source_columns(source, what, target, ctx, node)
    else:
        pairs = []
        for column in target.table.columns:
            found = source.find(column.name)
            if found is None:
                if not source.is_open:
                    raise InvalidStatementError(
                        f"MERGE … {what} * sets every column of {target.name}, but the source {source.label} has no "
                        f"column '{column.name}'", origin=origin)
                found = source.open_column(column.name)
            pairs.append((column.name, found))
    return [(columns.position(name, origin), FieldRef(ctx.ids.new("col", origin), origin, field.type, field.id))
            for name, field in pairs]


def _by_position(source, columns: _Columns, matched: _MatchedRows, ctx: LoweringContext,
                 node: exp.Expression) -> list[tuple[int, Expr]]:
    """Every target column, in its declared order, from the source column in the same place."""
    target = columns.target
    what = "UPDATE (the whole row)" if isinstance(node, exp.Update) else \
        "INSERT ROW" if isinstance(node.this, exp.Var) else "INSERT (the whole row)"
    if target.table is None:
        raise InvalidStatementError(
            f"MERGE … {what} needs the columns of {target.name}: declare it in the schema", origin=ctx.origin(node))
    items = _source_columns(source, what, target, ctx, node)
    if len(items) != len(target.table.columns):
        raise column_count_mismatch(f"MERGE … {what} into", target, [c.name for c in target.table.columns], len(items),
                                    ctx.origin(node))
    origin = ctx.origin(node)
    return [(columns.position(column.name, origin), FieldRef(ctx.ids.new("col", origin), origin, f.type, f.id))
            for column, (_, f) in zip(target.table.columns, items)]


# --- INSERT … ON CONFLICT DO UPDATE: an upsert is a MERGE ----------------------------------------


def upsert(node: exp.Insert, target: Target, rows: Relation, names: list[str], kind: str,
            origin: Origin | None, ctx: LoweringContext) -> Statement:
    """``INSERT … ON CONFLICT (k) DO UPDATE SET c = EXCLUDED.c`` writes the inserted rows, and
    on a conflict updates the existing row: MERGE INTO target USING (the inserted rows) AS
    excluded ON the conflict keys (Postgres, SQLite, DuckDB; MySQL's ON DUPLICATE KEY UPDATE)."""
    conflict = node.args["conflict"]
    action = conflict.args.get("action")
    updates = conflict.expressions if action is None or "UPDATE" in action.name.upper() or \
        conflict.args.get("duplicate") else []
    if not updates:  # DO NOTHING: the rows are inserted or skipped
        return Statement(ctx.statement, kind, rows, origin, target.name, written_columns(names, rows.fields),
                         tuple(ctx.uncertain))
    table_node = table_of(node.this)
    matched = _MatchedRows(ctx, CteEnv())
    matched.add(table_node)
    target_alias = matched.scope.sources[0].alias
    duplicate = bool(conflict.args.get("duplicate"))
    inserted_as, inserted_names = "excluded", names
    if duplicate:  # MySQL: no ``excluded``; VALUES(c), a row alias, the SELECT's tables (mysql_duplicate)
        inserted_as, inserted_names, updates, rows = mysql_duplicate(node, updates, rows, names, target_alias, ctx)
    excluded = _ExcludedRows(rows, inserted_names, ctx, inserted_as)
    matched.scope.add(excluded.source)
    columns = _Columns(target)
    insert = [(columns.position(name, target.origin), excluded.ref(inserted, target.origin))
              for name, inserted in zip(names, inserted_names)]
    if not duplicate and _dialect_name(ctx) in ("duckdb", "sqlite"):
        # DuckDB and SQLite read an unqualified name in DO UPDATE SET / WHERE as the existing
        # row's (``SET n = n + excluded.n``; both engines run it); PostgreSQL refuses it as
        # ambiguous, and so does the reading of its dialect.
        matched.scope.visible = [matched.scope.sources[0]]
    update = [a for item in updates for a in _assignments(item if duplicate else _excluded_values(item), columns,
                                                          matched, ctx)]
    where = conflict.args.get("where")
    condition = matched.lower(where.this if isinstance(where, exp.Where) else where) if where is not None else None
    matched.scope.visible = None
    keys = []
    for key in conflict.args.get("conflict_keys") or []:
        key = key.this if isinstance(key, exp.Ordered) else key
        identifier = key.this if isinstance(key, exp.Column) else key
        if isinstance(identifier, exp.Identifier):
            name = ctx.normalizer.part(identifier)
            qualified = exp.Column(this=identifier.copy(), table=exp.to_identifier(target_alias))
            keys.append((name, matched.lower(qualified)))
    if duplicate:
        # MySQL names no key: a duplicate is found through the table's PRIMARY KEY / UNIQUE indexes,
        # which a schema here does not give — the join on them is not in the answer.
        ctx.uncertain_about(f"ON DUPLICATE KEY UPDATE matches the existing row of {target.name} by its PRIMARY KEY or "
                            "UNIQUE indexes, which the schema does not give: the columns that decide which row is "
                            "updated are not among the sources", None, origin)
    relation = excluded.joined(matched.clause.build(), keys, ctx)
    clauses = [WriteClause(WriteAction.INSERT, Matched.NOT_MATCHED, None, tuple(insert)),
               WriteClause(WriteAction.UPDATE, Matched.MATCHED, condition, tuple(update))]
    return _modify_statement(kind, target, relation, clauses, columns, origin, ctx)


def _excluded_values(item: exp.Expression, inserted_as: str = "excluded") -> exp.Expression:
    """MySQL's ``c = VALUES(c)`` means the inserted value: read it as ``excluded.c``."""
    def swap(node):
        if isinstance(node, exp.Anonymous) and node.name.upper() == "VALUES" and len(node.expressions) == 1:
            column = node.expressions[0]
            if isinstance(column, (exp.Column, exp.Identifier)):
                return exp.Column(this=(column.this if isinstance(column, exp.Column) else column).copy(),
                                  table=exp.to_identifier(inserted_as))
        return node
    return item.transform(swap, copy=True) if isinstance(item, exp.Expression) else item


# The name the inserted row goes by in a MySQL ON DUPLICATE KEY UPDATE without a row alias: MySQL
# has no ``excluded``, so no name a user writes reaches it (only VALUES(c), read as this).
_MYSQL_INSERTED = "values()"


def mysql_duplicate(node: exp.Insert, updates: list[exp.Expression], rows: Relation, names: list[str],
                    target_alias: str, ctx: LoweringContext):
    """MySQL's ``INSERT … ON DUPLICATE KEY UPDATE`` (MySQL manual, "INSERT … ON DUPLICATE KEY
    UPDATE Statement"): an unqualified column is the existing row's (``c = c + 1``);
    ``VALUES(c)`` is the value the row would have inserted into ``c``; the 8.0.19 row alias
    (``VALUES (…) AS new [(m, n)]``) names that row (``new.c``, or ``new.m`` by position); in
    ``INSERT … SELECT`` a column of the SELECT's tables (``s.a``) is that column of the row the
    SELECT gave.  (the inserted row's name, its column names, the assignments as read, the
    inserted rows — with the SELECT's columns the assignments read appended).
    """
    query = node.expression
    alias = query.args.get("alias") if isinstance(query, exp.Values) else None
    inserted_as, inserted_names = _MYSQL_INSERTED, list(names)
    if isinstance(alias, exp.TableAlias) and alias.name:
        inserted_as = ctx.normalizer.part(alias.this)
        if alias.columns:
            if len(alias.columns) != len(names):
                raise InvalidStatementError(
                    f"the row alias {alias.name} names {len(alias.columns)} columns but the row has {len(names)}",
                    origin=ctx.origin(alias.this))
            inserted_names = [ctx.normalizer.part(c) for c in alias.columns]
    aliased = {n.lower() for n in inserted_names} if inserted_names != list(names) else set()
    listed = {n.lower() for n in names}
    known = {inserted_as.lower(), target_alias.lower(), (table_of(node.this).name or "").lower()}
    extra: dict[str, exp.Column] = {}  # a SELECT table's column the assignments read, by its stand-in name

    def read(column: exp.Expression) -> exp.Expression:
        if not isinstance(column, exp.Column) or isinstance(column.this, exp.Star):
            return column
        inside = column.find_ancestor(exp.Query)
        if inside is not None:  # a subquery's own columns resolve in it
            return column
        if not column.table:  # the existing row's column, or a column alias of the row alias (``c = m + n``)
            name = ctx.normalizer.part(column.this).lower()
            if name in aliased:
                if name in listed:
                    raise InvalidStatementError(
                        f"ambiguous column '{column.name}': a column of {target_alias} or of the row alias "
                        f"{inserted_as}", origin=ctx.origin(column.this))
                return exp.Column(this=column.this.copy(), table=exp.to_identifier(inserted_as))
            return exp.Column(this=column.this.copy(), table=exp.to_identifier(target_alias))
        if column.table.lower() in known:
            return column
        # ``s.a`` in INSERT … SELECT … FROM s: the column of the row the SELECT gave (appended to it).
        key = f"__prism_select_{len(extra)}"
        extra[key] = column
        return exp.Column(this=exp.to_identifier(key), table=exp.to_identifier(inserted_as))

    read_updates = [_excluded_values(item, inserted_as).transform(read, copy=False) for item in updates]
    if extra:
        shown = ", ".join(c.sql(dialect=ctx.dialect) for c in extra.values())
        if not isinstance(query, (exp.Select, exp.Union)):
            raise InvalidStatementError(
                f"ON DUPLICATE KEY UPDATE reads {shown}, but no table of that name is in scope: only the target "
                f"{target_alias} and the inserted row (VALUES(c), or a row alias) are (MySQL has no excluded)",
                origin=ctx.origin(next(iter(extra.values()))))
        if not isinstance(query, exp.Select) or len(rows.fields) != len(names) or query.args.get("group"):
            raise InvalidStatementError(
                f"ON DUPLICATE KEY UPDATE reads {shown} of the SELECT's tables, which is followed only for a SELECT "
                "without GROUP BY whose columns are not given by a star", origin=ctx.origin(next(iter(extra.values()))))
        widened = query.copy()
        widened.set("expressions", list(widened.expressions) + [exp.alias_(c.copy(), k) for k, c in extra.items()])
        before = list(ctx.uncertain)
        rows = QueryLowerer(ctx).lower_query(widened, None, statement_ctes(node, QueryLowerer(ctx)))
        # Lowered twice: what the first time said is not said again.
        ctx.uncertain[:] = before + [u for u in ctx.uncertain[len(before):] if all(u.reason != b.reason for b in before)]
        inserted_names = inserted_names + list(extra)
    return inserted_as, inserted_names, read_updates, rows


class _ExcludedRows:
    """The rows an upsert inserts, seen as the ``excluded`` table by its DO UPDATE clause."""

    def __init__(self, rows: Relation, names: list[str], ctx: LoweringContext, alias: str = "excluded"):
        from .scope import Source

        self.rows = rows
        self.ctx = ctx
        self.by_name = {name.lower(): f for name, f in zip(names, rows.fields)}
        columns = [(name, f) for name, f in zip(names, rows.fields)]
        label = "the inserted row" if alias == _MYSQL_INSERTED else alias
        self.source = Source(alias, label, rows.id, columns, aliased=True)

    def ref(self, name: str, origin: Origin | None) -> Expr:
        field = self.by_name[name.lower()]
        return FieldRef(self.ctx.ids.new("col", origin), origin, field.type, field.id)

    def joined(self, target_rows: Relation, keys: list[tuple[str, Expr]], ctx: LoweringContext) -> Relation:
        """target FULL JOIN inserted rows ON each conflict key equal to its inserted value."""
        from ...ir import Call, Join, JoinKind

        conditions = []
        for name, key in keys:
            inserted = self.by_name.get(name.lower())
            if inserted is None:
                continue
            ref = FieldRef(ctx.ids.new("col", key.origin), key.origin, inserted.type, inserted.id)
            conditions.append(Call(ctx.ids.new("call", key.origin), key.origin, "BOOLEAN", "eq", (key, ref)))
        condition = and_all(ctx, conditions) if conditions else None
        origin = keys[0][1].origin if keys else target_rows.origin
        join_id = ctx.ids.new("join", origin)
        return Join(join_id, origin, JoinKind.FULL, target_rows, self.rows, condition)


