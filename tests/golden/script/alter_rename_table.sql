-- dialect: postgres
-- schema: shop_writes.yaml
-- description: ALTER TABLE … RENAME TO: later statements read the declared table under its new name (per statement, a table of its own); the old name is no longer a table, said so
ALTER TABLE orders RENAME TO orders_old;
SELECT customer_id, amount FROM orders_old WHERE status = 'paid';
SELECT amount FROM orders;
