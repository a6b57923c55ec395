"""PostgreSQL's data-modifying statements in WITH: ``WITH moved AS (DELETE FROM t WHERE …
RETURNING *) INSERT INTO archive SELECT * FROM moved`` (specs/writes.md "Data-modifying
statements in WITH").

Two things happen in one statement, and both are answered:

* the write inside the CTE is a statement of its own, given just before the statement that holds
  it (``expand_data_modifying_ctes``), with the CTEs written before it in the same WITH (it may
  read them);
* the CTE's rows, as the statement that holds it reads them, are the RETURNING list over the
  rows the write touched (``returning_query``): a DELETE's removed rows (the rows of its table
  its USING and WHERE keep — so their control lineage is the WHERE), an UPDATE's rows with their
  new values (a column the SET assigns returns the assigned value), an INSERT's inserted rows (a
  column the INSERT does not list holds its default: no source).

The rows are written as a SELECT over the same tables and conditions and lowered as a query: the
written nodes are copied, so positions stay the text's.
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import InvalidStatementError
from .context import LoweringContext
from .names import table_parts

_MODIFYING = (exp.Insert, exp.Update, exp.Delete)


def is_data_modifying(node: exp.Expression | None) -> bool:
    return isinstance(node, _MODIFYING + (exp.Merge,))


def expand_data_modifying_ctes(nodes: list[exp.Expression]) -> list[exp.Expression]:
    """``nodes`` with the write of every data-modifying CTE placed just before the statement
    that holds it (the statement keeps its WITH: what it reads of the CTE is its RETURNING)."""
    if not any(_modifying_ctes(n) for n in nodes):
        return nodes
    out: list[exp.Expression] = []
    for node in nodes:
        ctes = _modifying_ctes(node)
        if ctes:
            with_ = node.args.get("with_") or node.args.get("with")
            every = list(with_.expressions)
            for index in ctes:
                written = every[index].this.copy()
                written.set("returning", None)
                if index:  # it may read the CTEs written before it (and those only)
                    written.set("with_", exp.With(expressions=[c.copy() for c in every[:index]],
                                                  recursive=with_.args.get("recursive")))
                if node._meta:
                    for key, value in node.meta.items():
                        if key.startswith("prism_"):  # a routine's body: the CTE's write is in it too
                            written.meta.setdefault(key, value)
                out.append(written)
        out.append(node)
    return out


def _modifying_ctes(node: exp.Expression) -> list[int]:
    with_ = node.args.get("with_") or node.args.get("with") if isinstance(node, exp.Expression) else None
    if not isinstance(with_, exp.With):
        return []
    return [i for i, cte in enumerate(with_.expressions) if is_data_modifying(cte.this)]


def returning_query(body: exp.Expression, name: str, ctx: LoweringContext) -> exp.Select:
    """The rows ``WITH name AS (<body>)`` holds: the RETURNING list over the rows the write
    touched, as a query over the same tables."""
    returning = body.args.get("returning")
    what = body.key.upper()
    where = ctx.origin(body)
    if not isinstance(returning, exp.Returning) or not returning.expressions:
        raise InvalidStatementError(f"the CTE {name} is {_article(what)} without RETURNING: it has no rows to read",
                                    origin=where)
    items = [item.copy() for item in returning.expressions]
    if isinstance(body, exp.Delete):
        return _over_target(body, items)
    if isinstance(body, exp.Update):
        return _updated(body, items)
    if isinstance(body, exp.Insert):
        return _inserted(body, items, name, ctx)
    raise InvalidStatementError(f"the CTE {name} is {_article(what)} … RETURNING: the rows it returns are not followed "
                                f"(a data-modifying {what} in WITH is not supported)", origin=where)


def _over_target(body: exp.Delete | exp.Update, items: list[exp.Expression]) -> exp.Select:
    """``SELECT items FROM <target> [, USING/FROM tables] [WHERE …]``: the rows the write touches."""
    query = exp.Select(expressions=items).from_(body.this.copy(), copy=False)
    extra: list[exp.Expression] = list(body.args.get("using") or [])
    from_ = body.args.get("from_") or body.args.get("from")
    if isinstance(from_, exp.From):
        extra.append(from_.this)
    for item in extra:
        query = query.join(item.copy(), join_type="cross", copy=False)
    for join in body.args.get("joins") or []:  # UPDATE t SET … FROM a JOIN b ON …
        query = query.join(join.copy(), copy=False)
    where = body.args.get("where")
    if isinstance(where, exp.Where):
        query = query.where(where.this.copy(), copy=False)
    return query


def _updated(body: exp.Update, items: list[exp.Expression]) -> exp.Select:
    """An UPDATE's RETURNING shows the new row: a column the SET assigns is the assigned value."""
    target = body.this
    names = {target.alias_or_name.lower(), target.name.lower()} if isinstance(target, exp.Table) else set()
    assigned: dict[str, exp.Expression] = {}
    for eq in body.expressions:
        if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column):
            assigned[eq.this.name.lower()] = eq.expression
        else:  # SET (a, b) = (…): which value each column takes is read by the write, not here
            raise InvalidStatementError(
                "RETURNING of an UPDATE in WITH whose SET is not column = value is not followed",
                origin=None)
    from_ = body.args.get("from_") or body.args.get("from")
    others = [from_.this] if isinstance(from_, exp.From) else []
    others += [j.this for j in body.args.get("joins") or []]

    def new_value(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star) and node.name.lower() in assigned:
            if (node.table.lower() in names) if node.table else True:
                return exp.paren(assigned[node.name.lower()].copy(), copy=False)
        return node

    def star(table: exp.Expression, replace: bool) -> exp.Expression:
        star_node = exp.Star(replace=[exp.alias_(v.copy(), c) for c, v in assigned.items()]) if replace else exp.Star()
        return exp.Column(this=star_node, table=exp.to_identifier(table.alias_or_name))

    out: list[exp.Expression] = []
    for item in items:
        if isinstance(item, exp.Star):  # every column of the target (new values), then of FROM
            out += [star(target, True)] + [star(t, False) for t in others]
        elif isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
            out.append(star(target, True) if item.table.lower() in names else item)
        elif isinstance(item, exp.Column):  # keeps its name: ``t.a`` returns a column named a
            changed = new_value(item)
            out.append(item if changed is item else exp.alias_(changed.this, item.name))
        else:
            out.append(item.transform(new_value))
    return _over_target(body, out)


