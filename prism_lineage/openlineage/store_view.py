"""Observed edges on the store's read path: ``lineage_edges``, the current store's edges with
the observed ones beside them (prism_lineage/control/reading.py reads it).

Light on purpose (sqlite3 only): answering from the store must not import the engine.  The
observed store (``observed.sqlite3``, written by ``prism-lineage observe``) is attached read-only
and joined by asset id; only the edges a run showed within the retention are in the view.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

OBSERVED_FILE = "observed.sqlite3"
DEFAULT_RETENTION_DAYS = 30.0
STAMP = "%Y-%m-%dT%H:%M:%S.%fZ"

_BASE = ("SELECT src, dst, mark, via, file, links, note, revision, scope, NULL AS links_json, NULL AS run_id, "
         "NULL AS seen_at FROM main.edges")
_OBSERVED = ("SELECT s.id, d.id, 'observed', CASE o.seen_in WHEN 'event' THEN 'run' ELSE 'query log' END, o.job, "
             "NULL, NULL, NULL, NULL, o.columns, o.run_id, o.seen_at FROM observed.observed o "
             "JOIN main.assets s ON s.asset_id = o.source JOIN main.assets d ON d.asset_id = o.target "
             "WHERE o.seen_at > '{cutoff}' AND s.id != d.id")


def attach_observed(connection: sqlite3.Connection, root: str | Path, now: datetime | None = None) -> bool:
    """Create the temporary view ``lineage_edges`` on ``connection`` (a store's); returns whether
    the environment has received observations (its observed mark is then "Recorded")."""
    path = Path(root) / OBSERVED_FILE
    received = False
    sql = _BASE
    if path.is_file():
        try:
            connection.execute("ATTACH DATABASE ? AS observed", (f"file:{path}?mode=ro",))
            meta = dict(connection.execute("SELECT key, value FROM observed.meta"))
            days = float(meta.get("retention_days") or DEFAULT_RETENTION_DAYS)
            moment = (now or datetime.now(tz=timezone.utc)).astimezone(timezone.utc)
            cutoff = (moment - timedelta(days=days)).strftime(STAMP)
            sql = f"{_BASE} UNION ALL {_OBSERVED.format(cutoff=cutoff)}"
            received = meta.get("observed") == "1"
        except (sqlite3.DatabaseError, ValueError):
            # An observed store that cannot be read leaves the declared and parsed edges as they are.
            sql, received = _BASE, False
    connection.execute("DROP VIEW IF EXISTS temp.lineage_edges")
    connection.execute(f"CREATE TEMP VIEW lineage_edges AS {sql}")
    return received


def seen_at_text(stamp: str | None) -> str | None:
    """A stored time as answers give it: ISO 8601 to the second, UTC."""
    return None if stamp is None else stamp[:19] + "Z"
