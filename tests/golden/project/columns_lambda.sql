-- dialect: duckdb
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: a lambda picks columns prism_lineage does not evaluate: one field standing for them, every column conservative, said under uncertain
SELECT COLUMNS(lambda c: c LIKE '%a%') FROM t1
