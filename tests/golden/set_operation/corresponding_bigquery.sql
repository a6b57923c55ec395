-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery UNION ALL CORRESPONDING (INNER): only the columns both inputs have, paired by name
SELECT customer_id, amount FROM orders UNION ALL CORRESPONDING SELECT name, customer_id FROM customers
