-- dialect: postgres
-- schema: shop.yaml
-- description: expressions over measures stay aggregate
SELECT customer_id, SUM(amount) / COUNT(*) AS avg_amount, MAX(amount) - MIN(amount) AS spread FROM orders GROUP BY customer_id
