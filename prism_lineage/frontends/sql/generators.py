"""Generators in SQL: table functions that turn one row into zero or more rows (specs/generator.md).

* in FROM: ``UNNEST(arr) [WITH ORDINALITY | WITH OFFSET]`` (comma, CROSS JOIN, LEFT JOIN …
  ON TRUE), Snowflake's ``[LATERAL] FLATTEN(input => …)`` and ``TABLE(FLATTEN(…))``, T-SQL's
  ``CROSS APPLY OPENJSON(…)``/``STRING_SPLIT``, ``generate_series``/``range``, Postgres'
  ``json_array_elements``/``json_each`` …, and user table functions the registry declares;
* Hive/Spark's ``LATERAL VIEW [OUTER] EXPLODE | POSEXPLODE | INLINE (…) t AS c1, …``;
* in a select list: ``SELECT UNNEST(arr)`` (DuckDB, Postgres), ``explode``/``posexplode``/
  ``inline`` (Spark), Postgres' set-returning functions.

Each becomes a ``Generator`` whose columns are targets of their own (transformation
``generator``), read from the argument they come from, with the path of the part read: the
element of ``o.items`` is ``items[]``, so ``i.sku`` of it is ``items[].sku``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import PrismError
from ...ir import Expr, Field, FieldRef, GeneratedColumn, GeneratedRole, Generator, Origin, OuterRef, Relation, field_id
from ...ir.expressions import iter_tree
from .nested import UNKNOWN, TypeInfo, struct_field_name, struct_field_value, type_info
from . import stars
from .semi_structured import path_steps

if TYPE_CHECKING:
    from .context import LoweringContext
    from .expressions import ExpressionLowerer, Mode

E, V, K, I, P, T, S, Q = (GeneratedRole.ELEMENT, GeneratedRole.VALUE, GeneratedRole.KEY, GeneratedRole.INDEX,
                          GeneratedRole.PATH, GeneratedRole.THIS, GeneratedRole.SERIES, GeneratedRole.SEQUENCE)

# Dialects where a one-column table function's column is named by the table alias.
_SINGLE_COLUMN_ALIAS = ("postgres", "duckdb", "redshift")
_ALIAS_NAMES_COLUMN = ("unnest", "generate_series", "range")  # functions with named columns keep them
# Dialects whose UNNEST of an array of structs (rows) makes one column per field.
_EXPANDS_ROWS = ("trino", "presto", "athena", "postgres")
_SELECT_GENERATORS = (exp.Explode, exp.Posexplode, exp.Inline, exp.Unnest, exp.ExplodingGenerateSeries, exp.Stack,
                      exp.QueryTransform)


@dataclass(frozen=True, slots=True)
class Output:
    name: str
    column: GeneratedColumn
    type: str | None = None
    # Why this column cannot be told exactly (the generator is then conservative, saying it).
    reason: str | None = None
    # Whether ``SELECT *`` lists it: BigQuery's element of an array of structs is a value table
    # whose star is its fields; the element itself is read only by name.
    starred: bool = True


@dataclass(slots=True)
class Form:
    """What one generator call reads (``args``) and makes (``outputs``, once its arguments'
    types are known)."""

    function: str
    args: list[exp.Expression]
    outputs: Callable[[list[TypeInfo], list[str]], list[Output]]
    outer: bool = False
    exact: bool = True
    reason: str | None = None
    table_alias: str | None = None
    extra: dict = field(default_factory=dict)


# --- which calls are generators, and what they make -----------------------------------------------


def form_of(node: exp.Expression, ctx: "LoweringContext") -> Form | None:
    """The generator a FROM item, LATERAL VIEW or select item calls, or ``None``."""
    outer = False
    if isinstance(node, exp.Lateral):
        outer = bool(node.args.get("outer"))
        node = node.this
    elif isinstance(node, (exp.TableFromRows, exp.Table)) and isinstance(node.this, exp.Func):
        node = node.this
    if isinstance(node, exp.Unnest):
        return _unnest(node, ctx)
    dialect = _dialect(ctx)
    if isinstance(node, exp.Explode) and dialect == "snowflake":
        return _flatten(node, ctx, outer)
    if type(node) is exp.Explode and dialect == "duckdb":
        return _duckdb_unnest(node, ctx)
    if isinstance(node, exp.Posexplode):
        return Form(_name(node), [node.this], _posexplode, outer or isinstance(node, exp.PosexplodeOuter))
    if isinstance(node, exp.Explode):
        return Form(_name(node), [node.this], _explode, outer or isinstance(node, exp.ExplodeOuter))
    if isinstance(node, exp.Inline):
        return _inline_form(node, ctx, outer)
    if isinstance(node, exp.Stack):
        return _stack(node, outer)
    if isinstance(node, (exp.GenerateSeries, exp.ExplodingGenerateSeries)):
        args = [node.args[k] for k in ("start", "end", "step") if node.args.get(k) is not None]
        name = "range" if "range" in node.sql(dialect=ctx.dialect).lower()[:6] else "generate_series"
        return Form(name, args, _series(name), outer)
    if isinstance(node, exp.OpenJSON):
        return _openjson(node, outer)
    if isinstance(node, exp.QueryTransform):
        return _transform(node, ctx)
    if isinstance(node, exp.Anonymous):
        return _named(node, ctx, outer)
    return None


def is_select_generator(node: exp.Expression, ctx: "LoweringContext") -> bool:
    if isinstance(node, _SELECT_GENERATORS):
        return not (isinstance(node, exp.Explode) and _dialect(ctx) == "snowflake")
    if isinstance(node, exp.Anonymous):
        if _is_inline_outer(node, ctx):
            return True
        return node.name.lower() in _NAMED and _dialect(ctx) in ("postgres", "redshift", "duckdb", None)
    return False


def _name(node: exp.Expression) -> str:
    # By family, not exact class: sqlglot parses Spark's ``explode_outer`` as ``_ExplodeOuter``,
    # a subclass of both ``Explode`` and ``ExplodeOuter``.
    if isinstance(node, exp.PosexplodeOuter):
        return "posexplode_outer"
    if isinstance(node, exp.ExplodeOuter):
        return "explode_outer"
    return type(node).__name__.lower()


# Spark's ``inline_outer`` (sqlglot reads it as an anonymous call): ``inline`` that keeps a row
# with NULLs for an empty or NULL array.
_SPARK_DIALECTS = ("spark", "spark2", "databricks", "hive")


def _is_inline_outer(node: exp.Expression, ctx: "LoweringContext") -> bool:
    return (isinstance(node, exp.Anonymous) and node.name.lower() == "inline_outer" and len(node.expressions) == 1
            and _dialect(ctx) in _SPARK_DIALECTS)


def _dialect(ctx: "LoweringContext") -> str | None:
    name = type(ctx.dialect).__name__.lower()
    return None if name == "dialect" else name


def _names(aliases: list[str], defaults: list[str]) -> list[str]:
    return aliases[:len(defaults)] + defaults[len(aliases):]


def _type(info: TypeInfo) -> str | None:
    return info.sql() if info.known else None


def _explode(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
    arg = types[0] if types else UNKNOWN
    if arg.kind == "map" or (not arg.known and len(aliases) == 2):
        names = _names(aliases, ["key", "value"])
        return [Output(names[0], GeneratedColumn(K), _type(arg.key())),
                Output(names[1], GeneratedColumn(V, 0, "[]"), _type(arg.value()))]
    return [Output(_names(aliases, ["col"])[0], GeneratedColumn(E, 0, "[]"), _type(arg.element()))]


def _posexplode(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
    position = Output(_names(aliases, ["pos"])[0], GeneratedColumn(I), "INT")
    rest = _explode(types, aliases[1:])
    return [position] + rest


def _inline(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
    element = (types[0] if types else UNKNOWN).element()
    fields = element.fields()
    if fields:
        names = _names(aliases, [name for name, _ in fields])
        return [Output(names[i], GeneratedColumn(E, 0, f"[].{name}"), _type(info))
                for i, (name, info) in enumerate(fields)]
    if aliases:
        # The struct's fields are not declared: the names given stand for them, in order.
        return [Output(name, GeneratedColumn(E, 0, "[]")) for name in aliases]
    # Neither declared nor named: one column per field of the structs, how many is unknown.
    return [Output("*", GeneratedColumn(E, 0, "[]"), None,
                   "INLINE makes one column per field of the structs it reads, and their fields are not declared")]


def _inline_form(node: exp.Inline, ctx: "LoweringContext", outer: bool) -> Form:
    """``INLINE(ARRAY(STRUCT(a, b), STRUCT(c, d)))``: a constructed array of structs makes one
    column per struct field (named as the first struct names them, else col1, col2 …), each
    the values of that field over the structs; any other argument: ``_inline``."""
    array = node.this
    structs = list(array.expressions) if isinstance(array, exp.Array) else []
    if not structs or not all(isinstance(s, exp.Struct) for s in structs):
        return Form(_name(node), [node.this], _inline, outer)
    width = len(structs[0].expressions)
    if width == 0 or any(len(s.expressions) != width for s in structs):
        return Form(_name(node), [node.this], _inline, outer)
    names = [_struct_field_name(e, ctx) or f"col{i + 1}" for i, e in enumerate(structs[0].expressions)]
    args = [struct_field_value(e) for s in structs for e in s.expressions]

    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        given = _names(aliases, names)
        return [Output(given[i], GeneratedColumn(V, tuple(range(i, len(args), width)))) for i in range(width)]

    return Form(_name(node), args, outputs, outer)


def _struct_field_name(node: exp.Expression, ctx: "LoweringContext") -> str | None:
    if isinstance(node, (exp.PropertyEQ, exp.Alias)):
        name = node.args.get("alias") if isinstance(node, exp.Alias) else node.this
        if isinstance(name, exp.Identifier):
            return ctx.normalizer.part(name)
    return None


def _stack(node: exp.Stack, outer: bool) -> Form:
    """Spark/Hive ``STACK(n, v1, v2, …)``: n rows of k = ceil(count / n) columns (col0, col1 …);
    column j holds the values v(j), v(j + k), … (the last row padded with NULLs)."""
    values = list(node.expressions)
    count = node.this
    rows = int(count.this) if isinstance(count, exp.Literal) and not count.is_string and \
        str(count.this).isdigit() and int(count.this) > 0 else None
    if rows is None:
        # A row count computed at run time: how the values fall into columns is unknown.
        def unknown(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
            return [Output(name, GeneratedColumn(S, None)) for name in (aliases or ["col0"])]
        return Form("stack", values, unknown, outer, False,
                    "STACK's row count is not a constant, so which values fall into which column is unknown")
    width = max(1, -(-len(values) // rows))

    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        names = _names(aliases, [f"col{j}" for j in range(width)])
        return [Output(names[j], GeneratedColumn(V, tuple(range(j, len(values), width)))) for j in range(width)]

    return Form("stack", values, outputs, outer)


def _transform(node: exp.QueryTransform, ctx: "LoweringContext") -> Form:
    """Spark/Hive ``SELECT TRANSFORM(cols) USING 'script' [AS (c1, c2 …)]``: an external program
    reads the rows and writes rows of the listed columns (``key``, ``value`` without a list).
    What it does is unknowable: every output column may come from every input column, and it
    may make any number of rows — a generator whose columns are all conservative, said."""
    script = node.args.get("command_script")
    text = script.this if isinstance(script, exp.Literal) else script.sql(dialect=ctx.dialect) if script else "?"
    schema = node.args.get("schema")
    listed = [ctx.normalizer.part(e.this if isinstance(e, exp.ColumnDef) else e)
              for e in (schema.expressions if isinstance(schema, exp.Schema) else [])]

    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        return [Output(name, GeneratedColumn(S, None)) for name in (aliases or listed or ["key", "value"])]

    return Form("transform", list(node.expressions), outputs, False, False,
                f"TRANSFORM runs the script '{text}': which input columns make each output column, and how, "
                "is not known")


def _series(name: str):
    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        first = types[0] if types else UNKNOWN
        return [Output(_names(aliases, [name])[0], GeneratedColumn(S, None), _type(first))]
    return outputs


def _unnest(node: exp.Unnest, ctx: "LoweringContext") -> Form:
    arrays = list(node.expressions)
    offset = node.args.get("offset")
    alias = node.args.get("alias")
    table_alias = ctx.normalizer.part(alias.this) if isinstance(alias, exp.TableAlias) and alias.this else None
    dialect = _dialect(ctx)
    offset_name = None
    if isinstance(offset, exp.Identifier):
        offset_name = ctx.normalizer.part(offset)
    elif offset:
        offset_name = "offset" if dialect == "bigquery" else "ordinality"

    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        out: list[Output] = []
        names = list(aliases)
        for position, info in enumerate(types or [UNKNOWN]):
            element = info.element()
            fields = element.fields()
            if fields and dialect in _EXPANDS_ROWS:
                # Trino, Postgres: a row's fields are the columns (the alias names them in order).
                given = names[:len(fields)]
                names = names[len(fields):]
                for i, (field_name, field_info) in enumerate(fields):
                    column = given[i] if i < len(given) else field_name
                    out.append(Output(column, GeneratedColumn(E, position, f"[].{field_name}"), _type(field_info)))
                continue
            default = "f0_" if dialect == "bigquery" else "unnest"
            name = names.pop(0) if names else default
            if dialect == "bigquery" and not fields and element.kind in ("unknown", "struct"):
                # BigQuery, elements of a type not declared: ``*`` lists the element as one
                # column (``f0_`` or the alias) when it is not a struct, and the struct's fields
                # when it is — which, nothing tells.  The element stays readable by name; ``*``
                # stands for the columns it makes, which are not known (trial s5-2a).
                out.append(Output(name, GeneratedColumn(E, position, "[]"), _type(element), starred=False))
                out.append(Output("*", GeneratedColumn(E, position, "[]"), None, starred=True))
                continue
            # BigQuery: the element is a value table; its fields are columns too, and they are
            # what ``*`` lists ("a separate column for each field in the STRUCT").
            value_table = bool(fields) and dialect == "bigquery"
            starred = not value_table or any(f.lower() == name.lower() for f, _ in fields)
            out.append(Output(name, GeneratedColumn(E, position, "[]"), _type(element), starred=starred))
            if value_table:
                out.extend(Output(field_name, GeneratedColumn(E, position, f"[].{field_name}"), _type(field_info))
                           for field_name, field_info in fields)
        if offset_name is not None:
            out.append(Output(offset_name, GeneratedColumn(I, 0), "BIGINT"))
        return out

    return Form("unnest", arrays, outputs, table_alias=table_alias)


def _duckdb_options(node: exp.Explode) -> tuple[bool, int | None]:
    """DuckDB's ``unnest(x, recursive := true, max_depth := n)``: (recursive, max_depth)."""
    recursive, depth = False, None
    for option in node.expressions:
        if isinstance(option, (exp.PropertyEQ, exp.Kwarg, exp.EQ)) and isinstance(option.this, (exp.Identifier,
                                                                                                   exp.Column)):
            name, value = option.this.name.lower(), option.expression
            if name == "recursive":
                recursive = _true(value)
            elif name == "max_depth" and isinstance(value, exp.Literal) and value.this.isdigit():
                depth = int(value.this)
    return recursive, depth


