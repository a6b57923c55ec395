-- dialect: duckdb
-- schema: shop.yaml
-- description: a WITH inside a derived table
SELECT * FROM (WITH x AS (SELECT name FROM products WHERE category = 'toys') SELECT name FROM x) AS sub
