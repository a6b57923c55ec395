"""A path into JSON: semi_structured_access, conservative (the document's shape is not
declared), with the path and the reason."""
from frame_tables import baskets
from prism_lineage.frame import col

plan = baskets.select("basket_id", col("payload").json("$.customer.id").alias("customer_id"),
                      col("payload").json("$.lines[0].price").alias("first_price"))
