-- dialect: duckdb
-- schema: shop.yaml
-- description: ORDER BY ALL DESC LIMIT 1 (DuckDB, Databricks) orders by every select item left to right; with the limit they decide which row exists (control), and sort the result
SELECT customer_id, amount FROM orders ORDER BY ALL DESC LIMIT 1
