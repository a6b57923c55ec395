-- dialect: mysql
-- schema: {"t": {"id": "int", "a": "int", "b": "varchar"}}
-- description: MySQL's UPDATE … ORDER BY … LIMIT sets the first rows in that order: the ordering column is control of the set column (old or new value) and of rows (field trial 34)
UPDATE t SET b = 'x' ORDER BY a, id LIMIT 1