def duckdb_struct_fields(node: exp.Expression, arg_type: TypeInfo) -> list[tuple[str, str]] | None:
    """DuckDB's ``unnest(s)`` of a STRUCT in a select list makes no rows: it is one column per
    field of ``s`` (each ``s.f``), with ``recursive := true`` / ``max_depth`` the fields of
    struct fields too.  (name, path) per column; ``None`` when it is not such a call."""
    if type(node) is not exp.Explode or arg_type.kind != "struct":
        return None
    recursive, depth = _duckdb_options(node)
    leaves = _unnested(arg_type, "", depth if depth is not None else (None if recursive else 1))
    if leaves is None or any("[]" in path for _, path, _ in leaves):
        return None
    return [(name, path) for name, path, _ in leaves]


def _unnested(info: TypeInfo, path: str, depth: int | None,
              in_struct: bool = False) -> list[tuple[str | None, str, TypeInfo]] | None:
    """What unnesting ``info`` ``depth`` levels (None: every level) makes: (column name, path,
    type) per column — a list's elements (one row each), a struct's fields (one column each).
    A list inside a struct stays a list: a column holding it (measured on DuckDB 2.0.1:
    ``unnest([{'a': [[1, 2]], 'c': {'d': [3]}}], recursive := true)`` gives ``a = [[1, 2]]``,
    ``d = [3]``).  ``None``: a value whose type is not known while levels remain (a list or a
    struct there would make rows or columns), not read here."""
    if depth == 0 or info.kind not in ("array", "struct"):
        if not info.known and depth != 0:
            return None
        return [(None, path, info)]
    deeper = None if depth is None else depth - 1
    if info.kind == "array":
        if in_struct:
            return [(None, path, info)]
        return _unnested(info.element(), path + "[]", deeper)
    fields = info.fields()
    if not fields:
        return None
    out: list[tuple[str | None, str, TypeInfo]] = []
    for name, field_info in fields:
        inner = _unnested(field_info, f"{path}.{name}", deeper, True)
        if inner is None:
            return None
        out.extend((n or name, p, i) for n, p, i in inner)
    return out


