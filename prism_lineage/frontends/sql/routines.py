"""Functions the script defines, inlined where they are called (specs/functions.md, "Functions
the script defines").

A SQL function created earlier in the script — BigQuery ``CREATE [TEMP] FUNCTION f(x) AS
(expr)`` and ``CREATE TABLE FUNCTION … AS SELECT``, Postgres ``LANGUAGE sql AS $$ SELECT … $$``
and ``RETURN expr``, Snowflake ``AS '…'`` / ``$$ … $$``, Databricks ``RETURN expr | query``,
DuckDB ``CREATE MACRO`` — is what runs where a later statement calls it, and its body may read
tables.  So a call is lowered as the body itself, each parameter standing for the argument the
call gives (the argument's own expression, where the call wrote it; the body's nodes keep their
positions in the CREATE): ``f(a)`` with ``f(x) AS (x + (SELECT MAX(c) FROM s))`` is
``a + (SELECT MAX(c) FROM s)``, exactly as if written so.  A table function used in FROM is its
query, as a derived table named by the function (or its alias).

Names inside the body are the body's: a parameter is never taken for a column of the calling
query, and a column of the calling query is never seen from the body (the body is lowered in a
scope of its own; its subqueries see the parameters only).  A column of a table the body reads
wins over a parameter of the same name (as in Postgres); where a table without a schema could
hold it, the answer says so.

What cannot be inlined — a body in another language or procedural, several statements, a call
of itself, overloads the arguments do not tell apart, a definition sqlglot cannot read, a body
that does not resolve — makes the call **unknown** (``Call.opaque_reason``): every argument
may flow into its result, with a reason naming why, never "conservative" from the arguments
alone, since the body may read tables.  A function the function registry describes *as the
user's own entry* keeps that description when its body cannot be inlined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sqlglot import exp

from ...errors import InvalidStatementError, MissingTableError, NestingTooDeepError, ResolutionError
from ...ir import Call, CandidateRef, Expr, FieldRef, Literal, NestedAccess, OuterRef, Relation, Subquery

# Where a nested call inlines bodies inside bodies, past this depth it is not followed.
_MAX_DEPTH = 32


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str | None  # lower-case; None: unnamed (Postgres ``f(int)``, read as ``$1``)
    default: exp.Expression | None = None


@dataclass(slots=True, eq=False)
class ScriptFunction:
    """A function the script defined, as later statements see it."""

    name: str  # as written (``ds.f``), for messages
    parts: tuple[str, ...]  # lower-case name parts
    parameters: tuple[Parameter, ...] | None  # None: not known (a definition sqlglot cannot read)
    table: bool  # returns rows (a table function)
    body: exp.Expression | None  # scalar: an expression; table: a query; None: not inlined
    reason: str | None  # why the body is not inlined
    line: int | None
    columns: tuple[str, ...] = ()  # ``RETURNS TABLE (a, b)``: the names of its columns
    signature: tuple[str, ...] = ()  # the parameter types as written (a redefinition replaces)

    def where(self) -> str:
        return f"{self.name} (defined at line {self.line})" if self.line is not None else self.name

    def index(self, key: str) -> int | None:
        for i, parameter in enumerate(self.parameters or ()):
            if parameter.name == key:
                return i
        return None


class Functions:
    """The functions a script defined so far, by the last part of their name."""

    __slots__ = ("_named",)

    def __init__(self):
        self._named: dict[str, list[ScriptFunction]] = {}

    def define(self, function: ScriptFunction) -> None:
        same = self._named.setdefault(function.parts[-1], [])
        # A definition with the same name and parameter types replaces the earlier one
        # (CREATE OR REPLACE); another signature is an overload beside it.
        same[:] = [f for f in same if not (f.parts == function.parts and f.signature == function.signature
                                          and f.parameters is not None)]
        same.append(function)

    def drop(self, parts: tuple[str, ...], signature: tuple[str, ...] | None) -> None:
        same = self._named.get(parts[-1], [])
        same[:] = [f for f in same if not (_names(f.parts, parts) and (signature is None or f.signature == signature))]

    def named(self, parts: tuple[str, ...]) -> list[ScriptFunction]:
        return [f for f in self._named.get(parts[-1], ()) if _names(f.parts, parts)]


def _names(defined: tuple[str, ...], written: tuple[str, ...]) -> bool:
    """Whether a call written ``written`` names the function ``defined`` (an unqualified call
    names a qualified definition, as an unqualified table name names the script's table)."""
    shorter = min(len(defined), len(written))
    return defined[-shorter:] == written[-shorter:]


# --- reading a definition ---------------------------------------------------------------------

_ROUTINE = re.compile(r"^\s*(?:OR\s+REPLACE\s+)?(?:(?:TEMP|TEMPORARY)\s+)?(?:TABLE\s+)?(?:FUNCTION|MACRO)\s+"
                      r"((?:[\w$]+|\"[^\"]+\"|`[^`]+`)(?:\s*\.\s*(?:[\w$]+|\"[^\"]+\"|`[^`]+`))*)", re.I)
_STATEMENTS = (exp.Query, exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Command, exp.Drop,
               exp.Set, exp.Declare, exp.Copy, exp.Execute, exp.Block, exp.IfBlock, exp.WhileBlock)


def definition(node: exp.Expression, ctx) -> ScriptFunction | None:
    """The function a CREATE FUNCTION / MACRO statement defines (``None``: it defines none)."""
    if isinstance(node, exp.Command):
        return _unread_definition(node, ctx)
    if not isinstance(node, exp.Create):
        return None
    kind = str(node.args.get("kind") or "").upper()
    if kind not in ("FUNCTION", "MACRO") or not isinstance(node.this, exp.UserDefinedFunction):
        return None
    from .procedures import _language

    udf = node.this
    name_node = udf.this
    parts = tuple(ctx.normalizer.part(p).lower() for p in name_node.parts) if isinstance(name_node, exp.Table) \
        else (str(name_node.name).lower(),)
    name = ".".join(p.name for p in name_node.parts) if isinstance(name_node, exp.Table) else str(name_node.name)
    line = (node.meta.get("line") if node._meta else None) or _first_line(node)
    parameters: list[Parameter] = []
    signature: list[str] = []
    outputs = 0
    for item in udf.expressions:
        if isinstance(item, exp.ColumnDef):
            constraints = [c.args.get("kind") for c in item.args.get("constraints") or []]
            direction = next((c for c in constraints if isinstance(c, exp.InOutColumnConstraint)), None)
            if direction is not None and direction.args.get("output") and not direction.args.get("input_"):
                outputs += 1  # an OUT parameter is a column of the result, not an argument
                continue
            default = next((c.this for c in constraints if isinstance(c, exp.DefaultColumnConstraint)), None)
            written = item.this
            text = written.this.name if isinstance(written, exp.Parameter) else written.name
            parameters.append(Parameter(ctx.normalizer.part(exp.to_identifier(text)).lower()
                                        if text else None, default))
            kind_node = item.args.get("kind")
            signature.append(kind_node.sql().upper() if kind_node is not None else "")
        elif isinstance(item, exp.Identifier):
            if kind == "MACRO":  # DuckDB macros name their parameters, untyped
                parameters.append(Parameter(ctx.normalizer.part(item).lower()))
                signature.append("")
            else:  # Postgres ``f(int)``: a type, the parameter read as $1
                parameters.append(Parameter(None))
                signature.append(item.name.upper())
        elif isinstance(item, exp.DataType):
            parameters.append(Parameter(None))
            signature.append(item.sql().upper())
        else:
            return ScriptFunction(name, parts, None, False, None, "its parameters are not read", line)
    returns = _returns(node)
    table = returns is not None and bool(returns.args.get("is_table"))
    columns: tuple[str, ...] = ()
    if table and isinstance(returns.this, exp.Schema):
        columns = tuple(c.name for c in returns.this.expressions if isinstance(c, exp.ColumnDef))
    function = ScriptFunction(name, parts, tuple(parameters), table, None, None, line, columns, tuple(signature))
    language = _language(node)
    if language is not None and language != "SQL":
        function.reason = (f"its body is procedural (LANGUAGE {language})" if language == "PLPGSQL" else
                           f"its body is in LANGUAGE {language}, which is not read")
        return function
    if outputs > 1:
        function.reason = "it returns a record of several OUT parameters"
        return function
    written = node.args.get("expression")
    if not table and isinstance(written, exp.Query) and not isinstance(written, exp.Subquery) \
            and type(ctx.dialect).__name__.lower() == "bigquery":
        table = function.table = True  # BigQuery ``CREATE TABLE FUNCTION … AS SELECT …``
    body, why = _body(node, ctx, table)
    if body is not None and not table:
        why = _scalar_problem(body)
        if why is not None:
            body = None
    function.body, function.reason = body, why
    return function


def _unread_definition(node: exp.Command, ctx) -> ScriptFunction | None:
    """``CREATE FUNCTION …`` that sqlglot reads only as a command: a function of that name
    exists from here on, and nothing is known of it."""
    if str(node.this).upper() != "CREATE":
        return None
    text = node.expression.name if isinstance(node.expression, exp.Expression) else str(node.expression or "")
    found = _ROUTINE.match(text)
    if found is None:
        return None
    name = re.sub(r"\s+", "", found.group(1))
    parts = tuple(p.strip('"`').lower() for p in name.split("."))
    reason = "its definition is not read (sqlglot reads the CREATE statement only as a command)"
    return ScriptFunction(name, parts, None, False, None, reason, _first_line(node))


def _first_line(node: exp.Expression) -> int | None:
    lines = [n.meta["line"] for n in node.walk() if n._meta and "line" in n._meta]
    return min(lines) if lines else None


def _returns(node: exp.Create) -> exp.ReturnsProperty | None:
    properties = node.args.get("properties")
    for prop in properties.expressions if properties is not None else []:
        if isinstance(prop, exp.ReturnsProperty):
            return prop
    return None


def _body(node: exp.Create, ctx, table: bool) -> tuple[exp.Expression | None, str | None]:
    """(the body to inline, why there is none)."""
    body = node.args.get("expression")
    if isinstance(body, exp.Return):
        body = body.this
    if isinstance(body, (exp.Heredoc, exp.RawString)) or isinstance(body, exp.Literal) and body.is_string:
        statements, why = _parsed(node, body.name, ctx)
        if why is not None:
            return None, why
        if len(statements) != 1:
            return None, f"its body has {len(statements)} statements"
        body = statements[0]
        if isinstance(body, exp.Query) and not table:
            return _scalar_of_query(body, ctx), None
    if body is None:
        return None, "it has no body that is read"
    if isinstance(body, exp.Paren) and not isinstance(body.this, exp.Query):
        body = body.this
    if table:
        query = body.this if isinstance(body, exp.Subquery) else body
        if not isinstance(query, exp.Query):
            return None, "its body is not a query"
        return query, None
    if isinstance(body, exp.Query):
        return _scalar_of_query(body, ctx), None
    if isinstance(body, _STATEMENTS) or isinstance(body, exp.Block):
        return None, "its body is procedural"
    return body, None


def _parsed(node: exp.Create, text: str, ctx) -> tuple[list[exp.Expression], str | None]:
    """The statements of a body given as a string, where they stand in the script."""
    from ...errors import ParseError
    from .procedures import BODY_STATEMENTS, parse_body_text

    found = node.meta.get(BODY_STATEMENTS) if node._meta else None
    if isinstance(found, str):
        return [], found
    if found is None:
        try:
            found = parse_body_text(text, ctx.dialect, ctx.source or "", ctx.text)
        except ParseError as error:
            return [], f"its body cannot be read ({str(error).split(' (at ', 1)[0]})"
    return [s for s in found if not isinstance(s, (exp.Semicolon, exp.EndStatement))], None


def _scalar_of_query(query: exp.Query, ctx) -> exp.Expression:
    """A scalar function whose body is a query returns that query's value: ``SELECT expr``
    without FROM is ``expr``; any other query is a scalar subquery — in Postgres the first row
    of it (``LIMIT 1``, so an ORDER BY there picks the row, as it does in Postgres)."""
    if isinstance(query, exp.Select) and len(query.expressions) == 1 and not any(
            query.args.get(k) for k in ("from_", "where", "group", "having", "qualify", "order", "limit", "offset",
                                        "distinct", "with_", "joins", "laterals", "windows", "fetch")):
        item = query.expressions[0]
        return item.this if isinstance(item, exp.Alias) else item
    if type(ctx.dialect).__name__.lower() == "postgres" and query.args.get("order") is not None \
            and query.args.get("limit") is None and query.args.get("fetch") is None:
        query = query.copy().limit(1, copy=False)
    return exp.Subquery(this=query)


def _scalar_problem(body: exp.Expression) -> str | None:
    """Why a scalar body cannot stand at the call (an aggregate or a window outside its
    subqueries would aggregate the calling query's rows)."""
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (exp.Query, exp.Subquery)):
            continue
        if isinstance(node, exp.Window):
            return "its body has a window function"
        if isinstance(node, exp.AggFunc):
            return "its body aggregates"
        stack.extend(child for child in node.iter_expressions())
    return None


