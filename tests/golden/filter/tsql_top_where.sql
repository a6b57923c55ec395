-- dialect: tsql
-- schema: shop.yaml
-- description: T-SQL: a WHERE with a bracketed identifier
SELECT [name] FROM customers WHERE [country] <> 'NL'
