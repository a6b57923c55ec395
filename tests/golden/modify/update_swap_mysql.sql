-- dialect: mysql
-- schema: {"t": {"a": "int", "b": "int"}}
-- description: MySQL: SET a = b, b = a does not swap: b gets the new a, which is the old b (field trial 05)
UPDATE t SET a = b, b = a WHERE a <> b