def _duckdb_unnest(node: exp.Explode, ctx: "LoweringContext") -> Form:
    """DuckDB's ``unnest(list)`` in a select list: a row per element; with ``recursive := true``
    (or ``max_depth := n``) nested lists are flattened and the structs they hold expand into a
    column per field (``items[].sku``, ``items[].qty``).  A STRUCT argument makes no rows
    (``duckdb_struct_fields``).  When the argument's type is not known, the call is read as an
    unnest of a list, said not exact: of a struct it would be its fields."""
    recursive, depth = _duckdb_options(node)
    form = Form("unnest", [node.this], lambda types, aliases: [])

    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        arg = types[0] if types else UNKNOWN
        argument = node.this.sql(dialect=ctx.dialect)
        if not arg.known and isinstance(node.this, exp.Array) and not recursive and depth is None:
            # A list the query builds (``[a, b]``) is a list whatever its elements are: a row
            # per element, each the element's value.
            return [Output(_names(aliases, [f"unnest({argument})"])[0], GeneratedColumn(E, 0, "[]"), None)]
        if not arg.known:
            form.exact = False
            form.reason = (f"the type of {argument} is not declared: DuckDB's unnest makes a row per element of a "
                           "list, but a column per field of a struct; read as a list")
            return [Output(_names(aliases, ["unnest"])[0], GeneratedColumn(E, 0, "[]" if not recursive else None))]
        if arg.kind == "map":
            return _explode(types, aliases)
        if arg.kind == "struct" and not recursive and depth is None:
            # Not a select item of its own (``unnest(s) + 1``): DuckDB refuses it there.
            form.exact = False
            form.reason = f"DuckDB's unnest of the struct {argument} makes a column per field, only as a select item"
            return [Output(_names(aliases, [f"unnest({argument})"])[0], GeneratedColumn(E, 0, None), None)]
        if not recursive and depth is None:
            return [Output(_names(aliases, [f"unnest({argument})"])[0], GeneratedColumn(E, 0, "[]"),
                           _type(arg.element()))]
        leaves = _unnested(arg, "", depth)
        if leaves is None:
            form.exact = False
            form.reason = (f"unnest({argument}, recursive := true) reaches a value whose type is not declared: "
                           "a list there would make rows, a struct columns")
            return [Output(_names(aliases, ["unnest"])[0], GeneratedColumn(E, 0, None))]
        names = _names(aliases, [name or f"unnest({argument})" for name, _, _ in leaves])
        return [Output(names[i], GeneratedColumn(E, 0, path or None), _type(info))
                for i, (_, path, info) in enumerate(leaves)]

    form.outputs = outputs
    return form


