-- dialect: duckdb
-- schema: shop.yaml
-- description: UNION then INTERSECT: every input's field in the position is a value source
SELECT order_id FROM orders UNION SELECT order_id FROM returns INTERSECT SELECT order_id FROM order_items
