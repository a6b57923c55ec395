"""A built-in hash (sha2) is a mask in the function registry."""
import prism_lineage.frame.functions as F
from frame_tables import customers

plan = customers.select(F.sha2("email").alias("email_hash"), F.md5(F.lower("name")).alias("name_hash"))
