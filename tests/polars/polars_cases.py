"""Polars programs with their SQL twins: the golden cases of the Polars frontend.

Each case builds a LazyFrame from the named tables below and says which SQL (DuckDB's
dialect, over ``SCHEMA``) means the same; ``differences`` lists, per field, the sources only
the SQL gives and those only the Polars plan gives, where they cannot agree, and ``why``
(specs/polars.md lists them).  ``tests/golden/polars/cases/<name>.json`` holds the expected answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from prism_lineage.frontends.polars import named

SCHEMA = {
    "orders": {"order_id": "bigint", "customer_id": "bigint", "status": "varchar", "amount": "double"},
    "customers": {"customer_id": "bigint", "name": "varchar", "region": "varchar"},
    "events": {"id": "bigint", "tags": "bigint[]", "addr": "struct(city varchar, zip bigint)"},
}


def frames() -> dict[str, pl.LazyFrame]:
    orders = pl.DataFrame({"order_id": [1], "customer_id": [1], "status": ["paid"], "amount": [2.0]})
    customers = pl.DataFrame({"customer_id": [1], "name": ["a"], "region": ["EU"]})
    events = pl.DataFrame({"id": [1], "tags": [[1, 2]], "addr": [{"city": "x", "zip": 1}]})
    return {"orders": named("orders", orders), "customers": named("customers", customers),
            "events": named("events", events)}


Source = tuple[str, str, str, str]


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[dict[str, pl.LazyFrame]], pl.LazyFrame]
    sql: str | None  # None: no SQL says the same (the answer is checked against the golden file only)
    description: str
    differences: dict[str, tuple[frozenset[Source], frozenset[Source]]] = field(default_factory=dict)
    why: str = ""


def differ(sql_only: list[Source], plan_only: list[Source]) -> tuple[frozenset[Source], frozenset[Source]]:
    return frozenset(sql_only), frozenset(plan_only)


def _s(column: str, relationship: str, transformation: str, confidence: str = "exact") -> Source:
    return (column, relationship, transformation, confidence)


o = "orders"
c = "customers"

CASES = [
    Case("rfc_example",
         lambda f: f[o].filter(pl.col("status") == "paid").group_by("customer_id").agg(
             pl.col("amount").sum().alias("total_amount")),
         "SELECT customer_id, SUM(amount) AS total_amount FROM orders WHERE status = 'paid' GROUP BY customer_id",
         "the RFC's example: group_by/agg over a filter"),
    Case("select_expressions",
         lambda f: f[o].select("order_id", (pl.col("amount") * 2).alias("doubled"),
                               pl.col("status").str.to_uppercase().alias("status_upper")),
         "SELECT order_id, amount * 2 AS doubled, UPPER(status) AS status_upper FROM orders",
         "select: a column, arithmetic, a string function"),
    Case("with_columns_replace",
         lambda f: f[o].with_columns((pl.col("amount") + 1).alias("amount"), pl.lit("x").alias("tag")),
         "SELECT order_id, customer_id, status, amount + 1 AS amount, 'x' AS tag FROM orders",
         "with_columns: a column replaced in place by name, a new one appended"),
    Case("when_then_cast",
         lambda f: f[o].select(pl.when(pl.col("amount") > 100).then(pl.lit("big")).otherwise(pl.col("status"))
                               .alias("size"), pl.col("amount").cast(pl.Int64).alias("whole")),
         "SELECT CASE WHEN amount > 100 THEN 'big' ELSE status END AS size, CAST(amount AS BIGINT) AS whole "
         "FROM orders",
         "when/then/otherwise and cast"),
    Case("join_inner",
         lambda f: f[o].join(f[c], on="customer_id").select("order_id", "name"),
         "SELECT o.order_id, c.name FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id",
         "inner join on a shared key"),
    Case("join_left_coalesced",
         lambda f: f[o].join(f[c], on="customer_id", how="left"),
         "SELECT o.order_id, o.customer_id, o.status, o.amount, c.name, c.region FROM orders AS o "
         "LEFT JOIN customers AS c ON o.customer_id = c.customer_id",
         "left join: the key once (the left one), then the right's other columns"),
    Case("join_right",
         lambda f: f[o].join(f[c], on="customer_id", how="right"),
         "SELECT o.order_id, o.status, o.amount, c.customer_id, c.name, c.region FROM orders AS o "
         "RIGHT JOIN customers AS c ON o.customer_id = c.customer_id",
         "right join: the left's other columns, then the right's with its key"),
    Case("join_full_coalesced",
         lambda f: f[o].join(f[c], on="customer_id", how="full", coalesce=True).select("customer_id", "name"),
         "SELECT COALESCE(o.customer_id, c.customer_id) AS customer_id, c.name FROM orders AS o "
         "FULL JOIN customers AS c ON o.customer_id = c.customer_id",
         "full join with coalesce: the key from either side"),
    Case("join_full_suffix",
         lambda f: f[o].join(f[c], on="customer_id", how="full").select("customer_id", "customer_id_right"),
         "SELECT o.customer_id, c.customer_id AS customer_id_right FROM orders AS o "
         "FULL JOIN customers AS c ON o.customer_id = c.customer_id",
         "full join without coalesce: the right key suffixed"),
    Case("join_semi_anti",
         lambda f: f[o].join(f[c].filter(pl.col("region") == "EU"), on="customer_id", how="semi")
         .join(f[c], on="customer_id", how="anti"),
         "SELECT o.* FROM orders AS o SEMI JOIN (SELECT * FROM customers WHERE region = 'EU') AS c "
         "ON o.customer_id = c.customer_id ANTI JOIN customers AS x ON o.customer_id = x.customer_id",
         "semi and anti joins keep the left columns; the keys decide which rows (join lineage)"),
    Case("join_cross",
         lambda f: f[o].join(f[c], how="cross").select("order_id", "region"),
         "SELECT o.order_id, c.region FROM orders AS o CROSS JOIN customers AS c",
         "cross join"),
    Case("join_expression_keys",
         lambda f: f[o].join(f[c], left_on=pl.col("status").str.to_uppercase(), right_on="region")
         .select("order_id", "name"),
         "SELECT o.order_id, c.name FROM orders AS o JOIN customers AS c ON UPPER(o.status) = c.region",
         "join on an expression key"),
    Case("join_asof",
         lambda f: f[o].sort("amount").join_asof(
             f[c].with_columns(pl.col("customer_id").cast(pl.Float64).alias("amount")).sort("amount"),
             on="amount").select("order_id", "name"),
         None,
         "join_asof: a left join on an opaque nearest match of the 'on' keys (conservative join lineage)"),
    Case("group_by_forms",
         lambda f: f[o].group_by("customer_id").agg(
             pl.col("amount").filter(pl.col("status") == "paid").sum().alias("paid"),
             pl.col("order_id").n_unique().alias("orders"),
             pl.len().alias("rows"),
             (pl.col("amount").sum() / pl.len()).alias("mean_amount")),
         "SELECT customer_id, SUM(amount) FILTER (WHERE status = 'paid') AS paid, "
         "COUNT(DISTINCT order_id) AS orders, COUNT(*) AS rows, SUM(amount) / COUNT(*) AS mean_amount "
         "FROM orders GROUP BY customer_id",
         "aggregations: FILTER, distinct count, count of rows, an expression over aggregates"),
    Case("global_aggregate",
         lambda f: f[o].select(pl.col("amount").max().alias("biggest"), pl.len().alias("n")),
         "SELECT MAX(amount) AS biggest, COUNT(*) AS n FROM orders",
         "select of aggregations only: one row, an aggregate with no keys"),
    Case("window_over",
         lambda f: f[o].select("order_id", pl.col("amount").sum().over("customer_id").alias("customer_total"),
                               pl.col("amount").rank().over("customer_id", order_by="order_id").alias("r")),
         "SELECT order_id, SUM(amount) OVER (PARTITION BY customer_id) AS customer_total, "
         "RANK() OVER (PARTITION BY customer_id ORDER BY order_id) AS r FROM orders",
         "window expressions (over): partition and order give window lineage",
         differences={"r": differ([], [_s("orders.amount", "value", "window"), _s("orders.amount", "window", "window")])},
         why="Polars ranks a column's values (amount.rank()), SQL's RANK() ranks the ORDER BY: the ranked "
             "column is a value source of the Polars field"),
    Case("broadcast_aggregate",
         lambda f: f[o].with_columns((pl.col("amount") / pl.col("amount").sum()).alias("share")).select("share"),
         "SELECT amount / SUM(amount) OVER () AS share FROM orders",
         "an aggregation beside row-wise expressions: broadcast to every row (SQL's OVER ())"),
    Case("sort_head_slice",
         lambda f: f[o].sort("amount", descending=True).head(10).slice(2, 5).select("order_id"),
         # SQL keeps no derived table's order: the outer query orders its rows again, as Polars' do.
         "SELECT order_id FROM (SELECT * FROM orders ORDER BY amount DESC LIMIT 10) AS t ORDER BY amount DESC "
         "LIMIT 5 OFFSET 2",
         "sort, head and slice"),
    Case("unique",
         lambda f: f[o].select("customer_id", "status").unique(),
         "SELECT DISTINCT customer_id, status FROM orders",
         "unique over every column"),
    Case("unique_subset",
         lambda f: f[o].unique(subset=["customer_id"], keep="first").select("customer_id", "amount"),
         "SELECT customer_id, amount FROM (SELECT DISTINCT ON (customer_id) * FROM orders) AS t",
         "unique on a subset of columns: DISTINCT ON"),
    Case("concat_vertical",
         lambda f: pl.concat([f[o].select("customer_id"), f[c].select("customer_id")]),
         "SELECT customer_id FROM orders UNION ALL SELECT customer_id FROM customers",
         "vertical concat: UNION ALL by position"),
    Case("concat_diagonal",
         lambda f: pl.concat([f[o].select("customer_id", "status"), f[c].select("customer_id", "region")],
                             how="diagonal"),
         "SELECT customer_id, status, NULL AS region FROM orders UNION ALL "
         "SELECT customer_id, NULL AS status, region FROM customers",
         "diagonal concat: columns matched by name, missing ones null"),
    Case("explode",
         lambda f: f["events"].explode("tags").select("id", "tags"),
         "SELECT id, UNNEST(tags) AS tags FROM events",
         "explode: each element of the list a row (generator lineage from the list)"),
    Case("unnest_struct",
         lambda f: f["events"].unnest("addr"),
         "SELECT id, tags, addr.city AS city, addr.zip AS zip FROM events",
         "unnest: the struct's fields become columns (nested access)"),
    Case("unnest_separator",
         lambda f: f["events"].unnest("addr", separator="_"),
         "SELECT id, tags, addr.city AS addr_city, addr.zip AS addr_zip FROM events",
         "unnest with a separator: the fields are named <struct>_<field> (field trial 39: it was refused)"),
    Case("window_over_column",
         lambda f: f[o].select("customer_id", pl.col("status").over("customer_id").alias("status"),
                               pl.col("amount").over("customer_id", order_by="order_id").alias("amount")),
         None,
         "a column (no aggregation) inside .over(): its values, laid out per window, are a value source "
         "(field trial 38: it had none)"),
    Case("struct_picked_by_aggregate",
         lambda f: f["events"].group_by("id").agg(
             pl.col("addr").first(),
             pl.struct(pl.col("tags").list.len().alias("n"), pl.col("addr").struct.field("zip")).first().alias("s"),
         ).select("id", pl.col("addr").struct.field("city"), pl.col("s").struct.field("zip")),
         None,
         "a part of a struct an aggregation picks whole: of a column's struct, exactly that part; of a struct "
         "built in the plan, every input of the struct, conservatively (field trial 43: it was exact)"),
    Case("selecting_expressions",
         lambda f: f[o].select(pl.col("order_id").filter(pl.col("status") == "paid").alias("paid_order"),
                               pl.col("amount").sort_by("customer_id").alias("by_customer"),
                               pl.col("order_id").top_k_by("amount", 1).alias("top")).head(1),
         None,
         "a column's values chosen or ordered by others (filter, sort_by, top_k_by): the others are control, not "
         "value sources (field trial 47)"),
    Case("unpivot",
         lambda f: f[o].unpivot(on=["status", "amount"], index="order_id", variable_name="field",
                                value_name="val"),
         "SELECT order_id, 'status' AS field, status AS val FROM orders UNION ALL "
         "SELECT order_id, 'amount' AS field, CAST(amount AS VARCHAR) AS val FROM orders",
         "unpivot: one block of rows per column, stacked; the names carry no data, the values are each column's "
         "(cast to Polars' common type)"),
    Case("aggregation_in_aggregated_expression",
         lambda f: f[o].group_by("customer_id").agg((pl.col("amount") - pl.col("amount").mean()).alias("deviation")),
         None,
         "an aggregation inside a group's list expression ((amount - amount.mean()) per group): both over the "
         "group (it was refused with a wrong message)"),
    Case("explode_expression",
         lambda f: f["events"].select(pl.col("tags").explode()),
         None,
         "explode() as an expression: the list's elements (nested access [], exact; it was refused)"),
    Case("join_asof_layouts",
         lambda f: f[o].sort("amount").join_asof(
             f[c].with_columns(pl.col("customer_id").cast(pl.Float64).alias("level")).sort("level"),
             left_on="amount", right_on="level", by="customer_id", coalesce=False),
         None,
         "join_asof keeps the right 'on' key when its name differs (or coalesce=False) and drops the right 'by' "
         "keys (field trial 50: such plans were refused)"),
    Case("rolling",
         lambda f: f[o].sort("order_id").rolling("order_id", period="3i", group_by="customer_id").agg(
             pl.col("amount").sum().alias("recent"), pl.col("status").last()),
         "SELECT customer_id, order_id, SUM(amount) OVER w AS recent, LAST_VALUE(status) OVER w AS status "
         "FROM orders WINDOW w AS (PARTITION BY customer_id ORDER BY order_id RANGE BETWEEN 2 PRECEDING AND "
         "CURRENT ROW)",
         "rolling: every row's aggregations over its window of the index (window functions partitioned by "
         "group_by, ordered by the index; it was refused)"),
    Case("group_by_dynamic",
         lambda f: f[o].sort("order_id").group_by_dynamic("order_id", every="10i", group_by="customer_id",
                                                          include_boundaries=True).agg(
             pl.col("amount").sum().alias("total")),
         None,
         "group_by_dynamic: a group per window of the index (and the group_by keys); the label and the "
         "boundaries are computed from the index (it was refused)"),
    Case("tail",
         lambda f: f[o].sort("amount").tail(3).select("order_id"),
         None,
         "tail: the last rows by position, a limit (it was refused)"),
    Case("concat_horizontal",
         lambda f: pl.concat([f[o].select("order_id", "amount"), f[c].select("name", "region")], how="horizontal"),
         "SELECT o.order_id, o.amount, c.name, c.region FROM (SELECT order_id, amount FROM orders) AS o "
         "POSITIONAL JOIN (SELECT name, region FROM customers) AS c",
         "horizontal concat: rows paired by position, no row deciding another's (DuckDB's POSITIONAL JOIN; it was "
         "refused)"),
    Case("join_where",
         lambda f: f[o].join_where(f[c], pl.col("customer_id") < pl.col("customer_id_right"),
                                   pl.col("status") != "void").select("order_id", "name"),
         "SELECT o.order_id, c.name FROM orders AS o JOIN customers AS c ON o.customer_id < c.customer_id "
         "WHERE o.status <> 'void'",
         "join_where: a cross join filtered, read as SQL's FROM a, b WHERE: the predicate relating both sides is the "
         "join's condition (join lineage), the other a filter"),
    Case("unnest_built_struct",
         lambda f: f[o].select(pl.struct("order_id", "amount").alias("s")).unnest("s"),
         "SELECT s.order_id AS order_id, s.amount AS amount"
         " FROM (SELECT {'order_id': order_id, 'amount': amount} AS s FROM orders)",
         "a struct built in the plan and unnested again: a part read of a computed value lists every input of "
         "that value, conservatively, never exactly (field trial 12: it was a superset marked exact)",
         differences={name: differ([_s(f"orders.{name}", "value", "identity")],
                                   [_s("orders.amount", "value", "expression", "conservative"),
                                    _s("orders.order_id", "value", "expression", "conservative")])
                      for name in ("order_id", "amount")},
         why="the SQL twin reads each field of a struct its derived table builds as that field's own value, "
             "exactly (specs/nested.md 5a); the Polars lowering still lists every input of the struct, "
             "conservatively (honest, less precise)"),
    Case("struct_and_list_namespaces",
         lambda f: f["events"].select(pl.col("addr").struct.field("city").alias("city"),
                                      pl.col("tags").list.get(0).alias("first_tag"),
                                      pl.col("tags").list.len().alias("n_tags")),
         "SELECT addr.city AS city, tags[1] AS first_tag, LEN(tags) AS n_tags FROM events",
         "struct.field and list.get: nested access; list.len: an expression over the list"),
    Case("map_elements",
         lambda f: f[o].select("order_id", pl.col("amount").map_elements(lambda x: x * 2, return_dtype=pl.Float64)
                               .alias("doubled")),
         "SELECT order_id, my_udf(amount) AS doubled FROM orders",
         "map_elements: a Python function Polars' visitor does not show: opaque, reading every input column",
         differences={"doubled": differ([], [_s("orders.customer_id", "value", "opaque", "conservative"),
                                             _s("orders.order_id", "value", "opaque", "conservative"),
                                             _s("orders.status", "value", "opaque", "conservative")])},
         why="Polars' plan visitor does not show which columns a Python function reads: every input column is a "
             "conservative source, where SQL names the function's argument"),
    Case("map_batches_frame",
         lambda f: f[o].select("order_id", "amount").map_batches(lambda df: df),
         None,
         "LazyFrame.map_batches: an opaque relation (every input column may feed every output, unknown)"),
    Case("row_index_rename_drop",
         lambda f: f[o].rename({"amount": "value"}).drop("status").with_row_index("n"),
         "SELECT ROW_NUMBER() OVER () - 1 AS n, order_id, customer_id, amount AS value FROM orders",
         "rename, drop, with_row_index (a row number: no sources)"),
    Case("is_in_coalesce",
         lambda f: f[o].filter(pl.col("status").is_in(["paid", "open"])).select(
             pl.coalesce(pl.col("amount"), pl.lit(0.0)).alias("amount")),
         "SELECT COALESCE(amount, 0.0) AS amount FROM orders WHERE status IN ('paid', 'open')",
         "is_in in a filter and coalesce"),
]
