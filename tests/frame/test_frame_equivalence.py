"""A dataframe plan is explained exactly like its SQL twin.

Each case builds a plan with the dataframe API and writes the same query in SQL (DuckDB);
``prism_lineage.explain`` must give identical answers, field by field: the same field names in
the same order, and for each the same sources (column, relationship, transformation,
confidence), and the same ``uncertain`` entries.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import prism_lineage
import prism_lineage.frame.functions as F
from frame_checks import check_frame
from prism_lineage.frame import col, table
from prism_lineage.functions import FunctionInfo, FunctionRegistry
from prism_lineage.lineage.kinds import Transformation

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = {
    "orders": {"order_id": "int", "customer_id": "int", "status": "varchar", "amount": "decimal",
               "placed_at": "timestamp"},
    "customers": {"customer_id": "int", "name": "varchar", "country": "varchar", "email": "varchar"},
    "baskets": {"basket_id": "int", "items": "struct(sku varchar, qty int)[]", "tags": "varchar[]",
                "attributes": "map(varchar, varchar)", "payload": "json", "extra": None,
                "owner": "struct(id int, address struct(city varchar, zip varchar))",
                "event": {"type": "json",
                          "shape": "STRUCT<customer STRUCT<id INT>, lines ARRAY<STRUCT<price DECIMAL>>>"}},
}
# The semi/anti twins list the left columns: the SQL frontend expands ``SELECT *`` over a SEMI or
# ANTI JOIN to the right side's columns too (DuckDB returns the left side's only).
ORDER_COLUMNS = "orders.order_id, orders.customer_id, orders.status, orders.amount, orders.placed_at"

orders = table("orders", catalog=SCHEMA)
customers = table("customers", catalog=SCHEMA)
baskets = table("baskets", catalog=SCHEMA)
o, c = orders.alias("o"), customers.alias("c")
mask_email = F.udf("mask_email", transformation="mask")
USER_FUNCTIONS = FunctionRegistry.default()
USER_FUNCTIONS.register(FunctionInfo("mask_email", Transformation.MASK))


def _twins() -> dict[str, tuple[object, str]]:
    first_per_customer = F.row_number().over(partition_by="customer_id", order_by=col("amount").desc())
    return {
        "rfc_worked_example": (
            orders.filter(col("status") == "paid").group_by([col("customer_id")])
            .agg([F.sum(col("amount")).alias("total_amount")]),
            "SELECT customer_id, SUM(amount) AS total_amount FROM orders WHERE status = 'paid' GROUP BY customer_id",
        ),
        "select_expression": (
            orders.select(col("order_id"), (col("amount") * 2).alias("double")),
            "SELECT order_id, amount * 2 AS double FROM orders",
        ),
        "with_columns": (
            orders.with_columns((col("amount") + 1).alias("amount_plus")),
            "SELECT *, amount + 1 AS amount_plus FROM orders",
        ),
        "rename_drop": (
            orders.rename({"amount": "value"}).drop("placed_at", "status"),
            "SELECT order_id, customer_id, value FROM (SELECT order_id, customer_id, status, amount AS value, "
            "placed_at FROM orders) AS r",
        ),
        "join_predicate": (
            o.join(c, on=col("o.customer_id") == col("c.customer_id")).select(col("o.order_id"), col("c.name")),
            "SELECT o.order_id, c.name FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id",
        ),
        "left_join_using": (
            orders.join(customers, on=["customer_id"], how="left"),
            "SELECT customer_id, * EXCLUDE (customer_id) FROM orders LEFT JOIN customers USING (customer_id)",
        ),
        "right_join_using": (
            orders.join(customers, on="customer_id", how="right"),
            "SELECT customer_id, * EXCLUDE (customer_id) FROM orders RIGHT JOIN customers USING (customer_id)",
        ),
        "full_join_using": (
            orders.join(customers, on="customer_id", how="full"),
            "SELECT customer_id, * EXCLUDE (customer_id) FROM orders FULL JOIN customers USING (customer_id)",
        ),
        "semi_join": (
            orders.join(customers, on=orders["customer_id"] == customers["customer_id"], how="semi"),
            f"SELECT {ORDER_COLUMNS} FROM orders SEMI JOIN customers ON orders.customer_id = customers.customer_id",
        ),
        "anti_join_keys": (
            orders.join(customers, left_on="customer_id", right_on="customer_id", how="anti"),
            f"SELECT {ORDER_COLUMNS} FROM orders ANTI JOIN customers ON orders.customer_id = customers.customer_id",
        ),
        "cross_join": (
            orders.cross_join(customers),
            "SELECT * FROM orders CROSS JOIN customers",
        ),
        "self_join": (
            o.join(orders.alias("b"), on=(col("o.customer_id") == col("b.customer_id"))
                   & (col("o.order_id") < col("b.order_id")))
            .select(col("o.order_id"), col("b.order_id").alias("other")),
            "SELECT o.order_id, b.order_id AS other FROM orders AS o JOIN orders AS b "
            "ON o.customer_id = b.customer_id AND o.order_id < b.order_id",
        ),
        "qualify_row_number": (
            orders.filter(first_per_customer == 1),
            "SELECT * FROM orders QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) = 1",
        ),
        "window_frame": (
            orders.select("order_id", F.sum("amount").over(partition_by="customer_id", order_by="placed_at",
                                                           frame=F.rows_between(-2, 0)).alias("running")),
            "SELECT order_id, SUM(amount) OVER (PARTITION BY customer_id ORDER BY placed_at "
            "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS running FROM orders",
        ),
        "window_lag": (
            orders.select("order_id", F.lag("amount", 1, 0).over(partition_by="customer_id", order_by="placed_at")
                          .alias("previous")),
            "SELECT order_id, LAG(amount, 1, 0) OVER (PARTITION BY customer_id ORDER BY placed_at) AS previous "
            "FROM orders",
        ),
        "sort_limit_offset": (
            orders.select("order_id", "amount").sort(col("amount").desc()).limit(10, offset=5),
            "SELECT order_id, amount FROM orders ORDER BY amount DESC LIMIT 10 OFFSET 5",
        ),
        "distinct": (
            orders.select("customer_id", "status").distinct(),
            "SELECT DISTINCT customer_id, status FROM orders",
        ),
        "distinct_on": (
            orders.select("customer_id", "amount").distinct("customer_id"),
            "SELECT DISTINCT ON (customer_id) customer_id, amount FROM orders",
        ),
        "union_all": (
            orders.select("customer_id").union_all(customers.select("customer_id")),
            "SELECT customer_id FROM orders UNION ALL SELECT customer_id FROM customers",
        ),
        "intersect": (
            customers.select("customer_id").intersect(orders.select("customer_id")),
            "SELECT customer_id FROM customers INTERSECT SELECT customer_id FROM orders",
        ),
        "except": (
            customers.select("customer_id").except_(orders.select("customer_id")),
            "SELECT customer_id FROM customers EXCEPT SELECT customer_id FROM orders",
        ),
        "rollup": (
            orders.rollup("customer_id", "status").agg(F.sum("amount").alias("total")),
            "SELECT customer_id, status, SUM(amount) AS total FROM orders GROUP BY ROLLUP (customer_id, status)",
        ),
        "grouping_sets": (
            orders.group_by("customer_id", "status", grouping_sets=[["customer_id"], ["status"]])
            .agg(F.count().alias("n")),
            "SELECT customer_id, status, COUNT(*) AS n FROM orders GROUP BY GROUPING SETS ((customer_id), (status))",
        ),
        "aggregate_filter_and_expressions": (
            orders.group_by("customer_id").agg(
                F.sum("amount").filter(col("status") == "paid").alias("paid"), F.count().alias("n"),
                (F.sum("amount") / F.count()).alias("mean_amount")),
            "SELECT customer_id, SUM(amount) FILTER (WHERE status = 'paid') AS paid, COUNT(*) AS n, "
            "SUM(amount) / COUNT(*) AS mean_amount FROM orders GROUP BY customer_id",
        ),
        "having": (
            orders.group_by("customer_id").agg(F.sum("amount").alias("total")).filter(col("total") > 100),
            "SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id HAVING SUM(amount) > 100",
        ),
        "case_when": (
            orders.select("order_id", F.when(col("status") == "paid", col("amount")).otherwise(0)
                          .alias("paid_amount")),
            "SELECT order_id, CASE WHEN status = 'paid' THEN amount ELSE 0 END AS paid_amount FROM orders",
        ),
        "mask_builtin": (
            customers.select("customer_id", F.sha2("email").alias("email_hash")),
            "SELECT customer_id, SHA2(email, 256) AS email_hash FROM customers",
        ),
        "opaque_function": (
            customers.select(F.call("score", col("name")).alias("score")),
            "SELECT score(name) AS score FROM customers",
        ),
        "struct_fields": (
            baskets.select(col("owner")["id"].alias("owner_id"), col("owner")["address"]["city"].alias("city")),
            "SELECT owner.id AS owner_id, owner.address.city AS city FROM baskets",
        ),
        "array_element_and_map_value": (
            baskets.select(col("items")[0]["sku"].alias("first_sku"), col("attributes")["colour"].alias("colour")),
            "SELECT items[1].sku AS first_sku, attributes['colour'] AS colour FROM baskets",
        ),
        "undeclared_type_field": (
            baskets.select(col("extra")["source"].alias("source")),
            "SELECT extra.source AS source FROM baskets",
        ),
        "json_path": (
            baskets.select(col("payload").json("$.customer.id").alias("customer_id")),
            "SELECT payload->>'$.customer.id' AS customer_id FROM baskets",
        ),
        "json_declared_shape": (
            baskets.select(col("event").json("$.customer.id").alias("c"), col("event").json("$.lines[0].price")
                           .alias("p"), col("event").json("$.channel").alias("channel")),
            "SELECT json_extract_string(event, '$.customer.id') AS c, event->'$.lines[0].price' AS p, "
            "event->>'$.channel' AS channel FROM baskets",
        ),
        "filter_on_field": (
            baskets.filter(col("owner")["address"]["zip"] == "1011").select("basket_id"),
            "SELECT basket_id FROM baskets WHERE owner.address.zip = '1011'",
        ),
        "unnest_struct_elements": (
            baskets.explode("items", name="u").select("basket_id", col("u")["sku"].alias("sku")),
            "SELECT basket_id, u.sku FROM baskets, UNNEST(items) AS u",
        ),
        "unnest_with_ordinality": (
            baskets.explode("tags", name="tag", position="pos").select("tag", "pos"),
            "SELECT tag, pos FROM baskets CROSS JOIN UNNEST(tags) WITH ORDINALITY AS t(tag, pos)",
        ),
        "unnest_json": (
            baskets.explode("payload", name="e").select("basket_id", "e"),
            "SELECT basket_id, e FROM baskets CROSS JOIN UNNEST(payload) AS t(e)",
        ),
        "top_customers_example": (
            o.join(c, on=col("c.customer_id") == col("o.customer_id")).filter(col("o.status") == "paid")
            .group_by(col("c.country"), col("c.name")).agg(F.sum(col("o.amount")).alias("total"))
            .filter(F.row_number().over(partition_by="country", order_by=col("total").desc()) == 1)
            .sort(col("total").desc()),
            (ROOT / "examples" / "orders" / "top_customers.sql").read_text(encoding="utf-8"),
        ),
    }


TWINS = _twins()


def test_enough_twins() -> None:
    assert len(TWINS) >= 15


@pytest.mark.parametrize("name", sorted(TWINS))
def test_dataframe_plan_explains_like_its_sql_twin(name: str) -> None:
    frame, sql = TWINS[name]
    check_frame(frame)
    assert_same_answers(prism_lineage.explain(frame), prism_lineage.explain(sql, SCHEMA, "duckdb"))


def test_user_function_facts_travel_with_the_plan() -> None:
    """A user function declared with F.udf is explained like the SQL twin explained with the
    same facts in the registry (mask), not as an opaque function."""
    frame = customers.select("customer_id", mask_email("email").alias("email"))
    sql = "SELECT customer_id, mask_email(email) AS email FROM customers"
    frame_answer = prism_lineage.explain(frame)
    assert_same_answers(frame_answer, prism_lineage.explain(sql, SCHEMA, "duckdb", functions=USER_FUNCTIONS))
    email = frame_answer.statements[0].fields[1]
    assert [(s.column, s.transformation) for s in email.sources] == [("customers.email", "mask")]


def assert_same_answers(frame_answer, sql_answer) -> None:
    ours, theirs = frame_answer.model_dump(), sql_answer.model_dump()
    assert len(ours["statements"]) == len(theirs["statements"]) == 1
    mine, twin = ours["statements"][0], theirs["statements"][0]
    assert [f["name"] for f in mine["fields"]] == [f["name"] for f in twin["fields"]]
    for field, twin_field in zip(mine["fields"], twin["fields"]):
        assert field["sources"] == twin_field["sources"], f"field {field['name']} differs"
    assert mine["uncertain"] == twin["uncertain"]
    assert (mine["kind"], mine["target"]) == (twin["kind"], twin["target"])
