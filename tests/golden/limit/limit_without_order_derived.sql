-- dialect: duckdb
-- schema: shop.yaml
-- description: LIMIT without ORDER BY in a derived table: which rows survive is arbitrary, no column decides it
SELECT x.order_id FROM (SELECT order_id FROM orders LIMIT 5) AS x
