-- dialect: postgres
-- schema: shop_writes.yaml
-- description: a table created empty, then two INSERTs: a read through the script sees the rows of both (a column one INSERT does not write has no value from it)
-- through-script: yes
CREATE TEMP TABLE big (id bigint, amt decimal);
INSERT INTO big SELECT order_id, amount FROM orders WHERE amount > 100;
INSERT INTO big (id) SELECT order_id FROM returns;
SELECT id, amt FROM big;
