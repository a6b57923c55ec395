"""``MATCH_RECOGNIZE`` with ONE ROW PER MATCH (Snowflake, Oracle, Trino; field trial 21), read
as a query of the same lineage (specs/aggregate.md, "Row pattern recognition").

``FROM t MATCH_RECOGNIZE (PARTITION BY p ORDER BY o MEASURES m AS x … ONE ROW PER MATCH
PATTERN (…) DEFINE v AS d …) AS r`` outputs one row per match: the partitioning columns, then
the measures (SQL:2016).  Which rows exist depends on the partitions, on the order rows are
matched in and on the DEFINE conditions; a measure's value is computed from the rows of its
match.  So it is lowered as the derived table

    (SELECT p, m' AS x … FROM t WHERE <reads every DEFINE column and ORDER BY key>
     GROUP BY p) AS r

whose answer is that lineage: the partitioning columns are grouping sources of every output,
the DEFINE columns and the ORDER BY keys control sources (they decide which rows form a match,
so which rows exist — the same reasoning as an ORDER BY that picks rows,
specs/sort-limit-distinct.md), a measure's value sources its arguments (``FIRST(b)``, ``LAST(y.b)``,
``b``: ``b``, an aggregate of the match's rows).  ``m'`` is ``m`` with pattern variables'
qualifiers dropped (``y.b`` is the column ``b`` of the rows ``y`` matched), the navigation
functions ``PREV``/``NEXT`` read as the column they navigate, a column outside an aggregate as
the match's value of it, and ``MATCH_NUMBER()``/``CLASSIFIER()`` as constants (no column
source).  ALL ROWS PER MATCH (whose output columns the engines order differently) and a FROM
clause with joins are still refused.
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import InvalidStatementError

_NAVIGATION = ("PREV", "NEXT")
_NO_SOURCE = ("MATCH_NUMBER", "CLASSIFIER")


def as_grouped_query(node: exp.Select, ctx) -> exp.Select:
    """The SELECT ``node`` with its MATCH_RECOGNIZE read as a derived table (see above)."""
    match = node.args["match"]
    from_ = node.args.get("from_")
    item = from_.this if from_ is not None else None
    rows = str(match.args.get("rows") or "ONE ROW PER MATCH").upper()
    if not rows.startswith("ONE ROW") or node.args.get("joins") or node.args.get("laterals") \
            or not isinstance(item, (exp.Table, exp.Subquery)):
        why = "with ALL ROWS PER MATCH" if not rows.startswith("ONE ROW") else "over a FROM clause with joins"
        raise InvalidStatementError(
            f"MATCH_RECOGNIZE (row pattern recognition) {why} is not read by prism_lineage: which rows and columns "
            "it outputs depend on its PARTITION BY, ORDER BY, PATTERN/DEFINE and MEASURES, which would be lost; the "
            "statement is refused", origin=ctx.first_origin(match, node))
    source = item.copy()
    alias = match.args.get("alias")
    source_alias = item.alias_or_name
    partition = [p.copy() for p in match.args.get("partition_by") or []]
    items: list[exp.Expression] = [p.copy() for p in partition]
    for measure in match.args.get("measures") or []:
        expression = measure.this if isinstance(measure, exp.MatchRecognizeMeasure) else measure
        items.append(_measure(expression.copy(), source_alias))
    if not items:
        raise InvalidStatementError("MATCH_RECOGNIZE with neither PARTITION BY nor MEASURES outputs no column",
                                    origin=ctx.first_origin(match, node))
    inner = exp.Select(expressions=items).from_(source, copy=False)
    decided = [_plain(d.this.copy() if isinstance(d, exp.Alias) else d.copy(), source_alias, aggregates=True)
               for d in match.args.get("define") or []]
    order = match.args.get("order")
    decided += [_plain(o.this.copy() if isinstance(o, exp.Ordered) else o.copy(), source_alias, aggregates=True)
                for o in (order.expressions if order is not None else [])]
    if decided:
        inner = inner.where(_reads_all(decided), copy=False)
    if partition:
        inner = inner.group_by(*[p.copy() for p in partition], copy=False)
    # Without an alias of its own, the rows keep the FROM item's name.
    derived = exp.Subquery(this=inner, alias=alias.copy() if isinstance(alias, exp.TableAlias)
                           else exp.TableAlias(this=exp.to_identifier(source_alias)))
    outer = node.copy()
    outer.set("match", None)
    outer.set("from_", exp.From(this=derived))
    if ctx.is_result(node):
        ctx.top_queries += (outer,)
    return outer


def _plain(expression: exp.Expression, source_alias: str, aggregates: bool = False) -> exp.Expression:
    """``expression`` with pattern variables' qualifiers dropped, PREV/NEXT read as the column
    they navigate, MATCH_NUMBER()/CLASSIFIER() as constants; with ``aggregates``, an aggregate
    (a running one, in DEFINE) read as its argument."""
    for column in list(expression.find_all(exp.Column)):
        if column.table and column.table.lower() != source_alias.lower():
            column.set("table", None)
    for call in list(expression.find_all(exp.Anonymous)):
        name = str(call.name).upper()
        if name in _NAVIGATION and call.expressions:
            _swap(call, call.expressions[0])
        elif name in _NO_SOURCE:
            _swap(call, exp.Literal.number(1))
    if aggregates:  # in DEFINE, FIRST/LAST navigate and SUM/COUNT … run over the rows so far
        for call in list(expression.find_all(exp.AggFunc)):
            argument = call.this if isinstance(call.this, exp.Expression) and not isinstance(call.this, exp.Star) \
                else exp.Literal.number(1)
            _swap(call, argument)
    return expression


def _swap(old: exp.Expression, new: exp.Expression) -> None:
    if old.parent is not None:
        old.replace(new)


def _measure(expression: exp.Expression, source_alias: str) -> exp.Expression:
    """A measure as an aggregate of its match's rows: its columns outside an aggregate are the
    match's value of them (``LAST``)."""
    named = expression if isinstance(expression, exp.Alias) else None
    body = named.this if named is not None else expression
    holder = exp.Paren(this=body)  # so the body itself can be replaced
    _plain(holder, source_alias)
    for column in list(holder.find_all(exp.Column)):
        if column.find_ancestor(exp.AggFunc) is None:
            column.replace(exp.Last(this=column.copy()))
    body = holder.this
    return exp.alias_(body, named.alias) if named is not None else body


def _reads_all(conditions: list[exp.Expression]) -> exp.Expression:
    """One predicate reading every column of ``conditions`` (which rows form matches depends on
    them all; the predicate's own truth is not what is said, only what it reads)."""
    parts = [exp.Paren(this=c) if not isinstance(c, (exp.Column, exp.Paren)) else c for c in conditions]
    predicate: exp.Expression = exp.Not(this=exp.Is(this=exp.Coalesce(this=parts[0], expressions=parts[1:]),
                                                    expression=exp.Null()))
    return predicate
