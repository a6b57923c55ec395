-- dialect: duckdb
-- schema: shop.yaml
-- description: e.* of a schema-less table beside a known one: field 'e.*', unknown
SELECT e.*, o.order_id FROM events AS e JOIN orders AS o ON e.order_id = o.order_id
