"""A user function whose second argument only decides how the value is computed
(value_args=[0]): value lineage from the first argument, control lineage from the second."""
import prism_lineage.frame.functions as F
from frame_tables import orders

convert = F.udf("convert_currency", value_args=[0])
plan = orders.select("order_id", convert("amount", "status").alias("amount_eur"))
