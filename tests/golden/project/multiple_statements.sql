-- dialect: duckdb
-- schema: shop.yaml
-- description: two statements: each is answered on its own
SELECT 1 AS one;
SELECT name FROM customers WHERE country = 'NL';
