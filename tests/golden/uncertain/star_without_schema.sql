-- dialect: duckdb
-- schema: none
-- description: SELECT * over a table without a schema: the columns it stands for are unknown, said so
SELECT * FROM events_raw
