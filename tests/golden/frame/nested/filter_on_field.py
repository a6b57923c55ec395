"""A filter on a struct field: control lineage from the column, at that path."""
from frame_tables import baskets
from prism_lineage.frame import col

plan = baskets.filter(col("owner")["address"]["zip"] == "1011").select("basket_id")
