-- dialect: bigquery
-- schema: nested.yaml
-- description: BigQuery JSON_VALUE / JSON_QUERY with JSONPath
SELECT JSON_VALUE(payload, '$.customer.id') AS cid, JSON_QUERY(payload, '$.items') AS items FROM orders
