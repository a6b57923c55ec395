-- dialect: postgres
-- schema: shop_writes.yaml
-- description: CREATE TABLE t (names) AS: the listed names, by position
CREATE TABLE big_orders (id, amt) AS SELECT order_id, amount FROM orders WHERE amount > 100
