-- dialect: postgres
-- schema: shop_writes.yaml
-- description: after DROP, the name is no longer the script's table: it is read as a table not in the schema, and the answer says so
-- through-script: yes
CREATE TEMP TABLE t AS SELECT order_id FROM orders;
SELECT order_id FROM t;
DROP TABLE t;
SELECT order_id FROM t;
