-- dialect: postgres
-- schema: {"t": {"a": "int", "b": "int"}}
-- description: standard SQL (Postgres, as DuckDB, Snowflake, SQL Server): every right side reads the old row, so SET a = b, b = a swaps
UPDATE t SET a = b, b = a WHERE a <> b
