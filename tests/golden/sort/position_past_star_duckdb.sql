-- dialect: duckdb
-- schema: none
-- description: ORDER BY 2 LIMIT 3 after a * over a table without a schema: position 2 is one of t's unknown columns, or x when t has one column — never x exactly
SELECT *, x FROM t ORDER BY 2 LIMIT 3
