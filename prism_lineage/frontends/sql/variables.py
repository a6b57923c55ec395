"""Script variables: BigQuery's ``DECLARE x …; SET x = …`` (read as ``x``), Snowflake's session
variables ``SET x = …`` (read as ``$x``), T-SQL's and MySQL's ``@x`` (specs/scripts.md).

A variable is not a column: it has no column source.  Its value is what the statement that
declared or set it wrote there: a constant gives no source, a query gives that query's lineage —
a read of the variable is a scalar subquery over the value as its statement computed it (that
statement's operators, under their own ids, as for a table read through the script) — and the
answer says so in ``uncertain`` (the variable may be set again by control flow the engine does
not follow).

A query's own SELECT assigns variables too (``select_assignment``): T-SQL's ``SELECT @v = expr
FROM …``, MySQL's ``SELECT expr INTO @v …`` and ``SELECT @v := expr …``, ``SELECT … INTO v`` in a
PL/pgSQL body and in MySQL, Oracle and Snowflake (where ``SELECT … INTO`` never creates a table).
The variable's value is that query's field: a later read carries the query's lineage, said
uncertain, exactly as for ``SET @v = (SELECT …)``.

In BigQuery a column of the same name wins over a variable: a name a table of the query
declares is that column; a name no schema declares is the variable, and when a table whose
columns are not in the schema could hold it the answer says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from ...ir import Expr, Field, FieldRef, Literal, Origin, Project, Relation, Statement, Values, field_id
from ...ir.expressions import Subquery, SubqueryKind
from .context import LoweringContext

# Dialects where ``SET name = …`` sets a script or session variable (elsewhere plain ``SET`` is
# a session setting: ``SET search_path = …``); ``@name`` is a variable in every dialect.
_VARIABLE_SET_DIALECTS = ("bigquery", "snowflake")


@dataclass(frozen=True, slots=True)
class ScriptVariable:
    name: str
    what: str  # "DECLARE" or "SET"
    origin: Origin | None
    value: Relation | None  # one row, one field per variable of the statement; None: no value
    position: int = 0  # the variable's field in ``value``
    from_query: bool = False  # the value reads a column or a query

    def at(self) -> str:
        return f" at line {self.origin.line}" if self.origin is not None else ""


def variable_statement(node: exp.Expression, ctx: LoweringContext) -> Statement | None:
    """A DECLARE or SET of script variables: a statement whose fields are the variables and
    their values (``None``: not a variable assignment)."""
    from .writes import statement_origin

    targets: list[tuple[exp.Expression, exp.Expression | None]] = []
    if isinstance(node, exp.Declare):
        for item in node.expressions:
            default = item.args.get("default")
            names = item.this if isinstance(item.this, list) else [item.this]
            for name in names:
                targets.append((name, default if isinstance(default, exp.Expression) else None))
        what = "DECLARE"
    elif isinstance(node, exp.Set):
        for item in node.expressions:
            assignment = item.this if isinstance(item, exp.SetItem) else None
            if not isinstance(assignment, exp.EQ):
                return None
            left, value = assignment.this, assignment.expression
            names = left.expressions if isinstance(left, exp.Tuple) else [left]
            if not all(_is_variable(n, ctx) for n in names):
                return None
            values = value.expressions if isinstance(value, exp.Tuple) and len(names) > 1 else None
            for i, name in enumerate(names):
                targets.append((name, values[i] if values is not None and i < len(values) else
                                (value if len(names) == 1 else _column_of(value, i))))
        what = "SET"
    else:
        return None
    if not targets:
        return None
    origin = statement_origin(node, ctx)
    lowerer = _lowerer(ctx)
    exprs: list[Expr] = []
    names: list[str] = []
    reads: list[bool] = []
    for name, value in targets:
        names.append(_name(name, ctx))
        if value is None:
            exprs.append(Literal(ctx.ids.new("lit", origin), origin, None, None))
            reads.append(False)
        else:
            lowered = lowerer.lower(value)
            exprs.append(lowered)
            reads.append(_reads_data(lowered))
    values_id = ctx.ids.new("values", origin)
    one_row = Values(values_id, origin, (), ((),))
    project_id = ctx.ids.new("project", origin)
    columns = tuple(Field(field_id(project_id, i), n, e.type, e.origin or origin) for i, (n, e) in enumerate(zip(names, exprs)))
    root = Project(project_id, origin, one_row, tuple(exprs), columns)
    catalog = ctx.catalog
    define = getattr(catalog, "define_variable", None)
    for i, name in enumerate(names):
        if define is not None:
            define(ScriptVariable(name, what, origin, root, i, reads[i]))
    return Statement(ctx.statement, what.lower(), root, origin, uncertain=tuple(ctx.uncertain))


# Dialects where ``SELECT … INTO name`` assigns variables (a table is never created so).
_INTO_ASSIGNS = ("mysql", "oracle", "snowflake")


def select_assignment(node: exp.Select, ctx: LoweringContext) -> Statement | None:
    """A SELECT that assigns script variables from its own rows (``None``: it assigns none)."""
    # Asked of every SELECT statement; almost none assigns: the imports (and the dialect's
    # classes) only once one might.
    into = node.args.get("into")
    items = list(node.expressions)
    # (position in the select list, the variable) for every item the SELECT assigns
    assigned: list[tuple[int, exp.Expression]] = []
    if into is not None:
        from .procedures import BODY_LANGUAGE
        from .targets import unanalysed

        names = [_into_target(t) for t in [into.this, *into.expressions] if t is not None]
        in_plpgsql = bool(node._meta) and node.meta.get(BODY_LANGUAGE) == "PLPGSQL"
        if not names or not all(n is not None for n in names):
            return None
        if not (in_plpgsql or _dialect_is(ctx, _INTO_ASSIGNS) or all(isinstance(n, (exp.Parameter, exp.Placeholder))
                                                                    for n in names)):
            return None  # T-SQL's, Postgres's ``SELECT … INTO t``: creates the table t (writes.py)
        if len(names) != len(items) or any(isinstance(i, exp.Star) or is_star_item(i) for i in items):
            shown = ", ".join(n.sql(dialect=ctx.dialect) for n in names)
            return unanalysed(node, ctx, "set", f"SELECT … INTO {shown}: the selected columns do not go one to one "
                              "into the variables (a record variable, or a star): which column each holds is not "
                              "followed")
        assigned = list(enumerate(names))
        query = node.copy()  # only here: copying every SELECT's tree cost ~15% of explain on TPC-DS
        query.set("into", None)
        # Each selected value is named as the variable it goes into (as a SET's fields are).
        query.set("expressions", [exp.alias_(item.unalias().copy(), _name(names[i], ctx), quoted=True)
                                  for i, item in enumerate(items)])
        kind, what = "set", "SELECT … INTO"
    else:
        tsql = None
        for i, item in enumerate(items):
            if not isinstance(item, (exp.PropertyEQ, exp.EQ)):
                continue
            if tsql is None:
                tsql = _dialect_is(ctx, ("tsql",))
            # T-SQL: ``@v = expr`` in a select list assigns; MySQL's ``=`` there compares, ``:=`` assigns.
            if (isinstance(item, exp.PropertyEQ) or (tsql and isinstance(item, exp.EQ))) and \
                    isinstance(item.this, exp.Parameter):
                assigned.append((i, item.this))
        if not assigned:
            return None
        from .targets import unanalysed

        if tsql and len(assigned) != len(items):
            return unanalysed(node, ctx, "select", "a SELECT that assigns a value to a variable cannot also return "
                              "columns in T-SQL (the engine refuses it)")
        # MySQL's ``SELECT @v := expr, y``: the statement returns its rows too, the assigned item
        # named as its variable.
        kind = "set" if len(assigned) == len(items) else "select"
        what = "SELECT"
        query = node.copy()
        query.set("expressions", [exp.alias_(item.expression.copy(), item.this.sql(dialect=ctx.dialect), quoted=True)
                                  if any(i == j for j, _ in assigned) else item.copy()
                                  for i, item in enumerate(items)])
    from .queries import CteEnv, QueryLowerer
    from .writes import statement_origin

    origin = statement_origin(node, ctx)
    ctx.result_query(query)
    root = QueryLowerer(ctx).lower_query(query, None, CteEnv())
    define = getattr(ctx.catalog, "define_variable", None)
    # A SELECT that reads no table and no column assigns a constant.
    reads = query.find(exp.Column, exp.Table, exp.Parameter, exp.Placeholder, exp.Subquery) is not None
    for position, target in assigned:
        if define is not None:
            define(ScriptVariable(_name(target, ctx), what, origin, root, position, reads))
    return Statement(ctx.statement, kind, root, origin, uncertain=tuple(ctx.uncertain))


def _into_target(node: exp.Expression) -> exp.Expression | None:
    """The variable an INTO names (``@v``, ``:v``, ``v``); ``None``: not a plain name."""
    if isinstance(node, exp.Table) and not node.args.get("db") and not node.args.get("catalog"):
        node = node.this
    if isinstance(node, (exp.Parameter, exp.Placeholder, exp.Identifier)):
        return node
    if isinstance(node, exp.Column) and not node.table:
        return node
    return None


def is_star_item(item: exp.Expression) -> bool:
    return isinstance(item, exp.Column) and isinstance(item.this, exp.Star)


def _dialect_is(ctx: LoweringContext, names: tuple[str, ...]) -> bool:
    """Whether the dialect is one of ``names`` or derives from one (Fabric is T-SQL, Doris MySQL)."""
    return any(k.__name__.lower() in names for k in type(ctx.dialect).__mro__)


def read_variable(name: str, origin: Origin | None, ctx: LoweringContext) -> Expr | None:
    """A read of the script variable ``name`` (``None``: no such variable)."""
    lookup = getattr(ctx.catalog, "variable", None)
    variable = lookup(name) if lookup is not None else None
    if variable is None:
        return None
    if variable.value is None or not variable.from_query:
        return Literal(ctx.ids.new("lit", origin), origin, None, None)
    picked = variable.value.fields[variable.position]
    pick_id = ctx.ids.new("project", origin)
    ref = FieldRef(ctx.ids.new("col", origin), origin, picked.type, picked.id)
    pick = Project(pick_id, origin, variable.value, (ref,), (Field(field_id(pick_id, 0), variable.name, picked.type, origin),))
    reason = (f"{variable.name} is a script variable ({variable.what}{variable.at()}) whose value comes from a query: "
              "its sources are that query's, as the statement computed it")
    if all(u.reason != reason for u in ctx.uncertain):
        ctx.uncertain_about(reason, None, origin)
    return Subquery(ctx.ids.new("subquery", origin), origin, picked.type, SubqueryKind.SCALAR, pick)


def variable_name(node: exp.Expression, ctx: LoweringContext) -> str | None:
    """The variable a ``$x`` / ``@x`` parameter names."""
    if isinstance(node, exp.Parameter):
        inner = node.this
        return inner.name if isinstance(inner, (exp.Var, exp.Identifier)) else None
    return None


def _is_variable(node: exp.Expression, ctx: LoweringContext) -> bool:
    if isinstance(node, exp.Parameter):
        return True
    if isinstance(node, exp.Column) and not node.table:
        if _dialect(ctx) in _VARIABLE_SET_DIALECTS:
            return True
        lookup = getattr(ctx.catalog, "variable", None)
        return lookup is not None and lookup(_name(node, ctx)) is not None
    return False


def _name(node: exp.Expression, ctx: LoweringContext) -> str:
    if isinstance(node, exp.Parameter):
        return node.sql(dialect=ctx.dialect)  # ``@x`` as written (a lookup ignores the sigil)
    if isinstance(node, exp.Placeholder):
        return node.name  # Snowflake Scripting's ``:x``: the variable ``x``
    if isinstance(node, exp.Column):
        return ctx.normalizer.part(node.this)
    if isinstance(node, exp.Identifier):
        return ctx.normalizer.part(node)
    return node.name or node.sql()


def _column_of(value: exp.Expression, position: int) -> exp.Expression:
    """``SET (a, b) = (SELECT x, y …)``: the query's column ``position`` (as a scalar query)."""
    query = value.this if isinstance(value, exp.Subquery) else value
    if isinstance(query, exp.Select) and position < len(query.expressions):
        picked = query.copy()
        picked.set("expressions", [query.expressions[position].copy()])
        picked.set("kind", None)
        return exp.Subquery(this=picked)
    return value


def _reads_data(expr: Expr) -> bool:
    """Whether the value reads a column or a query (else it is a constant: no source)."""
    from ...ir import CandidateRef, OuterRef
    from ...ir.expressions import iter_tree

    return any(isinstance(node, (FieldRef, OuterRef, CandidateRef, Subquery)) for node in iter_tree(expr))


def _lowerer(ctx: LoweringContext):
    from .expressions import ExpressionLowerer
    from .queries import CteEnv, QueryLowerer
    from .scope import Scope
    from .select import SelectState

    return ExpressionLowerer(SelectState(ctx, Scope(ctx, None), QueryLowerer(ctx), CteEnv()))


def _dialect(ctx: LoweringContext) -> str:
    return type(ctx.dialect).__name__.lower()
