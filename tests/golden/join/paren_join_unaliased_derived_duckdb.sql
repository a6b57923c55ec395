-- dialect: duckdb
-- schema: {"x": {"a": "int", "b": "int"}, "y": {"b": "int", "c": "int"}, "z": {"b": "int", "c": "int"}}
-- description: an unaliased derived table heading a parenthesized join is a derived table, not a table named by its SQL; the group nests (field trial 24)
SELECT a, y.b, z.c FROM (((SELECT a FROM x) JOIN y ON a = y.c) JOIN z ON z.b = y.b)
