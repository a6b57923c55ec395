-- dialect: postgres
-- schema: shop.yaml
-- description: GROUPING SETS: every key of every set is grouping lineage
SELECT customer_id, status, SUM(amount) AS total FROM orders GROUP BY GROUPING SETS ((customer_id), (status), ())
