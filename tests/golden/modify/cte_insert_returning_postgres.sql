-- dialect: postgres
-- schema: shop_writes.yaml
-- description: Postgres INSERT … RETURNING in a CTE: the returned rows are the inserted rows under the target's columns; a column the INSERT does not list holds its default (no source)
WITH added AS (
  INSERT INTO customer_totals (customer_id, total)
  SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id
  RETURNING customer_id, total, order_count
)
INSERT INTO daily_sales (customer_id, total, dt) SELECT customer_id, total, CAST(order_count AS varchar) FROM added
