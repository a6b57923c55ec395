"""Lowering of whole statements: queries today; writes and scripts build on it."""

from __future__ import annotations

from sqlglot import exp

from ...ir import Relation, Statement
from .context import LoweringContext
from .queries import CteEnv, QueryLowerer

_QUERY_TYPES = (exp.Query, exp.Values)


def lower_statement(node: exp.Expression, ctx: LoweringContext) -> Statement:
    queries = QueryLowerer(ctx)
    if isinstance(node, _QUERY_TYPES) or (isinstance(node, exp.Subquery)):
        root: Relation = queries.lower_query(node, None, CteEnv())
        return Statement(ctx.statement, "select", root, root.origin, uncertain=tuple(ctx.uncertain))
    kind = node.key.lower()
    origin = ctx.origin(node) or _first_origin(node, ctx)
    ctx.uncertain_about(f"{kind.upper()} statements are not analysed: their lineage is unknown", None, origin)
    return Statement(ctx.statement, kind, None, origin, uncertain=tuple(ctx.uncertain))


def _first_origin(node: exp.Expression, ctx: LoweringContext):
    for child in node.walk():
        origin = ctx.origin(child)
        if origin is not None:
            return origin
    return None
