-- dialect: bigquery
-- schema: nested.yaml
-- description: BigQuery: UNNEST(...) AS item WITH OFFSET AS pos (comma join); item.sku is a field of the element
SELECT o.order_id, item.sku, pos FROM orders AS o, UNNEST(o.items) AS item WITH OFFSET AS pos
