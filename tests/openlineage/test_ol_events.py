"""Run events → observed edges: events shaped like the Spark, Airflow and dbt integrations' (made
with the client's classes), the dataset mapping, bad lines, the store and its retention, the
endpoint's ingestion function, and the explorer drawing observed edges beside the others."""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from openlineage.client.event_v2 import InputDataset, Job, JobEvent, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import (
    column_lineage_dataset,
    nominal_time_run,
    parent_run,
    processing_engine_run,
    schema_dataset,
    sql_job,
)
from openlineage.client.serde import Serde

from prism_lineage.cli import main
from prism_lineage.errors import InputError
from prism_lineage.governance.access import viewer_for
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.impact import impact
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import asset_id, sync
from prism_lineage.openlineage.events import EventObserver
from prism_lineage.openlineage.ingest import Ingestor
from prism_lineage.openlineage.naming import DatasetMapping, Rule, load_mapping
from prism_lineage.openlineage.read import with_observed
from prism_lineage.openlineage.store import ObservedStore

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
ASSETS = {"raw.orders": "a_raw_orders", "raw.customers": "a_raw_customers", "analytics.orders": "a_orders",
          "analytics.daily": "a_daily"}
ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop"


def at(hours_ago: float) -> str:
    return (NOW - timedelta(hours=hours_ago)).isoformat().replace("+00:00", "Z")


def line(event) -> str:
    return Serde.to_json(event)


def spark_event(hours_ago: float = 1, state=RunState.COMPLETE, run_id: str | None = None) -> RunEvent:
    """As the Spark integration emits an INSERT … SELECT: column lineage with transformations,
    a schema facet, the processing engine and the parent application run."""
    lineage = column_lineage_dataset.ColumnLineageDatasetFacet(
        fields={
            "customer_id": column_lineage_dataset.Fields(inputFields=[column_lineage_dataset.InputField(
                "hdfs://warehouse", "raw.orders", "customer_id",
                [column_lineage_dataset.Transformation("DIRECT", "IDENTITY", masking=False)])]),
            "total": column_lineage_dataset.Fields(inputFields=[column_lineage_dataset.InputField(
                "hdfs://warehouse", "raw.orders", "amount",
                [column_lineage_dataset.Transformation("DIRECT", "AGGREGATION", masking=False)])]),
        },
        dataset=[column_lineage_dataset.InputField("hdfs://warehouse", "raw.customers", "vip",
                                                   [column_lineage_dataset.Transformation("INDIRECT", "FILTER")])],
    )
    schema = schema_dataset.SchemaDatasetFacet(fields=[schema_dataset.SchemaDatasetFacetFields("customer_id", "long"),
                                                       schema_dataset.SchemaDatasetFacetFields("total", "decimal")])
    return RunEvent(
        eventType=state, eventTime=at(hours_ago), producer="https://github.com/OpenLineage/OpenLineage/tree/1.24.0/integration/spark",
        run=Run(runId=run_id or str(uuid.uuid4()), facets={
            "processing_engine": processing_engine_run.ProcessingEngineRunFacet(version="3.5.1", name="spark"),
            "parent": parent_run.ParentRunFacet(run=parent_run.Run(runId=str(uuid.uuid4())),
                                                job=parent_run.Job(namespace="spark", name="nightly_app")),
        }),
        job=Job(namespace="spark", name="nightly_app.execute_insert_into_hive_table"),
        inputs=[InputDataset("hdfs://warehouse", "raw.orders"), InputDataset("hdfs://warehouse", "raw.customers")],
        outputs=[OutputDataset("hdfs://warehouse", "analytics.daily", facets={"columnLineage": lineage, "schema": schema})],
    )


