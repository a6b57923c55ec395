"""PySpark programs with their SQL twins: the golden cases of the Spark Connect frontend.

Each case builds a DataFrame with PySpark's Connect API (no server: ``spark_session``) over the
tables of ``SCHEMA``; its Spark Connect plan is what the golden file ``tests/golden/spark_connect/
cases/<name>.plan.json`` holds, and its expected answer is ``<name>.json`` beside it.  ``sql`` is
the Spark SQL that means the same; ``differences`` lists, per field, the sources only the SQL
gives and those only the plan gives where they cannot agree, and ``why``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

SCHEMA = {
    "orders": {"order_id": "int", "customer_id": "int", "status": "string", "amount": "double"},
    "customers": {"customer_id": "int", "name": "string", "region": "string"},
    "events": {"id": "int", "tags": "array<int>", "addr": "struct<city:string,zip:int>"},
}

Source = tuple[str, str, str, str]


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable  # (spark, F, Window, sql_frame) -> DataFrame
    sql: str | None
    description: str
    differences: dict[str, tuple[frozenset[Source], frozenset[Source]]] = field(default_factory=dict)
    why: str = ""


def differ(sql_only: list[Source], plan_only: list[Source]) -> tuple[frozenset[Source], frozenset[Source]]:
    return frozenset(sql_only), frozenset(plan_only)


def _s(column: str, relationship: str, transformation: str, confidence: str = "exact") -> Source:
    return (column, relationship, transformation, confidence)


def _udf_case(spark, F, W, sql):
    from pyspark.sql.connect.functions import udf
    from pyspark.sql.types import DoubleType

    doubled = udf(lambda x: x * 2, DoubleType(), useArrow=False)
    return spark.read.table("orders").select("order_id", doubled("amount").alias("doubled"))


CASES = [
    Case("rfc_example",
         lambda spark, F, W, sql: spark.read.table("orders").filter(F.col("status") == "paid")
         .groupBy("customer_id").agg(F.sum("amount").alias("total_amount")),
         "SELECT customer_id, SUM(amount) AS total_amount FROM orders WHERE status = 'paid' GROUP BY customer_id",
         "Read, Filter, Aggregate: the RFC's example"),
    Case("project_expressions",
         lambda spark, F, W, sql: spark.read.table("orders").select(
             "order_id", (F.col("amount") * 2).alias("doubled"), F.upper("status").alias("status_upper"),
             F.when(F.col("amount") > 100, "big").otherwise(F.col("status")).alias("size"),
             F.col("amount").cast("int").alias("whole")),
         "SELECT order_id, amount * 2 AS doubled, UPPER(status) AS status_upper, "
         "CASE WHEN amount > 100 THEN 'big' ELSE status END AS size, CAST(amount AS INT) AS whole FROM orders",
         "Project: columns, arithmetic, functions, when/otherwise, cast"),
    Case("select_expr",
         lambda spark, F, W, sql: spark.read.table("orders").selectExpr("order_id", "amount * 2 AS doubled",
                                                                        "upper(status) AS s"),
         "SELECT order_id, amount * 2 AS doubled, UPPER(status) AS s FROM orders",
         "selectExpr: Spark SQL expression strings"),
    Case("join_condition",
         lambda spark, F, W, sql: (lambda o, c: o.join(c, o.customer_id == c.customer_id, "left")
                                   .select(o.order_id, c.region))(spark.read.table("orders"),
                                                                  spark.read.table("customers")),
         "SELECT o.order_id, c.region FROM orders AS o LEFT JOIN customers AS c ON o.customer_id = c.customer_id",
         "Join on a condition: df['col'] resolves by the DataFrame's plan_id"),
    Case("join_using",
         lambda spark, F, W, sql: spark.read.table("orders").join(spark.read.table("customers"), "customer_id"),
         "SELECT * FROM orders JOIN customers USING (customer_id)",
         "Join USING: the key once, then each side's other columns"),
    Case("join_full_using",
         lambda spark, F, W, sql: spark.read.table("orders").join(spark.read.table("customers"), "customer_id",
                                                                  "full").select("customer_id", "name"),
         "SELECT COALESCE(o.customer_id, c.customer_id) AS customer_id, c.name FROM orders AS o "
         "FULL JOIN customers AS c ON o.customer_id = c.customer_id",
         "full join USING: the key from either side"),
    Case("join_semi_anti_alias",
         lambda spark, F, W, sql: spark.read.table("orders").alias("o")
         .join(spark.read.table("customers").alias("c"), F.col("o.customer_id") == F.col("c.customer_id"), "semi")
         .join(spark.read.table("customers").alias("x"), F.col("o.customer_id") == F.col("x.customer_id"),
               "left_anti"),
         "SELECT o.* FROM orders AS o LEFT SEMI JOIN customers AS c ON o.customer_id = c.customer_id "
         "LEFT ANTI JOIN customers AS x ON o.customer_id = x.customer_id",
         "semi and anti joins, columns qualified by alias()"),
    Case("cross_join",
         lambda spark, F, W, sql: spark.read.table("orders").crossJoin(spark.read.table("customers"))
         .select("order_id", "region"),
         "SELECT order_id, region FROM orders CROSS JOIN customers",
         "crossJoin"),
    Case("aggregate_forms",
         lambda spark, F, W, sql: spark.read.table("orders").groupBy("status").agg(
             F.countDistinct("customer_id").alias("customers"), F.count("*").alias("rows"),
             F.max(F.col("amount") * 2).alias("biggest"), (F.sum("amount") / F.count("*")).alias("mean")),
         "SELECT status, COUNT(DISTINCT customer_id) AS customers, COUNT(*) AS rows, MAX(amount * 2) AS biggest, "
         "SUM(amount) / COUNT(*) AS mean FROM orders GROUP BY status",
         "aggregates: distinct count, count(*), over an expression, an expression over aggregates"),
    Case("rollup",
         lambda spark, F, W, sql: spark.read.table("orders").rollup("customer_id", "status")
         .agg(F.sum("amount").alias("total")),
         "SELECT customer_id, status, SUM(amount) AS total FROM orders GROUP BY ROLLUP (customer_id, status)",
         "Aggregate with grouping sets: rollup"),
    Case("cube",
         lambda spark, F, W, sql: spark.read.table("orders").cube("customer_id", "status")
         .agg(F.sum("amount").alias("total")),
         "SELECT customer_id, status, SUM(amount) AS total FROM orders GROUP BY CUBE (customer_id, status)",
         "Aggregate with grouping sets: cube"),
    Case("global_aggregate",
         lambda spark, F, W, sql: spark.read.table("orders").select(F.sum("amount").alias("total"),
                                                                    F.count("*").alias("rows")),
         "SELECT SUM(amount) AS total, COUNT(*) AS rows FROM orders",
         "a select of aggregates only: one row"),
    Case("window",
         lambda spark, F, W, sql: spark.read.table("orders").select(
             "order_id", F.row_number().over(W.partitionBy("customer_id").orderBy("amount")).alias("rn"),
             F.sum("amount").over(W.partitionBy("customer_id")).alias("customer_total")),
         "SELECT order_id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount) AS rn, "
         "SUM(amount) OVER (PARTITION BY customer_id) AS customer_total FROM orders",
         "window functions"),
    Case("sort_limit_offset",
         lambda spark, F, W, sql: spark.read.table("orders").orderBy(F.desc("amount")).limit(10).offset(2)
         .select("order_id"),
         # SQL keeps no derived table's order: the outer query orders its rows again, as Spark's are.
         "SELECT order_id FROM (SELECT * FROM orders ORDER BY amount DESC LIMIT 10) AS t ORDER BY amount DESC OFFSET 2",
         "Sort, Limit, Offset"),
    Case("deduplicate",
         lambda spark, F, W, sql: spark.read.table("orders").select("customer_id", "status").distinct(),
         "SELECT DISTINCT customer_id, status FROM orders",
         "Deduplicate of all columns: DISTINCT"),
    Case("deduplicate_subset",
         lambda spark, F, W, sql: spark.read.table("orders").dropDuplicates(["customer_id"])
         .select("customer_id", "amount"),
         None,
         "Deduplicate on a subset: DISTINCT ON the subset (Spark SQL has no DISTINCT ON)"),
    Case("set_operations",
         lambda spark, F, W, sql: spark.read.table("orders").select("customer_id")
         .union(spark.read.table("customers").select("customer_id"))
         .intersect(spark.read.table("customers").select("customer_id"))
         .exceptAll(spark.read.table("orders").select("order_id")),
         "((SELECT customer_id FROM orders UNION ALL SELECT customer_id FROM customers) "
         "INTERSECT SELECT customer_id FROM customers) EXCEPT ALL SELECT order_id FROM orders",
         "SetOperation: union, intersect, except all"),
    Case("union_by_name",
         lambda spark, F, W, sql: spark.read.table("orders").select("customer_id", "status")
         .unionByName(spark.read.table("customers").select("region", "customer_id")
                      .withColumnRenamed("region", "status")),
         "SELECT customer_id, status FROM orders UNION ALL SELECT customer_id, region AS status FROM customers",
         "unionByName: the right side's columns matched by name"),
    Case("with_columns_drop_rename_todf",
         lambda spark, F, W, sql: spark.read.table("orders").withColumn("amount", F.col("amount") + 1)
         .withColumns({"tag": F.lit("x")}).drop("status").withColumnRenamed("order_id", "id")
         .toDF("a", "b", "c", "d"),
         "SELECT order_id AS a, customer_id AS b, amount + 1 AS c, 'x' AS d FROM orders",
         "WithColumns (replace, add), Drop, WithColumnsRenamed, ToDF"),
    Case("sql_relation",
         lambda spark, F, W, sql: sql("SELECT o.order_id, c.region FROM orders o JOIN customers c "
                                      "ON o.customer_id = c.customer_id WHERE o.amount > 10")
         .groupBy("region").agg(F.count("order_id").alias("orders")),
         "SELECT region, COUNT(order_id) AS orders FROM (SELECT o.order_id, c.region FROM orders o JOIN customers c "
         "ON o.customer_id = c.customer_id WHERE o.amount > 10) AS t GROUP BY region",
         "a SQL relation (spark.sql) lowered by the SQL frontend, Spark dialect, with DataFrame operations on it"),
    Case("nested_access",
         lambda spark, F, W, sql: spark.read.table("events").select(F.col("addr.city").alias("city"),
                                                                    F.col("tags")[0].alias("first_tag"),
                                                                    F.size("tags").alias("n_tags")),
         "SELECT addr.city AS city, tags[0] AS first_tag, SIZE(tags) AS n_tags FROM events",
         "struct fields and array elements"),
    Case("struct_picked_by_aggregate",
         lambda spark, F, W, sql: spark.read.table("events").groupBy("id").agg(
             F.first("addr").alias("addr"),
             F.first(F.struct(F.size("tags").alias("n"), F.col("addr.zip").alias("zip"))).alias("s"),
         ).select("id", F.col("addr.city").alias("city"), F.col("s.zip").alias("zip")),
         None,
         "a part of a struct an aggregate picks whole: of a column's struct, exactly that part; of a struct built "
         "in the plan, every input of the struct, conservatively (field trial 43: it was exact, with made-up "
         "paths)"),
    Case("select_generators",
         lambda spark, F, W, sql: spark.read.table("events").select("id", F.posexplode("tags")),
         "SELECT id, POSEXPLODE(tags) FROM events",
         "a generator in a select: posexplode's two columns, pos and col (field trial 44: one column)"),
    Case("inline_constructed_structs",
         lambda spark, F, W, sql: spark.read.table("events").withColumn("tags", F.explode("tags")).select(
             "tags", F.inline(F.array(F.struct(F.col("id").alias("p"), F.col("addr.city").alias("q"))))),
         "SELECT tags, INLINE(ARRAY(STRUCT(id AS p, addr.city AS q))) FROM "
         "(SELECT id, EXPLODE(tags) AS tags, addr FROM events) AS e",
         "withColumn of explode (the element replaces the list), inline of structs built in the plan: one column "
         "per field, each from its own value (field trial 44)"),
    Case("count_if",
         lambda spark, F, W, sql: spark.read.table("orders").groupBy("customer_id").agg(
             F.count_if(F.col("amount") > 100).alias("big"), F.expr("count_if(status = 'paid')").alias("paid")),
         "SELECT customer_id, COUNT_IF(amount > 100) AS big, COUNT_IF(status = 'paid') AS paid FROM orders "
         "GROUP BY customer_id",
         "count_if(c) is COUNT(*) FILTER (WHERE c): the condition is control, not a value (field trial 45)"),
    Case("unpivot",
         lambda spark, F, W, sql: spark.read.table("orders").unpivot(
             "order_id", ["status", F.col("customer_id").cast("string").alias("customer")], "field", "val"),
         "SELECT order_id, 'status' AS field, status AS val FROM orders UNION ALL "
         "SELECT order_id, 'customer' AS field, CAST(customer_id AS STRING) AS val FROM orders",
         "unpivot (melt): one block of rows per value column, stacked; names carry no data (the DataFrame "
         "unpivot keeps nulls, unlike SQL's UNPIVOT clause)"),
    Case("na_functions",
         lambda spark, F, W, sql: spark.read.table("orders").fillna("none").fillna({"amount": 0.0})
         .dropna(subset=["customer_id"]).replace("paid", "settled", subset=["status"]),
         "SELECT order_id, customer_id, CASE WHEN status = 'paid' THEN 'settled' ELSE status END AS status, amount "
         "FROM (SELECT order_id, customer_id, COALESCE(status, 'none') AS status, COALESCE(amount, 0.0) AS amount "
         "FROM orders) AS t WHERE customer_id IS NOT NULL",
         "df.na: fillna (a string fills the string columns), dropna (a filter on the subset's nulls), replace"),
    Case("pivot",
         lambda spark, F, W, sql: spark.read.table("orders").groupBy("customer_id").pivot("status", ["paid", "open"])
         .agg(F.sum("amount").alias("total"), F.count("order_id").alias("n")),
         "SELECT customer_id, SUM(amount) FILTER (WHERE status = 'paid') AS paid_total, "
         "COUNT(order_id) FILTER (WHERE status = 'paid') AS paid_n, SUM(amount) FILTER (WHERE status = 'open') AS "
         "open_total, COUNT(order_id) FILTER (WHERE status = 'open') AS open_n FROM orders GROUP BY customer_id",
         "pivot with listed values: per value, each aggregate FILTER (WHERE pivot column = value) (it was refused)"),
    Case("python_udf",
         _udf_case,
         "SELECT order_id, doubled(amount) AS doubled FROM orders",
         "a Python UDF: opaque, conservative, from its arguments"),
    Case("is_in_coalesce",
         lambda spark, F, W, sql: spark.read.table("orders").filter(F.col("status").isin("paid", "open"))
         .select(F.coalesce(F.col("amount"), F.lit(0.0)).alias("amount")),
         "SELECT COALESCE(amount, 0.0) AS amount FROM orders WHERE status IN ('paid', 'open')",
         "isin in a filter, coalesce"),
]
