-- dialect: bigquery
-- schema: shop.yaml
-- description: BigQuery: a table alias used as a value is the whole row, every column of that table (TO_JSON_STRING(c), STRUCT(c), SELECT c)
SELECT o.order_id, TO_JSON_STRING(c) AS customer_json, STRUCT(c) AS customer_struct, c AS customer
FROM orders AS o JOIN customers AS c ON c.customer_id = o.customer_id