def airflow_event(hours_ago: float = 2) -> RunEvent:
    """As Airflow's provider emits a SQL operator's task: postgres datasets named db.schema.table,
    the nominal time, the SQL."""
    return RunEvent(
        eventType=RunState.COMPLETE, eventTime=at(hours_ago),
        producer="https://github.com/apache/airflow/tree/providers-openlineage/1.14.0",
        run=Run(runId=str(uuid.uuid4()), facets={
            "nominalTime": nominal_time_run.NominalTimeRunFacet(nominalStartTime=at(3))}),
        job=Job(namespace="airflow-prod", name="shop_daily.load_orders",
                facets={"sql": sql_job.SQLJobFacet(query="INSERT INTO analytics.orders SELECT * FROM raw.orders")}),
        inputs=[InputDataset("postgres://db:5432", "shop.raw.orders")],
        outputs=[OutputDataset("postgres://db:5432", "shop.analytics.orders")],
    )


def dbt_event(hours_ago: float = 3) -> RunEvent:
    """As openlineage-dbt emits a model's run on Snowflake: upper-case DB.SCHEMA.TABLE names and
    an older column-lineage facet (inputs without transformations)."""
    lineage = column_lineage_dataset.ColumnLineageDatasetFacet(fields={
        "ORDER_ID": column_lineage_dataset.Fields(inputFields=[column_lineage_dataset.InputField(
            "snowflake://acme-prod", "SHOP.ANALYTICS.ORDERS", "ORDER_ID")])})
    return RunEvent(
        eventType=RunState.COMPLETE, eventTime=at(hours_ago),
        producer="https://github.com/OpenLineage/OpenLineage/tree/1.24.0/integration/dbt",
        run=Run(runId=str(uuid.uuid4())), job=Job(namespace="dbt", name="shop.model.daily"),
        inputs=[InputDataset("snowflake://acme-prod", "SHOP.ANALYTICS.ORDERS"),
                InputDataset("snowflake://acme-prod", "SHOP.RAW.SEEDS_COUNTRY")],
        outputs=[OutputDataset("snowflake://acme-prod", "SHOP.ANALYTICS.DAILY", facets={"columnLineage": lineage})],
    )


def observe(*events_or_lines, rules=(Rule(),), now=NOW) -> EventObserver:
    observer = EventObserver(DatasetMapping(ASSETS, rules), now=now)
    observer.feed_lines([e if isinstance(e, str) else line(e) for e in events_or_lines])
    return observer


def test_a_spark_run_gives_edges_with_column_detail() -> None:
    event = spark_event()
    observer = observe(event)
    assert observer.summary.rejected == [] and observer.summary.accepted == 1
    edges = {(e.source, e.target): e for e in observer.edges}
    assert set(edges) == {("a_raw_orders", "a_daily"), ("a_raw_customers", "a_daily")}
    orders = edges["a_raw_orders", "a_daily"]
    assert (orders.job, orders.run_id, orders.seen_in) == ("spark/nightly_app.execute_insert_into_hive_table",
                                                           event.run.runId, "event")
    assert orders.seen_at == NOW - timedelta(hours=1)
    assert [(c.source, c.target, c.relationship, c.transformation, c.confidence) for c in orders.columns] == [
        ("customer_id", "customer_id", "value", "identity", "unknown"),
        ("amount", "total", "value", "aggregate", "unknown")]
    # The dataset-wide filter concerns every field of the output.
    assert [(c.source, c.target, c.relationship) for c in edges["a_raw_customers", "a_daily"].columns] == [
        ("vip", "customer_id", "control"), ("vip", "total", "control")]


def test_airflow_and_dbt_names_map_through_the_environment_rules() -> None:
    # By default a dataset is an asset only when its name is the asset's full name.
    assert observe(airflow_event(), dbt_event()).edges == []
    rules = load_mapping(_mapping_file(), "prod")
    observer = observe(airflow_event(), dbt_event(), rules=rules)
    pairs = {(e.source, e.target, e.job) for e in observer.edges}
    # SHOP.RAW.SEEDS_COUNTRY is not declared: no edge, and nothing says it was there.
    assert pairs == {("a_raw_orders", "a_orders", "airflow-prod/shop_daily.load_orders"),
                     ("a_orders", "a_daily", "dbt/shop.model.daily")}
    dbt = next(e for e in observer.edges if e.job.startswith("dbt/"))
    assert [(c.source, c.target, c.relationship, c.transformation) for c in dbt.columns] == [
        ("ORDER_ID", "ORDER_ID", "value", "unknown")]


