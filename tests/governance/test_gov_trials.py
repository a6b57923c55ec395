"""Field trials 02, 03 and 04 (/work/coord/trials): dbt projects as people have them, each repro
kept under tests/fixtures/trials/ (the manifests cut down to metadata, nodes and sources: what
the loader reads) and checked for the right answer.

* 02: a model's documented ``columns:`` (YAML, no catalog.json) are not its shape — a ``select *``
  reader gets every column its upstream's SQL outputs, and a star over a source documented in part
  is unknown, never a partial list marked exact;
* 03: impact never looks complete while an asset's SQL was not read (``at_least`` and a note),
  and a dbt model whose SQL cannot be parsed is listed through its declared ``ref()`` edges;
* 04: a seed and a source on one relation are one asset, found by every dbt name.
"""

from __future__ import annotations

import json
import shutil

import pytest

from gov_helpers import DBT2, ROOT, SHOP
from prism_lineage.cli import main
from prism_lineage.governance.access import OWNER
from prism_lineage.governance.dbt import load_manifest
from prism_lineage.governance.impact import impact
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync

TRIALS = ROOT / "tests" / "fixtures" / "trials"
PARTIAL = TRIALS / "02-dbt-partial-columns"
SEEDED = TRIALS / "04-dbt-seed-and-source-same-table"


