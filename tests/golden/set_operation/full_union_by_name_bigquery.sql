-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery FULL UNION ALL BY NAME: every column of either input, NULL where one lacks it; LEFT keeps the left input's columns
SELECT u.name, u.amount FROM (SELECT customer_id, amount FROM orders FULL UNION ALL BY NAME SELECT name, customer_id FROM customers) AS u
