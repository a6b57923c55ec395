"""Walks over the assets a credential may see, and only those.

An asset reached only through a hidden one is not reached.  A visible asset whose walk would
step onto a hidden asset within the depth asked is *next to a cut*: it carries the note "Some
lineage is not visible to you." and nothing more (no count, no name, no kind, no direction).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import StrEnum

from .access import Viewer
from .rollup import EnvironmentLineage


class Direction(StrEnum):
    UPSTREAM = "upstream"
    DOWNSTREAM = "downstream"
    BOTH = "both"


@dataclass(frozen=True, slots=True)
class Walk:
    """Visible assets reached, each with its distance (the start at 0), in the order reached;
    ``next_to_cut``: those with a hidden neighbour the walk would have stepped onto."""

    distances: dict[str, int]
    next_to_cut: frozenset[str]


def walk(lineage: EnvironmentLineage, viewer: Viewer, start: str, direction: Direction,
         depth: int | None) -> Walk:
    """Breadth-first over visible assets, up to ``depth`` hops (None: any depth).  With
    ``both``, the upstream and the downstream walks are separate: an upstream asset's own
    downstream is not walked."""
    graph = lineage.graph
    sides = {Direction.UPSTREAM: (graph.pred,), Direction.DOWNSTREAM: (graph.succ,),
             Direction.BOTH: (graph.pred, graph.succ)}[direction]
    distances: dict[str, int] = {start: 0}
    next_to_cut: set[str] = set()
    seen_visible: dict[str, bool] = {start: True}

    def visible(node: str) -> bool:
        found = seen_visible.get(node)
        if found is None:
            found = seen_visible[node] = lineage.visible(viewer, node)
        return found

    for adjacency in sides:
        queue = deque([(start, 0)])
        reached = {start}
        while queue:
            node, distance = queue.popleft()
            if depth is not None and distance >= depth:
                continue
            for neighbour in sorted(adjacency[node], key=lambda n: lineage.assets[n].full_name):
                if not visible(neighbour):
                    next_to_cut.add(node)
                    continue
                if neighbour in reached:
                    continue
                reached.add(neighbour)
                if neighbour not in distances or distances[neighbour] > distance + 1:
                    distances[neighbour] = distance + 1
                queue.append((neighbour, distance + 1))
    return Walk(distances, frozenset(next_to_cut))
