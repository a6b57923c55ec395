-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB renames a CTE's duplicate output names (trial 30): * over it lists order_id, product_id, quantity, price, order_id_1, product_id_1, reason
WITH j AS (SELECT * FROM order_items AS i JOIN returns AS r ON r.order_id = i.order_id) SELECT * FROM j
