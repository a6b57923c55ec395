"""Query logs → observed edges: the three export shapes, failed and unfinished statements, each
distinct statement analysed once, bad lines, Parquet, and a log made from TPC-DS."""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from prism_lineage import explain
from prism_lineage.cli import main
from prism_lineage.openlineage.ingest import Ingestor
from prism_lineage.openlineage.query_log import LogObserver, fingerprint, json_records, read_log, record_of
from prism_lineage.openlineage.store import ObservedStore

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS.parent))
from benchmarks.query_log_gen import assets as workload_assets  # noqa: E402
from benchmarks.query_log_gen import generate, report_table  # noqa: E402
from benchmarks.workloads import load  # noqa: E402

MIXED = TESTS / "fixtures" / "query_log" / "mixed.jsonl"
NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
ASSETS = {"analytics.orders": "a_orders", "analytics.daily": "a_daily", "raw.orders": "a_raw"}


def test_the_three_export_shapes() -> None:
    observer = LogObserver(ASSETS, now=NOW)
    observer.feed(read_log(MIXED))
    summary = observer.summary
    assert (summary.lines, summary.accepted) == (12, 9)
    reasons = {r.line: r.reason for r in summary.rejected}
    assert sorted(reasons) == [9, 10, 11]
    assert reasons[9] == "no statement text (query_text, query, statement or sql)"
    assert reasons[10].startswith("start time 'soon' is not a time: ")
    assert reasons[11] == "not valid JSON: Expecting value at column 1"
    assert summary.skipped == {
        "failed: a failed statement gives no edge": 2,  # Snowflake FAIL, BigQuery error_result
        "not finished": 1,
        "writes no declared asset from a declared asset": 1,  # a SELECT
        "could not be analysed": 1,
    }
    # Snowflake's two runs of one statement (other literal, case, spacing, comment) are read once.
    assert (observer.statements, observer.distinct) == (6, 5)
    edges = [(e.source, e.target, e.run_id, e.seen_at) for e in observer.edges]
    assert edges == [
        ("a_orders", "a_daily", "01b0-0001", datetime(2026, 11, 30, 1, tzinfo=timezone.utc)),
        ("a_orders", "a_daily", "01b0-0002", datetime(2026, 11, 30, 2, tzinfo=timezone.utc)),
        # BigQuery: "orders" in the default dataset analytics of project shop, "raw.orders" in shop.
        ("a_raw", "a_orders", "bquxjob_1", datetime(2026, 11, 30, 5, 0, 1, tzinfo=timezone.utc)),
        # pg_stat_statements keeps no time: the time of ingestion.
        ("a_orders", "a_daily", "-4281827134", NOW),
    ]
    first = observer.edges[0]
    assert ("AMOUNT", "SUM(amount)", "value", "aggregate", "exact") in {
        (c.source, c.target, c.relationship, c.transformation, c.confidence) for c in first.columns}


def test_the_fingerprint_ignores_literals_spacing_and_case_but_not_names() -> None:
    def key(text: str, dialect: str = "snowflake", schema: str = "A") -> str:
        return fingerprint(record_of(1, {"query_text": text, "dialect": dialect, "schema": schema}, None))

    base = key("INSERT INTO t SELECT a FROM s WHERE b = 1")
    assert key("insert into T\n select A from S where B = 42 -- again") == base
    assert key("INSERT INTO t SELECT a FROM s2 WHERE b = 1") != base
    assert key('INSERT INTO "t" SELECT a FROM s WHERE b = 1') != base  # quoted: its case is its name
    assert key("INSERT INTO t SELECT a FROM s WHERE b = 1", schema="B") != base  # another default schema
    # BigQuery's table names keep their case.
    assert key("SELECT * FROM t", "bigquery") != key("SELECT * FROM T", "bigquery")
    # A literal that names a table, or carries SQL, is part of the statement.
    assert key("INSERT INTO t SELECT * FROM IDENTIFIER('x')") != key("INSERT INTO t SELECT * FROM IDENTIFIER('y')")
    assert key("EXECUTE IMMEDIATE 'INSERT INTO t SELECT 1'") != key("EXECUTE IMMEDIATE 'INSERT INTO u SELECT 1'")


def test_a_parquet_log_reads_as_its_json_lines(tmp_path: Path) -> None:
    records = [json.loads(line) for line in MIXED.read_text().splitlines()[:2]]
    for record in records:
        record["START_TIME"] = datetime.fromisoformat(record["START_TIME"].replace(" +0000", "+00:00"))
    path = tmp_path / "history.parquet"
    pq.write_table(pa.Table.from_pylist(records), path)
    observer = LogObserver(ASSETS, now=NOW)
    observer.feed(read_log(path))
    assert [(e.source, e.target, e.run_id) for e in observer.edges] == [("a_orders", "a_daily", "01b0-0001"),
                                                                      ("a_orders", "a_daily", "01b0-0002")]
    assert observer.distinct == 1