def record(functions: Functions, node: exp.Expression, ctx) -> None:
    """What a statement does to the script's functions: a CREATE defines one, a DROP ends it."""
    if isinstance(node, exp.Drop):
        if str(node.args.get("kind") or "").upper() in ("FUNCTION", "MACRO"):
            for table in node.args.get("tables") or [node.this]:
                if isinstance(table, exp.Table):
                    parts = tuple(ctx.normalizer.part(p).lower() for p in table.parts)
                    types = node.expressions
                    signature = tuple(t.sql().upper() for t in types) if types else None
                    functions.drop(parts, signature)
        return
    found = definition(node, ctx)
    if found is not None:
        functions.define(found)


# --- calls ------------------------------------------------------------------------------------


class _NotInlined(Exception):
    """The body cannot stand at this call: the reason."""


@dataclass(slots=True, eq=False)
class Frame:
    """One call being inlined: its arguments (written at the call), lowered where the call is."""

    function: ScriptFunction
    arguments: list[exp.Expression | None]  # by parameter position
    lowerer: object  # the call's ExpressionLowerer
    mode: object
    outer: tuple["Frame", ...]  # the calls being inlined around this one
    body_scope: object = None  # the scope the body's top level is lowered in


def _qualifier(node: exp.Expression, ctx) -> tuple[str, ...]:
    parent = node.parent
    if isinstance(parent, exp.Dot) and parent.expression is node:
        qualifier = parent.this
        parts = qualifier.parts if isinstance(qualifier, (exp.Column, exp.Dot, exp.Table)) else [qualifier]
        return tuple(ctx.normalizer.part(p).lower() for p in parts if isinstance(p, exp.Identifier))
    return ()


