"""Every target of a dataframe plan is authored at the user's own call site (this file, the
line and column of the call), never at a line inside the library; ids derive from those call
sites and are the same run after run; each side of a self-join has its own targets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import prism_lineage.frame.functions as F
from frame_checks import check_authored, check_frame
from prism_lineage.frame import col, table
from prism_lineage.frame.lowering import lower_plan
from prism_lineage.ir import Aggregate, Filter, Join, Scan, walk_relations

ORDERS = {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "decimal"}


def here() -> int:
    return sys._getframe(1).f_lineno


def summary_plan():
    line = here() + 1
    orders = table("orders", schema=ORDERS)
    summary = (orders.filter(col("status") == "paid")
                     .group_by([col("customer_id")])
                     .agg([F.sum(col("amount")).alias("total_amount")]))
    return summary, line


def relations_by_type(statement):
    out: dict[type, list] = {}
    for relation in walk_relations(statement.root):
        out.setdefault(type(relation), []).append(relation)
    return out


def test_origins_are_the_call_sites_in_this_file() -> None:
    summary, line = summary_plan()
    statement = summary.to_statements()[0]
    check_authored(statement)
    found = relations_by_type(statement)
    scan, filter_, aggregate = found[Scan][0], found[Filter][0], found[Aggregate][0]
    assert (scan.origin.file, scan.origin.line) == (__file__, line)
    assert (filter_.origin.file, filter_.origin.line) == (__file__, line + 1)
    assert filter_.origin.column == len("    summary = (") + 1  # the call starts at ``orders``
    # A method call of a multi-line chain starts at its method name, on its own line.
    assert (aggregate.origin.line, aggregate.origin.column) == (line + 3, len("                     .") + 1)
    assert aggregate.keys[0].origin.line == line + 2
    measure = aggregate.measures[0]
    assert (measure.origin.line, measure.args[0].origin.line) == (line + 3, line + 3)
    assert measure.origin.column < measure.args[0].origin.column  # F.sum( … ) encloses col("amount")
    assert [f.origin.line for f in aggregate.columns] == [line + 2, line + 3]


def test_ids_derive_from_kind_and_call_site() -> None:
    summary, line = summary_plan()
    statement = summary.to_statements()[0]
    found = relations_by_type(statement)
    assert found[Scan][0].id == f"s0.scan@{line}:14"
    assert found[Filter][0].id.startswith(f"s0.filter@{line + 1}:")
    assert found[Aggregate][0].id.startswith(f"s0.aggregate@{line + 3}:")


def test_same_code_gives_same_ids() -> None:
    first, _ = summary_plan()
    second, _ = summary_plan()
    assert check_frame(first) == check_frame(second)
    assert _ids(lower_plan(first.plan)) == _ids(lower_plan(second.plan))


def test_self_join_sides_are_distinct_targets() -> None:
    orders = table("orders", schema=ORDERS)
    pairs = orders.alias("a").join(orders.alias("b"), on=col("a.customer_id") == col("b.customer_id"))
    statement = pairs.to_statements()[0]
    join = relations_by_type(statement)[Join][0]
    left, right = join.left, join.right
    assert isinstance(left, Scan) and isinstance(right, Scan)
    assert left.id != right.id
    assert right.id == left.id + "~1"  # the same call site, told apart by the suffix
    assert not {f.id for f in left.fields} & {f.id for f in right.fields}
    answer = check_frame(pairs)
    assert [f["name"] for f in answer["statements"][0]["fields"]] == list(ORDERS) * 2


def test_ids_are_stable_across_processes(tmp_path: Path) -> None:
    """Two interpreters with different hash seeds give the same ids and graph."""
    script = tmp_path / "plan.py"
    script.write_text(textwrap.dedent('''
        import json
        import prism_lineage.frame.functions as F
        from prism_lineage.frame import col, table
        from prism_lineage.lineage.graph import LineageGraph
        from prism_lineage.lineage.graph_format import graph_model

        orders = table("orders", schema={"order_id": "int", "customer_id": "int", "amount": "decimal"})
        plan = (orders.alias("a").join(orders.alias("b"), on="customer_id")
                .with_columns(F.rank().over(partition_by="customer_id", order_by=col("a.amount")).alias("r"))
                .filter(col("r") <= 3).sort("r").limit(5))
        graphs = [LineageGraph.of(s) for s in plan.to_statements()]
        print(json.dumps(graph_model(graphs).model_dump()))
    '''), encoding="utf-8")
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, check=True)
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    relation_ids = [t["id"] for t in outputs[0]["statements"][0]["targets"] if t["kind"] == "relation"]
    assert relation_ids and all("@" in i for i in relation_ids)
    assert all(t["origin"]["file"] == str(script) for t in outputs[0]["statements"][0]["targets"]
               if t["kind"] != "column" and t["origin"] is not None)


def _ids(statement) -> list[str]:
    out = []
    for relation in walk_relations(statement.root):
        out.append(relation.id)
        out.extend(f.id for f in relation.fields)
    return out
