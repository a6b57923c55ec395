"""Plan-level lineage edges and the structural links beside them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..ir import Origin
from ..ir.quick import quick_init
from .kinds import Confidence, Relationship, Transformation


@quick_init
@dataclass(frozen=True, slots=True)
class Edge:
    """``source`` → ``target`` (target ids), with the RFC's kinds and the evidence for it.

    Evidence: the ``rule`` that emitted the edge, the plan ``node`` it read, and the
    ``origin`` of the expression (or operator) that wrote the dependency.
    """

    source: str
    target: str
    relationship: Relationship
    transformation: Transformation
    confidence: Confidence
    expression: str | None
    rule: str
    node: str
    origin: Origin | None
    reason: str | None = None
    # The part of the source read, as a path below it (``[].sku``, ``.a.b`` …; specs/nested.md);
    # ``None``: the whole value.
    path: str | None = None


class EdgeFields(NamedTuple):
    """An ``Edge``'s fields, in the same order, as a plain tuple: what the rules emit
    (``Edge(*fields)`` is the edge).  End-to-end resolution reads these directly, and a
    ``LineageGraph`` makes its ``Edge`` objects only when its edges are asked for — ``explain``
    never asks, and building some 10,000 frozen edges per pass over TPC-DS was a twentieth of
    its time."""

    source: str
    target: str
    relationship: Relationship
    transformation: Transformation
    confidence: Confidence
    expression: str | None
    rule: str
    node: str
    origin: Origin | None
    reason: str | None = None
    path: str | None = None


@quick_init
@dataclass(frozen=True, slots=True)
class Link:
    """A structural link that is *not* lineage by itself.

    ``flow``: the rows of relation ``source`` flow into ``target`` (an operator's input, or a
    subquery read by a predicate or a field) — so the relation-level dependencies of
    ``source`` apply to ``target``.  ``matched``: the rows of ``source`` are the side of an
    outer join that is padded with NULLs where nothing matches: its dependencies apply to
    ``target`` too, but what decides which of its rows exist (control) only decides which
    rows are matched there (join).  ``ingress`` and ``rewrite`` links (from external plans
    and rewrites) record provenance only.
    """

    source: str
    target: str
    kind: str = "flow"


# Links along which rows (and so relation-level dependencies) flow: lineage, not provenance.
ROW_LINKS = frozenset({"flow", "matched"})


def column_name(column_target: str) -> str:
    """``column:orders.amount`` → ``orders.amount``."""
    return column_target[7:] if column_target.startswith("column:") else column_target
