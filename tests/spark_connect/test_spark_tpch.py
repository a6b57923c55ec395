"""TPC-H through Spark Connect plans built with PySpark (no server): six queries written with the
DataFrame API (``tests/fixtures/spark_tpch``) and all 22 as ``spark.sql`` relations, each compared
with the SQL of ``tests/fixtures/workloads/tpch`` field by field.  The figures are in
docs/agreement.md (``test_documented_tpch_figures``)."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path

import pytest

pytest.importorskip("pyspark.sql.connect.proto")

from spark_session import plan_of, session, sql_frame  # noqa: E402

import prism_lineage  # noqa: E402
from prism_lineage.frontends.spark_connect import SparkConnectPlan  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TPCH = ROOT / "tests" / "fixtures" / "workloads" / "tpch"
PROGRAMS = sorted((ROOT / "tests" / "fixtures" / "spark_tpch").glob("q*.py"))
QUERIES = sorted(TPCH.glob("q*.sql"))


def _schema() -> dict:
    return json.loads((TPCH / "schema.json").read_text(encoding="utf-8"))


def _sources(field) -> set:
    return {(s.column, s.relationship, s.transformation, s.confidence) for s in field.sources}


def compare(frame, stem: str) -> tuple[int, int]:
    from_plan = prism_lineage.explain(SparkConnectPlan.from_message(plan_of(frame), schema=_schema())).statements[0]
    from_sql = prism_lineage.explain((TPCH / f"{stem}.sql").read_text(encoding="utf-8"),
                                     schema=_schema()).statements[0]
    assert len(from_plan.fields) == len(from_sql.fields)
    assert not from_plan.uncertain
    return sum(_sources(a) == _sources(b) for a, b in zip(from_plan.fields, from_sql.fields)), len(from_sql.fields)


def dataframe_figures() -> tuple[int, int]:
    from pyspark.sql.connect import functions as F

    totals = [compare(runpy.run_path(str(p))["q"](session(), F), p.stem) for p in PROGRAMS]
    return sum(e for e, _ in totals), sum(n for _, n in totals)


def sql_figures() -> tuple[int, int]:
    totals = [compare(sql_frame(q.read_text(encoding="utf-8").strip().rstrip(";")), q.stem) for q in QUERIES]
    return sum(e for e, _ in totals), sum(n for _, n in totals)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_dataframe_program_explains_like_its_sql(path: Path) -> None:
    from pyspark.sql.connect import functions as F

    equal, compared = compare(runpy.run_path(str(path))["q"](session(), F), path.stem)
    assert equal == compared


def test_documented_tpch_figures() -> None:
    text = (ROOT / "docs" / "agreement.md").read_text(encoding="utf-8")
    rows = {label: re.search(rf"^\| {re.escape(label)} \| (\d+) of (\d+) \| (\d+) of (\d+) \|", text, re.MULTILINE)
            for label in ("Spark Connect, DataFrame API (PySpark 4.2)", "Spark Connect, spark.sql relations")}
    assert all(rows.values()), "docs/agreement.md has no rows for Spark Connect"
    df = tuple(int(g) for g in rows["Spark Connect, DataFrame API (PySpark 4.2)"].groups())
    sql = tuple(int(g) for g in rows["Spark Connect, spark.sql relations"].groups())
    assert df == (len(PROGRAMS), len(QUERIES), *dataframe_figures())
    assert sql == (len(QUERIES), len(QUERIES), *sql_figures())
