-- dialect: tsql
-- schema: shop.yaml
-- description: T-SQL EXEC('…') runs a constant statement (analysed); sp_executesql of a variable is unknown
EXEC('SELECT name FROM customers');
EXEC sp_executesql @statement
