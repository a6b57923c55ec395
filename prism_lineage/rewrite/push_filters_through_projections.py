"""Push filters through projections: a filter over a projection moves below it, reading
the projection's expressions in place of the fields they compute
(``SELECT * FROM (SELECT a + 1 AS b FROM t) WHERE b > 2`` filters ``t`` on ``a + 1 > 2``).

A conjunct moves only when every field of the projection it reads is computed by a
deterministic expression it may read in the field's place (``movable.can_substitute``: a
reference, a literal, or a *transparent* expression read whole): then the filter reads, as
control, exactly the fields (with the same confidence) it read through the projection, and
evaluating the expression once more changes no value.  A conjunct reading a field computed
by a subquery, an opaque function or ``random()`` stays above, as does one whose own
subqueries read the projection's fields (a correlated reference).

The moved filter keeps the authored filter's id when it moves whole; a part of it gets a new
id and ``authored`` naming the authored filter.  The substituted expressions are the
projection's own (same ids), now read in one more place.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import CandidateRef, Expr, FieldRef, Filter, Project, Relation, Subquery, Transformed
from ..ir.expressions import iter_tree
from .context import RewriteContext
from .movable import can_substitute, is_deterministic
from .predicates import conjoin, conjuncts
from .provenance import authored_ids, standing_for
from .references import plan_reads, substitute


def push_filters_through_projections(node: Relation, ctx: RewriteContext) -> Transformed[Relation]:
    if not (isinstance(node, Filter) and isinstance(node.input, Project)):
        return Transformed.no(node)
    pushed = _push(node, ctx)
    return Transformed.no(node) if pushed is None else Transformed.yes(pushed)


def _push(node: Filter, ctx: RewriteContext) -> Relation | None:
    project = node.input
    assert isinstance(project, Project)
    computed = {f.id: e for f, e in zip(project.columns, project.exprs)}
    move: list[Expr] = []
    stay: list[Expr] = []
    for conjunct in conjuncts(node.predicate):
        (move if _can_move(conjunct, computed, ctx) else stay).append(conjunct)
    if not move:
        return None
    if stay:
        below = Filter(ctx.derived_id(authored_ids(node)[0], "pushed"), node.origin, project.input,
                       conjoin([substitute(c, computed) for c in move], node.predicate, ctx), node.clause,
                       authored=standing_for([node]))
    else:
        below = replace(node, input=project.input, predicate=substitute(node.predicate, computed))
    if isinstance(below.input, Project):
        below = _push(below, ctx) or below
    moved = replace(project, input=below)
    if not stay:
        return moved
    return replace(node, input=moved, predicate=conjoin(stay, node.predicate, ctx))


def _can_move(conjunct: Expr, computed: dict[str, Expr], ctx: RewriteContext) -> bool:
    functions = ctx.functions
    for node in iter_tree(conjunct):
        if isinstance(node, FieldRef) and node.field in computed:
            replacement = computed[node.field]
            if not is_deterministic(replacement, functions) or \
                    not can_substitute(conjunct, node, replacement, functions, as_value=False):
                return False
        elif isinstance(node, CandidateRef) and computed.keys() & set(node.fields):
            return False
        elif isinstance(node, Subquery) and plan_reads(node.relation) & computed.keys():
            return False
    return True
