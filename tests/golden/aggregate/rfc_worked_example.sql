-- dialect: duckdb
-- schema: shop.yaml
-- description: the RFC's worked example: value from amount, grouping from customer_id, control from status
SELECT customer_id, SUM(amount) AS total_amount FROM orders WHERE status = 'paid' GROUP BY customer_id