def _flatten(node: exp.Explode, ctx: "LoweringContext", outer: bool) -> Form:
    """Snowflake's FLATTEN(input => …, path => …, outer => …, recursive => …): columns SEQ,
    KEY, PATH, INDEX, VALUE, THIS (sqlglot reads FLATTEN as EXPLODE)."""
    options: dict[str, exp.Expression] = {}
    positional: list[exp.Expression] = []
    for arg in [node.this, *node.expressions]:
        if isinstance(arg, exp.Kwarg):
            options[arg.this.name.lower()] = arg.expression
        elif arg is not None:
            positional.append(arg)
    value = options.get("input") or (positional[0] if positional else None)
    args = [value] if value is not None else []
    outer = outer or _true(options.get("outer"))
    recursive = _true(options.get("recursive"))
    prefix = "".join(_step_text(s) for s in path_steps(options["path"])) if "path" in options else ""
    reason = "FLATTEN(… RECURSIVE => TRUE) reads values at any depth" if recursive else None

    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        names = _names(aliases, ["SEQ", "KEY", "PATH", "INDEX", "VALUE", "THIS"])
        part = None if recursive else prefix + "[]"
        return [Output(names[0], GeneratedColumn(Q), "BIGINT"), Output(names[1], GeneratedColumn(K), "VARCHAR"),
                Output(names[2], GeneratedColumn(P), "VARCHAR"), Output(names[3], GeneratedColumn(I), "BIGINT"),
                Output(names[4], GeneratedColumn(V, 0, part), "VARIANT"),
                Output(names[5], GeneratedColumn(T, 0, prefix or None), "VARIANT")]

    return Form("flatten", args, outputs, outer, not recursive, reason)


def _step_text(step) -> str:
    if step.position is not None:
        return f"[{step.position}]"
    if step.name is not None:
        return f".{step.name}"
    return "[]"


def _true(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Boolean) and bool(node.this)


def _openjson(node: exp.OpenJSON, outer: bool) -> Form:
    """T-SQL's OPENJSON(doc [, path]) [WITH (col type 'path', …)]: the entries (key, value,
    type) of the array or object at ``path``, or the declared columns read from each."""
    columns = node.expressions or []
    path = node.args.get("path")
    prefix = "".join(_step_text(s) for s in path_steps(path)) if isinstance(path, exp.Literal) else ""

    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        if not columns:
            names = _names(aliases, ["key", "value", "type"])
            return [Output(names[0], GeneratedColumn(K, 0, prefix or None)),
                    Output(names[1], GeneratedColumn(V, 0, prefix + "[]")),
                    Output(names[2], GeneratedColumn(K, 0, prefix or None))]
        out = []
        for column in columns:
            path = column.args.get("path")
            steps = path_steps(path) if path is not None else path_steps(exp.Literal.string(f"$.{column.name}"))
            kind = column.args.get("kind")
            out.append(Output(column.name, GeneratedColumn(V, 0, prefix + "[]" + "".join(_step_text(s) for s in steps)),
                              kind.sql() if isinstance(kind, exp.DataType) else None))
        return out

    return Form("openjson", [node.this], outputs, outer)


# Postgres/Snowflake/T-SQL table functions sqlglot does not model, by name.
def _elements(types, aliases):
    return [Output(_names(aliases, ["value"])[0], GeneratedColumn(E, 0, "[]"), _type(types[0].element()) if types else None)]


def _entries(types, aliases):
    names = _names(aliases, ["key", "value"])
    return [Output(names[0], GeneratedColumn(K), "VARCHAR"), Output(names[1], GeneratedColumn(V, 0, "[]"))]


def _json_walk(tree: bool, at_path: bool):
    """DuckDB's and SQLite's ``json_each(j [, path])`` / ``json_tree(j [, path])``: key, value,
    type, atom, id, parent, fullkey, path (both document this table; DuckDB 2.0.1 measured).
    Field trial 82: DuckDB's json_each was read as Postgres' (key, value), two columns where
    DuckDB gives eight, and ``fullkey`` refused.  The value (and atom, the value when scalar) is
    an element at ``[]`` only for json_each of the document itself; under a path, or anywhere in
    the tree (json_tree, the document itself included), it is a part of the argument read whole."""
    part = None if tree or at_path else "[]"

    def outputs(types, aliases):
        names = _names(aliases, ["key", "value", "type", "atom", "id", "parent", "fullkey", "path"])
        return [Output(names[0], GeneratedColumn(K), "VARCHAR"), Output(names[1], GeneratedColumn(V, 0, part), "JSON"),
                Output(names[2], GeneratedColumn(K), "VARCHAR"), Output(names[3], GeneratedColumn(V, 0, part), "JSON"),
                Output(names[4], GeneratedColumn(I), "UBIGINT"), Output(names[5], GeneratedColumn(I), "UBIGINT"),
                Output(names[6], GeneratedColumn(P), "VARCHAR"), Output(names[7], GeneratedColumn(P), "VARCHAR")]
    return outputs


def _keys(types, aliases):
    return [Output(_names(aliases, ["json_object_keys"])[0], GeneratedColumn(K), "VARCHAR")]


def _split(name: str):
    def outputs(types, aliases):
        return [Output(_names(aliases, [name])[0], GeneratedColumn(S, 0), "VARCHAR")]
    return outputs