def _lookup(ctx, parts: tuple[str, ...]) -> list[ScriptFunction]:
    functions = getattr(ctx.catalog, "functions", None)
    return functions.named(parts) if isinstance(functions, Functions) else []


def call(lowerer, node: exp.Anonymous, mode) -> Expr | None:
    """``node`` called where ``lowerer`` lowers it: the function the script defined, inlined
    (``None``: not a function of the script)."""
    ctx = lowerer.ctx
    name = str(node.name)
    found = _lookup(ctx, _qualifier(node, ctx) + (name.lower(),))
    if not found:
        return None
    try:
        function, arguments = _choose(found, node, name)
        if function.table:
            raise _NotInlined(f"{function.where()} returns rows, not a value")
        if function.body is None:
            raise _NotInlined(f"{function.where()} is not inlined: {function.reason}")
        if any(f.function is function for f in ctx.inlining):
            raise _NotInlined(f"{function.where()} calls itself, which is not inlined")
        if len(ctx.inlining) >= _MAX_DEPTH:
            raise _NotInlined(f"{function.where()} is called {_MAX_DEPTH} functions deep, which is not inlined")
        return _inline_value(lowerer, node, mode, function, arguments)
    except _NotInlined as why:
        return _unknown_call(lowerer, node, mode, found, str(why))


