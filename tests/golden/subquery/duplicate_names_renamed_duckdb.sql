-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB renames a derived table's duplicate output names (trial 30): the second customer_id is customer_id_1, addressable so
SELECT customer_id_1, customer_id FROM (SELECT o.customer_id, c.customer_id FROM orders AS o JOIN customers AS c ON c.customer_id = o.customer_id) AS s
