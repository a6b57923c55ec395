-- dialect: spark
-- schema: shop_writes.yaml
-- description: Spark's ADD COLUMNS (…), CHANGE COLUMN (rename and retype) and DROP COLUMNS (…): a later INSERT writes by the new columns' positions, a read through the script sees both writes
-- through-script: yes
CREATE TABLE stage AS SELECT order_id, status, amount FROM orders;
ALTER TABLE stage ADD COLUMNS (fx_rate DOUBLE, source STRING);
ALTER TABLE stage CHANGE COLUMN amount amount_eur DECIMAL(12, 2);
ALTER TABLE stage DROP COLUMNS (source);
INSERT INTO stage SELECT order_id, status, amount * 0.9, 0.9 FROM orders WHERE status = 'paid';
SELECT amount_eur, fx_rate FROM stage;
