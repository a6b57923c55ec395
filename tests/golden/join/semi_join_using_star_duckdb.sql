-- dialect: duckdb
-- schema: semi.yaml
-- description: SELECT * over t SEMI JOIN s USING (id): the left table's columns alone (DuckDB returns id, a, b — never s's columns), s.id and t.id decide which rows exist (join)
SELECT * FROM t SEMI JOIN s USING (id)
