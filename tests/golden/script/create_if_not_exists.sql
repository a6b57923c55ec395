-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: CREATE TABLE IF NOT EXISTS over a declared table changes nothing: later statements read the declared columns
CREATE TABLE IF NOT EXISTS customers (customer_id BIGINT, nickname VARCHAR);
SELECT name FROM customers;
