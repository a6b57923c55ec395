-- dialect: postgres
-- schema: shop.yaml
-- description: STRING_AGG(… ORDER BY x): sort lineage from x on that measure
SELECT customer_id, STRING_AGG(status, ',' ORDER BY ordered_at) AS statuses FROM orders GROUP BY customer_id
