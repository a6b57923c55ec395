-- dialect: duckdb
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: an expression around COLUMNS(*) is applied to each column: max(id), max(a), max(b), named id, a, b
SELECT max(COLUMNS(*)) FROM t1
