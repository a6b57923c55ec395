-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery LEFT UNION ALL BY NAME ON (…): the listed columns, paired by name
SELECT customer_id, amount, status FROM orders LEFT UNION ALL BY NAME ON (customer_id, amount) SELECT amount, customer_id FROM orders WHERE status = 'void'