def _split_to_table(types, aliases):
    names = _names(aliases, ["SEQ", "INDEX", "VALUE"])
    return [Output(names[0], GeneratedColumn(Q), "BIGINT"), Output(names[1], GeneratedColumn(I), "BIGINT"),
            Output(names[2], GeneratedColumn(S, 0), "VARCHAR")]


def _subscripts(types, aliases):
    return [Output(_names(aliases, ["generate_subscripts"])[0], GeneratedColumn(I), "INT")]


_NAMED: dict[str, Callable] = {
    "json_array_elements": _elements, "jsonb_array_elements": _elements, "json_array_elements_text": _elements,
    "jsonb_array_elements_text": _elements, "json_each": _entries, "jsonb_each": _entries,
    "json_each_text": _entries, "jsonb_each_text": _entries, "json_object_keys": _keys,
    "jsonb_object_keys": _keys, "string_split": _split("value"), "regexp_split_to_table": _split("regexp_split_to_table"),
    "split_to_table": _split_to_table, "generate_subscripts": _subscripts,
}


def _named(node: exp.Anonymous, ctx: "LoweringContext", outer: bool) -> Form | None:
    if _is_inline_outer(node, ctx):
        form = _inline_form(exp.Inline(this=node.expressions[0]), ctx, True)
        return Form("inline_outer", form.args, form.outputs, True)
    name = node.name.lower()
    known = _NAMED.get(name)
    if name in ("json_each", "json_tree") and _dialect(ctx) in ("duckdb", "sqlite"):
        return Form(name, list(node.expressions), _json_walk(name == "json_tree", len(node.expressions) > 1), outer)
    if known is not None:
        args = list(node.expressions)
        if known is _split_to_table or name in ("string_split", "regexp_split_to_table"):
            args = args[:1]  # the separator or pattern is a constant
        return Form(name, args, known, outer)
    registry = ctx.functions
    info = registry.get(name) if registry is not None else None
    if info is None or info.kind != "generator":
        return None
    declared = list(info.outputs)

    def outputs(types, aliases):
        names = aliases or declared
        return [Output(n, GeneratedColumn(S, None)) for n in names]

    exact = info.confidence.value == "exact" and bool(declared)
    reason = None if exact else f"function {name} is a generator whose columns or inputs are not declared exactly"
    return Form(name, list(node.expressions), outputs, outer, exact, reason)


# --- building the Generator ------------------------------------------------------------------------


def build(form: Form, args: list[Expr], aliases: list[str], input_: Relation | None, origin: Origin | None,
          ctx: "LoweringContext") -> tuple[Generator, list[Output]]:
    dialect = _dialect(ctx)
    outputs = form.outputs([type_info(a.type, dialect) for a in args], aliases)
    generator_id = ctx.ids.new("generator", origin)
    fields = tuple(Field(field_id(generator_id, i), o.name, o.type, origin) for i, o in enumerate(outputs))
    exact, reason = form.exact, form.reason
    unsure = next((o.reason for o in outputs if o.reason), None)
    if unsure is not None:
        exact, reason = False, reason or unsure
    generator = Generator(generator_id, origin, input_, form.function, tuple(args), fields,
                          tuple(o.column for o in outputs), form.outer, exact, reason)
    if not exact and reason:
        # Said on the edges from what the arguments read; where they read no base column (a
        # constant, a VALUES list, a column of an undeclared type built from constants) no
        # edge carries it, and the answer says it for the statement (field trial 64).
        ctx.uncertain_unless_said(reason, origin)
    return generator, outputs


def from_item(queries, item: exp.Expression, scope, env, alias: str | None, column_aliases: list[str]):
    """A generator in FROM (or a LATERAL VIEW): its columns as a source; its arguments read the
    items before it (a lateral application).  ``None``: ``item`` is not a generator."""
    from .expressions import ExpressionLowerer
    from .scope import Scope, Source
    from .select import SelectState

    ctx = queries.ctx
    form = form_of(item, ctx)
    if form is None:
        return None
    lowerer = ExpressionLowerer(SelectState(ctx, Scope(ctx, scope), queries, env))
    args = [lowerer.lower(a) for a in form.args]
    origin = ctx.origin(item) or lowerer._span(item)
    name = alias or form.table_alias
    ordinality = isinstance(item, exp.Table) and bool(item.args.get("ordinality"))
    if ordinality:
        # ``generate_series(1, 3) WITH ORDINALITY``, ``range(3) WITH ORDINALITY``: the function's
        # columns, then ``ordinality`` (1, 2, … per input row); it was dropped (field trial 77).
        form = _with_ordinality(form)
    lateral_ordinality = (ordinality or isinstance(item, exp.Unnest) and item.args.get("offset") is True) and any(
        isinstance(part, (FieldRef, OuterRef)) for a in args for part in iter_tree(a))
    if lateral_ordinality and _dialect(ctx) == "duckdb":
        # DuckDB 2.0.1 keeps the function's name for its column when WITH ORDINALITY reads an
        # earlier FROM item (``t, unnest(t.l) WITH ORDINALITY AS u``: unnest, ordinality), and
        # takes the alias when it does not (``unnest([5, 6]) WITH ORDINALITY AS u``: u, ordinality).
        name_column = False
    else:
        name_column = True
    if name and name_column and not column_aliases and _dialect(ctx) in _SINGLE_COLUMN_ALIAS \
            and form.function in _ALIAS_NAMES_COLUMN:
        types = [type_info(a.type, _dialect(ctx)) for a in args]
        if len([o for o in form.outputs(types, []) if o.column.role is not I]) == 1:
            # Postgres, DuckDB: a one-column table function's column takes the table's alias
            # (also WITH ORDINALITY: ``unnest([5, 6]) WITH ORDINALITY AS u`` gives u, ordinality).
            column_aliases = [name]
    relation, outputs = build(form, args, column_aliases, None, origin, ctx)
    columns = [(o.name, f) for o, f in zip(outputs, relation.columns)]
    source = Source(name or "", name or form.function, relation.id, columns, aliased=True,
                    unstarred=frozenset(o.name.lower() for o in outputs if not o.starred),
                    fields_of=_undeclared_elements(form, args, outputs, relation, ctx),
                    star_reason=_star_reason(form, outputs))
    return (lambda: relation), [source]


