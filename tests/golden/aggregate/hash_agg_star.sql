-- dialect: snowflake
-- schema: {"t1": {"id": "int", "a": "int", "b": "varchar"}, "t2": {"id": "int", "a": "int", "c": "varchar"}}
-- description: COUNT(*) counts rows and reads no column; HASH_AGG(*) aggregates every column
SELECT COUNT(*) AS n, HASH_AGG(*) AS ha FROM t1
