"""Struct field access on a declared struct type: nested_access, exact, with the path read."""
from frame_tables import baskets
from prism_lineage.frame import col

plan = baskets.select(col("owner")["id"].alias("owner_id"), col("owner").field("address").field("city").alias("city"),
                      col("items")[0]["sku"].alias("first_sku"), col("attributes")["colour"].alias("colour"))
