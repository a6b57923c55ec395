"""A user function declared as a mask travels with the plan: its output is `mask`, exact."""
import prism_lineage.frame.functions as F
from frame_tables import customers

mask_email = F.udf("mask_email", transformation="mask", doc="keeps the domain, hides the user")
plan = customers.select("customer_id", mask_email("email").alias("email"))
