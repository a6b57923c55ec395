-- dialect: duckdb
-- schema: shop.yaml
-- description: UNION ALL merges by position: value/identity from the field in that position of each input
SELECT order_id, amount FROM orders UNION ALL SELECT order_id, price FROM order_items
