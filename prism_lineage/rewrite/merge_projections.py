"""Merge adjacent projections: a projection over a projection becomes one, its expressions
reading the lower projection's expressions in place of the fields they compute
(``SELECT b * 2 FROM (SELECT a + 1 AS b FROM t)`` → ``SELECT (a + 1) * 2 FROM t``).

The merged projection keeps the upper projection's id and fields (what its readers see) and
lists both authored projections in ``authored``.

When it does not merge (the lower projection stays, so each answer is read as authored):

* a lower expression other than a bare field or a literal would be computed twice (the
  upper projection reads its field more than once);
* the upper projection reads a lower field from inside a subquery (a correlated reference)
  or as a candidate column of schema-less tables;
* the upper expression could not read the lower expression in place of its field with the
  same lineage (``movable.can_substitute``): e.g. a lower expression that is not transparent
  read below an opaque call, whose confidence and reason ``value_inputs`` would then apply
  instead of composing the two as lineage composes two projections, or any computed lower
  expression read through a nested access (``f.x``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ..ir import CandidateRef, Expr, FieldRef, Project, Relation, Subquery, Transformed
from ..ir.expressions import iter_tree
from .context import RewriteContext
from .movable import can_substitute, is_reference_or_literal
from .provenance import standing_for
from .references import plan_reads, substitute


def merge_projections(node: Relation, ctx: RewriteContext) -> Transformed[Relation]:
    if not (isinstance(node, Project) and isinstance(node.input, Project)):
        return Transformed.no(node)
    lower = node.input
    computed = {f.id: e for f, e in zip(lower.columns, lower.exprs)}
    if not _can_merge(node, computed, ctx):
        return Transformed.no(node)
    exprs = tuple(substitute(e, computed) for e in node.exprs)
    return Transformed.yes(replace(node, input=lower.input, exprs=exprs, authored=standing_for([node, lower])))


def _can_merge(upper: Project, computed: dict[str, Expr], ctx: RewriteContext) -> bool:
    uses: Counter[str] = Counter()
    for expr in upper.exprs:
        for node in iter_tree(expr):
            if isinstance(node, CandidateRef) and computed.keys() & set(node.fields):
                return False
            if isinstance(node, Subquery) and plan_reads(node.relation) & computed.keys():
                return False
            if isinstance(node, FieldRef) and node.field in computed:
                uses[node.field] += 1
                if not can_substitute(expr, node, computed[node.field], ctx.functions, as_value=True):
                    return False
    return all(n == 1 or is_reference_or_literal(computed[field]) for field, n in uses.items())
