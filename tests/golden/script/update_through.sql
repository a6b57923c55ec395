-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: an UPDATE of a script table: a later read sees the created rows and the updated ones (the UPDATE's WHERE controls them)
-- through-script: yes
CREATE TABLE seg AS SELECT customer_id, segment FROM customers;
UPDATE seg SET segment = 'vip' WHERE customer_id IN (SELECT customer_id FROM orders WHERE amount > 1000);
SELECT segment FROM seg;
