-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: through the script, a renamed declared table's rows are the base table's: a new table built from it under the old name reaches the base columns
-- through-script: yes
ALTER TABLE orders RENAME TO orders_old;
CREATE TABLE orders AS SELECT order_id, customer_id, amount FROM orders_old WHERE status <> 'void';
SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id;
