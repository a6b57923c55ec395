"""``prism-lineage explain|graph --frame FILE[:NAME]``: a dataframe plan a Python file builds,
explained from the command line; bad input is one line on stderr with its exit code."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from prism_lineage.cli import main

PLAN = '''
from prism_lineage.frame import table, col
import prism_lineage.frame.functions as F

orders = table("orders", schema={"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "decimal"})
plan = (orders.filter(col("status") == "paid")
              .group_by([col("customer_id")])
              .agg([F.sum(col("amount")).alias("total_amount")]))
masked = orders.select(F.udf("hide", transformation="mask")("status").alias("status"))
not_a_plan = 3
if __name__ == "__main__":
    raise SystemExit("the CLI must not run the main block")
'''


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "pipeline.py"
    path.write_text(textwrap.dedent(PLAN), encoding="utf-8")
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_a_plan_file(capsys, plan_file: Path) -> None:
    code, out, err = run(capsys, "explain", "--frame", str(plan_file))
    assert (code, err) == (0, "")
    assert out.splitlines()[6:10] == [
        "  total_amount",
        "    value     orders.amount       aggregate    exact",
        "    grouping  orders.customer_id  aggregate    exact",
        "    control   orders.status       filter       exact",
    ]


def test_explain_a_named_plan_with_its_user_function(capsys, plan_file: Path) -> None:
    code, out, _ = run(capsys, "explain", "--frame", f"{plan_file}:masked", "--format", "json")
    assert code == 0
    field = json.loads(out)["statements"][0]["fields"][0]
    assert field["sources"] == [{"column": "orders.status", "relationship": "value", "transformation": "mask",
                                 "confidence": "exact"}]


def test_graph_shows_origins_in_the_plan_file(capsys, plan_file: Path) -> None:
    code, out, _ = run(capsys, "graph", "--frame", str(plan_file), "--format", "json")
    assert code == 0
    targets = json.loads(out)["statements"][0]["targets"]
    relations = {t["id"]: t["origin"] for t in targets if t["kind"] == "relation"}
    assert set(relations) == {"s0.scan@5:10", "s0.filter@6:9", "s0.aggregate@8:16"}
    assert {o["file"] for o in relations.values()} == {str(plan_file)}
    assert [relations[i]["line"] for i in sorted(relations)] == [8, 6, 5]


@pytest.mark.parametrize("content, spec, code, message", [
    (None, "missing.py", 3, "Python file not found"),
    ("plan = (", "{file}", 4, "is not valid Python"),
    ("raise ValueError('no data today')", "{file}", 3, "running {file} failed: ValueError: no data today"),
    (PLAN, "{file}:nope", 3, "has no variable 'nope'; its frames: masked, orders, plan"),
    (PLAN, "{file}:not_a_plan", 2, "'not_a_plan' in {file} is a int, not a dataframe plan"),
    ("from prism_lineage.frame import table, col\nt = table('t', schema=['a'])\nplan = t.select(col('b'))\n",
     "{file}", 5, "unknown column 'b' of t; available: a (at {file}:3)"),
])
def test_bad_plan_files(capsys, tmp_path: Path, content, spec, code, message) -> None:
    file = tmp_path / "pipeline.py"
    if content is not None:
        file.write_text(textwrap.dedent(content), encoding="utf-8")
    spec = spec.format(file=file) if "{file}" in spec else str(tmp_path / spec)
    got, out, err = run(capsys, "explain", "--frame", spec)
    assert (got, out) == (code, "")
    assert err.count("\n") == 1 and err.startswith("prism-lineage: error: ")
    assert message.format(file=file) in err


def test_frame_and_sql_file_together(capsys, plan_file: Path, tmp_path: Path) -> None:
    sql = tmp_path / "q.sql"
    sql.write_text("SELECT 1", encoding="utf-8")
    code, _, err = run(capsys, "explain", str(sql), "--frame", str(plan_file))
    assert code == 2 and "not both" in err
