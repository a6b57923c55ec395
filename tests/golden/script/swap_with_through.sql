-- dialect: snowflake
-- schema: shop_writes.yaml
-- description: Snowflake's ALTER TABLE … SWAP WITH: each table takes the other's name, rows and all (through the script)
-- through-script: yes
CREATE TABLE customers_next AS SELECT customer_id, UPPER(name) AS name, country, segment FROM customers_staging WHERE NOT deleted;
ALTER TABLE customers_next SWAP WITH customers;
SELECT name FROM customers;
SELECT name FROM customers_next;
