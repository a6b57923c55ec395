-- dialect: duckdb
-- schema: shop.yaml
-- description: a derived table's ORDER BY without a limit orders rows nobody sees: no edge outside it
SELECT x.name FROM (SELECT name, country FROM customers ORDER BY country) AS x
