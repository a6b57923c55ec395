-- dialect: bigquery
-- schema: shop.yaml
-- description: ORDER BY an expression over several columns
SELECT name FROM customers ORDER BY LOWER(country) || name
