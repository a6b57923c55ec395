"""Snowflake's multi-table inserts (``INSERT ALL | FIRST [WHEN c THEN] INTO t … SELECT …``):
one INSERT per ``INTO``, each answered on its own (specs/writes.md).

Each ``INTO t [(cols)] [VALUES (…)]`` becomes ``INSERT INTO t [(cols)] SELECT <values | *>
FROM (<source>) WHERE <when it applies>``: under ``ALL`` its own ``WHEN`` (an ``ELSE`` when no
``WHEN`` holds); under ``FIRST`` its ``WHEN`` and no earlier one.  The rewritten statements
keep the written nodes (and so their positions in the text).
"""

from __future__ import annotations

from sqlglot import exp


def expand_multitable_inserts(nodes: list[exp.Expression]) -> list[exp.Expression]:
    """``nodes`` with every multi-table insert replaced by its INSERTs, in order."""
    if not any(isinstance(n, exp.MultitableInserts) for n in nodes):
        return nodes
    out: list[exp.Expression] = []
    for node in nodes:
        out.extend(_inserts(node) if isinstance(node, exp.MultitableInserts) else [node])
    return out


def _inserts(node: exp.MultitableInserts) -> list[exp.Expression]:
    source = node.args.get("source")
    if isinstance(source, exp.Subquery):
        source = source.this
    if not isinstance(source, exp.Query):
        return [node]
    first = str(node.args.get("kind") or "").upper() == "FIRST"
    alias = _source_alias(source)
    out: list[exp.Expression] = []
    conditional = any(isinstance(c, exp.ConditionalInsert) and (c.expression is not None or c.args.get("else_"))
                      for c in node.expressions)
    earlier: list[exp.Expression] = []  # the WHEN conditions before the current one
    when: exp.Expression | None = None  # the current WHEN (sqlglot gives it to its first INTO only)
    is_else = False
    for clause in node.expressions:
        insert = clause.this if isinstance(clause, exp.ConditionalInsert) else clause
        if not isinstance(insert, exp.Insert):
            return [node]
        own = clause.expression if isinstance(clause, exp.ConditionalInsert) else None
        if isinstance(clause, exp.ConditionalInsert) and clause.args.get("else_"):
            if when is not None:
                earlier.append(when)
            when, is_else = None, True
        elif own is not None:
            if when is not None:
                earlier.append(when)
            when = own
        if not conditional:
            condition = None
        elif is_else:
            condition = _none_of(earlier)
        else:
            assert when is not None
            condition = when.copy()
            if first and earlier:
                condition = exp.and_(condition, _none_of(earlier))
        values = insert.args.get("expression")
        items: list[exp.Expression] = [exp.Star()]
        if isinstance(values, exp.Values) and values.expressions:
            row = values.expressions[0]
            items = [e.copy() for e in (row.expressions if isinstance(row, exp.Tuple) else [row])]
        query = exp.select(*items).from_(exp.Subquery(this=source.copy(), alias=exp.TableAlias(
            this=exp.to_identifier(alias))))
        if condition is not None:
            query = query.where(condition)
        written = insert.copy()
        written.set("expression", query)
        out.append(written)
    return out


def _none_of(conditions: list[exp.Expression]) -> exp.Expression | None:
    if not conditions:
        return None
    return exp.not_(exp.paren(exp.or_(*[c.copy() for c in conditions]) if len(conditions) > 1
                              else conditions[0].copy()))


def _source_alias(source: exp.Query) -> str:
    """The name the source's columns are qualified by in the clauses: its one table's, when it
    reads one (``WHEN src.a > 0`` reads the source's column)."""
    from_ = source.args.get("from_") or source.args.get("from") if isinstance(source, exp.Select) else None
    tables = list(source.find_all(exp.Table)) if from_ is not None else []
    if from_ is not None and isinstance(from_.this, exp.Table) and len(tables) == 1 and not source.args.get("joins"):
        return from_.this.alias_or_name
    return "source"
