-- dialect: postgres
-- schema: shop_writes.yaml
-- description: INSERT … ON CONFLICT DO UPDATE is a MERGE: inserted values, and the update's own reads, on the conflict key
INSERT INTO customer_totals (customer_id, total)
SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id
ON CONFLICT (customer_id) DO UPDATE SET total = customer_totals.total + EXCLUDED.total
