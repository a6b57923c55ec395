-- dialect: spark
-- schema: shop_writes.yaml
-- description: CREATE TABLE with a column list and no query declares the table for later statements (per statement: its own columns; SELECT * lists them)
CREATE TABLE stage (id BIGINT, state STRING) USING delta;
INSERT INTO stage SELECT order_id, status FROM orders;
SELECT * FROM stage;
