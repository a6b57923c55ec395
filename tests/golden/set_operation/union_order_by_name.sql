-- dialect: duckdb
-- schema: shop.yaml
-- description: ORDER BY after a UNION names an output column: sort lineage from both inputs
SELECT name FROM customers UNION SELECT name FROM products ORDER BY name DESC LIMIT 10
