-- dialect: clickhouse
-- schema: shop.yaml
-- description: ClickHouse argMax/argMin (trial 28): value from x, sort from y
SELECT customer_id, argMax(status, ordered_at) AS latest, argMin(status, ordered_at) AS first FROM orders GROUP BY customer_id