def _mapping_file() -> Path:
    path = Path(__file__).with_name("mapping.yaml")
    return path


def test_the_mapping_file_is_checked_by_entry(tmp_path: Path) -> None:
    bad = tmp_path / "m.yaml"
    bad.write_text("prod:\n  - namespace: x\n    drop_part: 1\n")
    with pytest.raises(InputError, match="rule 1: unknown key 'drop_part'"):
        load_mapping(bad, "prod")
    bad.write_text("prod:\n  - name: a\n")
    with pytest.raises(InputError, match="name and asset go together"):
        load_mapping(bad, "prod")
    assert load_mapping(bad, "dev") == (Rule(),)


def test_only_a_completed_run_gives_edges() -> None:
    observer = observe(spark_event(state=RunState.START), spark_event(state=RunState.RUNNING),
                       spark_event(state=RunState.FAIL), spark_event(state=RunState.ABORT))
    assert observer.edges == [] and observer.received_event
    assert sum(observer.summary.skipped.values()) == 4
    static = JobEvent(eventTime=at(1), producer="urn:x", job=Job("spark", "j"),
                      inputs=[InputDataset("n", "raw.orders")], outputs=[OutputDataset("n", "analytics.daily")])
    observer = observe(static)
    assert observer.edges == [] and not observer.received_event
    assert observer.summary.skipped == {"a JobEvent: static lineage, nothing ran": 1}


def test_an_event_older_than_the_retention_gives_no_edge() -> None:
    observer = observe(spark_event(hours_ago=31 * 24), spark_event(hours_ago=29 * 24))
    assert len(observer.edges) == 2 and observer.summary.skipped == {"older than the retention": 1}


def test_bad_lines_are_rejected_by_number_and_reason() -> None:
    good = line(spark_event())
    document = json.loads(good)
    no_job = {k: v for k, v in document.items() if k != "job"}
    bad_run = {**document, "run": {"runId": "42"}}
    bad_time = {**document, "eventTime": "last tuesday"}
    observer = EventObserver(DatasetMapping(ASSETS), now=NOW, max_bytes=5000)
    observer.feed_lines([good, "", "{not json", "[1, 2]", json.dumps(no_job), json.dumps(bad_run),
                         json.dumps(bad_time), good + " " * 5000, b"\xff\xfe"])
    reasons = {r.line: r.reason for r in observer.summary.rejected}
    assert sorted(reasons) == [3, 4, 5, 6, 7, 8, 9] and observer.summary.lines == 8
    assert reasons[3].startswith("not valid JSON")
    assert reasons[4] == "not an OpenLineage event: a JSON object is expected"
    assert reasons[5] == "not a valid OpenLineage RunEvent: $: 'job' is a required property"
    assert reasons[6] == "not a valid OpenLineage RunEvent: $.run.runId: '42' is not a 'uuid'"
    assert "$.eventTime" in reasons[7]
    assert reasons[8].startswith("the event is") and "more than the limit of 5,000" in reasons[8]
    assert reasons[9].startswith("not UTF-8 text") or reasons[9].startswith("not valid JSON")
    assert observer.summary.accepted == 1 and len(observer.edges) == 2


def test_a_malformed_column_lineage_facet_keeps_the_edge_and_says_so() -> None:
    document = json.loads(line(spark_event()))
    document["outputs"][0]["facets"]["columnLineage"]["fields"]["total"]["inputFields"][0].pop("field")
    observer = observe(json.dumps(document))
    assert len(observer.edges) == 2 and all(e.columns is None for e in observer.edges)
    assert observer.summary.notes and observer.summary.notes[0].startswith("line 1: column lineage left out")


