"""The dbt importer, over the manifests generated from tests/fixtures/dbt_project
(regenerate.sh): sources and seeds are tables, view models views, other models assets of one
pipeline; ephemeral models are traced through; compiled or raw SQL says which was read."""

from __future__ import annotations

import pytest

from gov_helpers import DBT, GOLDEN
from prism_lineage.governance.access import OWNER
from prism_lineage.governance.dbt import COMPILED, RAW, load_manifest
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync
from test_gov_rollup import check_golden, render_edges


@pytest.fixture(scope="module")
def compiled():
    project, access = load_project(DBT)
    return project, sync(project)


@pytest.fixture(scope="module")
def raw():
    return sync(load_manifest(DBT / "parsed" / "manifest.json"))


def test_dbt_compiled_golden(compiled, update_goldens):
    check_golden("dbt_compiled.edges", render_edges(compiled[1]), update_goldens)


def test_dbt_raw_golden(raw, update_goldens):
    check_golden("dbt_raw.edges", render_edges(raw), update_goldens)


def test_mapping_of_resources(compiled):
    project, _ = compiled
    env = project.environments[0]
    assert env.name == "dev"  # the default target of the project's profiles.yml
    assert sorted(t.full_name for t in env.tables) == [
        "main.country_codes", "main.customers", "main.orders", "raw.customers", "raw.orders", "raw.payments"]
    assert sorted(v.full_name for v in env.views) == ["main.stg_customers", "main.stg_orders", "main.top_customers"]
    [pipeline] = env.pipelines
    assert pipeline.name == "jaffle"
    # ref() and source() are declared reads (no pipeline order beside them), ephemerals traced through.
    assert {a.name: a.depends_on for a in pipeline.assets} == {"customers": (), "orders": ()}
    assert {a.name: [(r.name, r.call, r.through) for r in a.refs] for a in pipeline.assets} == {
        "customers": [("main.stg_customers", "ref('stg_customers')", ()), ("main.orders", "ref('orders')", ()),
                      ("main.country_codes", "ref('country_codes')", ())],
        "orders": [("main.stg_orders", "ref('stg_orders')", ()),
                   ("raw.payments", "ref('stg_payments')", (("stg_payments", "source('raw', 'payments')"),))]}
    views = {v.name: v for v in env.views}
    assert [r.name for r in views["top_customers"].refs] == ["main.customers"]


def test_meta_gives_owner_steward_and_certified(compiled):
    project, _ = compiled
    tables = {t.full_name: t for t in project.environments[0].tables}
    assert (tables["main.orders"].owner, tables["main.orders"].steward, tables["main.orders"].certified) == (
        "finance@jaffle.example", "finance-data", True)
    assert (tables["raw.orders"].owner, tables["raw.orders"].certified) == ("ingest@jaffle.example", True)
    assert tables["main.country_codes"].certified is False


def test_catalog_gives_column_types(compiled):
    project, _ = compiled
    tables = {t.full_name: t for t in project.environments[0].tables}
    assert [(c.name, c.type) for c in tables["main.orders"].columns] == [
        ("order_id", "INTEGER"), ("customer_id", "INTEGER"), ("ordered_at", "DATE"), ("amount", "DOUBLE")]


def test_ephemeral_model_is_traced_to_its_own_reads(compiled, raw):
    for lineage in (compiled[1], raw):
        payments, orders = lineage.by_name["raw.payments"], lineage.by_name["main.orders"]
        declared, edge = [e for e in lineage.edges if e.source == payments and e.target == orders]
        assert edge.mark == "parsed" and edge.file == "models/marts/orders.sql"
        assert declared.mark == "declared" and declared.note == (
            "Declared by ref('stg_payments') in models/marts/orders.sql, through ephemeral models: "
            "stg_payments declares source('raw', 'payments').")
        assert ("amount_cents", "amount", "value") in [(c.source, c.target, c.relationship) for c in edge.columns]
        assert not any("stg_payments" in a.full_name for a in lineage.assets.values())


def test_the_status_says_which_sql_was_read(compiled, raw):
    assert {a.sql_read_from for a in compiled[1].assets.values() if a.kind == "view"} == {COMPILED}
    assert {a.sql_read_from for a in raw.assets.values() if a.kind == "view"} == {RAW}
    answer = explore(raw, OWNER, "main.orders", "upstream", 1)
    assert answer.assets[0].sql_read_from == "raw_code, with ref() and source() resolved"


def test_raw_and_compiled_give_the_same_edges(compiled, raw):
    def pairs(lineage):
        return sorted((lineage.assets[e.source].full_name, lineage.assets[e.target].full_name, e.mark, e.via, e.file)
                      for e in lineage.edges)

    assert pairs(compiled[1]) == pairs(raw)


def test_short_name_is_the_model_name(compiled):
    answer = explore(compiled[1], OWNER, "top_customers", "upstream", 1)
    assert answer.asset == "main.top_customers"
