"""Inline CTEs: each reference to a ``WITH`` definition is replaced by the definition itself,
and whatever read the reference's fields reads the definition's fields.

The first reference (in plan order) takes the definition as it is, with its authored ids
(unless a reference that stays a CTE still reads it).  Every further reference takes a copy: a self-join of a CTE keeps two sides with their own
targets (identity is the id, never the structure).  A copy's targets get ids derived from
the authored ones and the reference (``<authored id>/<reference id>``) and ``authored``
naming the authored target each copies.  A copy is made only while the plan stays small:
a definition of more than ``COPY_LIMIT`` operators read more than once stays a CTE
(nested CTEs read twice at every level would otherwise grow the plan exponentially).

Recursive CTEs are not inlined (they are a fixed point, not a definition), nor is a
reference whose fields are the statement's output fields (its names are the answer's).

Lineage: a reference's fields had identity, exact value lineage from the definition's fields
by position and the definition's rows flowed into it; reading the definition's fields
directly composes to the same answers.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ..ir import (
    CandidateRef,
    CteRef,
    Expr,
    Field,
    FieldRef,
    OuterRef,
    RecursiveRef,
    Relation,
    Transformed,
    transform,
    walk_relations,
)
from .context import RewriteContext
from .provenance import authored_ids

COPY_LIMIT = 200


def inline_ctes(root: Relation, ctx: RewriteContext) -> Transformed[Relation]:
    """Inline every CTE reference under ``root`` (a whole-plan rewrite: readers of a
    reference's fields anywhere in the plan are redirected)."""
    references = [r for r in walk_relations(root) if isinstance(r, CteRef)]
    if not references:
        return Transformed.no(root)
    readers = Counter(r.definition.id for r in references)
    outputs = {f.id for f in root.fields}
    kept = {
        r.id for r in references
        if outputs & {f.id for f in r.columns} or (readers[r.definition.id] > 1 and _size(r.definition) > COPY_LIMIT)
    }
    # A definition a kept reference still reads is never placed as it is elsewhere too: one
    # node under two parents would be rewritten as one by some rewrites and not others.
    still_read = {r.definition.id for r in references if r.id in kept}
    placed: set[str] = set()
    renamed: dict[str, str] = {}

    def on_relation(node: Relation) -> Transformed[Relation]:
        if isinstance(node, CteRef):
            if node.id in kept:
                return Transformed.no(node)
            definition = node.definition
            if definition.id in placed or definition.id in still_read:
                body = copy_plan(definition, node.id, ctx)
            else:
                body = definition
                placed.add(definition.id)
            renamed.update(zip((f.id for f in node.columns), (f.id for f in body.fields)))
            return Transformed.yes(body)
        if isinstance(node, RecursiveRef) and renamed.keys() & set(node.cte_fields):
            return Transformed.yes(replace(node, cte_fields=tuple(renamed.get(f, f) for f in node.cte_fields)))
        return Transformed.no(node)

    def on_expr(node: Expr) -> Transformed[Expr]:
        return _redirect(node, renamed)

    return transform(root, on_relation, on_expr)


def _redirect(node: Expr, renamed: dict[str, str]) -> Transformed[Expr]:
    """A field reference to a renamed field, made to read the new field (same node id)."""
    if isinstance(node, (FieldRef, OuterRef)) and node.field in renamed:
        return Transformed.yes(replace(node, field=renamed[node.field]))
    if isinstance(node, CandidateRef) and renamed.keys() & set(node.fields):
        return Transformed.yes(replace(node, fields=tuple(renamed.get(f, f) for f in node.fields)))
    return Transformed.no(node)


def _size(root: Relation) -> int:
    return sum(1 for _ in walk_relations(root))


def copy_plan(root: Relation, reference: str, ctx: RewriteContext) -> Relation:
    """A copy of the plan under ``root`` with new ids for every target it defines, read
    through the CTE reference ``reference``; references into the copy follow it."""
    renamed: dict[str, str] = {}
    for relation in walk_relations(root):
        new = ctx.derived_id(relation.id, reference)
        renamed[relation.id] = new
        for f in getattr(relation, "columns", None) or ():
            renamed[f.id] = f"{new}#{f.id.rpartition('#')[2]}"

    def on_relation(node: Relation) -> Transformed[Relation]:
        changes: dict[str, object] = {"id": renamed[node.id], "authored": authored_ids(node)}
        columns = getattr(node, "columns", None)
        if columns is not None:
            changes["columns"] = tuple(_copy_field(f, renamed) for f in columns)
        if isinstance(node, RecursiveRef):
            changes["cte"] = renamed.get(node.cte, node.cte)
            changes["cte_fields"] = tuple(renamed.get(f, f) for f in node.cte_fields)
        return Transformed.yes(replace(node, **changes))

    def on_expr(node: Expr) -> Transformed[Expr]:
        redirected = _redirect(node, renamed).node
        new = renamed.get(node.id)
        if new is None:
            new = renamed[node.id] = ctx.derived_id(node.id, reference)
        return Transformed.yes(replace(redirected, id=new, authored=authored_ids(node)))

    return transform(root, on_relation, on_expr).node


def _copy_field(field: Field, renamed: dict[str, str]) -> Field:
    return replace(field, id=renamed[field.id], authored=authored_ids(field))