def test_the_store_keeps_the_newest_run_and_ends_old_edges(tmp_path: Path) -> None:
    ingestor = Ingestor(tmp_path, ASSETS)
    newer, older = spark_event(hours_ago=1), spark_event(hours_ago=5)
    assert ingestor.events([line(newer)], now=NOW).edges == 2
    ingestor.events([line(older)], now=NOW)  # a late event does not replace a newer one
    store = ObservedStore(tmp_path)
    assert {e.run_id for e in store.edges(NOW)} == {newer.run.runId}
    assert store.observed()
    # Thirty days after the last run, the edge has ended.
    assert len(store.edges(NOW + timedelta(days=29))) == 2
    assert store.edges(NOW + timedelta(days=30, hours=1)) == []


def test_bad_input_touches_nothing_stored(tmp_path: Path) -> None:
    ingestor = Ingestor(tmp_path, ASSETS)
    summary = ingestor.events(["nope", "{}"], now=NOW)
    assert len(summary.rejected) == 2 and not ObservedStore(tmp_path).exists()
    ingestor.events([line(spark_event())], now=NOW)
    before = _dump(tmp_path)
    summary = ingestor.events(["nope", json.dumps({"eventType": "COMPLETE"})], now=NOW)
    assert len(summary.rejected) == 2 and summary.edges == 0
    after = _dump(tmp_path)
    assert after["observed"] == before["observed"]


def _dump(root: Path) -> dict:
    connection = sqlite3.connect(root / "observed.sqlite3")
    try:
        return {"observed": connection.execute("SELECT * FROM observed ORDER BY 1, 2").fetchall()}
    finally:
        connection.close()


def test_the_endpoint_ingestion_function(tmp_path: Path) -> None:
    """What ``POST /api/v1/lineage`` of ``serve`` calls with a request body."""
    ingestor = Ingestor(tmp_path, ASSETS, max_event_bytes=20_000)
    status, answer = ingestor.post_lineage(line(spark_event()).encode(), now=NOW)
    assert status == 201 and answer["edges"] == 2 and answer["rejected"] == []
    status, answer = ingestor.post_lineage(b'{"eventType": "COMPLETE"}', now=NOW)
    assert status == 400 and answer["error"]["code"] == "invalid_event"
    assert "required property" in answer["error"]["message"]
    status, answer = ingestor.post_lineage(b" " * 20_001, now=NOW)
    assert status == 413 and answer["error"]["code"] == "event_too_large"


def shop_lineage():
    project, access = load_project(str(SHOP))
    return project, access, sync(project, "dev")


def test_the_explorer_draws_observed_edges_beside_the_others(tmp_path: Path) -> None:
    project, access, lineage = shop_lineage()
    ids = {a.full_name: a.id for a in lineage.assets.values()}
    assert explore(lineage, _owner(access), "analytics.orders", depth=1).marks["observed"] == "Not recorded"
    ingestor = Ingestor(tmp_path, ids)
    event = spark_event()
    event.inputs[:] = [InputDataset("n", "raw.payments")]
    event.outputs[:] = [OutputDataset("n", "analytics.orders")]
    ingestor.events([line(event)], now=NOW)
    seen = with_observed(lineage, tmp_path, now=NOW)
    answer = explore(seen, _owner(access), "analytics.orders", depth=1)
    assert answer.marks["observed"] == "Recorded"
    assert {e.mark for e in answer.edges} == {"declared", "parsed", "observed"}
    (row,) = [e for e in answer.edges if e.mark == "observed"]
    assert (row.source_name, row.target_name, row.line, row.via) == ("raw.payments", "analytics.orders", "dotted", "run")
    assert (row.file, row.run_id, row.seen_at) == ("spark/nightly_app.execute_insert_into_hive_table", event.run.runId,
                                                   "2026-12-01T11:00:00Z")
    data = json.loads(answer.to_json())
    assert all(("run_id" in e) == (e["mark"] == "observed") for e in data["edges"])
    # Observed edges never change the declared and parsed ones.
    assert [e for e in seen.edges if e.mark != "observed"] == list(lineage.edges)
    # Impact follows an observed edge too.
    assert "analytics.orders" in {a.name for a in impact(seen, _owner(access), "raw.payments").assets}


