-- dialect: duckdb
-- schema: {"t": {"id": "int", "a": "int", "b": "varchar"}}
-- description: DuckDB's #n is the n-th column of the FROM clause (named after it), in ORDER BY the n-th select item — never a constant (field trial 35)
SELECT #3, #2 AS q FROM t WHERE #1 > 1 ORDER BY #2 LIMIT 1
