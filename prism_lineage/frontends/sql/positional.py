"""Positional column references: Snowflake's ``$1``, ``t.$2`` (``SELECT $1, $2:name FROM t``),
DuckDB's ``#1`` (in a select list, WHERE, GROUP BY …; in ORDER BY ``#n`` is the n-th select
item, read by the SELECT's ORDER BY like ``ORDER BY n``).

``$n`` is the n-th column of the FROM clause (of ``t`` when qualified), in the order ``SELECT *``
lists them.  Where a source before that position has columns nobody declared (a table without
a schema, a derived table's ``*``), which column stands at n is not known: the candidates are
its unknown columns and the later ones it may push into that place (conservative, said), as for
names given by position (renaming.py).  Never a constant, and never a column named ``1``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ...errors import InvalidStatementError
from ...ir import Expr, Origin
from .renaming import candidate, describe, positional_candidates

if TYPE_CHECKING:
    from .expressions import ExpressionLowerer
    from .scope import Source


def position_of(node: exp.Expression) -> int | None:
    """The n of ``$n`` (a parameter whose name is a whole number) or of DuckDB's ``#n``, else None."""
    if isinstance(node, (exp.Parameter, exp.PositionalColumn)) and isinstance(node.this, exp.Literal) \
            and not node.this.is_string and str(node.this.this).isdigit():
        return int(node.this.this)
    return None


def positional_name(scope, number: int) -> str | None:
    """The name of the n-th column of the FROM clause when it is known (DuckDB names ``#n`` so)."""
    order = [entry for source in _starred(scope) for entry in _columns_of(source)]
    first_open = next((i for i, entry in enumerate(order) if isinstance(entry, _Open)), None)
    if 1 <= number <= len(order) and (first_open is None or number - 1 < first_open):
        return order[number - 1].name
    return None


class _Open:
    """A stand-in, in the column order, for a source's columns nobody declared."""

    def __init__(self, source: "Source"):
        self.source = source
        self.name = f"{source.label}.*"


class _Known:
    """A declared column, in the column order."""

    def __init__(self, source: "Source", name: str):
        self.source = source
        self.name = name


def lower_positional(lowerer: "ExpressionLowerer", node: exp.Expression, number: int,
                     qualifier: tuple[str, ...] | None, origin: Origin | None, mode) -> Expr:
    scope = lowerer.scope
    ctx = lowerer.ctx
    written = ".".join(p.name for p in node.parts[:-1]) if isinstance(node, exp.Column) else ""
    sign = "#" if isinstance(node, exp.PositionalColumn) else "$"
    text = f"{written}.{sign}{number}" if written else f"{sign}{number}"
    if qualifier:
        source = scope.source(qualifier)
        if source is None:
            raise InvalidStatementError(f"{text}: {written} is no table in scope "
                                        f"({', '.join(scope.aliases())})", origin=origin)
        order: list = _columns_of(source)
        where = source.label
    else:
        if not scope.sources:
            raise InvalidStatementError(f"{text} names a column by position, but the query has no FROM clause",
                                        origin=origin)
        order = [entry for source in _starred(scope) for entry in _columns_of(source)]
        where = "the FROM clause"
    if number < 1:
        raise InvalidStatementError(f"{text}: column positions start at 1", origin=origin)
    index = number - 1
    first_open = next((i for i, entry in enumerate(order) if isinstance(entry, _Open)), None)
    if first_open is None or index < first_open:
        if index >= len(order):
            raise InvalidStatementError(f"{text}: {where} has {len(order)} columns", origin=origin)
        known = order[index]
        column = exp.column(exp.to_identifier(known.name, quoted=True),
                            table=exp.to_identifier(known.source.alias, quoted=True))
        # The reference is where ``$n`` is (sqlglot keeps no position for it: the nearest
        # enclosing expression's stands in).
        positioned = next((n for n in _self_and_ancestors(node) if n._meta and "start" in n._meta), None)
        if positioned is not None:
            for part in (column.this, column.args["table"]):
                part.meta.update({k: positioned.meta[k] for k in ("line", "col", "start", "end") if k in positioned.meta})
        return lowerer.lower(column, mode)
    fields = []
    for i in positional_candidates(order, index):
        entry = order[i]
        if isinstance(entry, _Open):
            fields.append(entry.source.open_column("*") if entry.source.scan is not None else entry.source.star)
        else:
            source = entry.source
            fields.append(source.scan.column(entry.name) if source.scan is not None else source.find(entry.name))
    labels = " or ".join(describe(order[i]) for i in positional_candidates(order, index))
    reason = (f"{text} is the column at position {number} of {where}, whose columns before it are not all in "
              f"the schema: it is {labels}, which is not known")
    return candidate(ctx, [f for f in fields if f is not None], reason, origin)


def _starred(scope) -> list["Source"]:
    return [entry for entry, _ in scope.star_order if not isinstance(entry, str)]


def _columns_of(source: "Source") -> list:
    """The source's columns in order: (source, name) for each known one, _Open for its unknown ones."""
    out: list = [_Known(source, name) for name in source.names()]
    if source.is_open:
        out.append(_Open(source))
    return out


def _self_and_ancestors(node: exp.Expression | None):
    while node is not None:
        yield node
        node = node.parent
