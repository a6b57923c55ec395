"""dbt as dbt means it, over the second fixture (tests/fixtures/dbt_project_2, generated with
dbt: see its README for where each pattern is).

* nodes that name one relation (a seed and a source declared on the table it loads) are one
  asset, reachable by every dbt name, whose notes say which name's columns and meta won;
* ``ref()`` and ``source()`` are declared reads for every kind of model (view, table,
  incremental, snapshot, Python, ephemeral traced through), parsed edges still come from the
  SQL, and the gap between the two is said on the asset;
* a short name follows dbt's ``--select`` precedence (a model over a seed or snapshot over a
  source over a relation's own name); only two assets of one rank make it ambiguous.
"""

from __future__ import annotations

import json

import pytest

from gov_helpers import DBT2
from prism_lineage.cli import main
from prism_lineage.governance.access import OWNER
from prism_lineage.governance.dbt import COMPILED, RAW, load_manifest
from prism_lineage.governance.errors import AmbiguousAssetError
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync
from prism_lineage.governance.statuses import SqlStatus
from test_gov_rollup import check_golden, render_edges


@pytest.fixture(scope="module")
def compiled():
    project, _ = load_project(DBT2)
    return project, sync(project)


@pytest.fixture(scope="module")
def raw():
    return sync(load_manifest(DBT2 / "parsed" / "manifest.json"))


def edges(lineage, source, target):
    s, t = lineage.by_name[source], lineage.by_name[target]
    return {e.mark.value: e for e in lineage.edges if e.source == s and e.target == t}


def asset(lineage, name):
    return lineage.assets[lineage.by_name[name]]


def test_compiled_golden(compiled, update_goldens):
    check_golden("dbt2_compiled.edges", render_edges(compiled[1]), update_goldens)


def test_raw_golden(raw, update_goldens):
    check_golden("dbt2_raw.edges", render_edges(raw), update_goldens)


# --- 1. one asset per relation ---------------------------------------------------------------

def test_a_seed_and_a_source_on_one_relation_are_one_asset(compiled):
    project, lineage = compiled
    names = [t.full_name for t in project.environments[0].tables]
    assert names.count("raw.raw_customers") == 1
    customers = asset(lineage, "raw.raw_customers")
    assert customers.file == "seeds/raw_customers.csv"  # the seed builds the relation
    assert (customers.owner, customers.steward, customers.certified) == ("crm@harbor.example", "crm-data", True)
    assert customers.notes == (
        "One relation with several dbt names: seed raw_customers (seeds/raw_customers.csv), source "
        "raw.raw_customers (models/staging/sources.yml); it answers to each.",
        "owner: crm@harbor.example, from seed raw_customers, which builds the relation (source "
        "raw.raw_customers says ingest@harbor.example).",
        "steward: crm-data, from seed raw_customers, which builds the relation (source raw.raw_customers says "
        "data-platform).",
        "certified: source raw.raw_customers certifies it and seed raw_customers does not; a relation certified "
        "under any of its names is certified.",
        "columns: its dbt names disagree (seed raw_customers declares id, first_name, last_name, country_code, "
        "email; source raw.raw_customers declares id, first_name, last_name, country); the catalog's columns "
        "are used: catalog.json read them from the relation itself.")
    table = next(t for t in project.environments[0].tables if t.full_name == "raw.raw_customers")
    assert [c.name for c in table.columns] == ["id", "first_name", "last_name", "country_code", "email"]


@pytest.mark.parametrize("name", ["raw_customers", "raw.raw_customers", "seed.harbor.raw_customers",
                                  "source.harbor.raw.raw_customers"])
def test_every_dbt_name_reaches_the_one_asset(compiled, name):
    assert explore(compiled[1], OWNER, name, "upstream", 1).asset == "raw.raw_customers"


def test_the_notes_say_which_won_in_the_answer(compiled, capsys):
    answer = explore(compiled[1], OWNER, "raw_customers", "downstream", 1)
    assert answer.assets[0].notes[0].startswith("One relation with several dbt names")
    assert main(["lineage", "raw_customers", "--project", str(DBT2), "--depth", "1"]) == 0
    out = capsys.readouterr().out
    assert "owner: crm@harbor.example, from seed raw_customers, which builds the relation" in out


def test_without_a_catalog_the_builder_s_columns_win(tmp_path):
    project = load_manifest(DBT2 / "target" / "manifest.json")
    table = next(t for t in project.environments[0].tables if t.full_name == "raw.raw_customers")
    assert [c.name for c in table.columns] == ["id", "first_name", "last_name", "country_code", "email"]
    assert table.notes[-1].endswith("the columns of seed raw_customers are used, which builds the relation "
                                    "(no catalog.json has the relation).")


