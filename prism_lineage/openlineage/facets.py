"""The prismLineage custom facet: what the standard column-lineage facet cannot hold.

An attrs class on the openlineage-python client's ``DatasetFacet``, so the client serialises it
like its own facets.  Its schema is ``schemas/PrismLineageDatasetFacet-1-0-0.json``; what each
key means is in specs/openlineage.md.
"""

from __future__ import annotations

from typing import Any

import attr
from openlineage.client.generated.base import DatasetFacet

from .validation import PRISM

FACET_KEY = "prismLineage"
SCHEMA_URL = f"{PRISM}#/$defs/PrismLineageDatasetFacet"


@attr.define
class PrismLineageDatasetFacet(DatasetFacet):
    """One statement's complete answer in prism-lineage's vocabulary: its kind and target, every
    output field in order with every source (relationship, transformation, confidence, nested
    path), the rows a modifying statement changes, what is uncertain, and authored origins."""

    statement: dict[str, Any]
    fields: list[dict[str, Any]]
    uncertain: list[dict[str, Any]] = attr.field(factory=list)
    rows: list[dict[str, Any]] | None = attr.field(default=None)

    @staticmethod
    def _get_schema() -> str:
        return SCHEMA_URL
