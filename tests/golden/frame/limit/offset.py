"""offset() alone, over a filter: the filter's control lineage passes through."""
from frame_tables import customers
from prism_lineage.frame import col

plan = customers.filter(col("country") == "NL").select("name").offset(10)
