-- dialect: duckdb
-- schema: none
-- description: HAVING total over a table without a schema (trial 27): DuckDB reads the alias whether or not orders has a column total (it is not grouped)
SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id HAVING total > 100
