"""A field of a column whose type is not declared: nested_access, conservative, with the reason."""
from frame_tables import baskets
from prism_lineage.frame import col

plan = baskets.select(col("extra")["source"].alias("source"))
