"""Lowering of queries: SELECT blocks, set operations, VALUES, CTEs and FROM clauses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp

from ...errors import InvalidStatementError, MissingTableError, UnknownColumnError
from ...ir import (
    CandidateRef,
    Call,
    CteRef,
    Expr,
    Field,
    FieldRef,
    Join,
    JoinKind,
    Limit,
    Literal,
    Origin,
    Project,
    RecursiveCte,
    RecursiveRef,
    Relation,
    SetKind,
    SetOperation,
    Sort,
    SortKey,
    Values,
    field_id,
    position_matches,
    stands_for_columns,
)
from ...ir.expressions import Subquery, children
from .context import LoweringContext, ScanBuilder
from .expressions import ExpressionLowerer, and_all
from .scope import Scope, Source
from . import generators, hierarchy, match_recognize, nested, pivot, routines
from .returning import is_data_modifying, returning_query
from .renaming import is_star, needs_renaming, positional_candidates, rename_by_position, renamed_columns, stored_names
from .names import table_parts
from .policies import apply_policies
from .semantic_views import semantic_view_item
from .scripts import script_read
from .select import SelectState, limit_by_keys, orders_by_all, lower_select, picks_rows
from .set_operations import by_name


# --- common table expressions -------------------------------------------------------------


@dataclass(slots=True, eq=False)
class CteDef:
    """A ``WITH name [(columns)] AS (query)``: lowered on first reference, then shared."""

    name: str
    node: exp.CTE
    env: "CteEnv"  # what the definition itself can see
    columns: list[str]
    recursive: bool
    relation: Relation | None = None
    # While a recursive CTE's recursive term is lowered: its id and fields.
    recursive_target: tuple[str, tuple[Field, ...]] | None = None
    # The rows earlier statements wrote into a table of the script (``CteRef.script``).
    script: bool = False
    # The scope enclosing the query the WITH belongs to: a CTE inside a subquery may read the
    # outer query's columns, as the subquery itself may (a correlated CTE; field trial 60).
    outer: "Scope | None" = None
    # A WITH query's own CTE (not a script's view or rows): its references expose the fields of
    # the structs it builds, as a derived table's do (``exposed``: the body with them, and how many
    # of its fields are the CTE's columns).
    exposes: bool = False
    exposed: "tuple[Relation, int] | None" = None


@dataclass(slots=True, eq=False)
class CteEnv:
    parent: "CteEnv | None" = None
    defs: dict[str, CteDef] = field(default_factory=dict)

    def lookup(self, name: str) -> CteDef | None:
        env: CteEnv | None = self
        key = name.lower()
        while env is not None:
            found = env.defs.get(key)
            if found is not None:
                return found
            env = env.parent
        return None


# --- FROM clause --------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class FromItem:
    build: Callable[[], Relation]
    sources: list[Source]
    kind: JoinKind = JoinKind.CROSS
    conditions: list[Expr] = field(default_factory=list)
    join_id: str | None = None
    origin: Origin | None = None
    # Whether WHERE conjuncts may become this item's join predicate: true for comma and
    # CROSS JOIN items (no ON/USING of their own), false for ``JOIN … ON|USING``.
    takes_where: bool = True


class FromClause:
    """The items of a FROM clause; the join tree is built once the SELECT is resolved."""

    __slots__ = ("ctx", "items", "owner")

    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx
        self.items: list[FromItem] = []
        self.owner: dict[str, int] = {}  # relation id of a source → item position

    def add(self, item: FromItem) -> None:
        position = len(self.items)
        self.items.append(item)
        for source in item.sources:
            self.owner[source.relation_id] = position

    def place_join_predicate(self, predicate: Expr) -> bool:
        """Put a WHERE conjunct relating two or more comma-joined items on their join.

        ``FROM a, b WHERE a.k = b.k`` is how SQL wrote joins before ``JOIN … ON``: the
        conjunct is the join's predicate, so it gives join lineage, not control lineage.
        Conjuncts with subqueries, over outer-joined items, or relating an item joined by an
        explicit ``JOIN … ON|USING`` (whose author chose the join's predicate) stay filters.
        """
        if len(self.items) < 2:
            return False
        positions: set[int] = set()
        stack = [predicate]
        while stack:
            node = stack.pop()
            if isinstance(node, Subquery):
                return False
            if isinstance(node, FieldRef):
                owner = self.owner.get(node.field.rpartition("#")[0])
                if owner is None:
                    return False
                positions.add(owner)
                continue  # a leaf
            stack.extend(children(node))
        if len(positions) < 2:
            return False
        last = max(positions)
        item = self.items[last]
        if not item.takes_where or item.kind not in (JoinKind.CROSS, JoinKind.INNER):
            return False
        item.kind = JoinKind.INNER
        item.conditions.append(predicate)
        return True

    def build(self) -> Relation:
        relation = self.items[0].build()
        for item in self.items[1:]:
            condition = and_all(self.ctx, item.conditions) if item.conditions else None
            kind = item.kind
            if kind is _CROSS and condition is not None:
                kind = _INNER
            assert item.join_id is not None
            relation = Join(item.join_id, item.origin, kind, relation, item.build(), condition)
        return relation


# Read once (an enum class attribute goes through ``EnumType.__getattr__``'s slot: see
# expressions._ROWS); asked for every join.
_INNER, _CROSS = JoinKind.INNER, JoinKind.CROSS
_SEMI_ANTI = (JoinKind.SEMI, JoinKind.ANTI)

_JOIN_KINDS = {
    ("", ""): JoinKind.INNER,
    ("", "INNER"): JoinKind.INNER,
    ("", "CROSS"): JoinKind.CROSS,
    ("LEFT", ""): JoinKind.LEFT,
    ("LEFT", "OUTER"): JoinKind.LEFT,
    ("RIGHT", ""): JoinKind.RIGHT,
    ("RIGHT", "OUTER"): JoinKind.RIGHT,
    ("FULL", ""): JoinKind.FULL,
    ("FULL", "OUTER"): JoinKind.FULL,
    ("", "SEMI"): JoinKind.SEMI,
    ("LEFT", "SEMI"): JoinKind.SEMI,
    ("", "ANTI"): JoinKind.ANTI,
    ("LEFT", "ANTI"): JoinKind.ANTI,
    ("", "OUTER"): JoinKind.FULL,
}


class QueryLowerer:
    """Lowers the query expressions of one statement."""

    __slots__ = ("ctx",)

    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx

    # --- queries -------------------------------------------------------------------------

    def lower_query(self, node: exp.Expression, outer: Scope | None, env: CteEnv) -> Relation:
        with_ = node.args.get("with_") or node.args.get("with")
        if with_ is not None:
            env = self._define_ctes(with_, env, outer)
        if isinstance(node, exp.Select):
            if node.args.get("connect") is not None:  # START WITH … CONNECT BY: its recursive-CTE twin
                return self.lower_query(hierarchy.as_recursive_cte(node, self.ctx), outer, env)
            if node.args.get("match") is not None:  # MATCH_RECOGNIZE: a grouped derived table
                return self.lower_query(match_recognize.as_grouped_query(node, self.ctx), outer, env)
            return lower_select(node, self, outer, env)
        if isinstance(node, exp.SetOperation):
            return self._set_operation(node, outer, env)
        if isinstance(node, exp.Subquery):
            relation = self.lower_query(node.this, outer, env)
            return self._order_and_limit(node, relation, outer, env)
        if isinstance(node, exp.Values):
            return self._values(node, outer, env, None)[0]
        if isinstance(node, exp.Paren):
            return self.lower_query(node.this, outer, env)
        if isinstance(node, exp.Pivot) and node.this is not None:  # DuckDB's PIVOT / UNPIVOT statement
            return pivot.pivot_statement(node, self, env)
        raise InvalidStatementError(
            f"expected a query, found {node.key.upper()}", origin=self.ctx.origin(node)
        )

    def _set_operation(self, node: exp.SetOperation, outer: Scope | None, env: CteEnv) -> Relation:
        ctx = self.ctx
        left = self.lower_query(node.this, outer, env)
        right = self.lower_query(node.expression, outer, env)
        if node.args.get("by_name"):
            left, right = by_name(ctx, node, left, right)
        # ``SELECT * FROM t`` over a table without a schema stands for any number of columns:
        # then the widths may differ (the set operation rule pairs what it can).
        open_width = any(stands_for_columns(f) for f in left.fields + right.fields)
        if len(left.fields) != len(right.fields) and not open_width:
            raise InvalidStatementError(
                f"each {node.key.upper()} query must have the same number of columns: "
                f"{len(left.fields)} on the left, {len(right.fields)} on the right",
                origin=ctx.join(left.origin, right.origin),
            )
        kind = SetKind(node.key)
        distinct = node.args.get("distinct")
        origin = ctx.join(left.origin, right.origin)
        set_id = ctx.ids.new(kind.value, origin)
        matches = position_matches(left.fields, right.fields)
        columns = tuple(
            Field(field_id(set_id, i), l.name, _common_type(l, [right.fields[j] for j in matches[i][0]]), l.origin)
            for i, l in enumerate(left.fields)
        )
        relation: Relation = SetOperation(set_id, origin, kind, not distinct and distinct is not None,
                                          left, right, columns)
        return self._order_and_limit(node, relation, outer, env)

    def _order_and_limit(self, node: exp.Expression, relation: Relation, outer: Scope | None,
                         env: CteEnv) -> Relation:
        """ORDER BY / LIMIT written after a set operation or a parenthesised query."""
        order = node.args.get("order")
        if order is not None:
            if orders_by_all(order, self.ctx):  # ``ORDER BY ALL``: every output column, left to right
                ordered = order.expressions[0]
                keys = tuple(SortKey(FieldRef(self.ctx.ids.new("col", f.origin), f.origin, f.type, f.id),
                                     bool(ordered.args.get("desc")), ordered.args.get("nulls_first"))
                             for f in relation.fields)
            else:
                keys = tuple(self._output_sort_key(o, relation) for o in order.expressions)
            # Only a row limit or the statement's result sees the order (as in lower_select).
            if self.ctx.is_result(node) or picks_rows(node):
                origin = self.ctx.join(keys[0].expr.origin, keys[-1].expr.origin)
                relation = Sort(self.ctx.ids.new("sort", origin), origin, relation, keys)
                if self.ctx.is_result(node):
                    self.ctx.ordering = (relation.id,)
        return self.apply_limit(node, relation, outer, env)

    def _output_sort_key(self, ordered: exp.Ordered, relation: Relation) -> SortKey:
        ctx = self.ctx
        target = ordered.this
        fields = relation.fields
        index = None
        if isinstance(target, exp.Literal) and not target.is_string and target.this.isdigit():
            index = int(target.this) - 1
            first_star = next((i for i, f in enumerate(fields) if is_star(f)), None)
            if first_star is not None and index > first_star:
                # Counted past a star of unknown width: one of several columns (renaming.py).
                candidates = positional_candidates(fields, index)
                origin = ctx.origin(target)
                reason = (f"ORDER BY {index + 1} counts the columns past a * whose columns are not in the schema: "
                          f"it is {' or '.join(fields[i].name for i in candidates)}, which is not known")
                ref = CandidateRef(ctx.ids.new("col", origin), origin, None, tuple(fields[i].id for i in candidates),
                                   reason)
                return SortKey(ref, bool(ordered.args.get("desc")), ordered.args.get("nulls_first"))
            if not 0 <= index < len(fields):
                raise InvalidStatementError(
                    f"ORDER BY position {index + 1} is not in the select list (1 to {len(fields)})",
                    origin=ctx.origin(target),
                )
        elif isinstance(target, exp.Column):
            name = ctx.normalizer.part(target.this).lower()
            index = next((i for i, f in enumerate(fields) if f.name.lower() == name), None)
            if index is None:
                raise UnknownColumnError(name, table=None, available=[f.name for f in fields],
                                         origin=ctx.origin(target.this))
        if index is None:
            raise InvalidStatementError(
                "ORDER BY after a set operation must name an output column", origin=ctx.origin(target)
            )
        chosen = fields[index]
        origin = ctx.origin(target.this if isinstance(target, exp.Column) else target)
        ref = FieldRef(ctx.ids.new("col", origin), origin, chosen.type, chosen.id)
        return SortKey(ref, bool(ordered.args.get("desc")), ordered.args.get("nulls_first"))

    def apply_limit(self, node: exp.Expression, relation: Relation, outer: Scope | None, env: CteEnv,
                    by: tuple[Expr, ...] = ()) -> Relation:
        """The row limit of ``node``; ``by``: the keys of ClickHouse's ``LIMIT n BY keys`` as
        fields of ``relation`` (the SELECT lowering resolves them)."""
        limit = node.args.get("limit")
        offset = node.args.get("offset")
        if limit is None and offset is None:
            return relation
        if not by and limit_by_keys(node):
            keys = limit_by_keys(node)
            raise InvalidStatementError(
                "LIMIT … BY after a set operation is not read by prism_lineage: which rows it keeps depends on its "
                "BY keys, which would be lost; put it in a SELECT over the set operation",
                origin=self.ctx.origin(keys[0]) or self.ctx.origin(node))
        scope = Scope(self.ctx, outer)
        count = self._limit_value(limit, scope, env) if limit is not None else None
        skip = self._limit_value(offset, scope, env) if offset is not None else None
        origin = (count or skip).origin  # type: ignore[union-attr]
        return Limit(self.ctx.ids.new("limit", origin), origin, relation, count, skip, by)

    def _limit_value(self, node: exp.Expression, scope: Scope, env: CteEnv) -> Expr:
        value = node.args.get("expression") or node.this if isinstance(node, (exp.Limit, exp.Offset, exp.Fetch)) else node
        if isinstance(node, exp.Fetch):
            value = node.args.get("count")
        if value is None:
            origin = self.ctx.origin(node)
            return Literal(self.ctx.ids.new("lit", origin), origin, None, "ALL")
        return ExpressionLowerer(SelectState(self.ctx, scope, self, env)).lower(value)

    def _values(self, node: exp.Values, outer: Scope | None, env: CteEnv,
                alias: exp.TableAlias | None) -> tuple[Values, list[str]]:
        ctx = self.ctx
        lowerer = ExpressionLowerer(SelectState(ctx, Scope(ctx, outer), self, env))
        rows = []
        for row in node.expressions:
            values = row.expressions if isinstance(row, exp.Tuple) else [row]
            rows.append(tuple(lowerer.lower(v) for v in values))
        width = len(rows[0]) if rows else 0
        if any(len(r) != width for r in rows):
            raise InvalidStatementError("every VALUES row must have the same number of values",
                                        origin=rows[0][0].origin if rows and rows[0] else None)
        alias = alias or node.args.get("alias")
        names = [ctx.normalizer.part(c) for c in (alias.columns if alias is not None else [])]
        names += [_values_column_name(ctx, i) for i in range(len(names), width)]
        origin = ctx.join(rows[0][0].origin, rows[-1][-1].origin) if rows and width else ctx.origin(node)
        values_id = ctx.ids.new("values", origin)
        columns = tuple(
            Field(field_id(values_id, i), names[i], rows[0][i].type if rows else None, origin) for i in range(width)
        )
        return Values(values_id, origin, columns, tuple(rows)), names

    # --- CTEs ----------------------------------------------------------------------------

    def _define_ctes(self, with_: exp.With, env: CteEnv, outer: Scope | None = None) -> CteEnv:
        recursive = bool(with_.args.get("recursive"))
        new_env = CteEnv(env)
        for cte in with_.expressions:
            alias = cte.args.get("alias")
            name = self.ctx.normalizer.part(alias.this if alias is not None else cte.alias)
            columns = [self.ctx.normalizer.part(c) for c in (alias.columns if alias is not None else [])]
            # A CTE sees the ones defined before it (and itself, if recursive): give it a
            # snapshot of the environment so far.
            definition_env = CteEnv(env, dict(new_env.defs))
            definition = CteDef(name, cte, definition_env, columns, recursive, outer=outer, exposes=True)
            if recursive:
                definition_env.defs[name.lower()] = definition
            new_env.defs[name.lower()] = definition
        return new_env

    def _cte_relation(self, definition: CteDef) -> Relation:
        if definition.relation is not None:
            return definition.relation
        body = definition.node.this
        if is_data_modifying(body):
            # Postgres's ``WITH d AS (DELETE … RETURNING …)``: the rows the write returns (returning.py).
            relation = self.lower_query(returning_query(body, definition.name, self.ctx), None, definition.env)
        elif definition.recursive and isinstance(body, exp.Union) and _references(body.expression, definition.name, self.ctx):
            relation = self._recursive_cte(definition, body)
        else:
            relation = self.lower_query(body, definition.outer, definition.env)
        if definition.columns and needs_renaming(relation, definition.columns):
            # ``WITH c(a, b) AS (SELECT * FROM t)`` over a schema-less t: the names cannot be
            # zipped with columns nobody declared (renaming.py).
            relation = rename_by_position(self.ctx, relation, definition.columns, definition.name, relation.origin)
            definition.columns = [f.name for f in relation.fields]
        # More names than columns is an error; fewer rename the first ones (Postgres, DuckDB).
        elif definition.columns and len(definition.columns) > len(relation.fields):
            raise InvalidStatementError(
                f"CTE {definition.name} names {len(definition.columns)} columns but its query returns "
                f"{len(relation.fields)}",
                origin=relation.origin,
            )
        definition.relation = relation
        return relation

    def _recursive_cte(self, definition: CteDef, body: exp.Union) -> Relation:
        ctx = self.ctx
        anchor = self.lower_query(body.this, definition.outer, definition.env)
        columns = definition.columns or []
        if len(columns) > len(anchor.fields):
            raise InvalidStatementError(
                f"CTE {definition.name} names {len(columns)} columns but its query returns {len(anchor.fields)}",
                origin=anchor.origin)
        # Fewer names than columns rename the first ones (DuckDB, Postgres), as for any CTE.
        names = columns + [f.name for f in anchor.fields[len(columns):]]
        origin = anchor.origin
        cte_id = ctx.ids.new("recursive_cte", origin)
        fields = tuple(Field(field_id(cte_id, i), names[i], f.type, f.origin) for i, f in enumerate(anchor.fields))
        definition.recursive_target = (cte_id, fields)
        try:
            recursive = self.lower_query(body.expression, definition.outer, definition.env)
        finally:
            definition.recursive_target = None
        if len(recursive.fields) != len(fields):
            raise InvalidStatementError(
                f"the recursive term of {definition.name} returns {len(recursive.fields)} columns, "
                f"its anchor {len(fields)}",
                origin=recursive.origin,
            )
        distinct = body.args.get("distinct")
        return RecursiveCte(cte_id, origin, definition.name, anchor, recursive, not distinct, fields)

    # --- FROM items ----------------------------------------------------------------------

    def lower_from(self, node: exp.Select, scope: Scope, env: CteEnv) -> FromClause:
        clause = FromClause(self.ctx)
        from_ = node.args.get("from_") or node.args.get("from")
        if from_ is None:
            clause.add(FromItem(self._no_from(node), []))
            return clause
        self._add_item(clause, from_.this, None, scope, env)
        for join in node.args.get("joins") or []:
            self._add_item(clause, join.this, join, scope, env)
        for lateral in node.args.get("laterals") or []:
            # Hive/Spark: LATERAL VIEW [OUTER] EXPLODE(…) t AS c: a generator joined to the rows.
            self._add_item(clause, lateral, exp.Join(side="LEFT" if lateral.args.get("outer") else None), scope, env)
        return clause

    def _no_from(self, node: exp.Select) -> Callable[[], Relation]:
        """``SELECT 1``: one row, no columns."""
        origin = self.ctx.origin(node) or _first_origin(self.ctx, node)
        values = Values(self.ctx.ids.new("values", origin), origin, (), ((),))
        return lambda: values

    def _add_item(self, clause: FromClause, item: exp.Expression, join: exp.Join | None,
                  scope: Scope, env: CteEnv) -> None:
        ctx = self.ctx
        if join is not None and str(join.args.get("kind") or "").upper() == "ARRAY":
            self._array_join(clause, join, scope, env)
            return
        group = _join_group(item)
        if group is not None:
            first, joins = group
            if join is None:
                # ``FROM ((a JOIN b ON …) JOIN c ON …)``: a leading group is the same left-deep
                # join tree as without its parentheses, so its items join the clause directly.
                self._add_item(clause, first, None, scope, env)
                for inner in joins:
                    self._add_item(clause, inner.this, inner, scope, env)
                return
            # ``a LEFT JOIN (b JOIN c ON …) ON …``: the group is joined first, as one right
            # side (flattening it would join c to a's rows and lose the padding of b and c).
            inner_clause = FromClause(ctx)
            self._add_item(inner_clause, first, None, scope, env)
            for inner in joins:
                self._add_item(inner_clause, inner.this, inner, scope, env)
            sources = [source for entry in inner_clause.items for source in entry.sources]
            self._join_entry(clause, FromItem(inner_clause.build, sources), item, join, scope, env, added=True)
            return
        build, sources = self._source(item, scope, env, lateral=join is not None and _is_lateral(join, ctx))
        entry = FromItem(build, sources)
        if join is None:
            for source in sources:
                scope.add(source)
            clause.add(entry)
            return
        self._join_entry(clause, entry, item, join, scope, env)

    def _array_join(self, clause: FromClause, join: exp.Join, scope: Scope, env: CteEnv) -> None:
        """ClickHouse's ``[LEFT] ARRAY JOIN …`` as a generator joined to the rows before it
        (generators.array_join)."""
        build, source, bind = generators.array_join(self, join, scope, env)
        origin = self.ctx.origin(join.this) or _first_origin(self.ctx, join)
        left = str(join.args.get("side") or "").upper() == "LEFT"
        entry = FromItem(build, [source], JoinKind.LEFT if left else JoinKind.CROSS,
                         join_id=self.ctx.ids.new("join", origin), origin=origin, takes_where=False)
        clause.add(entry)
        bind()

    def _join_entry(self, clause: FromClause, entry: FromItem, item: exp.Expression, join: exp.Join,
                    scope: Scope, env: CteEnv, added: bool = False) -> None:
        """Add a joined item (``added``: its sources are in ``scope`` already, a join group's)."""
        ctx = self.ctx
        sources = entry.sources
        side = str(join.args.get("side") or "").upper()
        kind_text = str(join.args.get("kind") or "").upper()
        entry.kind = _JOIN_KINDS.get((side, kind_text), _INNER)
        if isinstance(item, exp.Lateral) and item.args.get("cross_apply") is False:
            entry.kind = JoinKind.LEFT  # T-SQL's OUTER APPLY keeps every left row
        # A derived table or VALUES list keeps no position of its own: use its first token's.
        origin = ctx.origin(item.this if isinstance(item, exp.Table) else item) or _first_origin(ctx, item)
        entry.origin = origin
        entry.join_id = ctx.ids.new("join", origin)
        using = join.args.get("using")
        natural = str(join.args.get("method") or "").upper() == "NATURAL"
        # Besides ON, what decides which rows pair: Snowflake's ASOF ``MATCH_CONDITION (a.t >= b.t)``
        # and DuckDB's ``NEAREST k BY DISTANCE d(a, b)`` (the k right rows nearest to each left
        # row).  They were ignored: a cross join, exact, missing their columns (field trial 75).
        nearest = join.args.get("nearest")
        pairing = [e for e in (join.args.get("match_condition"), nearest.this if nearest is not None else None)
                   if e is not None]
        entry.takes_where = not (using or natural or join.args.get("on") is not None or pairing)
        if added:
            if using or natural:
                # Which columns a USING/NATURAL join of a parenthesised group merges is not
                # followed: its join lineage would be missing, so the answer says so.
                ctx.uncertain_about("a USING or NATURAL join with a parenthesised join is not analysed: "
                                    "its join columns are unknown")
        elif using or natural:
            self._using_join(entry, join, using, natural, scope)
        else:
            starred = entry.kind not in _SEMI_ANTI
            for source in sources:
                scope.add(source, starred)
        on = join.args.get("on")
        clause.add(entry)
        for condition in ([on] if on is not None else []) + pairing:
            lowerer = ExpressionLowerer(SelectState(ctx, scope, self, env))
            entry.conditions.append(lowerer.lower(condition))
            if entry.kind is _CROSS:
                entry.kind = _INNER
        if entry.kind in _SEMI_ANTI:
            # Only the join condition sees the right side (DuckDB, Spark): a column named
            # later is the left side's, and ``*`` lists the left side's alone.
            scope.hide(sources)

    def _using_join(self, entry: FromItem, join: exp.Join, using, natural: bool, scope: Scope) -> None:
        ctx = self.ctx
        right = entry.sources[0]
        if natural:
            if any(s.is_open for s in scope.sources) or right.is_open:
                ctx.uncertain_about(
                    f"NATURAL JOIN with {right.label}: a side's columns are not in the schema, so the "
                    "join columns are unknown"
                )
                for source in entry.sources:
                    scope.add(source)
                return
            # The columns both sides have, in the left side's order (SQL-92 7.5, Postgres, Spark).
            right_names = {n.lower() for n in right.names()}
            names = list({n.lower(): n for n in reversed(scope.star_names()) if n.lower() in right_names}.values())
            names.reverse()
        else:
            names = [ctx.normalizer.part(u.this if isinstance(u, exp.Column) else u) for u in using]
        merged = {}
        for name in names:
            origin = ctx.origin(join)
            left_ref = scope.resolve(exp.column(name), origin)
            if left_ref is None:
                raise UnknownColumnError(name, table=None, available=scope.columns_in_scope(), origin=origin)
            right_field = right.find(name) or (right.open_column(name) if right.is_open else None)
            if right_field is None:
                raise UnknownColumnError(name, table=right.label, available=right.names(), origin=origin)
            right_ref = FieldRef(ctx.ids.new("col", origin), origin, right_field.type, right_field.id)
            entry.conditions.append(
                Call(ctx.ids.new("call", origin), origin, "BOOLEAN", "eq", (left_ref, right_ref))
            )
            merged[name] = _merged_column(ctx, entry.kind, left_ref, right_field)
        if entry.kind in (JoinKind.SEMI, JoinKind.ANTI):
            scope.add(right, starred=False)  # the left side's columns stay as they are (no merge)
            return
        scope.merge_using(names, merged, right)

    def _source(self, item: exp.Expression, scope: Scope, env: CteEnv, *, lateral: bool):
        """The relation builder and scope source(s) of one FROM item."""
        ctx = self.ctx
        while isinstance(item, exp.Subquery) and isinstance(item.this, exp.Subquery) and item.this.args.get("alias") \
                and not any(item.args.get(k) for k in ("alias", "joins", "pivots")):
            item = item.this  # ``((…) AS l)``: the parentheses around an aliased item change nothing
        if item.args.get("pivots"):
            return pivot.with_pivots(self, item, scope, env, lateral)
        norm = ctx.normalizer
        alias_node = item.args.get("alias")
        alias = norm.part(alias_node.this) if isinstance(alias_node, exp.TableAlias) and alias_node.this else None
        column_aliases = [norm.part(c) for c in alias_node.columns] if isinstance(alias_node, exp.TableAlias) else []

        semantic = semantic_view_item(item) if isinstance(item, exp.Table) else None
        if isinstance(semantic, exp.Table):
            return self._source(semantic, scope, env, lateral=lateral)
        if semantic is not None:
            return self._derived(self.lower_query(semantic, scope.outer, env), alias, column_aliases, item)
        if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
            nodes = item.parts  # (a new list each time it is asked for)
            parts = table_parts(item, ctx, nodes)
            origin = ctx.join(ctx.origin(nodes[0]), ctx.origin(item.this))
            if len(parts) == 1:
                definition = env.lookup(parts[0])
                if definition is not None:
                    return self._cte_source(definition, alias or parts[0], column_aliases, origin)
            if ctx.through_script:
                through = script_read(self, parts, alias, column_aliases, origin)
                if through is not None:
                    return through
            table = ctx.catalog.lookup(parts, origin)
            if table is None:
                _not_in_schema(ctx, parts, origin)
            scan_id = ctx.ids.new("scan", origin)
            name = table.name if table is not None else ".".join(parts)
            builder = ScanBuilder(scan_id, name, origin, table)
            source = Source(alias or parts[-1], name, scan_id, scan=builder, table_parts=table.parts if table else parts,
                            aliased=alias is not None)
            # Declared row-access and masking policies and quality checks apply to every read.
            build = apply_policies(self, builder, source, table, item) if table is not None else builder.build
            if column_aliases and table is not None:
                return build, self._renamed(builder, source, column_aliases)[1]
            if column_aliases:
                return self._renamed_open(builder, build, source, column_aliases, origin)
            return build, [source]
        group = _named_join_group(item, ctx) if alias is not None else None
        if group is not None:
            # ``(a JOIN b USING (k)) AS l``: the alias names the joined table, whose columns are
            # what ``SELECT *`` of the join lists (a USING key once); the names inside are hidden
            # (``a.x`` is refused).  DuckDB (2.0.1 measured: columns, ``k_1`` for a second ``k``,
            # ``l(p, q)`` renaming by position) and PostgreSQL read it as that derived table.
            query = exp.Select(expressions=[exp.Star()]).from_(group.copy(), copy=False)
            outer = scope if lateral else scope.outer
            return self._derived(self.lower_query(query, outer, env), alias, column_aliases, item)
        if isinstance(item, (exp.Subquery, exp.Lateral)) and (isinstance(item.this, exp.Query | exp.Subquery) or (
                isinstance(item.this, exp.Pivot) and item.this.this is not None)):  # ``(PIVOT t ON …)``
            inner = item.this
            outer = scope if lateral or isinstance(item, exp.Lateral) else scope.outer
            relation = self.lower_query(inner, outer, env)
            return self._derived(relation, alias, column_aliases, item)
        inlined = routines.from_item(self, item, alias, column_aliases)  # a table function of the script
        if inlined is not None:
            return inlined
        generated = generators.from_item(self, item, scope, env, alias, column_aliases)
        if generated is not None:
            return generated
        if isinstance(item, exp.Values):
            relation, names = self._values(item, scope.outer, env, alias_node)
            columns = list(zip(names, relation.fields))
            source = Source(alias or "values", alias or "VALUES", relation.id, columns, aliased=alias is not None)
            return (lambda: relation), [source]
        return self._opaque(item, alias, column_aliases)

    def _renamed(self, builder: ScanBuilder, source: Source, names: list[str]):
        """``FROM t AS x(a, b)``: the table's columns by position, under new names; columns after
        the last name keep their own (PostgreSQL: "the remaining columns are not renamed")."""
        declared = builder.declared
        assert declared is not None
        if len(names) > len(declared.columns):
            raise InvalidStatementError(
                f"{source.alias} names {len(names)} columns but {source.label} has {len(declared.columns)}",
                origin=builder.origin)
        names = names + [c.name for c in declared.columns[len(names):]]
        columns = [(new, builder.column(c.name, c.type)) for new, c in zip(names, declared.columns)]
        renamed = Source(source.alias, source.label, source.relation_id, columns, aliased=True)
        return builder.build, [renamed]

    def _renamed_open(self, builder: ScanBuilder, build, source: Source, names: list[str], origin: Origin | None):
        """``FROM t AS u(a, b)`` over a table without a schema: the names stand for its first
        columns, which nobody declared (renaming.py); a column named otherwise is read out of its
        star, as through a derived table's."""
        project_id = self.ctx.ids.new("project", origin)
        exprs, fields = renamed_columns(self.ctx, (builder.column("*"),), names, source.label, origin, project_id)
        built: list[Relation] = []

        def build_renamed() -> Relation:  # the scan is built once the query has named its columns
            if not built:
                built.append(Project(project_id, origin, build(), exprs, fields))
            return built[0]

        columns = [(f.name, f) for f in fields if not is_star(f)]
        star = next(f for f in fields if is_star(f))
        return build_renamed, [Source(source.alias, source.label, project_id, columns, aliased=True, star=star,
                                      named_star=True)]

    def _derived(self, relation: Relation, alias: str | None, column_aliases: list[str], item: exp.Expression):
        if column_aliases and needs_renaming(relation, column_aliases):
            relation = rename_by_position(self.ctx, relation, column_aliases, alias or "the subquery", relation.origin)
            column_aliases = []
        # The fields of structs it builds, readable one by one outside (``d.s.a``); its columns
        # stay the query's own.
        exposed = nested.expose_constructed_fields(self.ctx, relation)
        names = [f.name for f in relation.fields]
        names = stored_names(column_aliases + names[len(column_aliases):], self.ctx)
        columns = []
        star = None
        for name, f in zip(names, relation.fields):
            if f.name == "*" or f.name.endswith(".*"):
                star = f
            else:
                columns.append((name, f))
        stars = tuple(f for f in relation.fields if f.name == "*" or f.name.endswith(".*"))
        source = Source(alias or "", alias or "subquery", relation.id, columns, aliased=True, star=star,
                        named_star=len(stars) == 1, other_stars=stars[:-1])
        return (lambda: exposed), [source]

    def _cte_source(self, definition: CteDef, alias: str, column_aliases: list[str], origin: Origin | None):
        ctx = self.ctx
        if definition.recursive_target is not None:
            cte_id, cte_fields = definition.recursive_target
            ref_id = ctx.ids.new("recursive_ref", origin)
            names = stored_names(column_aliases + [f.name for f in cte_fields][len(column_aliases):], ctx)
            fields = tuple(Field(field_id(ref_id, i), names[i], f.type, origin) for i, f in enumerate(cte_fields))
            relation: Relation = RecursiveRef(ref_id, origin, definition.name, cte_id,
                                              tuple(f.id for f in cte_fields), fields)
            shown = len(fields)
        else:
            body = self._cte_relation(definition)
            visible = len(body.fields)
            renames_a_star = bool(column_aliases) and needs_renaming(body, column_aliases)
            if definition.exposes and not renames_a_star:
                body, visible = self._exposed(definition, body)
            ref_id = ctx.ids.new("cte", origin)
            names = definition.columns + [f.name for f in body.fields[:visible]][len(definition.columns):]
            if not renames_a_star:
                names = column_aliases + names[len(column_aliases):]
            names = stored_names(names, ctx) + [f.name for f in body.fields[visible:]]
            fields = tuple(Field(field_id(ref_id, i), names[i], f.type, origin) for i, f in enumerate(body.fields))
            relation = CteRef(ref_id, origin, definition.name, body, fields, definition.script)
            if visible < len(fields):
                # ``c.s.x`` of a struct the CTE builds is the field's own value (as for a derived
                # table, field trial 80): the reference's extra fields stand for the body's.
                at = {f.id: i for i, f in enumerate(body.fields)}
                for f in body.fields:
                    parts = ctx.constructed.get(f.id)
                    if parts is not None:
                        ctx.constructed[fields[at[f.id]].id] = (parts[0], tuple(fields[at[p.id]] for p in parts[1]))
            shown = visible
            if renames_a_star:  # ``FROM c AS u(a, b)`` where c has a schema-less star (renaming.py)
                relation = rename_by_position(ctx, relation, column_aliases, alias, origin)
                shown = len(relation.fields)
        columns = []
        star = None
        for f in relation.fields[:shown]:
            if is_star(f):
                star = f
            else:
                columns.append((f.name, f))
        stars = tuple(f for f in relation.fields[:shown] if f.name == "*" or f.name.endswith(".*"))
        source = Source(alias, definition.name, relation.id, columns, aliased=True, star=star,
                        named_star=len(stars) == 1, other_stars=stars[:-1])
        return (lambda: relation), [source]

    def _exposed(self, definition: CteDef, body: Relation) -> tuple[Relation, int]:
        """The CTE's body with the fields of the structs it builds (nested.expose_constructed_fields),
        once for every reference, and how many of its fields are the CTE's columns."""
        if definition.exposed is None or definition.exposed[0].id != body.id:
            definition.exposed = (nested.expose_constructed_fields(self.ctx, body), len(body.fields))
        return definition.exposed

    def _opaque(self, item: exp.Expression, alias: str | None, column_aliases: list[str]):
        """A FROM item the engine does not analyse (yet): its columns are unknown, said so."""
        ctx = self.ctx
        origin = ctx.origin(item) or _first_origin(ctx, item)
        text = item.sql(dialect=ctx.dialect)
        scan_id = ctx.ids.new("scan", origin)
        reason = f"the FROM item {text} is not analysed: lineage through it is unknown"
        builder = ScanBuilder(scan_id, alias or text, origin, None, reason)
        source = Source(alias or text, alias or text, scan_id, scan=builder, aliased=True)
        for name in column_aliases:
            builder.column(name)
        ctx.uncertain_about(reason, None, origin)
        return builder.build, [source]


# The names a dialect gives a VALUES list's unnamed columns, by 0-based position: DuckDB
# ``col0, col1`` (measured on DuckDB 2.0.1, also after a shorter alias list: ``v, col1``; field
# trial 57), Spark/Databricks/Hive ``col1, col2`` (documented), PostgreSQL, Snowflake, SQLite and
# the rest ``column1, column2``.
_VALUES_NAMES = {"duckdb": "col{0}", "spark": "col{1}", "spark2": "col{1}", "databricks": "col{1}",
                 "hive": "col{1}"}


def _values_column_name(ctx: LoweringContext, position: int) -> str:
    pattern = _VALUES_NAMES.get(type(ctx.dialect).__name__.lower(), "column{1}")
    return pattern.format(position, position + 1)


def _not_in_schema(ctx: LoweringContext, parts: tuple[str, ...], origin: Origin | None) -> None:
    """A table read that the schema given does not declare: read without one, and said (with the
    closest declared names) — or refused, when the catalog is strict.  Tables the script itself
    made (or dropped: said elsewhere) and a run without a schema say nothing."""
    catalog = ctx.catalog
    base = getattr(catalog, "base", catalog)
    if not base.tables:
        return
    script_table = getattr(catalog, "script_table", None)
    if script_table is not None and script_table(parts) is not None:
        return
    name = ".".join(parts)
    close = base.close_names(name)
    if getattr(base, "strict", False):
        raise MissingTableError(name, close, origin)
    guess = f"; did you mean {' or '.join(close)}?" if close else ""
    reason = f"{name} is not in the schema: it is read without one, each column as the query names it{guess}"
    if all(u.reason != reason for u in ctx.uncertain):
        ctx.uncertain_about(reason, None, origin)
        ctx.missing.append(reason)


def _common_type(left: Field, right: list[Field]):
    return left.type if len(right) == 1 and right[0].type == left.type else None


def _merged_column(ctx: LoweringContext, kind: JoinKind, left_ref: Expr, right_field: Field):
    """What an unqualified USING column means: the left value, the right one (RIGHT JOIN) or
    either (FULL JOIN: COALESCE of both)."""

    def build(origin: Origin | None) -> Expr:
        right_ref = FieldRef(ctx.ids.new("col", origin), origin, right_field.type, right_field.id)
        if kind is JoinKind.RIGHT:
            return right_ref
        left = _clone_ref(ctx, left_ref, origin)
        if kind is JoinKind.FULL:
            return Call(ctx.ids.new("call", origin), origin, left_ref.type, "coalesce", (left, right_ref))
        return left

    return build


def _clone_ref(ctx: LoweringContext, ref: Expr, origin: Origin | None) -> Expr:
    if isinstance(ref, FieldRef):
        return FieldRef(ctx.ids.new("col", origin), origin, ref.type, ref.field)
    return ref


def _join_group(item: exp.Expression) -> tuple[exp.Expression, list[exp.Join]] | None:
    """A parenthesised join in FROM, at any depth of parentheses (``((a JOIN b ON …))``): its
    first item and its joins, in order; ``None`` for any other item.  sqlglot reads
    ``(a JOIN b)`` as a Table carrying joins, or a Subquery of one; a Subquery around a group
    may carry joins of its own (``((a JOIN b) JOIN c)``).  A derived table heading a group
    (``((SELECT …) AS s JOIN b ON …)``) is a Subquery whose joins hang on it beside its query
    and alias: the derived table without the joins is the group's first item."""
    joins: list[exp.Join] = []
    while True:
        if isinstance(item, exp.Subquery) and not item.args.get("pivots") and item.args.get("joins") \
                and (item.args.get("alias") or isinstance(item.this, exp.Query)):
            bare = item.copy()
            bare.set("joins", None)
            return bare, list(item.args["joins"]) + joins
        if isinstance(item, exp.Subquery) and not item.args.get("alias") and not item.args.get("pivots"):
            if item.args.get("joins"):
                joins = list(item.args["joins"]) + joins
            elif not isinstance(item.this, (exp.Subquery, exp.Table)):
                return None
            item = item.this
            continue
        if isinstance(item, exp.Table) and item.args.get("joins"):
            bare = item.copy()
            inner = bare.args.pop("joins")
            bare.set("joins", None)
            return bare, list(inner) + joins
        return (item, joins) if joins else None


def _named_join_group(item: exp.Expression, ctx: LoweringContext) -> exp.Table | None:
    """The join of ``(a JOIN b …) AS l`` (at any depth of parentheses: ``((a JOIN b …)) AS l``)
    in a dialect known to read it as ``(SELECT * FROM a JOIN b …) AS l`` (DuckDB, PostgreSQL);
    ``None`` for anything else (elsewhere it stays not analysed, said)."""
    if not isinstance(item, exp.Subquery) or type(ctx.dialect).__name__.lower() not in ("duckdb", "postgres"):
        return None
    inner = item.this
    while isinstance(inner, exp.Subquery) and not inner.args.get("alias") and not inner.args.get("joins") \
            and not inner.args.get("pivots"):
        inner = inner.this
    if isinstance(inner, exp.Table) and inner.args.get("joins"):
        return inner
    return None


def _is_lateral(join: exp.Join, ctx: LoweringContext) -> bool:
    """Whether a joined FROM item sees the items before it.  DuckDB binds every one so, without
    the LATERAL keyword (``FROM g, (SELECT g.x + 1 AS y) t``; its names are looked up in the
    item first, then in the items before it, then outside: measured on DuckDB 2.0.1, field
    trial 60); other dialects only with LATERAL (PostgreSQL refuses the reference)."""
    return isinstance(join.this, exp.Lateral) or type(ctx.dialect).__name__ == "DuckDB"


def _references(node: exp.Expression, name: str, ctx: LoweringContext) -> bool:
    key = name.lower()
    for table in node.find_all(exp.Table):
        if isinstance(table.this, exp.Identifier) and not table.args.get("db") and \
                ctx.normalizer.part(table.this).lower() == key:
            return True
    return False


def _first_origin(ctx: LoweringContext, node: exp.Expression) -> Origin | None:
    for child in node.walk():
        origin = ctx.origin(child)
        if origin is not None:
            return origin
    return None

