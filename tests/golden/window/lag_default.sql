-- dialect: duckdb
-- schema: shop.yaml
-- description: LAG with offset and default: the value input is amount
SELECT order_id, LAG(amount, 1, 0) OVER (PARTITION BY customer_id ORDER BY ordered_at) AS prev FROM orders
