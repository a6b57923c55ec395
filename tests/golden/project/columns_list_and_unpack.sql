-- dialect: duckdb
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: COLUMNS(list) picks the named columns in table order; *COLUMNS unpacks them as arguments of one call; REPLACE inside COLUMNS(*) replaces one value
SELECT COLUMNS(['b', 'a']), coalesce(*COLUMNS(['a', 'id'])) AS c, COLUMNS(* REPLACE (a + 1 AS a)) FROM t1
