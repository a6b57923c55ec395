-- dialect: clickhouse
-- schema: shop.yaml
-- description: ClickHouse LIMIT n BY without ORDER BY (trial 31): which n rows of a group survive is arbitrary, but the BY key still decides (control)
SELECT order_id FROM orders LIMIT 3 BY customer_id
