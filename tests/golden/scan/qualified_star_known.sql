-- dialect: duckdb
-- schema: shop.yaml
-- description: c.* expands to the columns of customers only
SELECT c.*, o.amount FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id
