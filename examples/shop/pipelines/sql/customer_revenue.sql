SELECT customer_id, SUM(amount) AS revenue
FROM analytics.orders
GROUP BY customer_id
