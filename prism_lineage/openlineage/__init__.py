"""OpenLineage both ways (docs/openlineage.md, specs/openlineage.md).

Out: ``column_lineage_facet(answer)`` is the standard ColumnLineageDatasetFacet of a statement's
answer, ``prism_lineage_facet(answer)`` the custom facet that keeps what the standard one cannot
say, ``job_events(explanation)`` a JobEvent per statement (``explain --format openlineage``);
``explanation_from_events`` reads such an export back.

In: ``Ingestor`` records OpenLineage run events and warehouse query logs as observed edges of an
environment (``prism-lineage observe``; ``Ingestor.post_lineage`` is what ``POST
/api/v1/lineage`` calls); ``with_observed`` joins them to the environment's lineage.

Names are imported when first used: the read path (``lineage --index``) needs ``with_observed``
and must not pay for the OpenLineage client.
"""

from __future__ import annotations

from importlib import import_module

_LAZY = {
    "DEFAULT_JOB_NAMESPACE": ".export", "DEFAULT_NAMESPACE": ".export", "PRODUCER": ".export",
    "column_lineage_facet": ".export", "dataset_facets": ".export", "job_events": ".export",
    "prism_lineage_facet": ".export", "relation_wide": ".export", "to_document": ".export",
    "FACET_KEY": ".facets", "PrismLineageDatasetFacet": ".facets",
    "NotOurExport": ".readback", "answer_from_facets": ".readback", "explanation_from_events": ".readback",
    "InvalidDocument": ".validation", "problems": ".validation", "validate": ".validation",
    "Ingestor": ".ingest", "DatasetMapping": ".naming", "Rule": ".naming", "load_mapping": ".naming",
    "ObservedEdge": ".observed", "ObservedStore": ".store", "with_observed": ".read",
    "MAX_EVENT_BYTES": ".events",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)
