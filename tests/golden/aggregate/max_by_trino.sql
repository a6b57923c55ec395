-- dialect: trino
-- schema: shop.yaml
-- description: Trino MAX_BY(x, y, n) (trial 28): value from x, sort from y; the count n reads no column
SELECT customer_id, MAX_BY(status, ordered_at) AS latest, MIN_BY(status, ordered_at, 3) AS first3 FROM orders GROUP BY customer_id
