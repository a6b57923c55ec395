"""Field trial 13: Spark, Hive and Flink name a catalog table by its storage location and give the
table's name in the dataset's ``symlinks`` facet; ``observe`` reads it (specs/openlineage.md,
"Naming", rule 22a).  The repro (tests/fixtures/openlineage/spark_symlinks.jsonl) is the event the
trial reported, unchanged but for its time."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import column_lineage_dataset, symlinks_dataset
from openlineage.client.serde import Serde

from prism_lineage.cli import main
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import asset_id
from prism_lineage.openlineage.events import MAX_NAMING_NOTES, EventObserver
from prism_lineage.openlineage.naming import DatasetMapping, Rule
from prism_lineage.openlineage.store import ObservedStore

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop"
REPRO = ROOT / "tests" / "fixtures" / "openlineage" / "spark_symlinks.jsonl"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
ASSETS = {"raw.orders": "a_raw_orders", "raw.payments": "a_raw_payments", "analytics.orders": "a_orders"}
LAKE, HIVE = "s3://acme-lake", "hive://metastore:9083"


def repro(when: datetime) -> dict:
    (text,) = REPRO.read_text().splitlines()
    document = json.loads(text)
    document["eventTime"] = when.isoformat().replace("+00:00", "Z")
    return document


def observe(*documents, assets=ASSETS, rules=(Rule(),)) -> EventObserver:
    observer = EventObserver(DatasetMapping(assets, rules), now=NOW)
    observer.feed_lines([d if isinstance(d, str) else json.dumps(d) for d in documents])
    return observer


def table(path: str, name: str, kind: str = "TABLE", facets: dict | None = None, output: bool = False):
    symlinks = symlinks_dataset.SymlinksDatasetFacet(identifiers=[symlinks_dataset.Identifier(HIVE, name, kind)])
    cls = OutputDataset if output else InputDataset
    return cls(LAKE, path, facets={"symlinks": symlinks, **(facets or {})})


def test_the_trial_event_gives_the_edges_its_symlinks_name(tmp_path: Path, capsys) -> None:
    """The trial's command, end to end: two observed edges instead of 'skipped 1'."""
    events = tmp_path / "spark_event.jsonl"
    events.write_text(json.dumps(repro(datetime.now(timezone.utc) - timedelta(hours=1))) + "\n")
    index = tmp_path / "index"
    assert main(["sync", "--project", str(SHOP), "--env", "prod", "--index", str(index)]) == 0
    capsys.readouterr()
    assert main(["observe", str(events), "--index", str(index), "--project", str(SHOP), "--env", "prod"]) == 0
    out = capsys.readouterr().out
    assert out == "observed into shop/prod: 1 lines, 1 accepted, 0 rejected; 2 observed edges recorded\n"
    project, _ = load_project(str(SHOP))
    ids = {asset_id(project.name, "prod", name): name for name in ASSETS}
    edges = ObservedStore(index / "shop" / "prod").edges(datetime.now(timezone.utc))
    assert sorted((ids[e.source], ids[e.target], e.job) for e in edges) == [
        ("raw.orders", "analytics.orders", "spark/nightly.execute_insert_into_hadoop_fs_relation_command.analytics_orders"),
        ("raw.payments", "analytics.orders", "spark/nightly.execute_insert_into_hadoop_fs_relation_command.analytics_orders")]
    assert main(["lineage", "analytics.orders", "--project", str(SHOP), "--env", "prod", "--index", str(index),
                 "--depth", "1", "--direction", "upstream", "-o", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert sorted(e["from_name"] for e in answer["edges"] if e["mark"] == "observed") == ["raw.orders", "raw.payments"]


def test_column_lineage_naming_the_location_follows_the_symlink() -> None:
    """Spark's column-lineage facet names input fields by the dataset's own (location) name."""
    facet = column_lineage_dataset.ColumnLineageDatasetFacet(fields={
        "amount": column_lineage_dataset.Fields(inputFields=[column_lineage_dataset.InputField(
            LAKE, "/warehouse/raw.db/payments", "amount",
            [column_lineage_dataset.Transformation("DIRECT", "AGGREGATION")])]),
        "order_id": column_lineage_dataset.Fields(inputFields=[column_lineage_dataset.InputField(
            HIVE, "raw.orders", "id", [column_lineage_dataset.Transformation("DIRECT", "IDENTITY")])])})
    event = RunEvent(eventType=RunState.COMPLETE, eventTime=(NOW - timedelta(hours=1)).isoformat(), producer="urn:x",
                     run=Run(runId="0193c1d2-0000-7000-8000-000000000002"), job=Job("spark", "j"),
                     inputs=[table("/warehouse/raw.db/orders", "raw.orders"),
                             table("/warehouse/raw.db/payments", "raw.payments")],
                     outputs=[table("/warehouse/analytics.db/orders", "analytics.orders",
                                    facets={"columnLineage": facet}, output=True)])
    observer = observe(Serde.to_json(event))
    columns = {(e.source, e.target): [(c.source, c.target, c.transformation) for c in e.columns or ()]
               for e in observer.edges}
    assert columns == {("a_raw_orders", "a_orders"): [("id", "order_id", "identity")],
                       ("a_raw_payments", "a_orders"): [("amount", "amount", "aggregate")]}


def test_the_mapping_rules_apply_to_symlink_names() -> None:
    document = repro(NOW - timedelta(hours=1))
    for dataset in (*document["inputs"], *document["outputs"]):
        identifier = dataset["facets"]["symlinks"]["identifiers"][0]
        identifier["name"] = "LAKEHOUSE." + identifier["name"].upper()
    assert observe(document).edges == []
    rules = (Rule(namespace="hive://*", drop_parts=1, case_insensitive=True),)
    assert {(e.source, e.target) for e in observe(document, rules=rules).edges} == {
        ("a_raw_orders", "a_orders"), ("a_raw_payments", "a_orders")}


def test_the_dataset_own_name_wins_over_its_symlinks() -> None:
    document = repro(NOW - timedelta(hours=1))
    document["outputs"][0]["name"] = "raw.orders"  # its own name is a declared asset
    edges = observe(document).edges
    assert {(e.source, e.target) for e in edges} == {("a_raw_payments", "a_raw_orders")}


def test_only_table_symlinks_name_an_asset() -> None:
    document = repro(NOW - timedelta(hours=1))
    document["inputs"][0]["facets"]["symlinks"]["identifiers"][0]["type"] = "LOCATION"
    assert {(e.source, e.target) for e in observe(document).edges} == {("a_raw_payments", "a_orders")}
    document["inputs"][0]["facets"]["symlinks"]["identifiers"][0]["type"] = "table"  # the spec's own spelling
    assert len(observe(document).edges) == 2


def test_symlinks_naming_two_assets_name_neither() -> None:
    document = repro(NOW - timedelta(hours=1))
    identifiers = document["inputs"][0]["facets"]["symlinks"]["identifiers"]
    identifiers.append({**identifiers[0], "name": "raw.payments"})
    observer = observe(document)
    assert {(e.source, e.target) for e in observer.edges} == {("a_raw_payments", "a_orders")}
    assert observer.summary.notes == [
        "line 1: s3://acme-lake/warehouse/raw.db/orders is left out: its table symlinks name 2 declared assets "
        "(raw.orders, raw.payments)"]


def test_a_malformed_symlinks_facet_is_left_out_and_said() -> None:
    document = repro(NOW - timedelta(hours=1))
    document["inputs"][1]["facets"]["symlinks"]["identifiers"] = [{"name": "raw.payments"}]
    observer = observe(document)
    assert observer.summary.rejected == []
    assert {(e.source, e.target) for e in observer.edges} == {("a_raw_orders", "a_orders")}
    assert observer.summary.notes == [
        "line 1: the symlinks facet of s3://acme-lake/warehouse/raw.db/payments is left out (expected identifiers, "
        "each with a namespace, name and type)"]


def test_an_event_naming_nothing_declared_says_what_it_named() -> None:
    """The trial's 'at minimum': the summary names the datasets and their table symlinks."""
    document = repro(NOW - timedelta(hours=1))
    observer = observe(*[copy.deepcopy(document) for _ in range(MAX_NAMING_NOTES + 2)], assets={"x.y": "a"})
    assert observer.edges == []
    assert observer.summary.skipped == {"no input and output the environment declares": MAX_NAMING_NOTES + 2}
    assert len(observer.summary.notes) == MAX_NAMING_NOTES
    assert observer.summary.notes[0] == (
        "line 1: no declared input and output among inputs s3://acme-lake/warehouse/raw.db/orders (symlinks: "
        "raw.orders), s3://acme-lake/warehouse/raw.db/payments (symlinks: raw.payments); outputs "
        "s3://acme-lake/warehouse/analytics.db/orders (symlinks: analytics.orders)")
