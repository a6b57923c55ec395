"""rename() and drop(): columns keep their lineage under the new name; dropped ones are gone."""
from frame_tables import customers

plan = customers.rename({"name": "customer_name"}).drop("email", "country")
