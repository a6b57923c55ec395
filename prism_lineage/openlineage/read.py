"""Observed edges in an environment's answers: the stored ones joined to its lineage.

``with_observed`` adds, to an environment's lineage as the index holds it, the observed edges
alive now (both ends among its assets) and whether it has received observations, so the
explorer and impact draw them beside declared and parsed edges (dotted, one row per edge and
mark) and the legend says the observed mark is "Recorded".
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from pathlib import Path

from ..governance.rollup import EnvironmentLineage, LineageEdge
from ..governance.statuses import Mark, Via
from .observed import EVENT, ObservedEdge
from .store import ObservedStore


def lineage_edge(edge: ObservedEdge) -> LineageEdge:
    return LineageEdge(edge.source, edge.target, Mark.OBSERVED, Via.RUN if edge.seen_in == EVENT else Via.QUERY_LOG,
                       edge.job, edge.columns, run_id=edge.run_id,
                       seen_at=edge.seen_at.isoformat(timespec="seconds").replace("+00:00", "Z"))


def with_observed(lineage: EnvironmentLineage, root: str | Path, *, now: datetime | None = None) -> EnvironmentLineage:
    """``lineage`` with the observed edges of the store in ``root`` (its directory in the index)."""
    store = ObservedStore(root)
    if not store.exists():
        return lineage
    moment = now or datetime.now(tz=timezone.utc)
    assets = lineage.assets
    observed = [lineage_edge(e) for e in store.edges(moment) if e.source in assets and e.target in assets]
    edges = sorted((*[e for e in lineage.edges if e.mark is not Mark.OBSERVED], *observed),
                   key=lambda e: (assets[e.source].full_name, assets[e.target].full_name, e.mark, e.via, e.file))
    found = dataclasses.replace(lineage, edges=tuple(edges), observed=store.observed())
    return found
