-- dialect: postgres
-- schema: {"x": {"a": "int", "b": "int"}, "y": {"b": "int", "c": "int"}}
-- description: a parenthesized join headed by an aliased derived table (sqlglot hangs the joins on the derived table's Subquery): y and the join stay (field trial 24)
SELECT * FROM ((SELECT * FROM x) AS s INNER JOIN y ON s.a = y.c)
