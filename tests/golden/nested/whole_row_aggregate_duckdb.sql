-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB: a table name as a value (SELECT customers FROM customers) and ARRAY_AGG of a whole row
SELECT c.customer_id, ARRAY_AGG(o) AS customer_orders FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id GROUP BY c.customer_id
