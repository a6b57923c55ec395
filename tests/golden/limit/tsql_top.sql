-- dialect: tsql
-- schema: shop.yaml
-- description: T-SQL TOP
SELECT TOP 5 name FROM customers ORDER BY country
