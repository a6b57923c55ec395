-- dialect: duckdb
-- schema: shop.yaml
-- description: HAVING status where status is a select alias and an ungrouped column (trial 27): DuckDB reads the alias (control from amount), never the column
SELECT customer_id, SUM(amount) AS status FROM orders GROUP BY customer_id HAVING status > 100
