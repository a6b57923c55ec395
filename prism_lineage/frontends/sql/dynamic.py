"""Dynamic SQL: ``EXECUTE IMMEDIATE``, T-SQL's ``EXEC('…')`` and ``sp_executesql``.

When the statement text is a constant string, it is analysed as if written in place (its
positions point into the string).  When it is built at run time (concatenation, variables)
or names a procedure, what it reads and writes is unknown: the statement is reported with an
``uncertain`` entry saying so (specs/uncertainty.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlglot import exp

from ...ir import Statement
from .context import LoweringContext
from .parsing import parse_statements

# A whole constant: '…' (with '' escapes), "…", or $$…$$.
_CONSTANT = re.compile(r"""^\s*(?:'((?:[^']|'')*)'|"((?:[^"\\]|\\.)*)"|\$\$(.*?)\$\$)\s*;?\s*$""", re.S)


def lower_dynamic(node: exp.Expression, ctx: LoweringContext,
                  lower_statement: Callable[[exp.Expression, LoweringContext], Statement]) -> Statement | None:
    """The statement ``node`` runs, or ``None`` when ``node`` is not dynamic SQL."""
    text = _dynamic_text(node)
    if text is None:
        return None
    constant = _CONSTANT.match(text)
    if constant is None:
        return _unknown(node, ctx, f"dynamic SQL built at run time ({_short(text)}): what it reads and writes is "
                                   "unknown")
    sql = next(part for part in constant.groups() if part is not None)
    sql = sql.replace("''", "'") if constant.group(1) is not None else sql
    inner = _parse_in_place(sql, ctx)
    if len(inner) != 1:
        return _unknown(node, ctx, f"dynamic SQL holding {len(inner)} statements is not analysed")
    return lower_statement(inner[0], ctx)


def _dynamic_text(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Command) and str(node.this).upper() in ("EXECUTE", "EXEC"):
        rest = node.expression.name if isinstance(node.expression, exp.Literal) else ""
        match = re.match(r"\s*IMMEDIATE\b(.*)$", rest, re.S | re.I)
        return match.group(1) if match else f"EXECUTE {rest}"
    if isinstance(node, exp.Execute):
        target = node.this.this if isinstance(node.this, exp.Subquery) else None
        if isinstance(target, exp.Table) and isinstance(target.this, exp.Identifier) and target.this.quoted:
            return "'" + target.this.this.replace("'", "''") + "'"
        return node.sql(dialect="tsql")
    if isinstance(node, exp.ExecuteSql):
        first = node.expressions[0] if node.expressions else None
        if isinstance(first, (exp.National, exp.Literal)) and first.is_string:
            return "'" + first.this.replace("'", "''") + "'"
        return node.sql(dialect="tsql")
    return None


def _parse_in_place(sql: str, ctx: LoweringContext) -> list[exp.Expression]:
    """Parse ``sql`` so that its positions are those of the string in the script's text."""
    raw = ctx.source or ""
    at = raw.find(sql)
    padded = sql if at < 0 else re.sub(r"[^\n]", " ", raw[:at]) + sql
    return parse_statements(padded, ctx.dialect, ctx.text)


def _unknown(node: exp.Expression, ctx: LoweringContext, reason: str) -> Statement:
    from .writes import statement_origin

    origin = statement_origin(node, ctx)
    ctx.uncertain_about(reason, None, origin)
    return Statement(ctx.statement, "execute", None, origin, uncertain=tuple(ctx.uncertain))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "…"
