"""Script variables: BigQuery's ``DECLARE x …; SET x = …`` (read as ``x``), Snowflake's session
variables ``SET x = …`` (read as ``$x``), T-SQL's and MySQL's ``@x`` (specs/scripts.md).

A variable is not a column: it has no column source.  Its value is what the statement that
declared or set it wrote there: a constant gives no source, a query gives that query's lineage —
a read of the variable is a scalar subquery over the value as its statement computed it (that
statement's operators, under their own ids, as for a table read through the script) — and the
answer says so in ``uncertain`` (the variable may be set again by control flow the engine does
not follow).

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
