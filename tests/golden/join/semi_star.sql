-- dialect: duckdb
-- schema: shop.yaml
-- description: SELECT * over a SEMI JOIN lists the left side's columns only (the right side is only read by the condition)
SELECT * FROM customers AS c SEMI JOIN orders AS o ON o.customer_id = c.customer_id
