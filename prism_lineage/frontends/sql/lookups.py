"""ClickHouse's dictionary lookups: ``dictGet('db.dict', 'attr', key)`` reads the attribute
``attr`` of the dictionary ``db.dict`` for ``key``.

The dictionary is a table the query reads (its first argument is its name, not a column), and
the value comes from the attribute's column and from the key that picks the row: the call is
lowered with the attribute as a scalar subquery over the dictionary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from ...ir import Call, Expr, Field, Scan, Subquery, SubqueryKind, field_id

if TYPE_CHECKING:
    from .expressions import ExpressionLowerer, Mode


def is_dictionary_lookup(node: exp.Expression, ctx) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.lower().startswith("dictget") and \
        type(ctx.dialect).__name__ == "ClickHouse" and len(node.expressions) >= 3


def dictionary_lookup(lowerer: "ExpressionLowerer", node: exp.Anonymous, mode: "Mode") -> Expr:
    ctx = lowerer.ctx
    dictionary, attributes, *rest = node.expressions
    parts = _name(dictionary, ctx)
    names = [a.name for a in (attributes.expressions if isinstance(attributes, exp.Tuple) else [attributes])]
    origin = lowerer._span(dictionary) or lowerer._span(node)
    table = ctx.catalog.lookup(parts, origin)
    table_name = table.name if table is not None else ".".join(parts)
    args: list[Expr] = []
    for name in names:
        column = table.column(name) if table is not None else None
        spelled = column.name if column is not None else name
        scan_id = ctx.ids.new("scan", origin)
        scan = Scan(scan_id, origin, table_name,
                    (Field(field_id(scan_id, spelled), spelled, column.type if column else None, origin),),
                    table is not None)
        args.append(Subquery(ctx.ids.new("subquery", origin), origin, scan.columns[0].type, SubqueryKind.SCALAR, scan))
    args.extend(lowerer.lower(k, mode) for k in rest)
    span = lowerer._span(node)
    return Call(ctx.ids.new("call", span), span, args[0].type if len(names) == 1 else None, node.name.lower(),
                tuple(args))


def _name(node: exp.Expression, ctx) -> tuple[str, ...]:
    if isinstance(node, exp.Column):
        return tuple(ctx.normalizer.part(p) for p in node.parts)
    return tuple(ctx.normalizer.name(p) for p in node.name.split("."))
