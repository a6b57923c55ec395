-- dialect: duckdb
-- schema: shop.yaml
-- description: named columns of a known table: value/identity from each base column
SELECT order_id, amount FROM orders
