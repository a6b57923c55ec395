-- dialect: postgres
-- schema: shop.yaml
-- description: an aggregate FILTER (WHERE …) is control lineage of that measure only
SELECT customer_id, SUM(amount) FILTER (WHERE status = 'paid') AS paid, SUM(amount) AS total FROM orders GROUP BY customer_id
