-- dialect: bigquery
-- schema: shop.yaml
-- description: ARRAY_AGG(x ORDER BY y LIMIT 5): y orders the array and picks the values kept: sort, never value
SELECT customer_id, ARRAY_AGG(order_id ORDER BY amount DESC LIMIT 5) AS top_orders FROM orders GROUP BY customer_id
