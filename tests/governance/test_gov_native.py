"""Native projects as real teams write them.

* ordinary table metadata (labels, annotations, table and column doc, column defaults,
  identifier fields, schema id, partitions, properties, write order, routing) is accepted and
  kept, and a change to it is not escalated for review — each change seed 000 lists as not
  escalated is tested on its own; the changes that are escalated still are;
* a read its declarations and its SQL disagree on is said on the asset.
"""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from gov_helpers import SHOP, table, view, write_project
from gov_helpers import edit_yaml as edit
from prism_lineage.cli import main
from prism_lineage.governance.access import OWNER, viewer_for
from prism_lineage.governance.errors import ProjectError
from prism_lineage.governance.explorer import explore
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.review import review
from prism_lineage.governance.rollup import sync

ORDERS = "tables/analytics_orders.yaml"

# A certified table written the way a team that keeps Iceberg-style metadata writes it.
METADATA = {
    "doc": "one row per order",
    "labels": {"domain": "finance", "tier": "gold"},
    "annotations": {"catalog.example/pii": "false", "reviewed-by": "finance"},
    "identifier_fields": ["order_id"],
    "schema_id": 3,
    "partitions": ["day(order_date)", {"column": "customer_id", "transform": "bucket[16]"}],
    "properties": {"write.format.default": "parquet", "commit.retry.num-retries": 4},
    "write_order": [{"column": "order_date", "direction": "asc", "nulls": "first"}, "order_id"],
    "routing": {"format": "parquet", "engine": "spark", "consumers": ["bi", "finance-mart"]},
}
COLUMN_METADATA = {"default": 0, "initial_default": 0, "write_default": 0}


def with_metadata(document):
    document.update(METADATA)
    for column in document["columns"]:
        if column["name"] == "amount":
            column.update(COLUMN_METADATA)


@pytest.fixture
def versions(tmp_path):
    base, proposed = tmp_path / "base", tmp_path / "proposed"
    shutil.copytree(SHOP, base)
    edit(base, ORDERS, with_metadata)
    shutil.copytree(base, proposed)
    return base, proposed


def test_ordinary_metadata_is_accepted_and_kept(versions):
    base, _ = versions
    project, _ = load_project(base)
    orders = next(t for t in project.environment("prod").tables if t.full_name == "analytics.orders")
    assert orders.doc == "one row per order" and orders.labels == {"domain": "finance", "tier": "gold"}
    assert orders.annotations["reviewed-by"] == "finance" and orders.identifier_fields == ("order_id",)
    assert orders.schema_id == 3 and orders.partitions[1] == {"column": "customer_id", "transform": "bucket[16]"}
    assert orders.properties["commit.retry.num-retries"] == 4 and orders.write_order[1] == "order_id"
    assert (orders.routing.format, orders.routing.engine, orders.routing.consumers) == (
        "parquet", "spark", ("bi", "finance-mart"))
    amount = next(c for c in orders.columns if c.name == "amount")
    assert (amount.default, amount.initial_default, amount.write_default) == (0, 0, 0)
    assert sync(project, "prod").by_name["analytics.orders"]  # lineage reads it as before


def test_metadata_in_an_environment_s_patch_is_accepted(versions):
    base, _ = versions
    (base / "environments/dev.yaml").write_text(yaml.safe_dump(
        {"patches": {"analytics.orders": {"labels": {"tier": "bronze"}, "routing": {"engine": "duckdb"}}}}))
    project, _ = load_project(base)
    orders = next(t for t in project.environment("dev").tables if t.full_name == "analytics.orders")
    assert orders.labels == {"tier": "bronze"} and orders.routing.engine == "duckdb"


def _column(name):
    def change(document):
        return next(c for c in document["columns"] if c["name"] == name)
    return change


# Each change seed 000 lists as not escalated for review, made to a certified table's own file.
NOT_ESCALATED = {
    "a top-level column's required flag": lambda d: _column("amount")(d).update(required=True),
    "a column's default": lambda d: _column("amount")(d).update(default=1),
    "a column's initial default": lambda d: _column("amount")(d).update(initial_default=1),
    "a column's write default": lambda d: _column("amount")(d).update(write_default=1),
    "a column's doc": lambda d: _column("amount")(d).update(doc="what was paid, in euros"),
    "a table's doc": lambda d: d.update(doc="orders, one row each"),
    "a table's labels": lambda d: d["labels"].update(tier="silver"),
    "a table's annotations": lambda d: d["annotations"].pop("reviewed-by"),
    "a table's identifier fields": lambda d: d.update(identifier_fields=["order_id", "customer_id"]),
    "a table's schema id": lambda d: d.update(schema_id=4),
    "the column order": lambda d: d["columns"].reverse(),
    "a table's partitions": lambda d: d.update(partitions=["month(order_date)"]),
    "a table's properties": lambda d: d["properties"].update({"write.format.default": "orc"}),
    "a table's write order": lambda d: d.update(write_order=["customer_id"]),
    "the routing format": lambda d: d["routing"].update(format="avro"),
    "the routing engine": lambda d: d["routing"].update(engine="flink"),
    "the routing consumers": lambda d: d["routing"].update(consumers=["bi"]),
    "dropping the column ids": lambda d: [c.pop("id") for c in d["columns"]],
}


