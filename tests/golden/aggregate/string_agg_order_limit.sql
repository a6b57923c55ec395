-- dialect: bigquery
-- schema: shop.yaml
-- description: STRING_AGG(… ORDER BY … LIMIT 3): the separator and the limit are constants; the order key is sort
SELECT STRING_AGG(status, ', ' ORDER BY ordered_at LIMIT 3) AS first_statuses FROM orders
