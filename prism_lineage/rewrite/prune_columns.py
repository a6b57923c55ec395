"""Prune unused columns: fields no reader needs are not computed, and table reads list only
the columns still needed (their projection mask).

What is needed is worked out top-down, once: the statement's output fields; every field an
operator reads for the fields it keeps (a projection's kept expressions, all group keys,
kept measures and window calls) and for its rows (predicates, join conditions, sort keys,
limits); every field of a DISTINCT, set operation, CTE or recursive CTE input (they compare
or merge whole rows by position); every output field of a subquery; and every field read by
a correlated reference, wherever it is.  An operator this rewrite does not know (a newer IR
node) needs all its inputs' fields.

Pruned: projection fields, measures, window calls (a window left with none goes), scanned
columns.  Group keys are never pruned (they decide the groups), nor are VALUES columns,
generated columns or the columns of a table read with declared masking policies.

Lineage: a field nobody reads reaches no output, and no relation-level dependency reads it
(those read fields through predicates, which count as readers), so every answer is
unchanged.  Remaining targets keep their ids.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import (
    Aggregate,
    CandidateRef,
    CteRef,
    Distinct,
    Filter,
    Join,
    Limit,
    OuterRef,
    Project,
    RecursiveCte,
    RecursiveRef,
    Relation,
    Scan,
    SetOperation,
    Sort,
    Subquery,
    Transformed,
    Values,
    Window,
    transform,
    walk_relations,
)
from ..ir.expressions import iter_tree
from ..ir.walk import expressions_of
from .context import RewriteContext
from .references import shallow_reads


def prune_columns(root: Relation, ctx: RewriteContext) -> Transformed[Relation]:
    needed = needed_fields(root)

    def on_relation(node: Relation) -> Transformed[Relation]:
        return _prune(node, needed)

    return transform(root, on_relation)


def needed_fields(root: Relation) -> set[str]:
    relations = list(walk_relations(root))
    needed = {f.id for f in root.fields}
    for relation in relations:
        needed.update(_always_needed(relation))
    # Children come before parents in ``walk_relations``: reversed, every reader of a
    # relation's fields is seen before the relation itself.
    for relation in reversed(relations):
        needed.update(_reads(relation, needed))
    return needed


def _always_needed(relation: Relation) -> set[str]:
    """Fields read from anywhere in the plan: by correlated references, candidate columns,
    recursive references, and a subquery's output."""
    out: set[str] = set(getattr(relation, "cte_fields", ()))
    for expr in expressions_of(relation):
        for node in iter_tree(expr):
            if isinstance(node, OuterRef):
                out.add(node.field)
            elif isinstance(node, CandidateRef):
                out.update(node.fields)
            elif isinstance(node, Subquery):
                out.update(f.id for f in node.relation.fields)
    return out


def _reads(relation: Relation, needed: set[str]) -> set[str]:
    """The fields ``relation`` reads from its inputs, given which of its fields are needed."""
    match relation:
        case Project(exprs=exprs, columns=columns):
            return _fields_of(e for e, f in zip(exprs, columns) if f.id in needed)
        case Aggregate(keys=keys, measures=measures, columns=columns):
            kept = [m for m, f in zip(measures, columns[len(keys):]) if f.id in needed]
            return _fields_of([*keys, *kept])
        case Window(calls=calls, columns=columns):
            return _fields_of(c for c, f in zip(calls, columns) if f.id in needed)
        case Filter() | Join() | Sort() | Limit() | Scan() | Values() | RecursiveRef():
            return _fields_of(expressions_of(relation))
        case Distinct() | SetOperation() | CteRef() | RecursiveCte():
            return _fields_of(expressions_of(relation)) | _input_fields(relation)
        case _:
            return _fields_of(expressions_of(relation)) | _input_fields(relation)


def _fields_of(exprs) -> set[str]:
    out: set[str] = set()
    for expr in exprs:
        out.update(shallow_reads(expr))
    return out


def _input_fields(relation: Relation) -> set[str]:
    return {f.id for child in relation.inputs for f in child.fields}


def _prune(node: Relation, needed: set[str]) -> Transformed[Relation]:
    match node:
        case Project(exprs=exprs, columns=columns):
            keep = [i for i, f in enumerate(columns) if f.id in needed]
            if len(keep) == len(columns):
                return Transformed.no(node)
            return Transformed.yes(replace(node, exprs=tuple(exprs[i] for i in keep),
                                           columns=tuple(columns[i] for i in keep)))
        case Aggregate(keys=keys, measures=measures, columns=columns):
            keep = [i for i, f in enumerate(columns[len(keys):]) if f.id in needed]
            if len(keep) == len(measures):
                return Transformed.no(node)
            return Transformed.yes(replace(
                node, measures=tuple(measures[i] for i in keep),
                columns=columns[:len(keys)] + tuple(columns[len(keys) + i] for i in keep),
            ))
        case Window(calls=calls, columns=columns):
            keep = [i for i, f in enumerate(columns) if f.id in needed]
            if len(keep) == len(calls):
                return Transformed.no(node)
            if not keep:
                return Transformed.yes(node.input)
            return Transformed.yes(replace(node, calls=tuple(calls[i] for i in keep),
                                           columns=tuple(columns[i] for i in keep)))
        case Scan(columns=columns) if not getattr(node, "masks", ()):
            kept = tuple(f for f in columns if f.id in needed)
            if len(kept) == len(columns):
                return Transformed.no(node)
            return Transformed.yes(replace(node, columns=kept))
    return Transformed.no(node)
