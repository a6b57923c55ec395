-- dialect: hive
-- schema: nested.yaml
-- description: Hive LATERAL VIEW OUTER POSEXPLODE: the position reads the array's shape, the element the array's elements
SELECT order_id, pos, tag FROM orders LATERAL VIEW OUTER POSEXPLODE(tags) t AS pos, tag
