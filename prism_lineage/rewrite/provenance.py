"""Authored links: which authored targets a rewritten target stands for (specs/rewrites.md).

A rewritten target that stands for one authored target keeps that target's ``id`` and
``origin`` (its ``authored`` stays empty).  A target a rewrite makes — a filter split off and
pushed below a join, the semi join of a decorrelated ``EXISTS``, a copy of an inlined CTE —
gets a new id and lists in ``authored`` the authored targets it came from; a target that
absorbs others (two projections merged into one) keeps its id and lists itself and them.
``authored`` always names *authored* targets, never intermediate rewritten ones, so a tool
finds them in the authored plan in one step.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from ..ir import walk_relations
from ..ir.expressions import iter_tree
from ..ir.walk import expressions_of

if TYPE_CHECKING:
    from ..ir import Relation


class _Target(Protocol):
    id: str
    authored: tuple[str, ...]


def authored_ids(target: _Target) -> tuple[str, ...]:
    """The authored targets ``target`` stands for (itself, if it was authored)."""
    return target.authored or (target.id,)


def standing_for(targets: Iterable[_Target]) -> tuple[str, ...]:
    """The authored targets of several targets together, first appearance first."""
    return tuple(dict.fromkeys(i for target in targets for i in authored_ids(target)))


def plan_targets(root: Relation) -> Iterator[tuple[str, tuple[str, ...]]]:
    """``(id, authored ids)`` of every target of a plan: relations, the fields they create,
    expressions (an expression read in several places is listed for each)."""
    for relation in walk_relations(root):
        yield relation.id, authored_ids(relation)
        for field in getattr(relation, "columns", None) or ():
            yield field.id, authored_ids(field)
        for expr in expressions_of(relation):
            for node in iter_tree(expr):
                yield node.id, authored_ids(node)


def standing_in(root: Relation) -> dict[str, list[str]]:
    """Authored target id → the targets of the (rewritten) plan under ``root`` that stand
    for it, in plan order."""
    out: dict[str, list[str]] = {}
    for target, authored in plan_targets(root):
        for authored_id in authored:
            found = out.setdefault(authored_id, [])
            if target not in found:
                found.append(target)
    return out


def carry_ingress(origins: tuple, root: Relation) -> tuple:
    """Ingress origins (``ir.ingress.IngressOrigin``) re-pointed at the rewritten targets
    that stand for the authored targets they named: a client plan's node keeps naming what
    it produced, through every rewrite (RFC: ingress-origin relationships are preserved)."""
    if not origins:
        return origins
    standing = standing_in(root)
    carried = []
    for origin in origins:
        targets = tuple(dict.fromkeys(t for authored in origin.targets for t in standing.get(authored, ())))
        carried.append(replace(origin, targets=targets))
    return tuple(carried)