@pytest.mark.parametrize("change", sorted(NOT_ESCALATED))
def test_changes_seed_000_lists_are_not_escalated(versions, change):
    base, proposed = versions
    edit(proposed, ORDERS, NOT_ESCALATED[change])
    answer = review(base, proposed, OWNER)
    assert not answer.waits_for_approval, answer.held
    assert answer.held == []


def test_adding_column_ids_to_a_file_that_had_none_is_not_escalated(versions):
    base, proposed = versions
    edit(base, ORDERS, lambda d: [c.pop("id") for c in d["columns"]])
    assert not review(base, proposed, OWNER).waits_for_approval


def test_creating_a_table_is_not_escalated(versions):
    base, proposed = versions
    (proposed / "tables/analytics_refunds.yaml").write_text(yaml.safe_dump(
        {"namespace": "analytics", "name": "refunds", "certified": True, **METADATA,
         "identifier_fields": ["refund_id"], "columns": [{"name": "refund_id", "type": "bigint"}]}))
    assert not review(base, proposed, OWNER).waits_for_approval


@pytest.mark.parametrize("change, reason", [
    (lambda d: d["columns"].pop(), "removes 1 column"),
    (lambda d: _column("amount")(d).update(type="double"), "retypes 1 column"),
    (lambda d: _column("amount")(d).update(name="total"), "renames 1 column"),
    (lambda d: d.update(name="all_orders"), "changes the namespace or the name the file declares"),
])
def test_breaking_changes_beside_metadata_still_wait(versions, change, reason):
    base, proposed = versions
    edit(proposed, ORDERS, lambda d: (change(d), d["labels"].update(tier="silver")))
    [held] = review(base, proposed, OWNER).held
    assert held.reason.startswith(reason)


def test_an_unknown_field_is_still_refused_by_name(versions):
    base, _ = versions
    edit(base, ORDERS, lambda d: d.update(lables={"tier": "gold"}))
    with pytest.raises(ProjectError, match=r"^tables/analytics_orders.yaml, line \d+: lables: Extra inputs are not "
                                           r"permitted"):
        load_project(base)


@pytest.mark.parametrize("field", ["refs", "notes", "language", "alias_ranks"])
def test_fields_only_a_loader_sets_are_refused_in_native_files(tmp_path, field):
    root = write_project(tmp_path / "p", tables=[table("raw.a", ["x"], **{field: []})])
    line = next(i for i, text in enumerate((root / "tables/raw_a.yaml").read_text().splitlines(), 1)
                if text.startswith(f"{field}:"))
    with pytest.raises(ProjectError, match=f"tables/raw_a.yaml, line {line}: {field}: Extra inputs are not permitted"):
        load_project(root)


def test_a_pipeline_declares_no_read(tmp_path):
    root = write_project(tmp_path / "p", tables=[table("raw.a", ["x"]), table("raw.b", ["x"])], pipelines=[
        {"name": "p", "assets": [{"name": "b", "writes": "raw.b", "sql": "SELECT x FROM raw.a", "refs": []}]}])
    with pytest.raises(ProjectError, match="assets.0.refs: Extra inputs are not permitted "
                                           r"\(a pipeline declares no read of another table"):
        load_project(root)


# --- 7. declared vs parsed --------------------------------------------------------------------

def gap_project(root):
    return write_project(root, tables=[table("raw.orders", ["id", "amount"]), table("raw.customers", ["id", "country"]),
                                       table("raw.refunds", ["id"])], views=[
        # reads lists raw.refunds, which the SQL does not read; the SQL reads raw.customers, unlisted
        view("marts.revenue", "SELECT c.country, SUM(o.amount) AS revenue FROM raw.orders o "
                              "JOIN raw.customers c ON c.id = o.id GROUP BY c.country",
             reads=["raw.orders", "raw.refunds"]),
        view("marts.listed", "SELECT id FROM raw.orders", reads=["raw.orders"]),
    ], access={"owner": "o", "roles": {"r": {"sees": ["marts.*", "raw.orders", "raw.refunds"]}},
               "members": {"o": {"roles": ["r"]}, "m": {"roles": ["r"]}}})


