-- dialect: duckdb
-- schema: shop.yaml
-- description: ANTI JOIN
SELECT c.name FROM customers AS c ANTI JOIN orders AS o ON o.customer_id = c.customer_id
