-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: a later statement reads a temp table created earlier as a table of its own (per statement)
CREATE TEMP TABLE paid AS SELECT customer_id, amount FROM orders WHERE status = 'paid';
SELECT customer_id, SUM(amount) AS total FROM paid GROUP BY customer_id;