def _choose(found: list[ScriptFunction], node: exp.Expression, name: str):
    """The definition a call runs and its arguments by parameter position."""
    args = list(node.expressions)
    fitting = []
    for function in found:
        if function.parameters is None:
            if len(found) == 1:
                raise _NotInlined(f"{function.where()} is not inlined: {function.reason}")
            continue
        bound = _bind(function, args)
        if bound is not None:
            fitting.append((function, bound))
    if not fitting:
        shown = found[-1]
        raise _NotInlined(f"{shown.where()} is not inlined: the call's arguments do not fit its parameters")
    if len(fitting) > 1:
        raise _NotInlined(f"{name} is defined {len(fitting)} times with parameters these arguments fit "
                          "(overloads), and which one runs is not known")
    return fitting[0]


def _bind(function: ScriptFunction, args: list[exp.Expression]) -> list[exp.Expression | None] | None:
    parameters = function.parameters or ()
    bound: list[exp.Expression | None] = [None] * len(parameters)
    position = 0
    for arg in args:
        if isinstance(arg, (exp.Kwarg, exp.PropertyEQ)):
            key = arg.this.name.lower() if isinstance(arg.this, exp.Expression) else str(arg.this).lower()
            at = function.index(key)
            if at is None or bound[at] is not None:
                return None
            bound[at] = arg.expression
        else:
            if position >= len(parameters) or any(b is not None for b in bound[position:]):
                return None
            bound[position] = arg
            position += 1
    for i, parameter in enumerate(parameters):
        if bound[i] is None:
            if parameter.default is None:
                return None
            bound[i] = parameter.default
    return bound


