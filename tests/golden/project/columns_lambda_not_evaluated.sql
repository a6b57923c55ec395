-- dialect: duckdb
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: a lambda in a form prism_lineage does not evaluate (length(c)): one field standing for the columns it picks, every column conservative, the part not evaluated named under uncertain
SELECT COLUMNS(lambda c: length(c) = 1 AND c LIKE '%a%') FROM t1
