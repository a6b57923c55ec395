"""explode("items") puts each element in place of the array: a generated column with value
lineage (generator) from items at path items[]; a field of the element is read at items[].sku."""
from frame_tables import baskets
from prism_lineage.frame import col

plan = baskets.explode("items").select("basket_id", col("items")["sku"].alias("sku"), col("items").field("qty"))
