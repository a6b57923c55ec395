-- dialect: duckdb
-- schema: shop.yaml
-- description: SELECT * over two USING joins in DuckDB (trial 26): each merged column stays where the leftmost side has it; a right side's other column of the same name is listed again
SELECT * FROM orders JOIN order_items USING (order_id) JOIN returns USING (order_id, product_id)
