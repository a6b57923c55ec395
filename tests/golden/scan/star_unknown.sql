-- dialect: duckdb
-- schema: none
-- description: SELECT * over a table without a schema: one field '*' with unknown lineage from events.*, said in uncertain
SELECT * FROM events
