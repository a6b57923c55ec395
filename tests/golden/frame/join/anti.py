"""An anti join: like a semi join, the right side decides which left rows are kept."""
from frame_tables import customers, orders

plan = customers.join(orders, on=customers["customer_id"] == orders["customer_id"], how="anti").select("customer_id")
