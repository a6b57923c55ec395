-- dialect: snowflake
-- schema: shop.yaml
-- description: a ROWS frame with literal offsets adds no column
SELECT order_id, AVG(amount) OVER (PARTITION BY customer_id ORDER BY ordered_at ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS moving FROM orders
