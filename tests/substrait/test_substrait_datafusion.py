"""Real plans: DataFusion turns each SQL query into a Substrait plan, and the lineage of every
output field of the plan must equal the lineage of the same SQL through the SQL frontend,
field by field.

Where DataFusion's planner or optimiser writes the query as a different relational plan (a
DISTINCT as an aggregate, an EXISTS as a semi join …) the two answers differ; each such case
lists the exact difference and why (docs/substrait.md, "Plans DataFusion writes differently"),
and the test checks that difference — no more, no less.  Unoptimised plans are the logical
plan as DataFusion plans it; optimised ones are what it would execute (filters pushed into
the Parquet scans, unused columns dropped, subqueries decorrelated into joins).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import prism_lineage
from prism_lineage.frontends.substrait import SubstraitPlan

datafusion = pytest.importorskip("datafusion")
pa = pytest.importorskip("pyarrow")

ROOT = Path(__file__).resolve().parents[2]

SCHEMA = {
    "orders": {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "double", "order_date": "date"},
    "customers": {"customer_id": "int", "name": "varchar", "region": "varchar"},
    "returns": {"order_id": "int", "reason": "varchar", "refund": "double"},
}

Source = tuple[str, str, str, str]  # column, relationship, transformation, confidence


def _s(column: str, relationship: str, transformation: str, confidence: str = "exact") -> Source:
    return (column, relationship, transformation, confidence)


@dataclass(frozen=True)
class Case:
    name: str
    sql: str
    optimized: bool = False
    # field → (sources only the SQL frontend reports, sources only the Substrait plan gives)
    differences: Mapping[str, tuple[frozenset[Source], frozenset[Source]]] = field(default_factory=dict)
    why: str = ""


def differ(sql_only: list[Source], plan_only: list[Source]) -> tuple[frozenset[Source], frozenset[Source]]:
    return frozenset(sql_only), frozenset(plan_only)


# --- the queries ----------------------------------------------------------------------------

EXISTS_AS_SEMI_JOIN = differ(
    [_s("orders.order_id", "control", "filter"), _s("returns.order_id", "control", "filter")],
    [_s("orders.order_id", "join", "join"), _s("returns.order_id", "join", "join")],
)
IN_AS_SEMI_JOIN = differ(
    [_s("customers.customer_id", "control", "filter"), _s("orders.customer_id", "control", "filter")],
    [_s("customers.customer_id", "join", "join"), _s("orders.customer_id", "join", "join")],
)

QUALIFY = ("WITH totals AS (SELECT c.region, c.name, SUM(o.amount) AS total FROM orders AS o JOIN customers AS c "
           "ON c.customer_id = o.customer_id WHERE o.status = 'paid' GROUP BY c.region, c.name) "
           "SELECT region, name, total FROM totals "
           "QUALIFY ROW_NUMBER() OVER (PARTITION BY region ORDER BY total DESC) = 1 ORDER BY total DESC")

CASES = [
    # Planned as written: the plan explains exactly like its SQL.
    Case("rfc_example", "SELECT customer_id, SUM(amount) AS total_amount FROM orders WHERE status = 'paid' "
                        "GROUP BY customer_id"),
    Case("comma_join", "SELECT o.order_id, c.name FROM orders o, customers c "
                       "WHERE o.customer_id = c.customer_id AND o.amount > 10"),
    Case("comma_join_three_tables", "SELECT o.order_id, r.refund FROM orders o, returns r, customers c "
                                    "WHERE o.order_id = r.order_id AND o.customer_id = c.customer_id "
                                    "AND c.region = 'EU'"),
    Case("inner_join_and_where", "SELECT o.order_id, c.name FROM orders o JOIN customers c "
                                 "ON o.customer_id = c.customer_id WHERE c.region = 'EU'"),
    Case("left_join", "SELECT o.order_id, c.name FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id"),
    Case("right_join", "SELECT o.order_id, r.reason FROM orders o RIGHT JOIN returns r ON o.order_id = r.order_id"),
    Case("full_join", "SELECT o.order_id, c.name FROM orders o FULL JOIN customers c ON o.customer_id = c.customer_id"),
    Case("cross_join", "SELECT o.order_id, c.name FROM orders o CROSS JOIN customers c"),
    Case("derived_table", "SELECT c.name, t.total FROM customers c JOIN (SELECT customer_id, SUM(amount) AS total "
                          "FROM orders GROUP BY customer_id) t ON c.customer_id = t.customer_id"),
    Case("cte_self_join", "WITH t AS (SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id) "
                          "SELECT a.customer_id, b.total FROM t a JOIN t b ON a.customer_id = b.customer_id"),
    Case("measures_and_having", "SELECT customer_id, COUNT(*) AS n, COUNT(DISTINCT status) AS k, "
                                "SUM(amount) FILTER (WHERE status = 'paid') AS paid FROM orders "
                                "GROUP BY customer_id HAVING SUM(amount) > 100"),
    Case("grouping_sets", "SELECT customer_id, status, SUM(amount) AS total FROM orders "
                          "GROUP BY GROUPING SETS ((customer_id), (status), ())"),
    Case("rollup", "SELECT customer_id, status, SUM(amount) AS total FROM orders GROUP BY ROLLUP (customer_id, status)"),
    # DataFusion writes GROUPING as an aggregate no standard extension declares: read as SQL's.
    Case("grouping_function", "SELECT customer_id, status, GROUPING(customer_id) AS g, "
                              "GROUPING(customer_id) + GROUPING(status) AS level FROM orders "
                              "GROUP BY ROLLUP (customer_id, status)"),
    Case("group_by_expression", "SELECT CASE WHEN amount > 100 THEN 'big' ELSE 'small' END AS size, COUNT(*) AS n "
                                "FROM orders GROUP BY CASE WHEN amount > 100 THEN 'big' ELSE 'small' END"),
    Case("join_group_having_order_limit", "SELECT c.region, COUNT(DISTINCT o.customer_id) AS buyers FROM orders o "
                                          "JOIN customers c ON o.customer_id = c.customer_id GROUP BY c.region "
                                          "HAVING COUNT(*) > 2 ORDER BY buyers DESC LIMIT 5"),
    Case("window_functions", "SELECT order_id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn, "
                             "SUM(amount) OVER (PARTITION BY customer_id) AS s FROM orders"),
    Case("window_frame", "SELECT customer_id, SUM(amount) OVER (PARTITION BY customer_id ORDER BY order_date "
                         "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS rolling FROM orders"),
    Case("window_lag", "SELECT order_id, LAG(amount, 1) OVER (ORDER BY order_date) AS prev FROM orders"),
    Case("order_limit_offset", "SELECT order_id, amount FROM orders ORDER BY amount DESC LIMIT 10 OFFSET 5"),
    Case("union_all", "SELECT customer_id FROM orders UNION ALL SELECT customer_id FROM customers"),
    Case("in_subquery", "SELECT order_id FROM orders WHERE customer_id IN "
                        "(SELECT customer_id FROM customers WHERE region = 'EU')"),
    Case("not_in_subquery", "SELECT order_id FROM orders WHERE customer_id NOT IN (SELECT customer_id FROM customers)"),
    Case("in_subquery_in_disjunction", "SELECT order_id FROM orders WHERE customer_id IN "
                                       "(SELECT customer_id FROM customers) OR amount > 5"),
    Case("scalar_subquery", "SELECT order_id, (SELECT MAX(amount) FROM orders) AS top FROM orders"),
    Case("expressions", "SELECT order_id, CASE WHEN amount > 100 THEN 'big' ELSE 'small' END AS size, "
                        "amount * 2 + 1 AS dbl, CAST(order_id AS BIGINT) AS oid, amount / 2 AS half, -amount AS neg, "
                        "amount % 3 AS m, abs(amount) AS a FROM orders"),
    Case("string_functions", "SELECT upper(name) AS n, coalesce(region, 'x') AS r, length(name) AS l, "
                             "trim(name) AS t, name || region AS nr FROM customers WHERE name LIKE 'A%'"),
    Case("predicates", "SELECT order_id FROM orders WHERE amount BETWEEN 1 AND 5 AND status IN ('a', 'b') "
                       "AND status IS NOT NULL"),
    Case("extract", "SELECT extract(year FROM order_date) AS y, amount FROM orders"),
    Case("star", "SELECT * FROM orders WHERE amount > 10"),
    Case("values", "SELECT x, y FROM (VALUES (1, 'a'), (2, 'b')) AS t(x, y)"),
    Case("qualify_top_per_group", QUALIFY),
    # Planned differently by DataFusion itself (these plans are not optimised).
    Case("distinct", "SELECT DISTINCT status FROM orders"),
    Case("union_distinct", "SELECT customer_id FROM orders UNION SELECT customer_id FROM customers"),
    # Planned differently by DataFusion itself (these plans are not optimised).
    Case("intersect", "SELECT customer_id FROM orders INTERSECT SELECT customer_id FROM customers",
         differences={"customer_id": differ(
             [_s("customers.customer_id", "value", "identity"), _s("customers.customer_id", "grouping", "aggregate")],
             [_s("customers.customer_id", "join", "join"), _s("orders.customer_id", "join", "join")])},
         why="DataFusion plans INTERSECT as a distinct aggregate over a left semi join"),
    Case("except", "SELECT customer_id FROM orders EXCEPT SELECT customer_id FROM customers",
         differences={"customer_id": differ(
             [_s("customers.customer_id", "control", "filter")],
             [_s("customers.customer_id", "join", "join"), _s("orders.customer_id", "join", "join")])},
         why="DataFusion plans EXCEPT as a distinct aggregate over a left anti join"),
    # Optimised plans: DataFusion pushes filters into the scans, drops unused columns and
    # decorrelates subqueries.  The first ones keep the lineage.
    Case("rfc_example_optimized", "SELECT customer_id, SUM(amount) AS total_amount FROM orders "
                                  "WHERE status = 'paid' GROUP BY customer_id", optimized=True),
    Case("comma_join_optimized", "SELECT o.order_id, c.name FROM orders o, customers c "
                                 "WHERE o.customer_id = c.customer_id AND o.amount > 10", optimized=True),
    Case("join_group_having_order_limit_optimized",
         "SELECT c.region, COUNT(DISTINCT o.customer_id) AS buyers FROM orders o JOIN customers c "
         "ON o.customer_id = c.customer_id GROUP BY c.region HAVING COUNT(*) > 2 ORDER BY buyers DESC LIMIT 5",
         optimized=True),
    Case("in_subquery_in_disjunction_optimized", "SELECT order_id FROM orders WHERE customer_id IN "
                                                 "(SELECT customer_id FROM customers) OR amount > 5", optimized=True),
    Case("scalar_subquery_optimized", "SELECT order_id, (SELECT MAX(amount) FROM orders) AS top FROM orders",
         optimized=True),
    Case("qualify_top_per_group_optimized", QUALIFY, optimized=True),
    Case("window_functions_optimized", "SELECT order_id, ROW_NUMBER() OVER (PARTITION BY customer_id "
                                       "ORDER BY amount DESC) AS rn FROM orders WHERE status = 'paid'", optimized=True),
    # … and these change it: a decorrelated subquery becomes a join.
    Case("exists_optimized", "SELECT order_id FROM orders o WHERE EXISTS "
                             "(SELECT 1 FROM returns r WHERE r.order_id = o.order_id)", optimized=True,
         differences={"order_id": EXISTS_AS_SEMI_JOIN},
         why="the optimiser rewrites EXISTS into a left semi join: the keys read as join, not control"),
    Case("not_exists_optimized", "SELECT order_id FROM orders o WHERE NOT EXISTS "
                                 "(SELECT 1 FROM returns r WHERE r.order_id = o.order_id)", optimized=True,
         differences={"order_id": EXISTS_AS_SEMI_JOIN},
         why="the optimiser rewrites NOT EXISTS into a left anti join"),
    Case("in_subquery_optimized", "SELECT order_id FROM orders WHERE customer_id IN "
                                  "(SELECT customer_id FROM customers WHERE region = 'EU')", optimized=True,
         differences={"order_id": IN_AS_SEMI_JOIN},
         why="the optimiser rewrites IN (subquery) into a left semi join"),
    Case("correlated_scalar_subquery_optimized",
         "SELECT order_id, (SELECT MAX(refund) FROM returns r WHERE r.order_id = o.order_id) AS refund "
         "FROM orders o", optimized=True,
         differences={
             "order_id": differ([], [_s("orders.order_id", "join", "join"), _s("returns.order_id", "join", "join"),
                                     _s("returns.order_id", "grouping", "aggregate")]),
             "refund": differ(
                 [_s("orders.order_id", "control", "filter"), _s("returns.order_id", "control", "filter")],
                 [_s("orders.order_id", "join", "join"), _s("returns.order_id", "join", "join"),
                  _s("returns.order_id", "grouping", "aggregate")]),
         },
         why="the optimiser rewrites the correlated scalar subquery into a left join with an aggregate grouped "
             "by the correlation key"),
    # … and GROUPING reads more: the optimiser computes GROUPING(customer_id) from
    # the bits of DataFusion's grouping id, which is GROUPING of every key.
    Case("grouping_function_optimized", "SELECT customer_id, status, GROUPING(customer_id) AS g, "
                                        "GROUPING(customer_id) + GROUPING(status) AS level FROM orders "
                                        "GROUP BY ROLLUP (customer_id, status)", optimized=True),
]


# --- DataFusion ---------------------------------------------------------------------------

_ARROW = {"int": "int32", "double": "float64", "varchar": "string", "date": "date32"}


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """A DataFusion session over empty Parquet files with the schema the SQL frontend sees
    (Parquet, so that the optimiser pushes filters into the scans)."""
    import pyarrow.parquet as pq

    folder = tmp_path_factory.mktemp("tables")
    ctx = datafusion.SessionContext()
    for table, columns in SCHEMA.items():
        data = pa.table({c: pa.array([], type=getattr(pa, _ARROW[t])()) for c, t in columns.items()})
        pq.write_table(data, folder / f"{table}.parquet")
        ctx.register_parquet(table, str(folder / f"{table}.parquet"))
    return ctx


def plan_bytes(session, case: Case) -> bytes:
    from datafusion.substrait import Producer

    frame = session.sql(case.sql)
    logical = frame.optimized_logical_plan() if case.optimized else frame.logical_plan()
    return Producer.to_substrait_plan(logical, session).encode()


def answers(session, case: Case) -> tuple[dict, dict]:
    """(the SQL frontend's answer, the Substrait plan's answer) for the one statement."""
    sql = prism_lineage.explain(case.sql, schema=SCHEMA).model_dump()["statements"][0]
    plan = SubstraitPlan.from_bytes(plan_bytes(session, case), schema=SCHEMA)
    return sql, prism_lineage.explain(plan).model_dump()["statements"][0]


def _sources(field: dict) -> list[Source]:
    return [(s["column"], s["relationship"], s["transformation"], s["confidence"]) for s in field["sources"]]


# --- the tests ---------------------------------------------------------------------------


def test_enough_queries_cover_the_operators() -> None:
    assert len(CASES) >= 15
    assert len({c.name for c in CASES}) == len(CASES)
    for case in CASES:
        assert bool(case.differences) == bool(case.why), f"{case.name}: a difference needs its reason and back"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_plan_explains_like_its_sql(session, case: Case) -> None:
    sql, plan = answers(session, case)
    assert [f["name"] for f in plan["fields"]] == [f["name"] for f in sql["fields"]]
    assert set(case.differences) <= {f["name"] for f in sql["fields"]}
    for from_sql, from_plan in zip(sql["fields"], plan["fields"]):
        name = from_plan["name"]
        if name in case.differences:
            sql_only, plan_only = case.differences[name]
            assert set(_sources(from_sql)) - set(_sources(from_plan)) == sql_only, name
            assert set(_sources(from_plan)) - set(_sources(from_sql)) == plan_only, name
        else:
            assert _sources(from_plan) == _sources(from_sql), name
    if not case.differences:
        assert plan["uncertain"] == sql["uncertain"]


def agreement(session) -> tuple[int, int]:
    """Fields whose sources agree, and fields compared, over every case."""
    agree = total = 0
    for case in CASES:
        sql, plan = answers(session, case)
        for from_sql, from_plan in zip(sql["fields"], plan["fields"]):
            total += 1
            agree += _sources(from_sql) == _sources(from_plan)
    return agree, total


def test_documented_agreement_figures(session) -> None:
    """docs/substrait.md states the agreement over these cases; it must stay true."""
    text = (ROOT / "docs" / "substrait.md").read_text(encoding="utf-8")
    found = re.search(r"(\d+) of (\d+) fields agree", text)
    assert found, "docs/substrait.md states no agreement figure"
    assert agreement(session) == (int(found.group(1)), int(found.group(2)))
