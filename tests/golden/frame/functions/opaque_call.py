"""A function nobody described (F.call) is opaque: conservative, every argument assumed to
flow into its result, with the reason."""
import prism_lineage.frame.functions as F
from frame_tables import customers

plan = customers.select(F.call("geocode", "country", "name").alias("location"))
