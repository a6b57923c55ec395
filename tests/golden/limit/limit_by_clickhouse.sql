-- dialect: clickhouse
-- schema: shop.yaml
-- description: ClickHouse LIMIT n BY keys (trial 31): the first n rows per customer in the ORDER BY's order — control from the BY key and the order key on every field; sort from the order key
SELECT customer_id, order_id, amount FROM orders ORDER BY amount DESC LIMIT 2 BY customer_id
