-- dialect: databricks
-- schema: nested.yaml
-- description: EXPLODE of a map: a key column (the map's shape) and a value column (its values)
SELECT order_id, k, v FROM orders LATERAL VIEW EXPLODE(attrs) t AS k, v
