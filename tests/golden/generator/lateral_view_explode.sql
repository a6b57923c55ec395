-- dialect: spark
-- schema: nested.yaml
-- description: Spark LATERAL VIEW EXPLODE(array) t AS tag
SELECT order_id, tag FROM orders LATERAL VIEW EXPLODE(tags) t AS tag