def test_loading_the_fixture_from_the_command_line_is_not_an_internal_error(capsys):
    code = main(["lineage", "orders", "--project", str(DBT2), "-o", "json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["asset"] == "main.orders"


# --- 2. ref() and source() are declared reads ----------------------------------------------

@pytest.mark.parametrize("source, target, note", [
    # a view model reading a seed through ref()
    ("raw.raw_customers", "main.stg_customers", "Declared by ref('raw_customers') in models/staging/stg_customers.sql."),
    # a view model reading two sources of one short name
    ("archive.events", "main.stg_events", "Declared by source('archive', 'events') in models/staging/stg_events.sql."),
    # a table model reading a view
    ("main.stg_orders", "main.orders", "Declared by ref('stg_orders') in models/marts/orders.sql."),
    # a table model reading through an ephemeral model
    ("raw.payments", "main.orders", "Declared by ref('stg_payments') in models/marts/orders.sql, through ephemeral "
                                    "models: stg_payments declares source('raw', 'payments')."),
    # an incremental model reading through two ephemeral models
    ("raw.payments", "main.payments", "Declared by ref('int_card_payments') in models/marts/payments.sql, through "
                                      "ephemeral models: int_card_payments declares ref('stg_payments'); "
                                      "stg_payments declares source('raw', 'payments')."),
    ("main.orders", "main.customers", "Declared by ref('orders') in models/marts/customers.sql."),
    # a snapshot, and a view over it
    ("raw.orders", "snapshots.orders_snapshot", "Declared by source('raw', 'orders') in snapshots/orders_snapshot.sql."),
    ("snapshots.orders_snapshot", "main.order_history",
     "Declared by ref('orders_snapshot') in models/marts/order_history.sql."),
    # a Python model
    ("main.customers", "main.customer_scores", "Declared by dbt.ref('customers') in models/marts/customer_scores.py."),
    # a table model whose SQL cannot be parsed
    ("main.stg_events", "main.order_event_kinds", "Declared by ref('stg_events') in models/marts/order_event_kinds.sql."),
])
def test_every_model_kind_gets_a_declared_edge_per_ref(compiled, source, target, note):
    found = edges(compiled[1], source, target)
    assert found["declared"].note == note
    assert found["declared"].columns is None


def test_parsed_edges_still_come_from_the_sql(compiled):
    lineage = compiled[1]
    # Both marks where the SQL reads what the ref declares.
    assert set(edges(lineage, "main.stg_orders", "main.orders")) == {"declared", "parsed"}
    # No parsed edge where the SQL is not read: Python, and SQL the reader cannot parse.
    assert set(edges(lineage, "main.customers", "main.customer_scores")) == {"declared"}
    assert set(edges(lineage, "main.stg_events", "main.order_event_kinds")) == {"declared"}
    assert asset(lineage, "main.order_event_kinds").sql_status is SqlStatus.NOT_PARSED
    scores = asset(lineage, "main.customer_scores")
    assert scores.sql_status is SqlStatus.NOT_PARSED and scores.notes == (
        "A Python model (models/marts/customer_scores.py): only SQL is read, so what it reads is drawn from "
        "its dbt.ref() and dbt.source() calls alone.",)
    # An incremental model reading itself ({{ this }}) draws no edge to itself.
    payments = lineage.by_name["main.payments"]
    assert not any(e.source == payments == e.target for e in lineage.edges)


def test_the_gap_between_declared_and_parsed_is_said(compiled):
    lineage = compiled[1]
    # A hard-coded read outside depends_on: parsed only.
    assert set(edges(lineage, "raw.legacy_orders", "main.legacy_totals")) == {"parsed"}
    assert [n.text for n in asset(lineage, "main.legacy_totals").read_notes] == [
        "Its SQL reads raw.legacy_orders without ref() or source()."]
    # A ref the SQL does not read (a `-- depends_on:` hint): declared only.
    assert set(edges(lineage, "main.stg_events", "main.customers")) == {"declared"}
    assert [n.text for n in asset(lineage, "main.customers").read_notes] == [
        "ref('stg_events') declares a read of main.stg_events, which its SQL does not perform."]
    # Nothing is said where the SQL was not read: it may read more than it shows.
    assert asset(lineage, "main.order_event_kinds").read_notes == ()
    answer = explore(lineage, OWNER, "main.customers", "upstream", 1)
    assert answer.assets[0].notes == [
        "ref('stg_events') declares a read of main.stg_events, which its SQL does not perform."]


def test_raw_code_gives_the_same_declared_edges(compiled, raw):
    def declared(lineage):
        return sorted((lineage.assets[e.source].full_name, lineage.assets[e.target].full_name, e.note)
                      for e in lineage.edges if e.mark == "declared")

    assert declared(raw) == declared(compiled[1])
    assert {a.sql_read_from for a in raw.assets.values() if a.kind == "view"} == {RAW}
    assert {a.sql_read_from for a in compiled[1].assets.values() if a.kind == "view"} == {COMPILED}


# --- 3. short names --------------------------------------------------------------------------

@pytest.mark.parametrize("name, full_name", [
    ("orders", "main.orders"),  # the model, not the source raw.orders
    ("payments", "main.payments"),  # the model, not the source raw.payments
    ("country_codes", "main.country_codes"),  # the seed, not the source reference.country_codes
    ("orders_snapshot", "snapshots.orders_snapshot"),
    ("legacy_orders", "raw.legacy_orders"),  # only a source answers
    ("raw.orders", "raw.orders"),  # a full name is exact
    ("archive.events", "archive.events"),  # a source's dbt name
])
def test_short_names_follow_dbt_precedence(compiled, name, full_name):
    assert explore(compiled[1], OWNER, name, "upstream", 1).asset == full_name


def test_two_assets_of_one_rank_are_ambiguous_and_the_message_lists_full_names(compiled, capsys):
    with pytest.raises(AmbiguousAssetError) as refused:
        explore(compiled[1], OWNER, "events")
    assert str(refused.value) == "asset name 'events' is ambiguous: it could be archive.events or raw.events"
    assert main(["lineage", "events", "--project", str(DBT2)]) == 5
    assert "archive.events or raw.events" in capsys.readouterr().err
