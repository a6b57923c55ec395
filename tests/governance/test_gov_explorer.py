"""The explorer: direction, depth (default 2, 1 to 10, refused outside by name), the cut at 100
assets ("cut, holds N"), the list form, the legend, the one-hop answer, and what it says of
SQL that was not read."""

from __future__ import annotations

import dataclasses
import re

import pytest

from gov_helpers import shop, table, view, write_project
from prism_lineage.governance.access import OWNER
from prism_lineage.governance.errors import DepthOutOfRangeError
from prism_lineage.governance.explorer import explore, one_hop
from prism_lineage.governance.loading import load_project
from prism_lineage.governance.rollup import sync
from prism_lineage.governance.statuses import (
    FILE_SQL_NOTE,
    HELD_NOTE,
    NO_EDGE_NOTE,
    NOT_COMPUTED_NOTE,
    EnvironmentStatus,
    sql_not_read_note,
)


def names(answer):
    return [a.name for a in answer.assets]


def test_default_is_both_directions_at_depth_two():
    lineage, _ = shop("prod")
    answer = explore(lineage, OWNER, "analytics.orders")
    assert (answer.direction, answer.depth, answer.cut, answer.holds) == ("both", 2, False, 8)
    assert names(answer) == [
        "analytics.orders",
        "analytics.daily_revenue", "marts.revenue_by_country", "staging.orders", "staging.payments",
        "finance.board_report", "raw.orders", "raw.payments",
    ]
    assert [a.distance for a in answer.assets] == [0, 1, 1, 1, 1, 2, 2, 2]


def test_upstream_and_downstream_walk_apart():
    lineage, _ = shop("prod")
    up = explore(lineage, OWNER, "analytics.orders", "upstream", 10)
    down = explore(lineage, OWNER, "analytics.orders", "downstream", 10)
    assert names(up) == ["analytics.orders", "staging.orders", "staging.payments", "raw.orders", "raw.payments"]
    assert names(down) == ["analytics.orders", "analytics.daily_revenue", "marts.revenue_by_country",
                           "finance.board_report"]
    # 'both' does not zig-zag: raw.customers feeds a downstream view, but is not upstream of orders.
    assert "raw.customers" not in names(explore(lineage, OWNER, "analytics.orders", "both", 10))


@pytest.mark.parametrize("depth", [0, 11, -1, 100])
def test_depth_outside_one_to_ten_is_refused_by_name(depth):
    lineage, _ = shop("prod")
    with pytest.raises(DepthOutOfRangeError) as refused:
        explore(lineage, OWNER, "analytics.orders", "both", depth)
    assert str(refused.value) == f"depth {depth} is outside the allowed range 1 to 10"
    assert refused.value.exit_code == 2


def test_list_form_holds_every_edge_one_row_per_edge_and_mark():
    lineage, _ = shop("prod")
    answer = explore(lineage, OWNER, "analytics.daily_revenue", "both", 1)
    rows = [(e.source_name, e.target_name, e.mark, e.line, e.via, e.file)
            for e in answer.edges]
    assert rows == [
        ("analytics.daily_revenue", "finance.board_report", "declared", "solid", "view", "views/board_report.yaml"),
        ("analytics.daily_revenue", "finance.board_report", "parsed", "dashed", "view", "views/board_report.yaml"),
        ("analytics.orders", "analytics.daily_revenue", "declared", "solid", "view", "views/daily_revenue.yaml"),
        ("analytics.orders", "analytics.daily_revenue", "parsed", "dashed", "view", "views/daily_revenue.yaml"),
    ]
    parsed = answer.edges[1]
    assert [(c.source, c.target, c.relationship) for c in parsed.columns] == [
        ("order_date", "month", "value"), ("order_date", "month", "grouping"),
        ("revenue", "revenue", "value"), ("order_date", "revenue", "grouping")]


def test_json_edge_keys_follow_the_brief():
    lineage, _ = shop("prod")
    document = explore(lineage, OWNER, "analytics.daily_revenue", "upstream", 1).model_dump(by_alias=True)
    edge = document["edges"][1]
    assert {"from", "to", "mark", "via", "file", "columns"} <= set(edge)
    assert set(edge["columns"][0]) >= {"from", "to", "relationship"}
    assert {"project", "environment", "environment_status", "asset", "direction", "depth", "marks", "cut",
            "holds", "assets", "edges", "sql_not_read", "notes"} <= set(document)
    assert set(document["assets"][0]) >= {"id", "name", "kind", "owner", "steward", "certified", "sql_status",
                                          "reads_at_least", "note"}


