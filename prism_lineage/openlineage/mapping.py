"""Our lineage vocabulary and OpenLineage's column-lineage transformations, both ways
(specs/openlineage.md, "Mapping").

OpenLineage (ColumnLineageDatasetFacet 1-2-0) says how an input field affects an output field
with a ``type`` (DIRECT: the value flows; INDIRECT: the input decides which rows or how) and a
``subtype``.  Our answers say it with a relationship kind and a transformation kind.  Where the
standard vocabulary has no word (policy and quality dependencies, the nine transformation kinds
beyond identity/aggregate/mask) the export keeps ours in the prismLineage facet.
"""

from __future__ import annotations

from typing import NamedTuple

from ..lineage.kinds import Relationship, Transformation

DIRECT = "DIRECT"
INDIRECT = "INDIRECT"

# DIRECT subtypes.
IDENTITY = "IDENTITY"
TRANSFORMATION = "TRANSFORMATION"
AGGREGATION = "AGGREGATION"
# INDIRECT subtypes.
JOIN = "JOIN"
GROUP_BY = "GROUP_BY"
FILTER = "FILTER"
SORT = "SORT"
WINDOW = "WINDOW"
CONDITIONAL = "CONDITIONAL"

DIRECT_SUBTYPES = (IDENTITY, TRANSFORMATION, AGGREGATION)
INDIRECT_SUBTYPES = (JOIN, GROUP_BY, FILTER, SORT, WINDOW, CONDITIONAL)


class Standard(NamedTuple):
    """One OpenLineage transformation: ``masking`` is ``None`` where it is not known."""

    type: str
    subtype: str
    masking: bool | None


# An indirect dependency's subtype follows from the relationship alone: the transformation kind
# of an indirect source only says what happened to the column on its way to the predicate or
# key (an ORDER BY on a masked column is still a SORT).
_INDIRECT = {
    Relationship.JOIN: JOIN,
    Relationship.GROUPING: GROUP_BY,
    Relationship.CONTROL: FILTER,
    Relationship.SORT: SORT,
    Relationship.WINDOW: WINDOW,
}

# A value dependency: IDENTITY only when the value is the input's, unchanged; reading a part of
# a nested or semi-structured column is not the column's value, so it is a TRANSFORMATION.
_DIRECT_SUBTYPE = {
    Transformation.IDENTITY: IDENTITY,
    Transformation.AGGREGATE: AGGREGATION,
}

# ``masking``: true for a masking policy (or a function the registry calls a mask); unknown for
# an opaque or undetermined computation, which may or may not hide the data; false otherwise.
_MASKING_UNKNOWN = frozenset({Transformation.OPAQUE, Transformation.UNKNOWN})


def to_standard(relationship: str, transformation: str) -> Standard | None:
    """The OpenLineage transformation of one of our sources; ``None`` for the kinds the
    standard facet cannot hold (policy, quality): they are in the prismLineage facet only."""
    relationship = Relationship(relationship)
    transformation = Transformation(transformation)
    if relationship is Relationship.VALUE:
        if transformation is Transformation.MASK:
            return Standard(DIRECT, TRANSFORMATION, True)
        masking = None if transformation in _MASKING_UNKNOWN else False
        return Standard(DIRECT, _DIRECT_SUBTYPE.get(transformation, TRANSFORMATION), masking)
    subtype = _INDIRECT.get(relationship)
    if subtype is None:
        return None
    return Standard(INDIRECT, subtype, None)


class Ours(NamedTuple):
    relationship: str
    transformation: str


# Reading someone else's facet (an integration's run event): what each standard transformation
# is in our words.  CONDITIONAL (a CASE/IF condition) is a value dependency to us: the RFC reads
# every input of an expression as flowing into its value.
_FROM_INDIRECT = {
    JOIN: Ours(Relationship.JOIN.value, Transformation.JOIN.value),
    GROUP_BY: Ours(Relationship.GROUPING.value, Transformation.AGGREGATE.value),
    FILTER: Ours(Relationship.CONTROL.value, Transformation.FILTER.value),
    SORT: Ours(Relationship.SORT.value, Transformation.IDENTITY.value),
    WINDOW: Ours(Relationship.WINDOW.value, Transformation.WINDOW.value),
    CONDITIONAL: Ours(Relationship.VALUE.value, Transformation.EXPRESSION.value),
}


def from_standard(type_: str | None, subtype: str | None, masking: bool | None) -> Ours:
    """Our words for a standard transformation another producer wrote.  A type or subtype we
    do not know reads as a value (DIRECT) or control (INDIRECT) dependency of unknown
    transformation, never as something more precise than the event said."""
    type_ = (type_ or "").upper()
    subtype = (subtype or "").upper()
    if type_ == INDIRECT:
        return _FROM_INDIRECT.get(subtype, Ours(Relationship.CONTROL.value, Transformation.UNKNOWN.value))
    if masking:
        return Ours(Relationship.VALUE.value, Transformation.MASK.value)
    if subtype == IDENTITY:
        return Ours(Relationship.VALUE.value, Transformation.IDENTITY.value)
    if subtype == AGGREGATION:
        return Ours(Relationship.VALUE.value, Transformation.AGGREGATE.value)
    if subtype == TRANSFORMATION:
        return Ours(Relationship.VALUE.value, Transformation.EXPRESSION.value)
    return Ours(Relationship.VALUE.value, Transformation.UNKNOWN.value)


def from_legacy(transformation_type: str | None) -> Ours:
    """Facets before 1-1-0 said only ``transformationType`` per output field (IDENTITY or
    MASKED), for all of its inputs."""
    kind = (transformation_type or "").upper()
    if kind == "IDENTITY":
        return Ours(Relationship.VALUE.value, Transformation.IDENTITY.value)
    if kind == "MASKED":
        return Ours(Relationship.VALUE.value, Transformation.MASK.value)
    return Ours(Relationship.VALUE.value, Transformation.UNKNOWN.value)
