"""F.when(…).otherwise(…) is SQL's CASE: the conditions and the values are all read as the
CASE expression's inputs, like its SQL twin."""
import prism_lineage.frame.functions as F
from frame_tables import orders
from prism_lineage.frame import col

plan = orders.select("order_id", F.when(col("status") == "refunded", -col("amount"))
                     .when(col("status") == "paid", col("amount")).otherwise(0).alias("signed_amount"))