def _inserted(body: exp.Insert, items: list[exp.Expression], name: str, ctx: LoweringContext) -> exp.Select:
    """An INSERT's RETURNING over the rows it inserted: its query's rows under the target's
    columns (a column it does not list holds its default: no source)."""
    schema = body.this
    target = schema.this if isinstance(schema, exp.Schema) else schema
    if not isinstance(target, exp.Table) or not isinstance(body.expression, (exp.Query, exp.Subquery, exp.Values)):
        raise InvalidStatementError(f"RETURNING of the INSERT in the CTE {name} is not followed (it inserts from "
                                    "something other than a query or VALUES)", origin=ctx.origin(body))
    if body.args.get("conflict") is not None:
        raise InvalidStatementError(
            f"RETURNING of an INSERT … ON CONFLICT in the CTE {name} is not followed: the rows it returns may be "
            "the ones its DO UPDATE changed", origin=ctx.origin(body))
    listed = [c.name for c in schema.expressions] if isinstance(schema, exp.Schema) else []
    table = ctx.catalog.lookup(table_parts(target, ctx), ctx.origin(target))
    declared = [c.name for c in table.columns] if table is not None else []
    if not listed and not declared:
        raise InvalidStatementError(
            f"RETURNING of the INSERT into {target.sql(dialect=ctx.dialect)} in the CTE {name} is not followed: the "
            "table's columns are not in the schema and the INSERT lists none, so which value each column holds "
            "cannot be told", origin=ctx.origin(target))
    columns = listed or declared
    inserted = exp.Subquery(this=body.expression.copy(), alias=exp.TableAlias(
        this=exp.to_identifier("inserted"), columns=[exp.to_identifier(c) for c in columns]))
    # The built nodes stand where the INSERT's RETURNING is written (ids name authored positions).
    at = next((n for n in body.args["returning"].walk() if n._meta and "line" in n.meta), target.this)
    keep = [_at(exp.column(c, "inserted"), at) for c in columns]
    defaults = [exp.alias_(_at(exp.null(), at), c) for c in declared if c.lower() not in {n.lower() for n in columns}]
    row = _at(exp.Select(expressions=keep + defaults).from_(inserted, copy=False), at)
    alias = target.alias_or_name
    return _at(exp.Select(expressions=items).from_(exp.Subquery(this=row, alias=exp.TableAlias(
        this=exp.to_identifier(alias))), copy=False), at)


def _at(node: exp.Expression, written: exp.Expression) -> exp.Expression:
    """``node`` (built here) placed where ``written`` stands in the text."""
    if written._meta:
        for key in ("line", "col", "start", "end"):
            if key in written.meta:
                node.meta[key] = written.meta[key]
    return node


def _article(what: str) -> str:
    return f"an {what}" if what[0] in "AEIOU" else f"a {what}"
