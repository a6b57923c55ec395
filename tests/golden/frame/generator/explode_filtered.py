"""A filter before explode controls the generated rows too (they are made from its rows)."""
from frame_tables import baskets
from prism_lineage.frame import col

plan = baskets.filter(col("basket_id") > 100).explode("tags", name="tag").select("tag")
