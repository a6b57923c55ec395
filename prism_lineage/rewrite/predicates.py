"""Predicates as lists of conjuncts, and back."""

from __future__ import annotations

from collections.abc import Sequence

from ..ir import Call, Expr
from ..ir.types import BOOLEAN
from .context import RewriteContext
from .provenance import standing_for


def conjuncts(predicate: Expr) -> list[Expr]:
    """``a AND (b AND c)`` → ``[a, b, c]``, in written order (an ``and`` call may have more
    than two arguments: a run ``a AND b AND c`` is one call)."""
    out: list[Expr] = []
    stack = [predicate]
    while stack:
        node = stack.pop()
        if isinstance(node, Call) and node.function == "and" and len(node.args) >= 2:
            stack.extend(reversed(node.args))
        else:
            out.append(node)
    return out


def conjoin(parts: Sequence[Expr], whole: Expr, ctx: RewriteContext) -> Expr:
    """The conjunction of ``parts``, some of the conjuncts of the authored predicate ``whole``.

    One part is itself.  Several get new ``and`` calls standing for ``whole`` (the authored
    conjunction they were part of); all of ``whole``'s parts give ``whole`` back.
    """
    if len(parts) == 1:
        return parts[0]
    if list(parts) == conjuncts(whole):
        return whole
    authored = standing_for([whole])
    result = parts[0]
    for part in parts[1:]:
        result = Call(ctx.derived_id(whole.id, "and"), whole.origin, BOOLEAN, "and", (result, part),
                      authored=authored)
    return result
