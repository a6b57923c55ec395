"""Where observed edges are kept: ``observed.sqlite3`` in the environment's index directory.

Observed edges are rows of their own: they come from runs, at any time, not from a sync, so they
are never written into the epochs or the current store of declared and parsed edges, and never
change them.  One row per observed edge (``ObservedEdge.key``: the pair, where it was seen, the
job) holding the evidence of the newest run that showed it; an ingestion is one transaction, so a
failed or refused one leaves the store as it was.  ``meta`` says whether the environment has
received observations (the observed mark is then "Recorded") and the retention in force.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path

from ..governance.sql_reading import ColumnLink
from .observed import DEFAULT_RETENTION, ObservedEdge, newest, utc

from .store_view import OBSERVED_FILE

STORE_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS observed (
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    seen_in TEXT NOT NULL,
    job TEXT NOT NULL,
    run_id TEXT,
    seen_at TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    columns TEXT,
    PRIMARY KEY (source, target, seen_in, job)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS observed_up ON observed (target, source);
CREATE INDEX IF NOT EXISTS observed_seen ON observed (seen_at);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
"""


def _stamp(moment: datetime) -> str:
    # A fixed-width UTC form, so that text order is time order in SQL.
    return utc(moment).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _moment(text: str) -> datetime:
    return utc(datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ"))


def _columns_json(columns: tuple[ColumnLink, ...] | None) -> str | None:
    if columns is None:
        return None
    return json.dumps([[c.source, c.target, c.relationship, c.transformation, c.confidence] for c in columns],
                      ensure_ascii=False, separators=(",", ":"))


def _columns(text: str | None) -> tuple[ColumnLink, ...] | None:
    if text is None:
        return None
    return tuple(ColumnLink(*entry) for entry in json.loads(text))


class ObservedStore:
    """The observed edges of one environment (``root``: its directory in the index)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.path = self.root / OBSERVED_FILE
        self._writer: sqlite3.Connection | None = None  # kept open: a server ingests request after request

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def exists(self) -> bool:
        return self.path.is_file()

    def _connect(self) -> sqlite3.Connection:
        self.root.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=10.0)
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, STORE_VERSION):
            connection.close()
            raise sqlite3.DatabaseError(f"{self.path} is an observed store of version {version}, not {STORE_VERSION}")
        # Write-ahead logging: an ingestion (one request of the endpoint) commits without waiting
        # for the whole file, and readers never wait for a writer.
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        if version == 0:
            connection.executescript(SCHEMA)
            connection.execute(f"PRAGMA user_version = {STORE_VERSION}")
        return connection

    def record(self, edges: Iterable[ObservedEdge], *, observed: bool, now: datetime,
               retention: timedelta = DEFAULT_RETENTION) -> int:
        """Keep ``edges`` (the newest evidence per edge wins), in one transaction; ``observed``:
        the environment received observations (a valid run event or log record).  Edges that no
        run has shown for ``retention`` are dropped.  Returns how many rows were written."""
        rows = [(e.source, e.target, e.seen_in, e.job, e.run_id, _stamp(e.seen_at), _stamp(e.seen_at),
                 _columns_json(e.columns)) for e in newest(list(edges)).values()]
        if not rows and not observed:
            return 0  # nothing to say: the store is not even created
        if self._writer is None:
            self._writer = self._connect()
        connection = self._writer
        with connection:
            connection.executemany(
                "INSERT INTO observed (source, target, seen_in, job, run_id, seen_at, first_seen, columns) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (source, target, seen_in, job) DO UPDATE SET "
                "run_id = excluded.run_id, seen_at = excluded.seen_at, columns = excluded.columns, "
                "first_seen = min(observed.first_seen, excluded.first_seen) "
                "WHERE excluded.seen_at >= observed.seen_at", rows)
            # An older run arriving late still moves first_seen back.
            connection.executemany(
                "UPDATE observed SET first_seen = min(first_seen, ?) "
                "WHERE source = ? AND target = ? AND seen_in = ? AND job = ?",
                [(r[6], r[0], r[1], r[2], r[3]) for r in rows])
            connection.execute("DELETE FROM observed WHERE seen_at <= ?", (_stamp(utc(now) - retention),))
            meta = {"retention_days": str(retention / timedelta(days=1)), "last_ingested_at": _stamp(now)}
            if observed:
                meta["observed"] = "1"
            connection.executemany("INSERT INTO meta (key, value) VALUES (?, ?) "
                                   "ON CONFLICT (key) DO UPDATE SET value = excluded.value", sorted(meta.items()))
        return len(rows)

    def _read(self) -> sqlite3.Connection | None:
        if not self.exists():
            return None
        connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=5.0)
        if connection.execute("PRAGMA user_version").fetchone()[0] != STORE_VERSION:
            connection.close()
            return None
        return connection

    def meta(self) -> dict[str, str]:
        connection = self._read()
        if connection is None:
            return {}
        try:
            return dict(connection.execute("SELECT key, value FROM meta"))
        finally:
            connection.close()

    def observed(self) -> bool:
        """Whether the environment has received observations (the observed mark is recorded)."""
        return self.meta().get("observed") == "1"

    def retention(self) -> timedelta:
        days = self.meta().get("retention_days")
        return timedelta(days=float(days)) if days else DEFAULT_RETENTION

    def edges(self, now: datetime, retention: timedelta | None = None) -> list[ObservedEdge]:
        """The observed edges alive at ``now``: shown by a run within the retention."""
        connection = self._read()
        if connection is None:
            return []
        try:
            keep = retention if retention is not None else self.retention()
            rows = connection.execute(
                "SELECT source, target, seen_in, job, run_id, seen_at, columns FROM observed WHERE seen_at > ? "
                "ORDER BY source, target, seen_in, job", (_stamp(utc(now) - keep),)).fetchall()
        finally:
            connection.close()
        return [ObservedEdge(s, t, w, j, r, _moment(at), _columns(c)) for s, t, w, j, r, at, c in rows]