def test_legend_gives_each_mark_its_line_and_status():
    lineage, _ = shop("prod")
    answer = explore(lineage, OWNER, "analytics.orders")
    assert [(e.mark, e.line, e.status) for e in answer.legend] == [
        ("declared", "solid", "Recorded"), ("parsed", "dashed", "Recorded"), ("observed", "dotted", "Not recorded")]


def test_one_hop_is_depth_one_both_ways_and_says_both_marks():
    lineage, _ = shop("prod")
    answer = one_hop(lineage, OWNER, "analytics.daily_revenue")
    assert (answer.direction, answer.depth) == ("both", 1)
    assert names(answer) == ["analytics.daily_revenue", "analytics.orders", "finance.board_report"]
    assert sorted(e.mark for e in answer.edges) == ["declared", "declared", "parsed", "parsed"]


def test_sql_not_read_is_counted_among_the_assets_shown_and_reads_at_least():
    lineage, _ = shop("prod")
    answer = explore(lineage, OWNER, "analytics.customer_scores", "upstream", 1)
    assert names(answer) == ["analytics.customer_scores", "analytics.customer_revenue"]
    assert [(a.sql_status, a.reads_at_least) for a in answer.assets] == [
        ("Could not be parsed", True), ("Kept in a file, not read", True)]
    assert answer.sql_not_read == 2
    assert sql_not_read_note(2) in answer.notes


def test_an_answer_without_edges_says_so_and_that_file_sql_is_not_read():
    lineage, _ = shop("prod")
    answer = explore(lineage, OWNER, "analytics.customer_revenue", "upstream", 3)
    assert answer.edges == [] and answer.holds == 1
    assert NO_EDGE_NOTE in answer.notes and FILE_SQL_NOTE in answer.notes


def test_the_file_note_is_said_only_where_the_environment_keeps_sql_in_a_file(tmp_path):
    # No statement of this project is kept in a file: an answer without edges does not say it is.
    root = write_project(tmp_path / "p", tables=[table("s.t", ["a"]), table("s.u", ["a"])])
    answer = explore(sync(load_project(root)[0]), OWNER, "s.t", "both", 2)
    assert answer.edges == [] and NO_EDGE_NOTE in answer.notes and FILE_SQL_NOTE not in answer.notes


def test_not_computed_environment_is_said_in_words_not_drawn_empty(tmp_path):
    from gov_helpers import SHOP

    project, _ = load_project(SHOP)
    answer = explore(sync(project, "prod", held_for_review=True), OWNER, "analytics.orders")
    assert answer.environment_status == "not computed" and answer.notes == [NOT_COMPUTED_NOTE, HELD_NOTE]
    assert answer.assets == [] and answer.edges == [] and answer.holds == 0
    # Not computed for another reason (no sync has worked it out): it does not claim a review.
    unsynced = dataclasses.replace(sync(project, "prod"), status=EnvironmentStatus.NOT_COMPUTED, edges=())
    assert explore(unsynced, OWNER, "analytics.orders").notes == [NOT_COMPUTED_NOTE]


def _fan(tmp_path, width):
    views = [view(f"v.v{i:03d}", "SELECT a FROM s.t", reads=["s.t"]) for i in range(width)]
    return load_project(write_project(tmp_path, tables=[table("s.t", ["a"])], views=views))[0]


def test_cut_at_one_hundred_assets_says_what_it_holds_never_a_total(tmp_path):
    lineage = sync(_fan(tmp_path, 150))
    answer = explore(lineage, OWNER, "s.t", "downstream", 1)
    assert answer.cut and answer.holds == 100 and len(answer.assets) == 100
    assert not re.search(r"(?<![\w.])15[01](?![\w.])", answer.to_json())  # no total anywhere
    assert all(e.source in {a.id for a in answer.assets} and e.target in {a.id for a in answer.assets}
               for e in answer.edges)


def test_exactly_one_hundred_is_not_cut(tmp_path):
    lineage = sync(_fan(tmp_path, 99))
    answer = explore(lineage, OWNER, "s.t", "downstream", 1)
    assert not answer.cut and answer.holds == 100


def test_short_name_and_ambiguity(tmp_path):
    lineage, _ = shop("prod")
    assert explore(lineage, OWNER, "daily_revenue").asset == "analytics.daily_revenue"
    from prism_lineage.governance.errors import AmbiguousAssetError

    with pytest.raises(AmbiguousAssetError, match="could be analytics.orders or raw.orders or staging.orders"):
        explore(lineage, OWNER, "orders")
