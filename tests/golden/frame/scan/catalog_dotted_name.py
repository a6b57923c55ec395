"""A table found in a catalog by the last parts of its dotted name; answers spell it as the
catalog does."""
from prism_lineage.frame import col, table

CATALOG = {"warehouse": {"sales": {"orders": {"id": "bigint", "total": "decimal(12, 2)"}}}}
plan = table("sales.orders", catalog=CATALOG).select(col("orders.id"), "total")
