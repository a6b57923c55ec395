-- dialect: postgres
-- schema: shop_writes.yaml
-- description: ALTER VIEW … RENAME TO and a renamed view column: through the script the view's query answers under the new names
-- through-script: yes
CREATE VIEW big_orders AS SELECT order_id, amount FROM orders WHERE amount > 1000;
ALTER VIEW big_orders RENAME TO large_orders;
ALTER TABLE large_orders RENAME COLUMN order_id TO id;
SELECT id FROM large_orders;
