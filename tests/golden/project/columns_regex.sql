-- dialect: duckdb
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: DuckDB COLUMNS('regex') is one output per column whose name the pattern matches (trial 07), named after the column
SELECT COLUMNS('^[ab]$') FROM t1
