-- dialect: duckdb
-- schema: shop.yaml
-- description: RIGHT JOIN … USING: the merged column is the right one
SELECT customer_id FROM orders RIGHT JOIN customers USING (customer_id)
