-- dialect: spark
-- schema: shop_writes.yaml
-- description: INSERT into a table the schema does not declare, without a column list: columns named after the query's, said in uncertain
INSERT INTO staging.order_copy
SELECT order_id, amount FROM orders
