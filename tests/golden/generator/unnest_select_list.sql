-- dialect: duckdb
-- schema: nested.yaml
-- description: UNNEST in the select list: a generator applied before the projection
SELECT order_id, UNNEST(tags) AS tag FROM orders