def array_join(queries, join: exp.Join, scope, env):
    """ClickHouse's ``[LEFT] ARRAY JOIN a1 [AS x], a2 [AS y] …``: one generator over every array
    of the clause, zipped (the engine requires equal lengths, or pads to the longest with
    ``enable_unaligned_array_join``), joined to the rows before it; ``LEFT`` keeps a row whose
    arrays are empty.  Each element column is read from its array (path ``[]``) and the row count
    from every array (the generator rule's control lineage, as for UNNEST).

    Names (ClickHouse documents them; tests 02374_analyzer_array_join, issue 533): an alias names
    the element and hides any FROM column of that name, while the array keeps its own name; it is
    not listed by ``*``.  Without an alias the element takes the array column's place, qualified
    (``t.arr``) or not, in ``*`` too.

    Not exact (conservative, with the reason; the rows still depend on every array): an array
    naming a select-list alias or an alias of the same clause (read as the aliased expression;
    what the alias shows after the ARRAY JOIN differs between ClickHouse's analyzers, so it is
    left as the select list has it), an unaliased array that is not a column (ClickHouse refuses
    it; nothing names its element), an array column whose FROM item is not known.

    Returns the item's builder, its source and ``bind()``, which makes the names visible once
    the item is in the clause."""
    from .expressions import ExpressionLowerer
    from .scope import Scope, Source
    from .select import SelectState

    ctx = queries.ctx
    norm = ctx.normalizer
    dialect = _dialect(ctx)
    items: list[tuple[exp.Expression, str | None]] = []
    for item in [join.this, *join.expressions]:
        if isinstance(item, exp.Alias):
            items.append((item.this, norm.part(item.args["alias"])))
        else:
            items.append((item, None))
    aliased: dict[str, exp.Expression] = {}
    for e in getattr(join.parent, "expressions", None) or []:
        if isinstance(e, exp.Alias) and e.args.get("alias"):
            aliased.setdefault(norm.part(e.args["alias"]).lower(), e.this)
    aliased.update((a.lower(), node) for node, a in items if a)
    reasons: list[str] = []
    arrays: list[exp.Expression] = []
    for node, alias in items:
        if alias is None and not isinstance(node, exp.Column):
            reasons.append(f"the ARRAY JOIN of {node.sql(dialect=ctx.dialect)} has no alias (ClickHouse refuses it)")
        arrays.append(_through_aliases(node, aliased, norm, reasons, ctx))
    inner = Scope(ctx, scope)
    lowerer = ExpressionLowerer(SelectState(ctx, inner, queries, env))
    args = [lowerer.lower(node) for node in arrays]
    replaced: list[tuple[Source, str]] = []
    names: list[str] = []
    for (node, alias), array, arg in zip(items, arrays, args):
        if alias is not None:
            names.append(alias)
            continue
        names.append(norm.part(node.this) if isinstance(node, exp.Column) else node.sql(dialect=ctx.dialect))
        if array is not node or not isinstance(node, exp.Column):
            continue  # an alias read through: the select list keeps showing what it has
        owner = _owner(scope, node, arg, ctx)
        if owner is None:
            reasons.append(f"the ARRAY JOIN of {node.sql(dialect=ctx.dialect)}: which FROM item's column its "
                           "elements replace is not known")
        else:
            replaced.append((owner, names[-1]))

    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        out = []
        for position, (info, name) in enumerate(zip(types, names)):
            unsure = None
            if info.kind not in ("array", "unknown"):
                # A Map (tuples of key and value) or a Nested column: not read element by element here.
                unsure = (f"the ARRAY JOIN of {items[position][0].sql(dialect=dialect)}, which is not "
                          "declared an array, is not analysed exactly")
            out.append(Output(name, GeneratedColumn(E, position, "[]"), _type(info.element()), unsure))
        return out

    reason = "; ".join(reasons) or None
    form = Form("array join", arrays, outputs, outer=str(join.args.get("side") or "").upper() == "LEFT",
                exact=reason is None, reason=reason)
    origin = ctx.origin(join.this) or lowerer._span(join.this)
    relation, made = build(form, args, [], None, origin, ctx)
    columns = list(zip([o.name for o in made], relation.columns))
    source = Source("", "ARRAY JOIN", relation.id, columns, aliased=True)
    bound = [(name, f) for (name, f), (node, alias), array in zip(columns, items, arrays)
             if alias is not None or (array is node and isinstance(node, exp.Column))]

    def bind() -> None:
        for name, f in bound:
            scope.merged[name.lower()] = _element_ref(ctx, f)
        for owner, name in replaced:
            owner.replaced = {**(owner.replaced or {}), name.lower(): relation.columns[names.index(name)]}

    return (lambda: relation), source, bind


def _through_aliases(node: exp.Expression, aliased: dict[str, exp.Expression], norm, reasons: list[str],
                     ctx: "LoweringContext") -> exp.Expression:
    """``node`` with each unqualified name that is an alias (of the select list or of the ARRAY
    JOIN itself) replaced by what it aliases (ClickHouse reads aliases everywhere); each said."""
    def replace(column: exp.Expression) -> exp.Expression:
        if isinstance(column, exp.Column) and column.args.get("table") is None:
            target = aliased.get(norm.part(column.this).lower())
            if target is not None and target is not node and not any(target is p for p in _ancestors(column)):
                reasons.append(f"the ARRAY JOIN reads {column.sql(dialect=ctx.dialect)}, an alias: read as "
                               f"{target.sql(dialect=ctx.dialect)}; what the alias shows after the ARRAY JOIN "
                               "differs between ClickHouse's analyzers")
                return target.copy()
        return column

    return node.copy().transform(replace) if any(
        c.args.get("table") is None and norm.part(c.this).lower() in aliased
        for c in ([node] if isinstance(node, exp.Column) else node.find_all(exp.Column))) else node


def _ancestors(node: exp.Expression):
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _element_ref(ctx: "LoweringContext", f: Field):
    def build(origin: Origin | None) -> Expr:
        return FieldRef(ctx.ids.new("col", origin), origin, f.type, f.id)
    return build


def _owner(scope, node: exp.Column, arg: Expr, ctx: "LoweringContext"):
    """The FROM item whose column ``node`` (an unaliased ARRAY JOIN array) is: the one source the
    lowered reference points into, or ``None``."""
    target = getattr(arg, "field", None)
    if target is None:
        return None
    name = ctx.normalizer.part(node.this)
    found = []
    for source in scope.sources:
        f = source.find(name)
        if f is None and source.scan is not None and source.scan.declared is None:
            f = source.open_column(name)
        if f is not None and f.id == target:
            found.append(source)
    return found[0] if len(found) == 1 else None