def _unknown_call(lowerer, node: exp.Anonymous, mode, found: list[ScriptFunction], why: str) -> Expr:
    """A call of a function of the script whose body is not inlined: its arguments flow in,
    and what the body reads is unknown — unless the user's function registry describes it."""
    ctx = lowerer.ctx
    name = str(node.name).lower()
    args = [lowerer.lower(a.expression if isinstance(a, (exp.Kwarg, exp.PropertyEQ)) else a, mode)
            for a in node.expressions]
    if _users_entry(ctx, name):
        return lowerer._call(name, args, node, None)
    reason = f"function {why}; what its body reads is unknown"
    call_ = lowerer._call(name, args, node, None)
    call_ = replace(call_, opaque_reason=reason)
    if not any(_reads_columns(a) for a in args):
        # No argument reads a column, so no source will carry the reason: the statement does.
        if all(u.reason != reason for u in ctx.uncertain):
            ctx.uncertain_about(reason, None, call_.origin)
    return call_


def _users_entry(ctx, name: str) -> bool:
    """Whether the function registry holds the user's own entry for ``name`` (not a built-in)."""
    registry = ctx.functions
    if registry is None or name not in registry:
        return False
    from ...functions.registry import FunctionRegistry

    return registry.get(name) is not FunctionRegistry.default().get(name)


def _reads_columns(expr: Expr) -> bool:
    from ...ir.expressions import iter_tree

    return any(isinstance(n, (FieldRef, OuterRef, CandidateRef, Subquery)) for n in iter_tree(expr))


