-- dialect: duckdb
-- schema: shop.yaml
-- description: DuckDB ARRAY_AGG(x ORDER BY y LIMIT n): sort from y (aggregate key order), value only from x
SELECT ARRAY_AGG(name ORDER BY country LIMIT 2) AS names FROM customers
