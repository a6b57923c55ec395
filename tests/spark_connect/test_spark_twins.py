"""PySpark forms people write, each against the Spark SQL that means the same (field by field).

Found in the plans-s5 field test: ``selectExpr("*", …)`` and ``select("st.*")`` were refused,
generators written as SQL text (``selectExpr("explode(l) AS e")``) made one column without the
element's path, a map's value by key was read as a struct field (``.k`` for ``['k']``), a USING
join's key taken from the right DataFrame was the left's (or, in a full join, both).
"""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark.sql.connect.proto")

from spark_session import plan_of, session  # noqa: E402

import prism_lineage  # noqa: E402
from prism_lineage.frontends.spark_connect import SparkConnectPlan  # noqa: E402

SCHEMA = {"t": {"k": "string", "a": "string", "b": "bigint", "l": "array<string>", "m": "map<string,int>",
                "st": "struct<p:string,q:string>", "ls": "array<struct<p:string,q:string>>"},
          "u": {"k": "string", "y": "string"}}


def _forms():
    from pyspark.sql.connect import functions as F

    t, u = session().read.table("t"), session().read.table("u")
    return {
        # a USING join's key of each side, named by its DataFrame (trial 52)
        "using_right_key": (t.join(u, "k").select(u.k, t.a), "SELECT u.k, t.a FROM t JOIN u USING (k)"),
        "using_left_join_right_key": (t.join(u, "k", "left").select(u["k"].alias("uk"), "k"),
                                      "SELECT u.k AS uk, k FROM t LEFT JOIN u USING (k)"),
        "using_full_each_key": (t.join(u, "k", "full").select(t.k.alias("tk"), u.k.alias("uk"), "k"),
                                "SELECT t.k AS tk, u.k AS uk, k FROM t FULL JOIN u USING (k)"),
        "using_right_join_left_key": (t.join(u, "k", "right").select(t.k.alias("tk"), "k"),
                                      "SELECT t.k AS tk, k FROM t RIGHT JOIN u USING (k)"),
        # crossJoin then filter: SQL's FROM a, b WHERE … (the comma-join rule: join lineage)
        "cross_join_filter": (t.crossJoin(u).filter((t.k == u.k) & (t.b > 1)).select(t.a, u.y),
                              "SELECT t.a, u.y FROM t, u WHERE t.k = u.k AND t.b > 1"),
        "select_expr_star": (t.selectExpr("*", "a AS a2").select("a2", "b"), "SELECT a AS a2, b FROM t"),
        "select_expr_qualified_star": (t.alias("q").selectExpr("q.*").select("k"), "SELECT k FROM t"),
        "struct_star": (t.select("k", "st.*"), "SELECT k, st.* FROM t"),
        "struct_star_column": (t.select(F.col("st.*")), "SELECT st.* FROM t"),
        "map_value_by_key": (t.select(F.col("m")["x"].alias("v"), F.col("m").getItem("y").alias("w")),
                             "SELECT m['x'] AS v, m['y'] AS w FROM t"),
        "select_expr_explode": (t.selectExpr("k", "explode(l) AS e"), "SELECT k, explode(l) AS e FROM t"),
        "select_expr_posexplode": (t.selectExpr("posexplode(l) AS (i, v)"), "SELECT posexplode(l) AS (i, v) FROM t"),
        "expr_explode_map": (t.select(F.expr("explode(m)")), "SELECT explode(m) FROM t"),
        "select_expr_inline": (t.selectExpr("inline(ls) AS (x, y)", "a"), "SELECT inline(ls) AS (x, y), a FROM t"),
    }


def _sources(field) -> set:
    return {(s.column, s.path, s.relationship, s.transformation, s.confidence) for s in field.sources}


@pytest.mark.parametrize("name", list(_forms()))
def test_form_explains_like_its_sql(name: str) -> None:
    frame, sql = _forms()[name]
    plan = prism_lineage.explain(SparkConnectPlan.from_message(plan_of(frame), schema=SCHEMA)).statements[0]
    twin = prism_lineage.explain(sql, schema=SCHEMA, dialect="spark").statements[0]
    assert [f.name for f in plan.fields] == [f.name for f in twin.fields]
    for a, b in zip(plan.fields, twin.fields):
        assert _sources(a) == _sources(b), a.name
