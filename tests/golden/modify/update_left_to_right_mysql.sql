-- dialect: mysql
-- schema: {"t": {"a": "int", "b": "int"}}
-- description: MySQL evaluates a single-table UPDATE's assignments left to right: b = a reads the new a (a + 1), an expression of t.a (field trial 05)
UPDATE t SET a = a + 1, b = a
