-- dialect: duckdb
-- schema: shop.yaml
-- description: a top-N derived table: its sort and limit shape the outer rows
SELECT x.order_id FROM (SELECT order_id, amount FROM orders ORDER BY amount DESC LIMIT 3) AS x
