"""Which fields expressions and operators read, and rewriting those references.

Fields are referenced by id (``FieldRef``, ``OuterRef`` from a correlated subquery,
``CandidateRef`` for a column of one of several schema-less tables), and ids are unique in a
plan, so "does this conjunct read the left side of the join" is a set question.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..ir import CandidateRef, Expr, FieldRef, OuterRef, Relation, Subquery, Transformed, transform, walk_relations
from ..ir.expressions import iter_tree
from ..ir.walk import expressions_of

_REFS = (FieldRef, OuterRef)


def shallow_reads(expr: Expr) -> list[str]:
    """The fields ``expr`` reads itself (not inside its subqueries' relations), with repeats."""
    out: list[str] = []
    for node in iter_tree(expr):
        if isinstance(node, _REFS):
            out.append(node.field)
        elif isinstance(node, CandidateRef):
            out.extend(node.fields)
    return out


def deep_reads(exprs: Iterable[Expr]) -> set[str]:
    """Every field ``exprs`` read, including what their subqueries read at any depth
    (correlated references to enclosing queries among them)."""
    out: set[str] = set()
    for expr in exprs:
        out.update(shallow_reads(expr))
        for node in iter_tree(expr):
            if isinstance(node, Subquery):
                out.update(plan_reads(node.relation))
    return out


def plan_reads(root: Relation) -> set[str]:
    """Every field any expression of the plan under ``root`` reads."""
    out: set[str] = set()
    for relation in walk_relations(root):
        for expr in expressions_of(relation):
            out.update(shallow_reads(expr))
        out.update(getattr(relation, "cte_fields", ()))
    return out


def has_subquery(expr: Expr) -> bool:
    return any(isinstance(node, Subquery) for node in iter_tree(expr))


def substitute(expr: Expr, replacements: Mapping[str, Expr]) -> Expr:
    """``expr`` with each ``FieldRef`` to a field in ``replacements`` replaced by its
    expression.  The replacement is shared, not copied: it is the same authored expression,
    now read in one more place (an expression may have several parents, as a CTE
    definition has several readers)."""

    def on_expr(node: Expr) -> Transformed[Expr]:
        if isinstance(node, FieldRef) and node.field in replacements:
            return Transformed.yes(replacements[node.field])
        return Transformed.no(node)

    return transform(expr, on_expr=on_expr).node


def as_field_refs(expr: Expr, fields: set[str]) -> Expr:
    """``expr`` with each correlated ``OuterRef`` to one of ``fields`` made a plain
    ``FieldRef`` — the same authored reference (id, origin), now read from a join input."""

    def on_expr(node: Expr) -> Transformed[Expr]:
        if isinstance(node, OuterRef) and node.field in fields:
            return Transformed.yes(FieldRef(node.id, node.origin, node.type, node.field, authored=node.authored))
        return Transformed.no(node)

    return transform(expr, on_expr=on_expr).node
