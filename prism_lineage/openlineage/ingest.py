"""Ingesting observations into an environment: what ``prism-lineage observe`` and the
``POST /api/v1/lineage`` endpoint of ``serve`` call.

``Ingestor`` holds one environment's assets, its dataset mapping and its observed store.
``events(lines)`` ingests OpenLineage events (JSON lines), ``query_log(records)`` a warehouse
query log, ``post_lineage(body)`` one request body as Marquez's endpoint takes it (one event):
each validates everything first, then records what it found in one transaction, so a refused
input changes nothing stored, and a malformed line is reported (line number, reason) while the
valid ones are kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from .events import MAX_EVENT_BYTES, EventObserver, parse_line
from .naming import DEFAULT_RULES, DatasetMapping, Rule
from .observed import DEFAULT_RETENTION, Rejected, Summary
from .query_log import LogObserver, LogRecord
from .store import ObservedStore


class Ingestor:
    """Observations into one environment's observed store."""

    def __init__(self, root: str | Path, assets: dict[str, str], *, rules: Iterable[Rule] = DEFAULT_RULES,
                 retention: timedelta = DEFAULT_RETENTION, max_event_bytes: int = MAX_EVENT_BYTES, functions=None):
        """``root``: the environment's directory in the index; ``assets``: its declared assets,
        full name → asset id; ``rules``: its dataset mapping (``naming.load_mapping``)."""
        self.store = ObservedStore(root)
        self.assets = dict(assets)
        self.mapping = DatasetMapping(self.assets, rules)
        self.retention = retention
        self.max_event_bytes = max_event_bytes
        self.functions = functions

    def close(self) -> None:
        """Close the store's connection (an ingestor is kept open across requests)."""
        self.store.close()

    def __enter__(self) -> "Ingestor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def events(self, lines: Iterable[str | bytes], *, now: datetime | None = None) -> Summary:
        observer = EventObserver(self.mapping, now=now or _now(), retention=self.retention,
                                 max_bytes=self.max_event_bytes)
        observer.feed_lines(lines)
        observer.summary.edges = self.store.record(observer.edges, observed=observer.received_event,
                                                   now=observer.now, retention=self.retention)
        return observer.summary

    def query_log(self, records: Iterable[LogRecord | Rejected], *, now: datetime | None = None,
                  databases: Iterable[str] | None = None) -> tuple[Summary, dict]:
        """The summary, and figures of the log: records read as statements, distinct statements
        analysed, and the dedup ratio between them.  ``databases``: the warehouse databases that
        hold this environment (a table of another database is not its asset); any when None."""
        observer = LogObserver(self.assets, now=now or _now(), retention=self.retention, functions=self.functions,
                               databases=databases)
        observer.feed(records)
        observer.summary.edges = self.store.record(observer.edges, observed=observer.summary.accepted > 0,
                                                   now=observer.now, retention=self.retention)
        figures = {"statements": observer.statements, "distinct": observer.distinct,
                   "dedup_ratio": round(observer.statements / observer.distinct, 2) if observer.distinct else None}
        return observer.summary, figures

    def post_lineage(self, body: bytes, *, now: datetime | None = None) -> tuple[int, dict[str, Any]]:
        """One ``POST /api/v1/lineage`` request body (one OpenLineage event, as Marquez takes
        it) → (HTTP status, JSON answer): 201 with what was recorded; 400 with the reason for a
        body that is not a valid event; 413 for one over the size limit."""
        parsed = parse_line(1, body, self.max_event_bytes)
        if isinstance(parsed, Rejected):
            status = 413 if parsed.reason.startswith("the event is") else 400
            return status, {"error": {"code": "invalid_event" if status == 400 else "event_too_large",
                                      "message": parsed.reason}}
        summary = self.events([json.dumps(parsed)], now=now)
        return 201, summary.to_dict()


def _now() -> datetime:
    return datetime.now(tz=timezone.utc)
