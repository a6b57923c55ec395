"""The lineage vocabulary of the RFC: relationship kinds, transformation kinds, confidence."""

from __future__ import annotations

from enum import StrEnum


class Relationship(StrEnum):
    """How a source target affects a destination target."""

    VALUE = "value"  # the destination's values are computed from the source's
    CONTROL = "control"  # the source decides which rows exist (WHERE, HAVING, QUALIFY …)
    GROUPING = "grouping"  # the source decides how rows are grouped (GROUP BY, DISTINCT ON)
    JOIN = "join"  # the source decides which rows are matched (join keys and predicates)
    SORT = "sort"  # the source decides the order of rows (ORDER BY)
    WINDOW = "window"  # the source shapes a window (PARTITION BY, ORDER BY, frame, inputs)
    POLICY = "policy"  # a declared row-access or masking policy reads the source
    QUALITY = "quality"  # a declared data-quality check reads the source


class Transformation(StrEnum):
    """What happens to the data on the way."""

    IDENTITY = "identity"
    EXPRESSION = "expression"
    AGGREGATE = "aggregate"
    WINDOW = "window"
    GENERATOR = "generator"
    FILTER = "filter"
    JOIN = "join"
    MASK = "mask"
    FORMAT_PARSE = "format_parse"
    NESTED_ACCESS = "nested_access"
    SEMI_STRUCTURED_ACCESS = "semi_structured_access"
    OPAQUE = "opaque"
    UNKNOWN = "unknown"


class Confidence(StrEnum):
    EXACT = "exact"  # the source set is right
    CONSERVATIVE = "conservative"  # a safe over-approximation
    UNKNOWN = "unknown"  # could not be determined (said explicitly, never shown as "none")


# How much a transformation changes the data, weakest first.  A path's transformation is
# its strongest hop: identity only if every hop is identity.  ``mask`` ranks above
# ``aggregate`` so that a masked value stays visibly masked when it is summed later.
_STRENGTH = {
    kind: rank
    for rank, kind in enumerate(
        (
            Transformation.IDENTITY,
            Transformation.NESTED_ACCESS,
            Transformation.SEMI_STRUCTURED_ACCESS,
            Transformation.FORMAT_PARSE,
            Transformation.FILTER,
            Transformation.JOIN,
            Transformation.EXPRESSION,
            Transformation.GENERATOR,
            Transformation.WINDOW,
            Transformation.AGGREGATE,
            Transformation.MASK,
            Transformation.OPAQUE,
            Transformation.UNKNOWN,
        )
    )
}
_CERTAINTY = {Confidence.EXACT: 2, Confidence.CONSERVATIVE: 1, Confidence.UNKNOWN: 0}

RELATIONSHIP_ORDER = {kind: rank for rank, kind in enumerate(
    (Relationship.VALUE, Relationship.GROUPING, Relationship.CONTROL, Relationship.JOIN,
     Relationship.WINDOW, Relationship.SORT, Relationship.POLICY, Relationship.QUALITY)
)}


def strongest(a: Transformation, b: Transformation) -> Transformation:
    if a is b:
        return a
    return a if _STRENGTH[a] >= _STRENGTH[b] else b


def weakest(a: Confidence, b: Confidence) -> Confidence:
    if a is b:
        return a
    return a if _CERTAINTY[a] <= _CERTAINTY[b] else b


def surest(a: Confidence, b: Confidence) -> Confidence:
    return a if _CERTAINTY[a] >= _CERTAINTY[b] else b
