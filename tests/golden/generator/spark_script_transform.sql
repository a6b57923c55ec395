-- dialect: spark
-- schema: {"t": {"id": "int", "a": "int", "b": "string"}}
-- description: SELECT TRANSFORM … USING 'script' AS (x, y): one column per listed name, each possibly from every input column (a script nobody describes: conservative, said) (field trial 32)
SELECT TRANSFORM(a, b) USING 'python3 clean.py' AS (x string, y string) FROM t WHERE id > 0
