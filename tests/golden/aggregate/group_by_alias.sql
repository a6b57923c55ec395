-- dialect: bigquery
-- schema: shop.yaml
-- description: GROUP BY a select alias: the key is the aliased expression
SELECT UPPER(status) AS st, SUM(amount) AS total FROM orders GROUP BY st
