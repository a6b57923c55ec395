-- dialect: duckdb
-- schema: shop.yaml
-- description: a qualified EXCLUDE (o.customer_id) over a join drops only that FROM item's column; c.customer_id stays where c's columns stand (DuckDB: order_id, status, amount, ordered_at, customer_id, name, country, segment)
SELECT * EXCLUDE (o.customer_id) FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id
