-- dialect: duckdb
-- schema: shop.yaml
-- description: a bare column is identity, anything computed is expression
SELECT order_id, amount * 1.1 AS gross, UPPER(status) AS s FROM orders
