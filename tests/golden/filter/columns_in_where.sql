-- dialect: duckdb
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: COLUMNS(*) in WHERE repeats the condition for every column (AND): each column is control
SELECT id FROM t1 WHERE COLUMNS(*) IS NOT NULL
