"""A computed group key: its output column has value lineage from the expression; every
column gets grouping lineage from what the key reads; agg() may read the key by its name."""
import prism_lineage.frame.functions as F
from frame_tables import customers
from prism_lineage.frame import lit

plan = customers.group_by(F.upper("country").alias("country_code")).agg(
    F.count().alias("customers"), F.concat("country_code", lit(":"), F.max("name")).alias("sample"))
