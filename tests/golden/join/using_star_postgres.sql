-- dialect: postgres
-- schema: shop.yaml
-- description: SELECT * over a USING join in Postgres (trial 26): the merged columns first in the USING list's order, then the left side's others, then the right side's
SELECT * FROM order_items JOIN returns USING (product_id, order_id)
