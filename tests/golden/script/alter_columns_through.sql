-- dialect: bigquery
-- schema: shop_writes.yaml
-- description: through the script, a renamed column keeps its rows' lineage under its new name, a dropped one is gone, an added one has no value until an UPDATE writes it
-- through-script: yes
CREATE TEMP TABLE paid AS SELECT order_id, customer_id, status, amount FROM orders WHERE status = 'paid';
ALTER TABLE paid RENAME COLUMN amount TO paid_amount;
ALTER TABLE paid DROP COLUMN status;
ALTER TABLE paid ADD COLUMN note STRING;
UPDATE paid SET note = 'big' WHERE paid_amount > 100;
SELECT * FROM paid;
