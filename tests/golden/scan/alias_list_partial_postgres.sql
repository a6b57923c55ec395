-- dialect: postgres
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: a table alias naming fewer columns than the table has renames the first ones; the rest keep their names, in * and written by position (field trial 25)
INSERT INTO t2 SELECT * FROM t1 AS s(x, y) WHERE s.b <> 'z'
