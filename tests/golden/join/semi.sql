-- dialect: duckdb
-- schema: shop.yaml
-- description: SEMI JOIN: only the left side's fields, join lineage from the condition
SELECT c.name FROM customers AS c SEMI JOIN orders AS o ON o.customer_id = c.customer_id
