"""Observed edges: what runs showed, kept apart from declared and parsed edges.

An observed edge joins two assets the environment declares, from the one a run read to the one
it wrote, with the evidence of the last run that showed it: where it was seen (an OpenLineage
run event, or a warehouse query log), the job (an event's ``namespace/name``; ``query log`` for
a log), the run id (an event's; a log's query id), and when it ran.  Its ``columns`` are the
column detail the run reported (an event's column-lineage facet) or that the engine read from
the logged statement; ``None`` when there is none.

What the event's integration reported is not something prism-lineage can vouch for, so the
confidence of those columns is ``unknown``; the columns read from a logged statement keep the
engine's confidence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from ..governance.sql_reading import ColumnLink

EVENT = "event"
QUERY_LOG = "query_log"
QUERY_LOG_JOB = "query log"

DEFAULT_RETENTION = timedelta(days=30)


@dataclass(frozen=True, slots=True)
class ObservedEdge:
    """``source`` fed ``target`` (asset ids) in a run of ``job``, last seen at ``seen_at``."""

    source: str
    target: str
    seen_in: str  # EVENT or QUERY_LOG
    job: str
    run_id: str | None
    seen_at: datetime
    columns: tuple[ColumnLink, ...] | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What one observed edge is: the pair, where it was seen, and the job."""
        return (self.source, self.target, self.seen_in, self.job)


def alive(edge: ObservedEdge, now: datetime, retention: timedelta = DEFAULT_RETENTION) -> bool:
    """An observed edge ends when no run has shown it for ``retention``."""
    return edge.seen_at > now - retention


def newest(edges: list[ObservedEdge]) -> dict[tuple, ObservedEdge]:
    """One edge per key: the most recent run's evidence (an older event arriving late does not
    replace a newer one)."""
    found: dict[tuple, ObservedEdge] = {}
    for edge in edges:
        before = found.get(edge.key)
        if before is None or edge.seen_at >= before.seen_at:
            found[edge.key] = edge
    return found


@dataclass(frozen=True, slots=True)
class Rejected:
    """A line that was refused: its number (1-based) and why."""

    line: int
    reason: str


@dataclass
class Summary:
    """What an ingestion did, for the command and the endpoint to report."""

    lines: int = 0
    accepted: int = 0  # valid events, or log records
    rejected: list[Rejected] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # valid but giving no edge, by reason
    edges: int = 0  # edges recorded (new or seen again)
    notes: list[str] = field(default_factory=list)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def to_dict(self) -> dict:
        return {"lines": self.lines, "accepted": self.accepted,
                "rejected": [{"line": r.line, "reason": r.reason} for r in self.rejected],
                "skipped": dict(sorted(self.skipped.items())), "edges": self.edges, "notes": list(self.notes)}


def utc(moment: datetime) -> datetime:
    """A timestamp in UTC (a naive one is taken to be UTC already)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)
