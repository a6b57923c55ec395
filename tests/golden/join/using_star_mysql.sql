-- dialect: mysql
-- schema: shop.yaml
-- description: SELECT * over a USING join in MySQL (trial 26): the merged columns first in the left side's order (not the USING list's), then the left side's others, then the right side's
SELECT * FROM order_items JOIN returns USING (product_id, order_id)
