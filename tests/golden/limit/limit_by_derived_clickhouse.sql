-- dialect: clickhouse
-- schema: shop.yaml
-- description: ClickHouse LIMIT n BY inside a derived table (trial 31): the BY keys and the order pick rows (control); the inner ORDER BY is no sort of the result
SELECT c.name, t.amount FROM customers AS c JOIN (SELECT customer_id, amount FROM orders ORDER BY ordered_at DESC LIMIT 1 BY customer_id) AS t ON t.customer_id = c.customer_id
