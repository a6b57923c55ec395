-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: through the script, the temp table's rows are its query's: lineage reaches the base table (as with a CTE)
-- through-script: yes
CREATE TEMP TABLE paid AS SELECT customer_id, amount FROM orders WHERE status = 'paid';
SELECT customer_id, SUM(amount) AS total FROM paid GROUP BY customer_id;
