-- dialect: duckdb
-- schema: {"t": {"id": "int", "arr": "INT[]", "a": "int", "x": "int"}}
-- description: a list comprehension's variable is no column (not even t.x): the value comes from the list and what the expression and condition read, as list_transform/list_filter (field trial 36)
SELECT [x * 2 FOR x IN arr IF x > a] AS l FROM t
