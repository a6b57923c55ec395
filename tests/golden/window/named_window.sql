-- dialect: postgres
-- schema: shop.yaml
-- description: a named WINDOW used by two calls
SELECT order_id, RANK() OVER w AS r, SUM(amount) OVER w AS s FROM orders WINDOW w AS (PARTITION BY customer_id ORDER BY amount DESC)
