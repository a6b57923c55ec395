-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: RENAME COLUMN, DROP COLUMN and ADD COLUMN change a temp table's columns for the statements after them (per statement: the table's own columns)
CREATE TEMP TABLE paid AS SELECT order_id, customer_id, status, amount FROM orders WHERE status = 'paid';
ALTER TABLE paid RENAME COLUMN amount TO paid_amount;
ALTER TABLE paid DROP COLUMN status;
ALTER TABLE paid ADD COLUMN note VARCHAR;
SELECT * FROM paid;