def _inline_value(lowerer, node: exp.Anonymous, mode, function: ScriptFunction,
                  arguments: list[exp.Expression | None]) -> Expr:
    from .expressions import ExpressionLowerer, Mode
    from .queries import CteEnv
    from .scope import Scope
    from .select import SelectState

    ctx = lowerer.ctx
    frame = Frame(function, arguments, lowerer, mode, tuple(ctx.inlining))
    # The body's top level: a scope of its own with no columns and no enclosing query, so no
    # name of the calling query is seen from the body; its subqueries nest under it.
    body_state = SelectState(ctx, Scope(ctx), lowerer.state.queries, CteEnv())
    frame.body_scope = body_state.scope
    # Lowered over rows: a body has no aggregate of its own (refused when read), and none of
    # its expressions is a GROUP BY key of the calling query, whatever it looks like.
    inlined = _inlined(ctx, frame, lambda: ExpressionLowerer(body_state).lower(function.body.copy(), Mode.ROWS))
    return _at_call(inlined, lowerer._span(node), ctx)


def _at_call(expr: Expr, origin, ctx) -> Expr:
    """The inlined value stands where the call is written: its root takes the call's position
    (the operator holding it is placed by it); the nodes under it keep the body's, and the
    arguments theirs at the call."""
    if origin is None or isinstance(expr, (FieldRef, OuterRef, CandidateRef)) and expr.origin is not None \
            and _within(expr.origin, origin):
        return expr
    kind = expr.id.split(".", 1)[-1].split("@", 1)[0] or "call"
    return replace(expr, id=ctx.ids.new(kind, origin), origin=origin)


def _within(inner, outer) -> bool:
    return (inner.line, inner.column) >= (outer.line, outer.column) and \
        (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)


def parameter(lowerer, node: exp.Column, mode) -> Expr | None:
    """A name in a body being inlined that is one of its parameters: the call's argument
    (``None``: not a parameter — a column of the body's tables, resolved as usual)."""
    ctx = lowerer.ctx
    frame = ctx.inlining[-1]
    function = frame.function
    norm = ctx.normalizer
    key = norm.part(node.this).lower()
    at = function.index(key)
    if at is None:
        return None
    if node.table:
        # ``f.x`` (Postgres): the parameter x of f, unless a table of the body is called f.
        qualifier = tuple(norm.part(p).lower() for p in node.parts[:-1])
        if qualifier != function.parts[-len(qualifier):]:
            return None
        scope = lowerer.scope
        while scope is not None:
            if scope.source(qualifier) is not None:
                return None
            scope = scope.outer
        return argument(lowerer, frame, at)
    scope = lowerer.scope
    open_sources = []
    while scope is not None:
        if key in scope.merged or any(s.has(key) for s in scope.sources):
            return None  # a column of a table the body reads wins
        open_sources += [s for s in scope.sources if s.is_open]
        scope = scope.outer
    if open_sources:
        labels = ", ".join(s.label for s in open_sources)
        reason = (f"{key} is read as the parameter of {function.name}; a column {key} of {labels}, whose columns "
                  "are not in the schema, would take its place")
        if all(u.reason != reason for u in ctx.uncertain):
            ctx.uncertain_about(reason, None, ctx.origin(node.this))
    return argument(lowerer, frame, at)


def positional(lowerer, number: int) -> Expr | None:
    """``$1`` in a Postgres body being inlined: its first argument."""
    frame = lowerer.ctx.inlining[-1]
    parameters = frame.function.parameters or ()
    if not 1 <= number <= len(parameters):
        return None
    return argument(lowerer, frame, number - 1)


def argument(lowerer, frame: Frame, at: int) -> Expr:
    """The call's argument for parameter ``at``, lowered where the call is, read from where the
    body names it (a subquery of the body reads it as a correlated reference)."""
    ctx = lowerer.ctx
    node = frame.arguments[at]
    inside = ctx.inlining
    ctx.inlining = list(frame.outer)  # the argument is the caller's: its names are the caller's
    try:
        expr = frame.lowerer.lower(node, frame.mode)
    finally:
        ctx.inlining = inside
    if lowerer.scope is not frame.body_scope:
        expr = _correlated(expr, frame.function)
    return expr


