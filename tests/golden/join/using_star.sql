-- dialect: duckdb
-- schema: shop.yaml
-- description: SELECT * over a USING join in DuckDB (trial 26): the left side's columns in their order, the merged column where the left side has it, then the right side without it
SELECT * FROM order_items JOIN products USING (product_id)
