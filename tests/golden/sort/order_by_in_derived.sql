-- dialect: duckdb
-- schema: shop.yaml
-- description: the order of a derived table flows into the outer query
SELECT x.name FROM (SELECT name, country FROM customers ORDER BY country) AS x
