-- dialect: postgres
-- schema: shop.yaml
-- description: COUNT(DISTINCT x)
SELECT customer_id, COUNT(DISTINCT status) AS statuses FROM orders GROUP BY customer_id
