"""``prism-lineage explain --spark-connect PLAN`` end to end, and what the Spark Connect frontend
refuses: a clear error naming the relation (its path, kind and plan_id), one line on stderr with a
documented exit code, never a traceback or a guess."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark.sql.connect.proto")

from spark_cases import SCHEMA  # noqa: E402
from spark_session import plan_of, session  # noqa: E402

import prism_lineage  # noqa: E402
from prism_lineage.cli import main  # noqa: E402
from prism_lineage.frontends.spark_connect import (  # noqa: E402
    InvalidSparkPlanError,
    SparkConnectPlan,
    SparkConnectUnavailableError,
    SparkPlanDecodeError,
)

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "spark_connect"
SCHEMA_FILE = ROOT / "tests" / "fixtures" / "spark_connect" / "schema.json"


def F():
    from pyspark.sql.connect import functions

    return functions


def explain(frame, schema=SCHEMA):
    return prism_lineage.explain(SparkConnectPlan.from_message(plan_of(frame), schema=schema))


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_cli_explains_a_plan_file(capsys) -> None:
    code, out, err = run(capsys, "explain", "--spark-connect", GOLDEN / "cases" / "rfc_example.plan.json",
                         "--schema", SCHEMA_FILE, "--format", "json")
    assert code == 0, err
    total = json.loads(out)["statements"][0]["fields"][1]
    assert total["name"] == "total_amount"
    assert [(s["column"], s["relationship"]) for s in total["sources"]] == [
        ("orders.amount", "value"), ("orders.customer_id", "grouping"), ("orders.status", "control")]


def test_cli_reads_binary_from_stdin(capsys, monkeypatch, tmp_path) -> None:
    plan = plan_of(session().read.table("orders").select("order_id"))
    binary = tmp_path / "plan.bin"
    binary.write_bytes(plan.SerializeToString())
    code, out, _ = run(capsys, "explain", "--spark-connect", binary, "--schema", SCHEMA_FILE)
    assert code == 0 and "orders.order_id" in out

    class Stdin:
        buffer = type("B", (), {"read": staticmethod(lambda: plan.SerializeToString())})()

        @staticmethod
        def isatty() -> bool:
            return False

    monkeypatch.setattr(sys, "stdin", Stdin())
    code, out, _ = run(capsys, "explain", "--spark-connect", "-", "--schema", SCHEMA_FILE)
    assert code == 0 and "orders.order_id" in out


def test_cli_errors(capsys, tmp_path) -> None:
    code, _, err = run(capsys, "explain", "--spark-connect", GOLDEN / "cases" / "rfc_example.plan.json")
    assert code == 6
    assert one_error_line(err).endswith("Spark Connect plan at root.aggregate.input.filter.input.read (Read, plan_id "
                                        "0): table 'orders' is not in the schema: a Spark Connect plan does not carry "
                                        "its tables' columns, give them with --schema (schema=…)")
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\xff\xff\xff not a plan")
    code, _, err = run(capsys, "explain", "--spark-connect", garbage, "--schema", SCHEMA_FILE)
    assert code == 4 and "is not a Spark Connect plan" in one_error_line(err)
    code, _, err = run(capsys, "explain", "--spark-connect", tmp_path / "missing.bin")
    assert code == 3 and "Spark Connect plan file not found" in one_error_line(err)
    code, _, err = run(capsys, "explain", "query.sql", "--spark-connect", garbage)
    assert code == 2 and "not both" in one_error_line(err)
    code, _, err = run(capsys, "explain", "--substrait", garbage, "--spark-connect", garbage)
    assert code == 2 and "either --substrait or --spark-connect" in one_error_line(err)


def test_an_unknown_column_is_named() -> None:
    frame = session().read.table("orders").select(F().col("amount"), F().col("price"))
    with pytest.raises(InvalidSparkPlanError) as caught:
        explain(frame)
    assert caught.value.path == "root.project" and caught.value.node == "Project"
    assert "no column 'price' in its input (columns: order_id, customer_id, status, amount)" in str(caught.value)


def test_an_ambiguous_column_is_refused() -> None:
    spark = session()
    orders, customers = spark.read.table("orders"), spark.read.table("customers")
    frame = orders.join(customers, orders.customer_id == customers.customer_id).select("customer_id")
    with pytest.raises(InvalidSparkPlanError, match="column 'customer_id' is ambiguous"):
        explain(frame)


def test_a_column_of_another_dataframe_is_refused() -> None:
    spark = session()
    orders, customers = spark.read.table("orders"), spark.read.table("customers")
    with pytest.raises(InvalidSparkPlanError, match="taken from the DataFrame with plan_id"):
        explain(orders.select(customers.region))


def test_an_unread_relation_is_named() -> None:
    frame = session().read.table("orders").describe("amount")
    with pytest.raises(InvalidSparkPlanError, match=r"at root\.describe \(StatDescribe, plan_id \d+\): relations of "
                                                    r"kind describe \(StatDescribe\) are not read"):
        explain(frame)


def test_pivot_and_grouping_errors() -> None:
    orders = session().read.table("orders")
    with pytest.raises(InvalidSparkPlanError, match=r"\(Aggregate, plan_id \d+\): pivot\(\) without values: its "
                                                    r"columns are the pivot column's distinct values"):
        explain(orders.groupBy("customer_id").pivot("status").agg(F().sum("amount")))
    with pytest.raises(InvalidSparkPlanError, match=r"pivot\(\) with several aggregates that are not all aliased"):
        explain(orders.groupBy("customer_id").pivot("status", ["paid"]).agg(F().sum("amount"), F().max("amount")))
    with pytest.raises(InvalidSparkPlanError, match="'amount' is read outside an aggregate function and is not "
                                                    "grouped by"):
        explain(orders.groupBy("customer_id").agg(F().col("amount")))


def test_a_data_source_with_a_schema_is_read_without_a_catalog() -> None:
    frame = session().read.schema("id INT, name STRING").parquet("s3://bucket/people.parquet").select("name")
    answer = explain(frame, schema=None).statements[0]
    assert answer.fields[0].sources[0].column == "people.name"


def test_decoding() -> None:
    with pytest.raises(SparkPlanDecodeError, match="is empty"):
        SparkConnectPlan.from_bytes(b"")
    with pytest.raises(SparkPlanDecodeError, match="not a Spark Connect plan in JSON"):
        SparkConnectPlan.from_bytes('{"nope": 1}')
    relation_only = '{"read": {"namedTable": {"unparsedIdentifier": "orders"}}}'
    answer = prism_lineage.explain(SparkConnectPlan.from_bytes(relation_only, schema=SCHEMA))
    assert [f.name for f in answer.statements[0].fields] == ["order_id", "customer_id", "status", "amount"]


def test_missing_pyspark_says_how_to_install(monkeypatch) -> None:
    for module in [m for m in sys.modules if m.startswith("pyspark.sql.connect.proto")]:
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(SparkConnectUnavailableError, match=r"install prism-lineage\[spark\]"):
        SparkConnectPlan.from_bytes(b"{}")
    assert SparkConnectUnavailableError.exit_code == 2
