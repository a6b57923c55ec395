-- dialect: duckdb
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: an alias of a COLUMNS item takes the regex match: \\0 is the matched text (id_x, a_x), in table order
SELECT max(COLUMNS('a|id')) + 1 AS '\0_x' FROM t1
