-- dialect: duckdb
-- schema: shop.yaml
-- description: a CTE named like another table hides that table
WITH orders AS (SELECT order_id, quantity * price AS amount FROM order_items) SELECT SUM(amount) AS total FROM orders
