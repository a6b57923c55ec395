"""A warehouse query log made from a workload (TPC-DS by default), for tests and the observe
benchmark: every query of the workload is a scheduled report materialised into a table of its
own (``CREATE OR REPLACE TABLE reports.qNN AS …``), run many times — some reports far more often
than others, with other literals (another year, another limit) on most runs, as dashboards
refresh — beside ad hoc queries that write nothing and runs that failed.  Records have the shape
of Snowflake's ``QUERY_HISTORY`` export.
"""

from __future__ import annotations

import random
import re
import uuid
from datetime import datetime, timedelta, timezone

from .workloads import Workload

DATABASE = "WH"
SCHEMA = "TPCDS"
REPORTS = "reports"
_YEAR = re.compile(r"\b(19[89]\d|200\d)\b")


def report_table(query: str) -> str:
    return f"{REPORTS}.{query}"


def assets(workload: Workload) -> dict[str, str]:
    """The environment: the workload's tables (namespace ``tpcds``) and one report table per
    query (namespace ``reports``), full name → asset id."""
    names = [f"tpcds.{table}" for table in workload.schema] + [report_table(q) for q, _ in workload.queries]
    return {name: f"a_{name.replace('.', '_')}" for name in names}


def _vary(sql: str, rng: random.Random) -> str:
    """The same statement with other literals: another year where it names one."""
    return _YEAR.sub(lambda m: str(int(m.group(1)) + rng.choice((-1, 0, 1))), sql, count=1)


def generate(workload: Workload, runs: int, *, seed: int = 13, failed: float = 0.03, ad_hoc: float = 0.15,
             now: datetime | None = None) -> list[dict]:
    """``runs`` records over the last week: each report's share of runs follows a Zipf-like law
    (a few dashboards refresh all the time); ``failed`` of report runs failed; ``ad_hoc`` of the
    records are the queries themselves, run by people, writing nothing."""
    rng = random.Random(seed)
    now = now or datetime.now(tz=timezone.utc)
    queries = list(workload.queries)
    weights = [1 / (rank + 1) for rank in range(len(queries))]
    rng.shuffle(queries)
    records = []
    for _ in range(runs):
        name, sql = rng.choices(queries, weights)[0]
        body = sql.strip().rstrip(";")
        if rng.random() < 0.7:
            body = _vary(body, rng)
        started = now - timedelta(seconds=rng.randrange(7 * 24 * 3600))
        if rng.random() < ad_hoc:
            text, user, status = body, rng.choice(("ana", "bo", "chen")), "SUCCESS"
        else:
            text = f"CREATE OR REPLACE TABLE {report_table(name)} AS\n{body}"
            user = "scheduler"
            status = "FAIL" if rng.random() < failed else "SUCCESS"
        records.append({
            "QUERY_ID": str(uuid.UUID(int=rng.getrandbits(128))), "QUERY_TEXT": text, "DATABASE_NAME": DATABASE,
            "SCHEMA_NAME": SCHEMA, "USER_NAME": user, "START_TIME": started.isoformat(timespec="milliseconds"),
            "EXECUTION_STATUS": status, "QUERY_TYPE": "SELECT" if text is body else "CREATE_TABLE_AS_SELECT",
        })
    records.sort(key=lambda r: r["START_TIME"])
    return records