def _with_ordinality(form: Form) -> Form:
    """``form`` with a last column ``ordinality``: each generated row's position, 1, 2, … (it
    depends on the arguments as their number of rows does); a column alias past the function's
    own columns names it."""
    own = form.outputs

    def outputs(types: list[TypeInfo], aliases: list[str]) -> list[Output]:
        out = own(types, aliases)
        rest = aliases[len(out):]
        return out + [Output(rest[0] if rest else "ordinality", GeneratedColumn(I, None), "BIGINT")]

    form.outputs = outputs  # in place: an outputs function may mark its own form not exact
    return form


def _star_reason(form: Form, outputs: list[Output]) -> str | None:
    """Why the columns a generator's ``*`` column stands for are not known, or ``None``."""
    star = next((o for o in outputs if o.name == "*"), None)
    if star is None:
        return None
    if star.reason:
        return star.reason
    what = form.args[0].sql(dialect="bigquery") if len(form.args) == 1 else form.function
    return (f"the type of the elements of {what} is not declared: its columns are the fields of a struct element "
            "(BigQuery lists them), else the element as one column; which, and their names, are unknown")


def _undeclared_elements(form: Form, args: list[Expr], outputs: list[Output], relation: Relation,
                         ctx: "LoweringContext") -> Field | None:
    """BigQuery: the element column of ``UNNEST(a)`` when the elements' type is not known, so a
    name the query reads from it may be a field of a struct element (``SELECT duration_ms FROM
    t, UNNEST(t.jobs)``).  ``None`` elsewhere, and when the type says what the columns are."""
    if form.function != "unnest" or _dialect(ctx) != "bigquery" or len(args) != 1:
        return None
    element = type_info(args[0].type, "bigquery").element()
    if element.kind not in ("unknown", "struct") or element.fields():
        return None
    return next((f for o, f in zip(outputs, relation.columns) if o.column.path == "[]"), None)


# --- generators in a select list -------------------------------------------------------------------


class GeneratedOutput:
    """A select item standing for one column of a generator that makes several (an internal
    marker in place of an AST node: the lowerer dispatches on its class)."""

    __slots__ = ("args",)

    def __init__(self, this: exp.Expression, index: int, aliases: list[str]):
        self.args = {"this": this, "index": index, "aliases": aliases}

    @property
    def this(self) -> exp.Expression:
        return self.args["this"]


@dataclass(slots=True)
class _Pending:
    form: Form
    args: list[Expr]
    aliases: list[str]
    origin: Origin | None
    relation: Generator | None = None
    outputs: list[Output] = field(default_factory=list)


class SelectGenerators:
    """Generators called in one SELECT's list: applied after WHERE, GROUP BY, HAVING, windows
    and QUALIFY, before the projection (Postgres' order for set-returning functions)."""

    __slots__ = ("pending", "by_ast")

    def __init__(self):
        self.pending: list[_Pending] = []
        self.by_ast: dict[int, _Pending] = {}

    def output(self, node: exp.Expression, index: int, aliases: list[str], lowerer: "ExpressionLowerer",
               mode: "Mode") -> Expr:
        ctx = lowerer.ctx
        found = self.by_ast.get(id(node))
        if found is None:
            form = form_of(node, ctx)
            assert form is not None
            args: list[Expr] = []
            for a in form.args:
                if stars.is_star(a):  # ``TRANSFORM(*)``: every column, each an argument
                    args.extend(stars.star_arguments(lowerer, a, node, mode))
                else:
                    args.append(lowerer.lower(a, mode))
            found = _Pending(form, args, aliases, lowerer._span(node))
            # Ids are allocated now, in authored order; the input is known once the SELECT's
            # lower operators are built.
            found.relation, found.outputs = build(form, args, aliases, None, found.origin, ctx)
            self.pending.append(found)
            self.by_ast[id(node)] = found
        target = found.relation.columns[min(index, len(found.relation.columns) - 1)]
        origin = lowerer._span(node)
        return FieldRef(ctx.ids.new("col", origin), origin, target.type, target.id)

    def build(self, relation: Relation) -> Relation:
        for item in self.pending:
            generator = item.relation
            relation = Generator(generator.id, generator.origin, relation, generator.function, generator.args,
                                 generator.columns, generator.outputs, generator.outer, generator.exact,
                                 generator.reason)
        return relation


def select_outputs(expression: exp.Expression, lowerer: "ExpressionLowerer") -> list[tuple[str, exp.Expression]] | None:
    """A select item calling a generator that makes several columns (``posexplode(a) AS (p, v)``,
    ``inline(structs)``): one item per column.  ``None``: not such an item."""
    ctx = lowerer.ctx
    node, aliases = expression, []
    if isinstance(expression, exp.Aliases):
        node = expression.this
        aliases = [ctx.normalizer.part(a) for a in expression.expressions]
    elif isinstance(expression, exp.Alias):
        if type(expression.this) is exp.Explode and _dialect(ctx) == "duckdb":
            # ``unnest(struct) AS u``: DuckDB still names the columns after the fields.
            return _literal_struct_items(expression.this) or _literal_struct_list_items(
                expression.this, lowerer) or _duckdb_struct_items(expression.this, lowerer)
        return None
    if not is_select_generator(node, ctx):
        return None
    form = form_of(node, ctx)
    if form is None:
        return None
    if type(node) is exp.Explode and _dialect(ctx) == "duckdb" and (
            items := _literal_struct_items(node) or _literal_struct_list_items(node, lowerer)):
        return items
    # Imported here, past the early returns: every select item asks, and an import statement
    # run per call was a tenth of this function's cost (it cannot be at the top: a cycle).
    from .expressions import Mode

    types = [UNKNOWN] * len(form.args)
    if (isinstance(node, (exp.Inline, exp.Explode, exp.Posexplode)) or form.function == "inline_outer") \
            and len(form.args) == 1:
        # The columns depend on the argument's type (a struct's fields, a map's key and value).
        try:
            types = [type_info(lowerer.lower(form.args[0], Mode.ROWS).type, _dialect(ctx))]
        except PrismError:  # an argument over aggregates: lowered in its place later
            types = [UNKNOWN]
    if _dialect(ctx) == "duckdb" and (fields := duckdb_struct_fields(node, types[0])) is not None:
        return [(name, _access(form.args[0], path)) for name, path in fields]
    names = [o.name for o in form.outputs(types, aliases)]
    if len(names) <= 1 and not isinstance(node, (exp.Inline, exp.Stack, exp.QueryTransform)) \
            and form.function != "inline_outer":
        return None
    return [(name, GeneratedOutput(node, i, aliases)) for i, name in enumerate(names)]


