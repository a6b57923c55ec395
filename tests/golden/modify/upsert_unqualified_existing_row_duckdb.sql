-- dialect: duckdb
-- schema: shop_writes.yaml
-- description: in DuckDB's (and SQLite's) DO UPDATE an unqualified column is the existing row's: total grows by the inserted total; PostgreSQL refuses the same statement as ambiguous
INSERT INTO customer_totals (customer_id, total, order_count)
SELECT customer_id, SUM(amount), COUNT(*) FROM orders GROUP BY customer_id
ON CONFLICT (customer_id) DO UPDATE SET total = total + excluded.total, order_count = order_count + excluded.order_count
WHERE total < 1000000
