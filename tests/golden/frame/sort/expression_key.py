"""A sort key computed from a column not in the output: still sort lineage from it."""
import prism_lineage.frame.functions as F
from frame_tables import customers

plan = customers.sort(F.lower("name")).select("customer_id")
