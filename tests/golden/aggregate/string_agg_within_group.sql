-- dialect: tsql
-- schema: shop.yaml
-- description: STRING_AGG(x, ',') WITHIN GROUP (ORDER BY y): y only orders the values (sort lineage)
SELECT customer_id, STRING_AGG(status, ',') WITHIN GROUP (ORDER BY ordered_at) AS statuses FROM orders GROUP BY customer_id
