"""Impact: every asset downstream at any depth, by kind, with owner, steward and certified;
"at least" when part is hidden, counting only what it holds."""

from __future__ import annotations

from gov_helpers import SHOP, shop, table, view, write_project
from prism_lineage.governance.access import OWNER, viewer_for
from prism_lineage.governance.impact import AT_LEAST_NOTE, impact
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync


def test_everything_downstream_at_any_depth_by_kind():
    lineage, _ = shop("prod")
    answer = impact(lineage, OWNER, "raw.orders")
    assert [(a.kind, a.name, a.owner, a.steward, a.certified) for a in answer.assets] == [
        ("table", "analytics.orders", "finance@shop.example", "finance-data", True),
        ("table", "staging.orders", "analytics@shop.example", None, False),
        ("view", "analytics.daily_revenue", "finance@shop.example", "finance-data", False),
        ("view", "finance.board_report", "cfo@shop.example", "finance-data", False),
        ("view", "marts.revenue_by_country", "growth@shop.example", "growth-data", False),
    ]
    # at least: two assets' SQL was not read (one kept in a file, one not parseable): either may
    # read raw.orders too, and the answer says so (field trial 03).
    assert (answer.count, answer.at_least, answer.by_kind) == (5, True, {"table": 2, "view": 3})
    assert answer.notes == [
        "There may be more: 2 other assets you may see have SQL that was not read (1 could not be parsed; "
        "1 kept in a file, not read), so what they read is not known.",
        "SQL kept in a file is not read, so what it reads is not shown."]


def test_depth_of_the_graph_does_not_limit_impact(tmp_path):
    views = [view("s.v0", "SELECT a FROM s.t", ["s.t"])]
    views += [view(f"s.v{i}", f"SELECT a FROM s.v{i - 1}", [f"s.v{i - 1}"]) for i in range(1, 15)]
    project, _ = load_project(write_project(tmp_path, tables=[table("s.t", ["a"])], views=views))
    assert impact(sync(project), OWNER, "s.t").count == 15


def test_at_least_when_part_is_hidden_and_counts_only_what_it_holds():
    lineage, access = shop("prod")
    answer = impact(lineage, viewer_for(access, "carol"), "analytics.orders")  # marts.* hidden
    assert [a.name for a in answer.assets] == ["analytics.daily_revenue", "finance.board_report"]
    assert (answer.count, answer.at_least) == (2, True) and AT_LEAST_NOTE in answer.notes
    assert "marts" not in answer.to_json()


def test_impact_of_a_table_whose_pipeline_edge_is_only_declared():
    lineage, _ = shop("prod")
    answer = impact(lineage, OWNER, "analytics.customer_revenue")
    assert [(a.name, a.sql_status) for a in answer.assets] == [
        ("analytics.customer_scores", "Could not be parsed")]
    assert answer.sql_not_read == 1


def test_not_computed(tmp_path):
    project, _ = load_project(SHOP)
    answer = impact(sync(project, "prod", held_for_review=True), OWNER, "raw.orders")
    assert answer.environment_status == "not computed" and answer.assets == []
