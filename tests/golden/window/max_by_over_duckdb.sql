-- dialect: duckdb
-- schema: shop.yaml
-- description: MAX_BY(x, y) OVER and ARRAY_AGG(x ORDER BY y) OVER (trial 28): y shapes the window's value (window), x is the value
SELECT order_id, MAX_BY(status, ordered_at) OVER (PARTITION BY customer_id) AS latest, ARRAY_AGG(status ORDER BY amount) OVER (PARTITION BY customer_id) AS statuses FROM orders
