-- dialect: duckdb
-- schema: nested.yaml
-- description: CROSS JOIN UNNEST: each element is a generated row; a field of it is read at items[].sku
SELECT o.order_id, i.sku, i.qty FROM orders AS o CROSS JOIN UNNEST(o.items) AS i
