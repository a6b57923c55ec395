"""Text a steward can read (issue 10 item 9): edges grouped per pair with one entry per mark, a
parsed edge's columns as a small table — value lineage first, then each indirect kind once per
source column at its weakest confidence — marks in words (no line styles), "N assets shown".
The JSON keeps every row."""

from __future__ import annotations

import json

from prism_lineage.governance.answers import AssetNode, ColumnEdge, EdgeRow, ExplorerAnswer, LegendEntry
from prism_lineage.governance.text import render_explorer

MARKS = {"declared": "Recorded", "parsed": "Recorded", "observed": "Recorded"}


def link(source, target, relationship="value", transformation="identity", confidence="exact"):
    return ColumnEdge(**{"from": source, "to": target, "relationship": relationship,
                         "transformation": transformation, "confidence": confidence})


def edge(mark, columns=None, **extra):
    return EdgeRow(**{"from": "a1", "to": "a2", "from_name": "s.orders", "to_name": "s.report", "mark": mark,
                      "line": {"declared": "solid", "parsed": "dashed", "observed": "dotted"}[mark],
                      "via": extra.pop("via", "view"), "file": extra.pop("file", "views/report.yaml"),
                      "columns": columns, **extra})


def answer(edges, cut=False):
    nodes = [AssetNode(id=i, name=n, kind=k, owner=None, steward=None, certified=False, sql_status=None,
                       distance=d) for i, n, k, d in (("a2", "s.report", "view", 0), ("a1", "s.orders", "table", 1))]
    return ExplorerAnswer(project="p", environment="e", environment_status="computed", asset="s.report",
                          direction="upstream", depth=1, marks=MARKS,
                          legend=[LegendEntry(mark=m, line="solid", status=s) for m, s in MARKS.items()],
                          cut=cut, holds=2, assets=nodes, edges=edges, sql_not_read=0, notes=[])


def test_a_pair_is_one_heading_with_an_entry_per_mark_and_a_column_table():
    parsed = edge("parsed", [
        link("status", "total", "control", "expression"),
        link("amount", "total", "value", "aggregate"),
        link("status", "n", "control", "expression", "conservative"),
        link("customer_id", "total", "grouping", "aggregate"),
        link("customer_id", "n", "grouping", "aggregate"),
        link("customer_id", "customer_id"),
        link("id", "n", "value", "aggregate"),
    ], revision="abc123")
    observed = edge("observed", None, via="run", file="spark/daily", run_id="r-1", seen_at="2026-12-01T05:45:01Z")
    text = render_explorer(answer([edge("declared", note="Listed by the view's author."), parsed, observed]))
    assert text.endswith(
        "edges\n"
        "  s.orders -> s.report\n"
        "    declared  by the view's declaration in views/report.yaml\n"
        "        Listed by the view's author.\n"
        "    parsed    by the view's SQL in views/report.yaml, read at abc123\n"
        "        column       from         transformation  confidence\n"
        "        total        amount       aggregate       exact\n"
        "        customer_id  customer_id  identity        exact\n"
        "        n            id           aggregate       exact\n"
        # each indirect kind once, its source columns at their weakest confidence
        "        groups by: customer_id; filters: status (conservative)\n"
        "    observed  seen in a run of spark/daily (run r-1) at 2026-12-01T05:45:01Z\n")
    assert "marks: declared Recorded; parsed Recorded; observed Recorded\n2 assets shown\n" in text
    assert "solid" not in text and "dashed" not in text and "dotted" not in text


def test_the_json_keeps_every_row():
    rows = [link("status", "total", "control"), link("status", "n", "control")]
    document = json.loads(answer([edge("parsed", rows)]).to_json())
    assert [(c["from"], c["to"]) for c in document["edges"][0]["columns"]] == [("status", "total"), ("status", "n")]
    assert document["edges"][0]["line"] == "dashed" and document["holds"] == 2


def test_a_cut_answer_says_more_were_reached():
    assert "\n2 assets shown, more were reached (cut)\n" in render_explorer(answer([], cut=True))
