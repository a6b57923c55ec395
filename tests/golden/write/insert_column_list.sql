-- dialect: postgres
-- schema: shop_writes.yaml
-- description: INSERT with a column list: each listed column is written from the query column in its position
INSERT INTO customer_totals (customer_id, total)
SELECT customer_id, SUM(amount) FROM orders WHERE status = 'paid' GROUP BY customer_id
