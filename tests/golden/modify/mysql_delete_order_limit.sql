-- dialect: mysql
-- schema: {"t": {"id": "int", "a": "int", "b": "varchar"}}
-- description: MySQL's DELETE … ORDER BY … LIMIT removes the first rows in that order: the ordering column decides which rows (control of rows), as ORDER BY … LIMIT in a query (field trial 34)
DELETE FROM t WHERE b <> 'keep' ORDER BY a DESC LIMIT 2
