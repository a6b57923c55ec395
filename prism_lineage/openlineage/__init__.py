"""OpenLineage both ways (docs/openlineage.md, specs/openlineage.md).

Out: ``column_lineage_facet(answer)`` is the standard ColumnLineageDatasetFacet of a statement's
answer, ``prism_lineage_facet(answer)`` the custom facet that keeps what the standard one cannot
say, ``job_events(explanation)`` a JobEvent per statement (``explain --format openlineage``);
``explanation_from_events`` reads such an export back.
"""

from __future__ import annotations

from .export import (
    DEFAULT_JOB_NAMESPACE,
    DEFAULT_NAMESPACE,
    PRODUCER,
    column_lineage_facet,
    dataset_facets,
    job_events,
    prism_lineage_facet,
    relation_wide,
    to_document,
)
from .facets import FACET_KEY, PrismLineageDatasetFacet
from .readback import NotOurExport, answer_from_facets, explanation_from_events
from .validation import InvalidDocument, problems, validate

__all__ = [
    "DEFAULT_JOB_NAMESPACE", "DEFAULT_NAMESPACE", "FACET_KEY", "PRODUCER", "InvalidDocument", "NotOurExport",
    "PrismLineageDatasetFacet", "answer_from_facets", "column_lineage_facet", "dataset_facets",
    "explanation_from_events", "job_events", "prism_lineage_facet", "problems", "relation_wide", "to_document",
    "validate",
]
