-- dialect: duckdb
-- schema: shop.yaml
-- description: SELECT * over a USING join: the merged column first, then each side without it
SELECT * FROM order_items JOIN products USING (product_id)