def _literal_struct_items(node: exp.Explode) -> list[tuple[str, exp.Expression]] | None:
    """DuckDB's ``unnest({'x': a, 'y': b})`` / ``unnest(struct_pack(x := a))`` of a struct the
    query builds, every field named: one column per field, named so, its value that field's
    expression (field trial 64: one column, of an "undeclared" type).  ``None`` otherwise (an
    unnamed field, a ``*``, recursive options)."""
    struct = node.this
    from . import stars

    if _is_row(struct) and _duckdb_options(node) == (False, None):
        # ``unnest(ROW(a, b))`` / ``unnest((a, b))``: an unnamed struct (DuckDB's TUPLE), whose
        # fields DuckDB names element1, element2 … (2.0.1 measured; it was one column read as a
        # list, conservative).  Recursive options are left to the list reading (conservative).
        if any(stars.is_star(v) for v in struct.expressions):
            return None
        return [(f"element{i}", value.copy()) for i, value in enumerate(struct.expressions, 1)]
    if not isinstance(struct, exp.Struct) or not struct.expressions or _duckdb_options(node) != (False, None):
        return None

    names = [struct_field_name(item) for item in struct.expressions]
    values = [struct_field_value(item) for item in struct.expressions]
    if any(n is None for n in names) or any(stars.is_star(v) for v in values):
        return None
    return [(name, value.copy()) for name, value in zip(names, values)]


def _is_row(node: exp.Expression) -> bool:
    """``ROW(a, b)``, ``(a, b)`` or ``(a,)`` (``(a)`` is ``a`` itself: sqlglot reads no tuple there)."""
    return isinstance(node, exp.Tuple) and bool(node.expressions) or (
        isinstance(node, exp.Anonymous) and node.name.lower() == "row" and bool(node.expressions))


def _literal_struct_list_items(node: exp.Explode,
                               lowerer: "ExpressionLowerer") -> list[tuple[str, exp.Expression]] | None:
    """DuckDB's ``unnest([{'x': a, 'y': b}, {'x': c, 'y': d}], recursive := true)`` (or a
    ``max_depth`` reaching the structs' fields) of a list the query builds out of structs it
    builds (lists of them too), every struct naming the same fields: a row per struct, a
    column per field (field trial 64; DuckDB 2.0.1 gives ``x, y``); a field holding a struct
    the query builds is expanded the same way while the depth lasts.  Column ``x`` is
    ``unnest([a, c])``: DuckDB unnests the lists of one select list side by side, so its rows
    pair as the structs' fields do.  A struct the query builds, not in a list, makes no rows:
    its leaves are the columns.  ``None`` otherwise (a field that is neither a scalar, a list
    nor NULL while the recursion goes on: a struct column, a type not known)."""
    recursive, depth = _duckdb_options(node)
    if not recursive and depth is None:
        return None
    levels, frontier = 0, [node.this]
    while frontier and all(isinstance(item, exp.Array) for item in frontier):
        levels += 1
        frontier = [element for item in frontier for element in item.expressions]
    if not frontier or (depth is not None and depth < levels + 1):
        return None
    remaining = None if depth is None else depth - levels - 1
    if not levels:  # ``unnest({'a': 1, 'b': {'c': 2}}, recursive := true)``: no rows, its leaves
        leaves = _struct_leaves(frontier[0], remaining, lowerer) if isinstance(frontier[0], exp.Struct) else None
        return None if leaves is None else [(name, value.copy()) for name, value in leaves]
    names: list[str] | None = None
    columns: list[list[exp.Expression]] = []
    for struct in frontier:
        leaves = _struct_leaves(struct, remaining, lowerer) if isinstance(struct, exp.Struct) else None
        if leaves is None:
            return None
        if names is None:
            names = [name for name, _ in leaves]
            columns = [[] for _ in leaves]
        elif [name for name, _ in leaves] != names:
            return None
        for column, (_, value) in zip(columns, leaves):
            column.append(value.copy())
    assert names is not None
    return [(name, exp.Explode(this=exp.Array(expressions=values))) for name, values in zip(names, columns)]


def _struct_leaves(struct: exp.Struct, remaining: int | None,
                   lowerer: "ExpressionLowerer") -> list[tuple[str, exp.Expression]] | None:
    """The columns DuckDB's recursive unnest makes of a struct the query builds, ``remaining``
    levels further down (None: every level): (name, value) per column."""
    from .expressions import Mode

    if not struct.expressions:
        return None
    deeper = remaining is None or remaining > 0
    out: list[tuple[str, exp.Expression]] = []
    for item in struct.expressions:
        name, value = struct_field_name(item), struct_field_value(item)
        if name is None or stars.is_star(value):
            return None
        if isinstance(value, exp.Struct) and deeper:
            inner = _struct_leaves(value, None if remaining is None else remaining - 1, lowerer)
            if inner is None:
                return None
            out.extend(inner)
            continue
        if deeper and not isinstance(value, (exp.Null, exp.Array)):
            # A list inside a struct stays a list (measured on DuckDB 2.0.1: ``{'a': [1, 2]}``
            # gives the column ``a`` = ``[1, 2]``); a struct column would be expanded.
            if isinstance(value, exp.Struct):
                return None
            try:
                kind = type_info(lowerer.lower(value, Mode.ROWS).type, "duckdb").kind
            except PrismError:
                return None
            if kind not in ("scalar", "array"):
                return None
        out.append((name, value))
    return out


def _duckdb_struct_items(node: exp.Explode, lowerer: "ExpressionLowerer") -> list[tuple[str, exp.Expression]] | None:
    from .expressions import Mode

    try:
        arg_type = type_info(lowerer.lower(node.this, Mode.ROWS).type, "duckdb")
    except PrismError:
        return None
    fields = duckdb_struct_fields(node, arg_type)
    return None if fields is None else [(name, _access(node.this, path)) for name, path in fields]


def _access(base: exp.Expression, path: str) -> exp.Expression:
    """``base.f.g`` for the path ``.f.g`` (the fields of a struct DuckDB's unnest expands)."""
    node = base.copy()
    for name in path.lstrip(".").split("."):
        node = exp.Dot(this=node, expression=exp.to_identifier(name, quoted=True))
    return node