def test_observe_query_log_command(tmp_path: Path, capsys) -> None:
    shop = TESTS.parent / "examples" / "shop"
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"query_text": "INSERT INTO analytics.orders SELECT * FROM staging.orders",
                               "dialect": "duckdb", "start_time": datetime.now(timezone.utc).isoformat(),
                               "status": "success"}) + "\n{\n")
    assert main(["sync", "--project", str(shop), "--env", "dev", "--index", str(tmp_path / "i")]) == 0
    capsys.readouterr()
    code = main(["observe", "--query-log", str(log), "--index", str(tmp_path / "i"), "--project", str(shop),
                 "--env", "dev"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "1 observed edges recorded" in out and "rejected line 2: not valid JSON" in out
    assert "query log: 1 statements read, 1 distinct analysed, dedup ratio 1.0" in out
    code = main(["lineage", "analytics.orders", "--project", str(shop), "--env", "dev", "--index",
                 str(tmp_path / "i"), "--depth", "1", "-o", "json"])
    answer = json.loads(capsys.readouterr().out)
    observed = [e for e in answer["edges"] if e["mark"] == "observed"]
    assert [(e["from_name"], e["via"], e["file"]) for e in observed] == [("staging.orders", "query log", "query log")]
    assert observed[0]["columns"]


def test_a_missing_log_is_named(tmp_path: Path, capsys) -> None:
    shop = TESTS.parent / "examples" / "shop"
    assert main(["observe", "--query-log", str(tmp_path / "nope.jsonl"), "--index", str(tmp_path),
                 "--project", str(shop)]) == 3
    assert "query log not found" in capsys.readouterr().err


@pytest.mark.parametrize("runs", [600])
def test_a_tpcds_log_gives_each_report_its_reads(tmp_path: Path, runs: int) -> None:
    """The log of TPC-DS reports (benchmarks/query_log_gen.py): every report table is fed by the
    tables its query reads, as explain says of the query alone; each distinct statement once."""
    workload = load("tpcds")
    records = generate(workload, runs, now=NOW)
    assets = workload_assets(workload)
    ingestor = Ingestor(tmp_path, assets)
    summary, figures = ingestor.query_log(json_records(json.dumps(r) for r in records), now=NOW)
    assert summary.rejected == [] and "could not be analysed" not in summary.skipped
    succeeded = [r for r in records if r["EXECUTION_STATUS"] == "SUCCESS"]
    assert figures["statements"] == len(succeeded)
    assert figures["distinct"] <= len(succeeded) and figures["dedup_ratio"] > 2
    by_id = {identifier: name for name, identifier in assets.items()}
    stored = {(by_id[e.source], by_id[e.target]) for e in ObservedStore(tmp_path).edges(NOW)}
    queries = dict(workload.queries)
    written = {r["QUERY_TEXT"].split()[4] for r in succeeded if r["QUERY_TYPE"] != "SELECT"}
    expected = set()
    for target in written:
        name = target.split(".", 1)[1]
        reads = explain(queries[name], workload.schema).statements[0].reads
        expected |= {(f"tpcds.{table}", report_table(name)) for table in reads}
    assert stored == expected


def test_a_log_of_several_databases_is_read_for_one_environment() -> None:
    """prod and dev share a warehouse: only statements on prod's database give prod's edges."""
    def run(database: str, query_id: str) -> dict:
        return {"QUERY_ID": query_id, "QUERY_TEXT": "INSERT INTO daily SELECT * FROM orders",
                "DATABASE_NAME": database, "SCHEMA_NAME": "ANALYTICS", "START_TIME": "2026-11-30T01:00:00Z",
                "EXECUTION_STATUS": "SUCCESS"}

    records = [run("PROD", "p1"), run("DEV", "d1"),
               {**run("PROD", "p2"), "QUERY_TEXT": "INSERT INTO daily SELECT * FROM dev.analytics.orders"}]
    observer = LogObserver(ASSETS, now=NOW, databases=["prod"])
    observer.feed(json_records(json.dumps(r) for r in records))
    assert [(e.source, e.target, e.run_id) for e in observer.edges] == [("a_orders", "a_daily", "p1")]
    assert observer.summary.skipped == {"writes no declared asset from a declared asset": 2}
    everywhere = LogObserver(ASSETS, now=NOW)
    everywhere.feed(json_records(json.dumps(r) for r in records))
    assert [e.run_id for e in everywhere.edges] == ["p1", "d1", "p2"]