def _owner(access):
    return viewer_for(access, None)


def test_observe_command_end_to_end(tmp_path: Path, capsys) -> None:
    events = tmp_path / "events.jsonl"
    good = spark_event()
    good.inputs[:] = [InputDataset("n", "raw.payments")]
    good.outputs[:] = [OutputDataset("n", "analytics.orders")]
    events.write_text(line(good) + "\n{broken\n" + line(spark_event(state=RunState.START)) + "\n")
    index = tmp_path / "index"
    assert main(["sync", "--project", str(SHOP), "--env", "dev", "--index", str(index)]) == 0
    capsys.readouterr()
    code = main(["observe", str(events), "--index", str(index), "--project", str(SHOP), "--env", "dev", "-o", "json"])
    out, err = capsys.readouterr()
    answer = json.loads(out)
    assert code == 1 and err == ""
    assert answer["rejected"] == [{"line": 2, "reason": "not valid JSON: Expecting property name enclosed in double "
                                                        "quotes at column 2"}]
    assert answer["edges"] == 1 and answer["accepted"] == 2
    code = main(["lineage", "analytics.orders", "--project", str(SHOP), "--env", "dev", "--index", str(index),
                 "--depth", "1"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "observed Recorded" in out
    assert (f"  raw.payments -> analytics.orders\n    observed  seen in a run of "
            f"spark/nightly_app.execute_insert_into_hive_table (run {good.run.runId})") in out
    project, _ = load_project(str(SHOP))
    assert asset_id(project.name, "dev", "raw.payments") in {e.source for e in ObservedStore(index / "shop" / "dev").edges(
        datetime.now(tz=timezone.utc))}


def test_observe_refuses_what_it_cannot_use(tmp_path: Path, capsys) -> None:
    base = ["observe", "--index", str(tmp_path), "--project", str(SHOP)]
    assert main(base) == 2
    assert "give either EVENTS" in capsys.readouterr().err
    assert main([*base, str(tmp_path / "missing.jsonl")]) == 3
    assert "events file not found" in capsys.readouterr().err
    assert main([*base, str(tmp_path), "--retention", "0"]) == 2
    assert "positive number of days" in capsys.readouterr().err


def test_an_observed_edge_to_a_hidden_asset_is_cut_like_any_other(tmp_path: Path, capsys) -> None:
    """From the store: bob-ci sees analytics.* and marts.*, not raw.*."""
    index = tmp_path / "index"
    assert main(["sync", "--project", str(SHOP), "--env", "dev", "--index", str(index)]) == 0
    event = spark_event()
    event.inputs[:] = [InputDataset("n", "raw.payments"), InputDataset("n", "analytics.orders")]
    event.outputs[:] = [OutputDataset("n", "marts.revenue_by_country")]
    events = tmp_path / "e.jsonl"
    events.write_text(line(event) + "\n")
    assert main(["observe", str(events), "--index", str(index), "--project", str(SHOP), "--env", "dev"]) == 0
    capsys.readouterr()
    argv = ["lineage", "marts.revenue_by_country", "--project", str(SHOP), "--env", "dev", "--index", str(index),
            "--depth", "1", "-o", "json"]
    assert main([*argv, "--as", "bob-ci"]) == 0
    answer = json.loads(capsys.readouterr().out)
    observed = [(e["from_name"], e["to_name"]) for e in answer["edges"] if e["mark"] == "observed"]
    assert observed == [("analytics.orders", "marts.revenue_by_country")]
    assert "raw.payments" not in json.dumps(answer)
    (focus,) = [a for a in answer["assets"] if a["name"] == "marts.revenue_by_country"]
    assert focus["note"] == "Some lineage is not visible to you."
    assert main(argv) == 0  # the owner sees both
    answer = json.loads(capsys.readouterr().out)
    assert sorted(e["from_name"] for e in answer["edges"] if e["mark"] == "observed") == ["analytics.orders",
                                                                                         "raw.payments"]
    assert answer["marks"]["observed"] == "Recorded"
