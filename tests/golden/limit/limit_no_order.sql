-- dialect: bigquery
-- schema: shop.yaml
-- description: LIMIT without ORDER BY
SELECT status FROM orders WHERE amount > 10 LIMIT 1