def test_a_view_says_where_its_reads_list_and_its_sql_disagree(tmp_path):
    project, access = load_project(gap_project(tmp_path / "p"))
    lineage = sync(project)
    answer = explore(lineage, OWNER, "marts.revenue", "upstream", 1)
    assert answer.assets[0].notes == [
        "Its SQL reads raw.customers, which its reads list does not name.",
        "Its reads list names raw.refunds, which its SQL does not read."]
    assert explore(lineage, OWNER, "marts.listed", "upstream", 1).assets[0].notes == []
    # A note naming an asset the credential may not see is not told (raw.customers is hidden from m).
    restricted = explore(lineage, viewer_for(access, "m"), "marts.revenue", "upstream", 1)
    assert restricted.assets[0].notes == ["Its reads list names raw.refunds, which its SQL does not read."]
    assert "customers" not in restricted.to_json()


def test_the_shop_example_says_its_unlisted_read(capsys):
    assert main(["lineage", "marts.revenue_by_country", "--project", str(SHOP), "--depth", "1"]) == 0
    assert "Its SQL reads raw.customers, which its reads list does not name." in capsys.readouterr().out


def test_adding_metadata_to_a_certified_table_is_not_held_as_unreadable(tmp_path):
    base, proposed = tmp_path / "base", tmp_path / "proposed"
    shutil.copytree(SHOP, base)
    shutil.copytree(SHOP, proposed)
    edit(proposed, ORDERS, with_metadata)  # before: the file was "unreadable", the change held
    answer = review(base, proposed, OWNER)
    assert not answer.waits_for_approval and answer.held == []


# --- 6. a column its table does not have ----------------------------------------------------

def unknown_column_project(root, amount="amount"):
    return write_project(root, tables=[
        table("analytics.orders", ["order_id", "customer_id", amount]), table("raw.customers", ["id", "country"])],
        views=[view("analytics.revenue", "SELECT o.order_id, o.amout AS revenue, c.* FROM analytics.orders o "
                                         "JOIN raw.customers c ON c.id = o.customer_id",
                    reads=["analytics.orders", "raw.customers"]),
               view("analytics.totals", "SELECT customer_id, SUM(amount) AS total FROM analytics.orders "
                                        "GROUP BY customer_id", reads=["analytics.orders"]),
               view("analytics.top", "SELECT customer_id, totl FROM analytics.totals", reads=["analytics.totals"])])


def links(lineage, source, target):
    s, t = lineage.by_name[source], lineage.by_name[target]
    [edge] = [e for e in lineage.edges if e.source == s and e.target == t and e.mark == "parsed"]
    return {(c.source, c.target): c.confidence for c in edge.columns}


def test_a_column_its_table_does_not_declare_is_marked_unknown_and_said(tmp_path):
    project, _ = load_project(unknown_column_project(tmp_path / "p"))
    lineage = sync(project)
    assert links(lineage, "analytics.orders", "analytics.revenue")[("amout", "revenue")] == "unknown"
    assert links(lineage, "analytics.orders", "analytics.revenue")[("order_id", "order_id")] == "exact"
    # Only the table the column was named on is read schema-less: c.* still expands.
    assert links(lineage, "raw.customers", "analytics.revenue") == {
        ("id", "order_id"): "exact", ("id", "revenue"): "exact", ("id", "id"): "exact",
        ("country", "country"): "exact", ("id", "country"): "exact"}
    answer = explore(lineage, OWNER, "analytics.revenue", "upstream", 1)
    assert answer.assets[0].notes == ["Reads amout, which analytics.orders does not declare."]
    # A column a view's own SQL does not output.
    assert explore(lineage, OWNER, "analytics.top", "upstream", 1).assets[0].notes == [
        "Reads totl, which analytics.totals does not output."]
    assert links(lineage, "analytics.totals", "analytics.top")[("totl", "totl")] == "unknown"


def test_after_a_rename_sql_still_reading_the_old_name_is_flagged(tmp_path):
    before, _ = load_project(unknown_column_project(tmp_path / "a"))
    after, _ = load_project(unknown_column_project(tmp_path / "b", amount="amount_usd"))
    first = sync(before)
    assert explore(first, OWNER, "analytics.totals", "upstream", 1).assets[0].notes == []
    again = sync(after, previous=first)  # the rename re-reads what read the renamed table's columns
    assert explore(again, OWNER, "analytics.totals", "upstream", 1).assets[0].notes == [
        "Reads amount, which analytics.orders does not declare."]
    assert links(again, "analytics.orders", "analytics.totals")[("amount", "total")] == "unknown"


def test_unknown_columns_through_the_index_and_the_cli(tmp_path, capsys):
    root = unknown_column_project(tmp_path / "p")
    argv = ["lineage", "analytics.revenue", "--project", str(root), "-o", "json", "--direction", "up"]
    assert main(argv) == 0
    direct = capsys.readouterr().out
    assert main([*argv, "--index", str(tmp_path / "index"), "--sync"]) == 0
    stored = json.loads(capsys.readouterr().out)
    stored.pop("as_of")
    assert stored == json.loads(direct)  # the store keeps the notes and the unknown confidence
    assert "Reads amout, which analytics.orders does not declare." in direct
