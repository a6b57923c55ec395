-- dialect: bigquery
-- schema: shop.yaml
-- description: HAVING COUNT(*) > 10 reads no column
SELECT status FROM orders GROUP BY status HAVING COUNT(*) > 10
