"""A statement: the plan of one query (or write) with what the frontend could not analyse."""

from __future__ import annotations

from dataclasses import dataclass, field

from .ingress import IngressOrigin
from .origin import Origin
from .quick import quick_init
from .relations import Relation


@quick_init
@dataclass(frozen=True, slots=True)
class Uncertainty:
    """Something the frontend could not determine, said explicitly.

    ``field`` names the affected output field (``None``: the whole statement).
    ``unless_said``: shown only when no output's sources carry the same reason already (an
    operator read not exactly says so on the edges through it; where none of them reaches a
    base column — it reads constants — nothing else would say it).
    """

    reason: str
    field: str | None = None
    origin: Origin | None = None
    unless_said: bool = False


@quick_init
@dataclass(frozen=True, slots=True)
class WrittenColumn:
    """A column of the written table and the root field that supplies it."""

    name: str
    field: str  # field id in ``Statement.root``


@quick_init
@dataclass(frozen=True, slots=True)
class Statement:
    """One analysed statement.

    ``kind`` is ``select`` for queries; writes (``insert``, ``create_table`` …) name their
    ``target`` and map the root's fields onto the written columns in ``writes``.  ``root`` is
    ``None`` when nothing could be analysed (then ``uncertain`` says why).  ``ingress`` holds,
    for a plan received from an external client (a Substrait plan), the client plan's nodes
    and the targets lowered from each: provenance, never lineage.
    """

    index: int
    kind: str
    root: Relation | None
    origin: Origin | None = None
    target: str | None = None
    writes: tuple[WrittenColumn, ...] | None = None
    uncertain: tuple[Uncertainty, ...] = field(default=())
    ingress: tuple[IngressOrigin, ...] = field(default=())
    ordering: tuple[str, ...] | None = None
    # The tables the statement as authored reads.  ``None``: those its plan scans.  A rewrite
    # that prunes a dead subquery sets it, so the summary stays what the statement, as written,
    # reads (rewrites never change an answer).
    reads: tuple[str, ...] | None = None
    # The procedure or function whose body holds the statement (``CREATE PROCEDURE p … BEGIN
    # <statement> … END``), as written; ``None`` for a statement of the script itself.
    procedure: str | None = None
