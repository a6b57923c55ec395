-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: through the script, an UPDATE's WHERE controls the columns it sets only (their value is the old or the new one depending on it); the other columns keep their lineage, which rows exist does not change
-- through-script: yes
CREATE TABLE seg AS SELECT customer_id, name, segment FROM customers;
UPDATE seg SET segment = 'vip' WHERE customer_id IN (SELECT customer_id FROM orders WHERE amount > 1000);
SELECT customer_id, name, segment FROM seg;
