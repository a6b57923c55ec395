-- dialect: tsql
-- schema: shop_writes.yaml
-- description: DROP TABLE of declared tables: a later read of them is read as tables not in the schema, and the answer says so for each
DROP TABLE IF EXISTS customers, returns;
SELECT c.name, r.reason FROM customers c JOIN returns r ON r.order_id = c.customer_id;