def _correlated(expr: Expr, function: ScriptFunction) -> Expr:
    """``expr`` read from a subquery: its references to the call's rows become correlated."""
    if type(expr) is FieldRef:
        return OuterRef(expr.id, expr.origin, expr.type, expr.field)
    if isinstance(expr, (OuterRef, Literal, CandidateRef)):
        return expr
    if isinstance(expr, Call):
        return replace(expr, args=tuple(_correlated(a, function) for a in expr.args))
    if isinstance(expr, NestedAccess):
        return replace(expr, base=_correlated(expr.base, function),
                       dynamic=tuple(_correlated(d, function) for d in expr.dynamic))
    if isinstance(expr, Subquery):
        return replace(expr, needle=_correlated(expr.needle, function) if expr.needle is not None else None)
    raise _NotInlined(f"an argument of {function.where()} is read inside a subquery of its body in a form that is "
                      "not followed")


# --- table functions in FROM ------------------------------------------------------------------


def from_item(queries, item: exp.Expression, alias: str | None, column_aliases: list[str]):
    """A FROM item calling a table function the script defined: its query, as a derived table
    (``None``: not such a call)."""
    call_node = item.this if isinstance(item, (exp.Table, exp.TableFromRows)) else None
    if not isinstance(call_node, exp.Anonymous):
        return None
    ctx = queries.ctx
    qualifier: tuple[str, ...] = ()
    if isinstance(item, exp.Table):
        qualifier = tuple(ctx.normalizer.part(p).lower() for p in (item.args.get("catalog"), item.args.get("db"))
                          if isinstance(p, exp.Identifier))
    name = str(call_node.name)
    found = _lookup(ctx, qualifier + (name.lower(),))
    if not found:
        return None
    try:
        function, arguments = _choose(found, call_node, name)
        if not function.table:
            raise _NotInlined(f"{function.where()} returns a value, not rows")
        if function.body is None:
            raise _NotInlined(f"{function.where()} is not inlined: {function.reason}")
        if any(f.function is function for f in ctx.inlining):
            raise _NotInlined(f"{function.where()} calls itself, which is not inlined")
        relation = _inline_rows(queries, function, arguments)
    except _NotInlined as why:
        origin = ctx.origin(item) or ctx.origin(call_node)
        reason = f"function {why}; what it reads is unknown"
        ctx.uncertain_about(reason, None, origin)
        return None
    columns = list(column_aliases) or list(function.columns)
    return queries._derived(relation, alias or function.parts[-1], columns, item)


def _inline_rows(queries, function: ScriptFunction, arguments: list[exp.Expression | None]) -> Relation:
    from .expressions import ExpressionLowerer, Mode
    from .queries import CteEnv
    from .scope import Scope
    from .select import SelectState

    ctx = queries.ctx
    # The arguments of a FROM item are read with no columns in scope: a call whose arguments
    # read the columns of other FROM items (a lateral call) is not inlined.
    arguments_state = SelectState(ctx, Scope(ctx), queries, CteEnv())
    frame = Frame(function, arguments, ExpressionLowerer(arguments_state), Mode.ROWS, tuple(ctx.inlining))
    return _inlined(ctx, frame, lambda: queries.lower_query(function.body.copy(), None, CteEnv()))


def _inlined(ctx, frame: Frame, lower):
    """``lower()`` (the body, read where the call is) with ``frame`` on the inlining stack; a body
    that cannot be read at this call is ``_NotInlined``, and what its reading noted is undone."""
    uncertain, missing = len(ctx.uncertain), len(ctx.missing)
    ctx.inlining.append(frame)
    try:
        return lower()
    except (ResolutionError, InvalidStatementError, _NotInlined) as error:
        if isinstance(error, (MissingTableError, NestingTooDeepError)):
            raise
        del ctx.uncertain[uncertain:]
        del ctx.missing[missing:]
        raise _NotInlined(f"{frame.function.where()} is not inlined: its body cannot be read at this call "
                          f"({str(error).split(' (at ', 1)[0]})") from None
    finally:
        ctx.inlining.pop()
