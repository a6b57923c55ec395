-- dialect: spark
-- schema: shop.yaml
-- description: Spark MAX_BY/MIN_BY (trial 28): value from x, sort from y
SELECT customer_id, MAX_BY(status, ordered_at) AS latest, MIN_BY(status, ordered_at) AS first FROM orders GROUP BY customer_id