def answer(capsys, *argv):
    code = main([*argv, "-o", "json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def parsed_columns(document, source, target):
    [edge] = [e for e in document["edges"]
              if (e["from_name"], e["to_name"], e["mark"]) == (source, target, "parsed")]
    return [(c["from"], c["to"], c["confidence"]) for c in edge["columns"]]


# --- 02 ---------------------------------------------------------------------------------------

def test_02_a_star_reader_gets_every_column_its_upstream_outputs(capsys):
    document = answer(capsys, "lineage", "customer_copy", "--project", str(PARTIAL), "--direction", "upstream")
    # stg_customers documents one column (customer_id) and outputs three: the copy has all three.
    assert parsed_columns(document, "main.stg_customers", "main.customer_copy") == [
        ("customer_id", "customer_id", "exact"), ("first_name", "first_name", "exact"),
        ("last_name", "last_name", "exact")]
    # Column impact the other way round: stg_customers.first_name reaches the copy.
    assert parsed_columns(document, "raw.customers", "main.stg_customers")[1] == ("first_name", "first_name", "exact")


def test_02_a_star_over_a_source_documented_in_part_is_unknown(tmp_path, capsys):
    project = tmp_path / "proj"
    shutil.copytree(PARTIAL, project)
    manifest_path = project / "target" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    [source] = manifest["sources"].values()
    source["columns"] = {"id": {"name": "id", "description": "the only one documented", "data_type": None}}
    model = manifest["nodes"]["model.partial.stg_customers"]
    model["raw_code"] = "select * from {{ source('raw', 'customers') }}"
    model.pop("compiled_code", None)
    manifest_path.write_text(json.dumps(manifest))
    document = answer(capsys, "lineage", "stg_customers", "--project", str(project), "--direction", "upstream")
    # Not "id -> id exact" alone: what else the relation holds is not known.
    assert parsed_columns(document, "raw.customers", "main.stg_customers") == [("*", "*", "unknown")]


def test_02_with_a_catalog_its_columns_are_the_shape(tmp_path, capsys):
    project = tmp_path / "proj"
    shutil.copytree(PARTIAL, project)
    catalog = {"metadata": {}, "sources": {}, "errors": None, "nodes": {"model.partial.stg_customers": {
        "unique_id": "model.partial.stg_customers", "metadata": {}, "stats": {},
        "columns": {"customer_id": {"name": "customer_id", "type": "INTEGER", "index": 1},
                    "first_name": {"name": "first_name", "type": "VARCHAR", "index": 2}}}}}
    (project / "target" / "catalog.json").write_text(json.dumps(catalog))
    document = answer(capsys, "lineage", "customer_copy", "--project", str(project), "--direction", "upstream")
    # catalog.json read the relation itself: its columns are complete and win over the SQL.
    assert parsed_columns(document, "main.stg_customers", "main.customer_copy") == [
        ("customer_id", "customer_id", "exact"), ("first_name", "first_name", "exact")]


# --- 03 ---------------------------------------------------------------------------------------

def test_03_an_unparsed_model_is_listed_through_its_declared_refs():
    lineage = sync(load_project(DBT2)[0])
    found = impact(lineage, OWNER, "main.stg_events")
    # order_event_kinds' SQL cannot be parsed; its ref('stg_events') is a declared edge.
    assert [a.name for a in found.assets] == [
        "main.customer_scores", "main.customers", "main.order_event_kinds", "main.top_customers"]
    assert [a.sql_status for a in found.assets if a.name == "main.order_event_kinds"] == ["Could not be parsed"]
    # Every asset whose SQL was not read is listed: nothing else could read it unseen.
    assert found.at_least is False and not any(n.startswith("There may be more") for n in found.notes)


@pytest.mark.parametrize("manifest, unread", [("target/manifest.json", 2), ("parsed/manifest.json", 3)])
def test_03_impact_is_at_least_while_sql_elsewhere_was_not_read(manifest, unread):
    lineage = sync(load_manifest(DBT2 / manifest))
    found = impact(lineage, OWNER, "raw.legacy_orders")
    assert [a.name for a in found.assets] == ["main.legacy_totals"]
    assert found.at_least is True and found.count == 1
    # customer_scores (Python) and order_event_kinds (short UNPIVOT) could not be parsed; from raw
    # code, payments too (its is_incremental() block is Jinja the reader leaves as written).
    assert found.notes[-1] == (f"There may be more: {unread} other assets you may see have SQL that was not read "
                               f"({unread} could not be parsed), so what they read is not known.")
    # No SQL of this project is kept in a file: the file note is not said.
    assert "SQL kept in a file is not read, so what it reads is not shown." not in found.notes


def test_03_the_command_line_says_at_least(capsys):
    document = answer(capsys, "lineage", "impact", "raw.legacy_orders", "--project", str(DBT2))
    assert (document["count"], document["at_least"]) == (1, True)
    code = main(["lineage", "impact", "raw.legacy_orders", "--project", str(DBT2)])
    text = capsys.readouterr().out
    assert code == 0 and "at least 1 asset downstream" in text and "There may be more" in text


def test_03_the_file_note_is_said_where_sql_is_kept_in_a_file():
    lineage, _ = sync(load_project(SHOP)[0]), None
    found = impact(lineage, OWNER, "raw.orders")
    assert "SQL kept in a file is not read, so what it reads is not shown." in found.notes


# --- 04 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["raw_customers", "raw.raw_customers", "seed.seeded.raw_customers",
                                  "source.seeded.ecom.raw_customers"])
def test_04_a_seed_and_a_source_on_one_table_are_one_asset(capsys, name):
    document = answer(capsys, "lineage", name, "--project", str(SEEDED))
    assert document["asset"] == "raw.raw_customers"
    [node] = [a for a in document["assets"] if a["name"] == "raw.raw_customers"]
    assert node["kind"] == "table"
    assert node["notes"] == [
        "One relation with several dbt names: seed raw_customers (seeds/raw_customers.csv), source "
        "ecom.raw_customers (models/sources.yml); it answers to each."]
    assert [(e["from_name"], e["to_name"], e["mark"]) for e in document["edges"]] == [
        ("raw.raw_customers", "main.stg_customers", "declared"), ("raw.raw_customers", "main.stg_customers", "parsed")]


def test_04_the_project_syncs(tmp_path, capsys):
    code = main(["sync", "--project", str(SEEDED), "--index", str(tmp_path / "index")])
    assert code == 0, capsys.readouterr()
