-- dialect: duckdb
-- schema: shop.yaml
-- description: a top-N derived table: its ORDER BY picks the rows the outer query reads (control), it orders nothing the outer query shows (no sort)
SELECT x.order_id FROM (SELECT order_id, amount FROM orders ORDER BY amount DESC LIMIT 3) AS x
